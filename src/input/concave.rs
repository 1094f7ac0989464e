//! Concave outlines (scene format 1.2): the rules an outline must pass
//! ([`check_outline`]) and its cut into convex pieces that the library's polygon rules
//! accept ([`convex_pieces`]).
//!
//! Edge `k` joins vertex `k` to vertex `k + 1` (the last edge joins the last vertex to
//! vertex 0); messages number vertices and edges from 0, as the polygon rules do.
//!
//! Every geometric decision is an exact orientation test (see `orientation`), so the
//! checks and the cut agree with each other on every input, however nearly straight or
//! thin the outline.

use crate::input::shapes::MAX_POLYGON_VERTICES;
use glam::Vec2;

/// The most vertices a concave outline may have. The format asks for at least 256; the
/// checks are quadratic in the vertex count and stay within milliseconds here.
pub const MAX_CONCAVE_VERTICES: usize = 1024;

/// A point in f64, converted from f32: every coordinate is an f32 value.
type Point = [f64; 2];

/// Checks the rules of a concave outline: 3 to [`MAX_CONCAVE_VERTICES`] finite vertices,
/// no vertex repeated, not all on one line (non-zero area), and simple: no two edges
/// cross or touch, except neighbours at their shared vertex. Either winding; straight
/// (collinear) vertices on a side are allowed. The refusal is the broken rule, naming the
/// vertex or the edges (the first pair in order, lowest edge first).
pub fn check_outline(vertices: &[Vec2]) -> Result<(), String> {
    let n = vertices.len();
    if !(3..=MAX_CONCAVE_VERTICES).contains(&n) {
        return Err(format!(
            "has {n} vertices, must have 3 to {MAX_CONCAVE_VERTICES}"
        ));
    }
    if let Some(k) = vertices.iter().position(|v| !v.is_finite()) {
        return Err(format!("vertex {k} is not finite"));
    }
    let v = points(vertices);
    if let Some((first, again)) = repeated_vertex(&v) {
        return Err(format!("vertex {again} repeats vertex {first}"));
    }
    if (2..n).all(|k| orientation(v[0], v[1], v[k]) == 0) {
        return Err("has zero area: its vertices lie on one line".to_string());
    }
    // Neighbours share a vertex; they meet anywhere else only when the outline turns
    // straight back along itself there.
    for k in 0..n {
        let (a, b, c) = (v[k], v[(k + 1) % n], v[(k + 2) % n]);
        if orientation(a, b, c) == 0 && turns_back(a, b, c) {
            let (first, second) = (k.min((k + 1) % n), k.max((k + 1) % n));
            return Err(format!("edges {first} and {second} overlap"));
        }
    }
    // Every pair of edges that are not neighbours: quadratic, which is a few
    // milliseconds for MAX_CONCAVE_VERTICES (boxes reject most pairs).
    let boxes: Vec<[f64; 4]> = (0..n).map(|k| segment_box(v[k], v[(k + 1) % n])).collect();
    for i in 0..n {
        let (a, b) = (v[i], v[(i + 1) % n]);
        let last = if i == 0 { n - 1 } else { n };
        for j in i + 2..last {
            let (bi, bj) = (&boxes[i], &boxes[j]);
            if bi[0] > bj[2] || bj[0] > bi[2] || bi[1] > bj[3] || bj[1] > bi[3] {
                continue;
            }
            match meeting(a, b, v[j], v[(j + 1) % n]) {
                Meeting::Apart => {}
                Meeting::Cross => return Err(format!("edges {i} and {j} cross")),
                Meeting::Touch => return Err(format!("edges {i} and {j} touch")),
            }
        }
    }
    Ok(())
}

/// Cuts an outline that passed [`check_outline`] into convex pieces whose union is the
/// outline's region and whose interiors do not overlap. Each piece is counter-clockwise
/// and strictly convex with 3 to [`MAX_POLYGON_VERTICES`] vertices, no three consecutive
/// ones on a line (so `ShapeLibrary` accepts it as a polygon), all of them outline
/// vertices. A convex outline comes back as one piece (split only past
/// `MAX_POLYGON_VERTICES`).
///
/// The cut: the outline's straight vertices are dropped, and the rest cut along
/// diagonals (segments between two of its vertices, inside it). Up to
/// `FEWEST_PIECES_LIMIT` (256) vertices into the fewest pieces any such cut makes
/// (`fewest_pieces`); larger outlines by triangulating (clipping ears) and merging
/// triangles across their diagonals while the union stays convex (Hertel and
/// Mehlhorn), which leaves at most `2r + 1` pieces for `r` reflex vertices. No piece
/// has a vertex of its own: one inside the outline would be rounded to f32, and the
/// pieces would then no longer be exactly the outline.
///
/// An outline that breaks the rules gets no promise beyond returning: the pieces may
/// then miss part of it.
pub fn convex_pieces(vertices: &[Vec2]) -> Vec<Vec<Vec2>> {
    if vertices.len() < 3 || vertices.iter().any(|v| !v.is_finite()) {
        return Vec::new();
    }
    let all = points(vertices);
    let mut order: Vec<usize> = (0..all.len()).collect();
    if signed_area_sign(&all) < 0 {
        order.reverse();
    }
    // Straight vertices say nothing about the region: without them every vertex turns.
    let m = order.len();
    let corners: Vec<usize> = (0..m)
        .filter(|&k| {
            let (a, b, c) = (order[(k + m - 1) % m], order[k], order[(k + 1) % m]);
            orientation(all[a], all[b], all[c]) != 0
        })
        .map(|k| order[k])
        .collect();
    if corners.len() < 3 {
        return Vec::new();
    }
    let pieces = if corners
        .iter()
        .enumerate()
        .all(|(k, _)| turn(&all, &corners, k) > 0)
    {
        vec![corners]
    } else if corners.len() <= FEWEST_PIECES_LIMIT {
        fewest_pieces(&all, &corners).unwrap_or_default()
    } else {
        let merged = best_merged_triangulation(&all, &corners);
        let paired = pair_reflex_vertices(&all, &corners);
        if paired.len() < merged.len() {
            paired
        } else {
            merged
        }
    };
    let mut out = Vec::new();
    for piece in pieces {
        let piece = library_convex(&all, piece);
        if piece.len() >= 3 {
            for part in split_to_limit(&piece, MAX_POLYGON_VERTICES) {
                out.push(part.iter().map(|&i| vertices[i]).collect());
            }
        }
    }
    out
}

/// The vertices in f64 (exactly: every f32 is an f64).
fn points(vertices: &[Vec2]) -> Vec<Point> {
    vertices.iter().map(|p| [p.x as f64, p.y as f64]).collect()
}

/// The first vertex equal to an earlier one, as (earlier, later), lowest later index first.
fn repeated_vertex(v: &[Point]) -> Option<(usize, usize)> {
    let mut sorted: Vec<usize> = (0..v.len()).collect();
    // Finite values: partial_cmp is total here, and -0.0 equals 0.0 as it should.
    sorted.sort_by(|&a, &b| {
        v[a][0]
            .partial_cmp(&v[b][0])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(
                v[a][1]
                    .partial_cmp(&v[b][1])
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
            .then(a.cmp(&b))
    });
    let mut found: Option<(usize, usize)> = None;
    let mut start = 0;
    while start < sorted.len() {
        let mut end = start + 1;
        while end < sorted.len() && v[sorted[end]] == v[sorted[start]] {
            end += 1;
        }
        if end - start > 1 {
            // Indices are increasing within a run: the first two are the earliest repeat.
            let pair = (sorted[start], sorted[start + 1]);
            if found.is_none_or(|f| pair.1 < f.1) {
                found = Some(pair);
            }
        }
        start = end;
    }
    found
}

/// Whether `c`, on the line through `a` and `b`, lies back towards `a` from `b`.
fn turns_back(a: Point, b: Point, c: Point) -> bool {
    (0..2).any(|axis| {
        let (d1, d2) = (b[axis] - a[axis], c[axis] - b[axis]);
        (d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)
    })
}

/// Smallest x, smallest y, largest x, largest y of a segment.
fn segment_box(a: Point, b: Point) -> [f64; 4] {
    [a[0].min(b[0]), a[1].min(b[1]), a[0].max(b[0]), a[1].max(b[1])]
}

/// How two segments meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Meeting {
    Apart,
    /// Each passes through the inside of the other, at one point.
    Cross,
    /// They share a point otherwise: an end on the other segment, or a common stretch.
    Touch,
}

/// Whether `p`, on the line through `a` and `b`, is on the segment between them.
fn within(a: Point, b: Point, p: Point) -> bool {
    let [lo_x, lo_y, hi_x, hi_y] = segment_box(a, b);
    lo_x <= p[0] && p[0] <= hi_x && lo_y <= p[1] && p[1] <= hi_y
}

fn meeting(a: Point, b: Point, c: Point, d: Point) -> Meeting {
    let (o1, o2) = (orientation(a, b, c), orientation(a, b, d));
    let (o3, o4) = (orientation(c, d, a), orientation(c, d, b));
    if o1 * o2 < 0 && o3 * o4 < 0 {
        return Meeting::Cross;
    }
    if (o1 == 0 && within(a, b, c))
        || (o2 == 0 && within(a, b, d))
        || (o3 == 0 && within(c, d, a))
        || (o4 == 0 && within(c, d, b))
    {
        return Meeting::Touch;
    }
    Meeting::Apart
}

/// The sign of the turn from `a` to `b` to `c`: 1 counter-clockwise, -1 clockwise, 0 on
/// one line. Exact for points whose coordinates are f32 values.
///
/// The usual f64 formula `(a - c) × (b - c)` is exact when the coordinates are of like
/// magnitude: a difference of two f32 values then fits in f32's 24 bits plus one, and a
/// product of two such differences in f64's 53. Coordinates of very different magnitudes
/// (0.001 beside 1000) make longer differences, whose products round. So the formula's
/// result is used when it is clear of its own rounding error (Shewchuk's bound), and
/// otherwise the determinant is expanded into six products of two coordinates, each
/// exact in f64 (48 bits), and summed exactly.
fn orientation(a: Point, b: Point, c: Point) -> i32 {
    let left = (a[0] - c[0]) * (b[1] - c[1]);
    let right = (a[1] - c[1]) * (b[0] - c[0]);
    let det = left - right;
    // (3 + 16ε)ε with ε = 2⁻⁵³: the bound on the formula's error relative to
    // |left| + |right| (Shewchuk, "Adaptive precision floating-point arithmetic").
    const BOUND: f64 = (3.0 + 16.0 * (f64::EPSILON / 2.0)) * (f64::EPSILON / 2.0);
    let bound = BOUND * (left.abs() + right.abs());
    if det > bound {
        return 1;
    }
    if -det > bound {
        return -1;
    }
    exact_sign(&[
        a[0] * b[1],
        -(a[0] * c[1]),
        -(c[0] * b[1]),
        -(a[1] * b[0]),
        a[1] * c[0],
        c[1] * b[0],
    ])
}

/// The sign of an exact sum of f64 values (at most six), kept as an expansion: parts
/// that do not overlap in their bits, in increasing magnitude, whose largest non-zero
/// part carries the sign of the whole.
fn exact_sign(terms: &[f64; 6]) -> i32 {
    let mut parts = [0.0f64; 6];
    let mut len = 0;
    for &term in terms {
        let mut carry = term;
        for part in parts.iter_mut().take(len) {
            let (sum, error) = two_sum(carry, *part);
            *part = error;
            carry = sum;
        }
        parts[len] = carry;
        len += 1;
    }
    match parts[..len].iter().rev().find(|p| **p != 0.0) {
        Some(p) if *p > 0.0 => 1,
        Some(_) => -1,
        None => 0,
    }
}

/// `a + b` as the rounded sum and its exact rounding error (Knuth).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let sum = a + b;
    let b_part = sum - a;
    let a_part = sum - b_part;
    (sum, (a - a_part) + (b - b_part))
}

/// The sign of a simple polygon's area: the turn at its lowest (then leftmost) vertex,
/// which is a corner of its hull and so turns the way the polygon winds.
fn signed_area_sign(v: &[Point]) -> i32 {
    let n = v.len();
    let low = (0..n)
        .min_by(|&a, &b| {
            (v[a][1], v[a][0])
                .partial_cmp(&(v[b][1], v[b][0]))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .unwrap_or(0);
    orientation(v[(low + n - 1) % n], v[low], v[(low + 1) % n])
}

/// The turn at position `k` of a cycle of vertex indices.
fn turn(all: &[Point], cycle: &[usize], k: usize) -> i32 {
    let m = cycle.len();
    orientation(
        all[cycle[(k + m - 1) % m]],
        all[cycle[k]],
        all[cycle[(k + 1) % m]],
    )
}

/// A convex piece's vertices as the library judges them: without its straight vertices,
/// and without any whose turn the library's plain f64 formula does not see as positive
/// (such a vertex is within rounding of straight, and the sliver it cuts off is below
/// the rounding of the piece's area).
fn library_convex(all: &[Point], mut piece: Vec<usize>) -> Vec<usize> {
    loop {
        let m = piece.len();
        if m < 3 {
            return piece;
        }
        let keep: Vec<usize> = (0..m)
            .filter(|&k| {
                let (a, b, c) = (
                    all[piece[(k + m - 1) % m]],
                    all[piece[k]],
                    all[piece[(k + 1) % m]],
                );
                let plain = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
                orientation(a, b, c) > 0 && plain > 0.0
            })
            .map(|k| piece[k])
            .collect();
        if keep.len() == m {
            return piece;
        }
        piece = keep;
    }
}

/// A strictly convex cycle cut by diagonals from its first vertex into cycles of at most
/// `limit` vertices, of sizes as even as possible.
fn split_to_limit(piece: &[usize], limit: usize) -> Vec<Vec<usize>> {
    let m = piece.len();
    if m <= limit {
        return vec![piece.to_vec()];
    }
    // Each part is the first vertex and a run of consecutive others that the next part
    // starts from: parts of `limit` vertices cover `limit - 2` new triangles each.
    let triangles = m - 2;
    let parts = triangles.div_ceil(limit - 2);
    let mut out = Vec::with_capacity(parts);
    let mut start = 1;
    for p in 0..parts {
        let count = triangles * (p + 1) / parts - triangles * p / parts;
        let mut part = vec![piece[0]];
        part.extend_from_slice(&piece[start..=start + count]);
        out.push(part);
        start += count;
    }
    out
}

/// A cut that resolves reflex vertices two at a time: diagonals between two reflex
/// vertices that leave both with corners of at most 180° on either side, chosen shortest
/// first, no vertex twice and none crossing another; then every part between them is
/// cut as [`best_merged_triangulation`] does. `k` such diagonals leave `k + 1` parts in
/// which `2k` reflex vertices turn no more, which is where Hertel–Mehlhorn alone loses
/// most (it keeps up to two diagonals at a reflex vertex). The bound stays `2r + 1`: `k`
/// diagonals for `2k` reflex vertices, at most two for each of the others.
fn pair_reflex_vertices(all: &[Point], corners: &[usize]) -> Vec<Vec<usize>> {
    let m = corners.len();
    let at = |k: usize| all[corners[k % m]];
    let reflex: Vec<usize> = (0..m).filter(|&k| turn(all, corners, k) < 0).collect();
    // Whether the diagonal from position i towards b splits the reflex corner at i into
    // two of at most 180°: b is left of (or on) the line out along the next edge, and
    // right of (or on) the line in along the previous one.
    let resolves = |i: usize, b: Point| {
        let (before, here, after) = (at(i + m - 1), at(i), at(i + 1));
        orientation(here, after, b) >= 0 && orientation(here, b, before) >= 0
    };
    let boxes: Vec<[f64; 4]> = (0..m).map(|k| segment_box(at(k), at(k + 1))).collect();
    // Inside at both ends (the resolving wedge of a reflex corner lies inside it), so a
    // diagonal when it meets no edge other than at its ends.
    let clear = |i: usize, j: usize| {
        let (a, b) = (at(i), at(j));
        let sb = segment_box(a, b);
        (0..m).all(|e| {
            let f = (e + 1) % m;
            if e == i || e == j || f == i || f == j {
                return true;
            }
            let be = &boxes[e];
            if be[0] > sb[2] || sb[0] > be[2] || be[1] > sb[3] || sb[1] > be[3] {
                return true;
            }
            meeting(a, b, at(e), at(f)) == Meeting::Apart
        })
    };
    let mut candidates = Vec::new();
    for (x, &i) in reflex.iter().enumerate() {
        for &j in &reflex[x + 1..] {
            if resolves(i, at(j)) && resolves(j, at(i)) && clear(i, j) {
                let (a, b) = (at(i), at(j));
                let length = (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2);
                candidates.push((length, i, j));
            }
        }
    }
    candidates.sort_by(|x, y| x.0.partial_cmp(&y.0).unwrap_or(std::cmp::Ordering::Equal));
    let mut used = vec![false; m];
    let mut chosen: Vec<(usize, usize)> = Vec::new();
    for (_, i, j) in candidates {
        if used[i] || used[j] {
            continue;
        }
        // Chosen diagonals share no vertex: they are apart or cross.
        if chosen
            .iter()
            .any(|&(a, b)| meeting(at(a), at(b), at(i), at(j)) != Meeting::Apart)
        {
            continue;
        }
        used[i] = true;
        used[j] = true;
        chosen.push((i, j));
    }
    // Split along the chosen diagonals. Each end is in one part only (no vertex is used
    // twice), and the diagonal lies inside that part, which holds the other end too.
    let mut parts: Vec<Vec<usize>> = vec![(0..m).collect()];
    for (i, j) in chosen {
        let Some(p) = parts.iter().position(|part| part.contains(&i)) else {
            continue;
        };
        let part = &parts[p];
        let (Some(ti), Some(tj)) = (
            part.iter().position(|&k| k == i),
            part.iter().position(|&k| k == j),
        ) else {
            continue;
        };
        let len = part.len();
        let run = |from: usize, to: usize| {
            let mut out = vec![part[from]];
            let mut t = from;
            while t != to {
                t = (t + 1) % len;
                out.push(part[t]);
            }
            out
        };
        let (first, second) = (run(ti, tj), run(tj, ti));
        parts[p] = first;
        parts.push(second);
    }
    let mut pieces = Vec::new();
    for part in parts {
        let cycle: Vec<usize> = part.iter().map(|&k| corners[k]).collect();
        let n = cycle.len();
        let part_corners: Vec<usize> = (0..n)
            .filter(|&k| turn(all, &cycle, k) != 0)
            .map(|k| cycle[k])
            .collect();
        if part_corners.len() < 3 {
            continue;
        }
        if (0..part_corners.len()).all(|k| turn(all, &part_corners, k) > 0) {
            pieces.push(part_corners);
        } else {
            pieces.extend(best_merged_triangulation(all, &part_corners));
        }
    }
    pieces
}

/// Outlines of at most this many corners are cut by [`fewest_pieces`], the fewest pieces
/// any cut by diagonals can make; larger ones by the faster heuristics. Its work grows
/// as the cube of the corners: about 8 ms at this size (`concave_pieces` test).
const FEWEST_PIECES_LIMIT: usize = 256;

/// One way to cut the part of the outline on one side of a chord (i, k) into the fewest
/// pieces, as the chord's parent needs it: `x` and `y`, the corners next to `i` and to
/// `k` in the piece that holds the chord, and how the cut was made, for building it.
#[derive(Debug, Clone, Copy)]
struct Cut {
    x: u32,
    y: u32,
    /// The piece's corner before `k`: the piece is the triangle (i, via, k), or with
    /// `from` the piece of chord (i, via)'s cut number `from` with `k` added.
    via: u32,
    from: u32,
}

/// `Cut::from` of a piece that is the triangle alone.
const TRIANGLE: u32 = u32::MAX;

/// The fewest convex pieces of `corners` (counter-clockwise, every one turning) that
/// diagonals can cut; `None` when no cut is found, which only an outline that breaks the
/// rules gets.
///
/// Dynamic programming over chords (Keil's method): a chord is an edge or a diagonal
/// (i, k), i < k, and cuts off the corners i..=k. In a cut of those, the piece holding
/// the chord has a corner j before k; it is the triangle (i, j, k), or the piece holding
/// chord (i, j) in the cut of i..=j widened by k, and corners j..=k are cut on their own.
/// Only cuts with the fewest pieces need keeping: a cut with one more could at best save
/// that piece by widening. Among those, what the parent can use is how narrow the piece
/// is at i and at k, so each chord keeps the cuts that no other is at least as narrow as
/// at both ends.
fn fewest_pieces(all: &[Point], corners: &[usize]) -> Option<Vec<Vec<usize>>> {
    let m = corners.len();
    let at = |k: usize| all[corners[k]];
    let boxes: Vec<[f64; 4]> = (0..m).map(|k| segment_box(at(k), at((k + 1) % m))).collect();
    // Whether the segment from corner i towards p leaves i into the outline: strictly
    // inside the corner's angle, which at a reflex corner is all but the convex outside.
    let inward = |i: usize, p: Point| {
        let (before, here, after) = (at((i + m - 1) % m), at(i), at((i + 1) % m));
        let (left_of_next, left_of_previous) =
            (orientation(here, after, p), orientation(before, here, p));
        if orientation(before, here, after) > 0 {
            left_of_next > 0 && left_of_previous > 0
        } else {
            left_of_next > 0 || left_of_previous > 0
        }
    };
    let chord = |i: usize, k: usize| {
        if k == i + 1 || (i == 0 && k == m - 1) {
            return true;
        }
        let (a, b) = (at(i), at(k));
        if !inward(i, b) || !inward(k, a) {
            return false;
        }
        let sb = segment_box(a, b);
        (0..m).all(|e| {
            let f = (e + 1) % m;
            let be = &boxes[e];
            e == i
                || e == k
                || f == i
                || f == k
                || be[0] > sb[2]
                || sb[0] > be[2]
                || be[1] > sb[3]
                || sb[1] > be[3]
                || meeting(a, b, at(e), at(f)) == Meeting::Apart
        })
    };
    let index = |i: usize, k: usize| i * m + k;
    let mut valid = vec![false; m * m];
    for i in 0..m {
        for k in i + 1..m {
            valid[index(i, k)] = chord(i, k);
        }
    }
    // Pieces of the fewest cut of corners i..=k (0 for an edge), and its kept cuts.
    let mut count = vec![u32::MAX; m * m];
    let mut cuts: Vec<Vec<Cut>> = vec![Vec::new(); m * m];
    for i in 0..m - 1 {
        count[index(i, i + 1)] = 0;
    }
    for length in 2..m {
        for i in 0..m - length {
            let k = i + length;
            if !valid[index(i, k)] {
                continue;
            }
            let (pi, pk) = (at(i), at(k));
            let mut best = u32::MAX;
            let mut kept: Vec<Cut> = Vec::new();
            let offer = |pieces: u32, cut: Cut, best: &mut u32, kept: &mut Vec<Cut>| {
                if pieces > *best {
                    return;
                }
                if pieces < *best {
                    *best = pieces;
                    kept.clear();
                }
                // At least as narrow at i: its corner next to i turns no further from the
                // chord; at k likewise.
                let narrower = |a: &Cut, b: &Cut| {
                    orientation(pi, at(b.x as usize), at(a.x as usize)) >= 0
                        && orientation(pk, at(a.y as usize), at(b.y as usize)) >= 0
                };
                if kept.iter().any(|c| narrower(c, &cut)) {
                    return;
                }
                kept.retain(|c| !narrower(&cut, c));
                kept.push(cut);
            };
            for j in i + 1..k {
                if !valid[index(i, j)] || !valid[index(j, k)] {
                    continue;
                }
                let (left, right) = (count[index(i, j)], count[index(j, k)]);
                if left == u32::MAX || right == u32::MAX {
                    continue;
                }
                let pj = at(j);
                if orientation(pi, pj, pk) <= 0 {
                    continue;
                }
                let triangle = Cut {
                    x: j as u32,
                    y: j as u32,
                    via: j as u32,
                    from: TRIANGLE,
                };
                offer(left + right + 1, triangle, &mut best, &mut kept);
                for (n, c) in cuts[index(i, j)].iter().enumerate() {
                    // Widened by k, the piece stays convex at i and at j.
                    if orientation(pk, pi, at(c.x as usize)) >= 0
                        && orientation(at(c.y as usize), pj, pk) >= 0
                    {
                        let widened = Cut {
                            x: c.x,
                            y: j as u32,
                            via: j as u32,
                            from: n as u32,
                        };
                        offer(left + right, widened, &mut best, &mut kept);
                    }
                }
            }
            count[index(i, k)] = best;
            cuts[index(i, k)] = kept;
        }
    }
    if cuts[index(0, m - 1)].is_empty() {
        return None;
    }
    // The pieces, from the whole outline's first kept cut down; each chord's own part
    // is its piece, the pieces of the other parts pushed as they are built.
    let mut pieces = Vec::new();
    let mut stack = vec![(0usize, m - 1)];
    while let Some((i, k)) = stack.pop() {
        let mut piece = vec![k];
        let (mut end, mut n) = (k, 0usize);
        loop {
            let cut = cuts[index(i, end)][n];
            let via = cut.via as usize;
            if via + 1 < end {
                stack.push((via, end));
            }
            piece.push(via);
            if cut.from == TRIANGLE {
                if i + 1 < via {
                    stack.push((i, via));
                }
                break;
            }
            (end, n) = (via, cut.from as usize);
        }
        piece.push(i);
        piece.reverse();
        pieces.push(piece.into_iter().map(|p| corners[p]).collect());
    }
    Some(pieces)
}

/// Triangulations tried from different starting vertices: the cut keeps the one that
/// merges into the fewest pieces.
const TRIANGULATION_TRIES: usize = 4;

/// Triangulates `corners` (counter-clockwise, every vertex turning) a few ways, merges
/// each, and returns the fewest pieces.
fn best_merged_triangulation(all: &[Point], corners: &[usize]) -> Vec<Vec<usize>> {
    let m = corners.len();
    let mut reflex = vec![false; all.len()];
    for k in 0..m {
        reflex[corners[k]] = turn(all, corners, k) < 0;
    }
    let mut best: Option<Vec<Vec<usize>>> = None;
    for t in 0..TRIANGULATION_TRIES.min(m) {
        let start = t * m / TRIANGULATION_TRIES.min(m);
        let triangles = clip_ears(all, corners, start);
        let pieces = merge(all, &reflex, triangles);
        if best.as_ref().is_none_or(|b| pieces.len() < b.len()) {
            best = Some(pieces);
        }
    }
    best.unwrap_or_default()
}

/// Ear clipping of a simple counter-clockwise polygon (vertex indices into `all`),
/// starting the search at position `start`. A vertex is an ear when it turns left and no
/// other vertex of what remains lies in its triangle, boundary included; vertices that
/// become straight as ears are cut stay until they turn, so every triangle side is an
/// outline edge or a whole side of exactly one other triangle.
fn clip_ears(all: &[Point], polygon: &[usize], start: usize) -> Vec<[usize; 3]> {
    let m = polygon.len();
    let mut next: Vec<usize> = (0..m).map(|k| (k + 1) % m).collect();
    let mut prev: Vec<usize> = (0..m).map(|k| (k + m - 1) % m).collect();
    let mut alive = vec![true; m];
    let p = |k: usize| all[polygon[k]];
    let is_ear = |k: usize, next: &[usize], prev: &[usize], alive: &[bool]| {
        let (a, b, c) = (prev[k], k, next[k]);
        if orientation(p(a), p(b), p(c)) <= 0 {
            return false;
        }
        let (pa, pb, pc) = (p(a), p(b), p(c));
        let lo = [pa[0].min(pb[0]).min(pc[0]), pa[1].min(pb[1]).min(pc[1])];
        let hi = [pa[0].max(pb[0]).max(pc[0]), pa[1].max(pb[1]).max(pc[1])];
        (0..m).all(|x| {
            if !alive[x] || x == a || x == b || x == c {
                return true;
            }
            let q = p(x);
            if q[0] < lo[0] || q[0] > hi[0] || q[1] < lo[1] || q[1] > hi[1] {
                return true;
            }
            !(orientation(pa, pb, q) >= 0
                && orientation(pb, pc, q) >= 0
                && orientation(pc, pa, q) >= 0)
        })
    };
    let mut ear: Vec<bool> = (0..m).map(|k| is_ear(k, &next, &prev, &alive)).collect();
    let mut triangles = Vec::with_capacity(m - 2);
    let mut left = m;
    let mut at = start % m;
    while left > 3 {
        // An ear stays an ear while others are cut (its triangle keeps its vertices and
        // the vertices around it only go), so only a vertex marked as not an ear can be
        // stale; after a full lap without one, every mark is computed afresh.
        let mut found = None;
        let mut k = at;
        for _ in 0..left {
            if ear[k] {
                found = Some(k);
                break;
            }
            k = next[k];
        }
        if found.is_none() {
            let mut k = at;
            for _ in 0..left {
                ear[k] = is_ear(k, &next, &prev, &alive);
                if ear[k] && found.is_none() {
                    found = Some(k);
                }
                k = next[k];
            }
        }
        let Some(k) = found else {
            // Only an outline that breaks the rules gets here.
            break;
        };
        let (a, c) = (prev[k], next[k]);
        triangles.push([polygon[a], polygon[k], polygon[c]]);
        alive[k] = false;
        next[a] = c;
        prev[c] = a;
        left -= 1;
        ear[a] = is_ear(a, &next, &prev, &alive);
        ear[c] = is_ear(c, &next, &prev, &alive);
        at = c;
    }
    if left == 3 {
        let k = at;
        triangles.push([polygon[prev[k]], polygon[k], polygon[next[k]]]);
    }
    triangles
}

/// Hertel–Mehlhorn: merges triangles across their shared sides (diagonals of the
/// outline) while the union stays convex, straight corners allowed. Merging only makes
/// the corners at a diagonal's ends wider, so a diagonal that cannot go once cannot go
/// later: one pass over the diagonals leaves every remaining one needed by a reflex end,
/// at most two per reflex vertex.
///
/// The order of the pass decides which diagonals stay. A diagonal between two convex
/// vertices always goes; of the others, those with one reflex end are tried first, so
/// that the ones kept tend to be those between two reflex vertices, each serving both.
fn merge(all: &[Point], reflex: &[bool], triangles: Vec<[usize; 3]>) -> Vec<Vec<usize>> {
    let count = triangles.len();
    let mut pieces: Vec<Vec<usize>> = triangles.iter().map(|t| t.to_vec()).collect();
    let mut root: Vec<usize> = (0..count).collect();
    // The sides of the triangles: a diagonal is the side two triangles share.
    let mut sides: std::collections::HashMap<(usize, usize), usize> =
        std::collections::HashMap::with_capacity(count * 3);
    let mut diagonals = Vec::new();
    for (t, tri) in triangles.iter().enumerate() {
        for e in 0..3 {
            let (a, b) = (tri[e], tri[(e + 1) % 3]);
            if let Some(&other) = sides.get(&(b, a)) {
                diagonals.push((a, b, t, other));
            } else {
                sides.insert((a, b), t);
            }
        }
    }
    diagonals.sort_by_key(|&(a, b, _, _)| reflex[a] as u8 + reflex[b] as u8);
    fn find(root: &mut [usize], mut x: usize) -> usize {
        while root[x] != x {
            root[x] = root[root[x]];
            x = root[x];
        }
        x
    }
    for (a, b, t, u) in diagonals {
        // Piece P holds side a→b, piece Q side b→a.
        let (p, q) = (find(&mut root, t), find(&mut root, u));
        if let Some(union) = convex_union(all, &pieces[p], &pieces[q], a, b) {
            pieces[p] = union;
            pieces[q] = Vec::new();
            root[q] = p;
        }
    }
    pieces.into_iter().filter(|p| !p.is_empty()).collect()
}

/// The union of convex cycles `p` (holding side a→b) and `q` (holding b→a) when it is
/// convex, straight corners allowed.
fn convex_union(all: &[Point], p: &[usize], q: &[usize], a: usize, b: usize) -> Option<Vec<usize>> {
    let (np, nq) = (p.len(), q.len());
    let ia = p.iter().position(|&v| v == a)?;
    if p[(ia + 1) % np] != b {
        return None;
    }
    let jb = q.iter().position(|&v| v == b)?;
    if q[(jb + 1) % nq] != a {
        return None;
    }
    // At a: from p's vertex before a, to q's vertex after a. At b: from q's vertex
    // before b, to p's vertex after b.
    let before_a = all[p[(ia + np - 1) % np]];
    let after_a = all[q[(jb + 2) % nq]];
    let before_b = all[q[(jb + nq - 1) % nq]];
    let after_b = all[p[(ia + 2) % np]];
    if orientation(before_a, all[a], after_a) < 0 || orientation(before_b, all[b], after_b) < 0 {
        return None;
    }
    // p from b round to a, then q from after a round to before b.
    let mut union = Vec::with_capacity(np + nq - 2);
    for k in 0..np {
        union.push(p[(ia + 1 + k) % np]);
    }
    for k in 0..nq - 2 {
        union.push(q[(jb + 2 + k) % nq]);
    }
    Some(union)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(points: &[(f32, f32)]) -> Vec<Vec2> {
        points.iter().map(|&(x, y)| Vec2::new(x, y)).collect()
    }

    #[test]
    fn orientation_is_exact_where_the_plain_formula_rounds() {
        // Points on the line y = x at very different magnitudes: collinear exactly.
        let (a, b, c) = ([1e-3f32 as f64; 2], [1.0, 1.0], [3000.0, 3000.0]);
        assert_eq!(orientation(a, b, c), 0);
        // Nudge c by one ulp of f32: no longer on the line, on the left side.
        let up = f32::from_bits(3000.0f32.to_bits() + 1) as f64;
        assert_eq!(orientation(a, b, [3000.0, up]), 1);
        assert_eq!(orientation(a, b, [up, 3000.0]), -1);
        // A triple whose plain formula has a large relative error.
        let tiny = f32::from_bits(1) as f64;
        assert_eq!(orientation([0.0, 0.0], [1.0, tiny], [2.0, 2.0 * tiny]), 0);
        assert_eq!(orientation([0.0, 0.0], [1.0, tiny], [2.0, 0.0]), -1);
    }

    #[test]
    fn exact_sign_of_cancelling_sums() {
        assert_eq!(exact_sign(&[1e30, 1.0, -1e30, 0.0, 0.0, 0.0]), 1);
        assert_eq!(exact_sign(&[1e30, -1e-30, -1e30, 0.0, 0.0, 0.0]), -1);
        assert_eq!(exact_sign(&[1e30, 1e-30, -1e30, -1e-30, 0.0, 0.0]), 0);
    }

    #[test]
    fn refusals_name_the_rule() {
        let check = |p: &[(f32, f32)]| check_outline(&outline(p));
        assert_eq!(
            check(&[(0.0, 0.0), (1.0, 0.0)]),
            Err(format!("has 2 vertices, must have 3 to {MAX_CONCAVE_VERTICES}"))
        );
        assert_eq!(
            check(&[(0.0, 0.0), (1.0, f32::NAN), (0.0, 1.0)]),
            Err("vertex 1 is not finite".to_string())
        );
        assert_eq!(
            check(&[(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 1.0), (0.0, 0.0), (0.0, 2.0)]),
            Err("vertex 4 repeats vertex 0".to_string())
        );
        assert_eq!(
            check(&[(0.0, 0.0), (1.0, 1.0), (3.0, 3.0)]),
            Err("has zero area: its vertices lie on one line".to_string())
        );
        // Bow-tie: edge 0 (0,0)-(2,2) and edge 2 (2,0)-(0,2) cross.
        assert_eq!(
            check(&[(0.0, 0.0), (2.0, 2.0), (2.0, 0.0), (0.0, 2.0)]),
            Err("edges 0 and 2 cross".to_string())
        );
        // Vertex 3 lies on edge 0, which is not its neighbour.
        assert_eq!(
            check(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (2.0, 0.0), (0.0, 4.0)]),
            Err("edges 0 and 2 touch".to_string())
        );
        // The outline runs straight back along itself at vertex 2.
        assert_eq!(
            check(&[(0.0, 0.0), (4.0, 0.0), (6.0, 0.0), (5.0, 0.0), (2.0, 3.0)]),
            Err("edges 1 and 2 overlap".to_string())
        );
        // Straight vertices on a side, and either winding, are fine.
        let square = [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)];
        assert_eq!(check(&square), Ok(()));
        let mut reversed = square;
        reversed.reverse();
        assert_eq!(check(&reversed), Ok(()));
    }

    #[test]
    fn convex_outlines_are_one_piece_without_straight_vertices() {
        let square = outline(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)]);
        let pieces = convex_pieces(&square);
        assert_eq!(pieces.len(), 1);
        assert_eq!(pieces[0].len(), 4);
        // Clockwise in, counter-clockwise out.
        let mut reversed = square.clone();
        reversed.reverse();
        let pieces = convex_pieces(&reversed);
        assert_eq!(pieces.len(), 1);
        let p = &pieces[0];
        let area: f32 = (0..p.len()).map(|k| p[k].perp_dot(p[(k + 1) % p.len()])).sum();
        assert!(area > 0.0, "{p:?}");
    }

    #[test]
    fn an_l_shape_is_two_pieces() {
        let l = outline(&[(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)]);
        assert_eq!(convex_pieces(&l).len(), 2);
    }

    #[test]
    fn big_convex_pieces_split_at_the_polygon_limit() {
        let piece: Vec<usize> = (0..600).collect();
        let parts = split_to_limit(&piece, 256);
        assert_eq!(parts.len(), 3);
        assert!(parts.iter().all(|p| p.len() <= 256 && p[0] == 0));
        let triangles: usize = parts.iter().map(|p| p.len() - 2).sum();
        assert_eq!(triangles, 598);
        assert_eq!(parts.last().and_then(|p| p.last()), Some(&599));
    }
}
