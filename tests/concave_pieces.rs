//! Concave outlines cut into convex pieces (`src/input/concave.rs`), judged by checks of
//! their own: every piece is a polygon the shape library accepts, the pieces lie inside
//! the outline, do not overlap and add up to its area; outlines that break the rules are
//! refused with the rule. Outlines come from seeded generators: star-shaped polygons,
//! combs, spirals, L and U shapes with straight runs, slivers, in both windings.

use gpu_collide::concave::{check_outline, convex_pieces, MAX_CONCAVE_VERTICES};
use gpu_collide::glam::Vec2;
use gpu_collide::{Polygon, Shape, ShapeLibrary};
use std::f64::consts::TAU;
use std::time::Instant;

/// A small seeded generator (xorshift64*), enough for shapes.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn v(x: f64, y: f64) -> Vec2 {
    Vec2::new(x as f32, y as f32)
}

/// A polygon star-shaped around the origin: one vertex per angular slot, at a random
/// angle within its slot and a random radius.
fn star(rng: &mut Rng, n: usize) -> Vec<Vec2> {
    let scale = rng.range(1.0, 500.0);
    (0..n)
        .map(|k| {
            let a = (k as f64 + rng.range(0.1, 0.9)) * TAU / n as f64;
            let r = scale * rng.range(0.2, 1.0);
            v(r * a.cos(), r * a.sin())
        })
        .collect()
}

/// A comb: a base with `teeth` teeth of random widths, gaps and heights.
fn comb(rng: &mut Rng, teeth: usize) -> Vec<Vec2> {
    let base = rng.range(0.5, 3.0);
    let mut xs = vec![0.0];
    for k in 0..2 * teeth - 1 {
        let step = if k.is_multiple_of(2) {
            rng.range(0.2, 2.0)
        } else {
            rng.range(0.1, 1.5)
        };
        xs.push(xs.last().copied().unwrap_or(0.0) + step);
    }
    let width = *xs.last().unwrap_or(&0.0);
    let mut out = vec![v(0.0, 0.0), v(width, 0.0)];
    // Along the top from right to left: tooth k spans xs[2k]..xs[2k+1].
    for k in (0..teeth).rev() {
        let top = base + rng.range(0.5, 6.0);
        out.push(v(xs[2 * k + 1], top));
        out.push(v(xs[2 * k], top));
        if k > 0 {
            out.push(v(xs[2 * k], base));
            out.push(v(xs[2 * k - 1], base));
        }
    }
    // The first vertex after (width, 0) is (width, top of the last tooth): the right side.
    out
}

/// A thick spiral: the outer wall outwards, the inner wall back in.
fn spiral(rng: &mut Rng, per_wall: usize) -> Vec<Vec2> {
    let turns = rng.range(1.0, 3.0);
    let pitch = rng.range(2.0, 5.0);
    let thickness = pitch * rng.range(0.3, 0.7);
    let wall = |t: f64, offset: f64| {
        let a = t * turns * TAU;
        let r = 1.0 + pitch * a / TAU + offset;
        v(r * a.cos(), r * a.sin())
    };
    let mut out: Vec<Vec2> = (0..per_wall)
        .map(|k| wall(k as f64 / (per_wall - 1) as f64, thickness))
        .collect();
    out.extend(
        (0..per_wall)
            .rev()
            .map(|k| wall(k as f64 / (per_wall - 1) as f64, 0.0)),
    );
    out
}

/// A U on the integer grid, with a vertex at every integer step along its sides (long
/// straight runs), or an L when `notch_at_corner`.
fn grid_u(rng: &mut Rng, notch_at_corner: bool) -> Vec<Vec2> {
    let (w, h) = (4 + rng.below(12) as i32, 4 + rng.below(12) as i32);
    let (nx, depth) = (
        1 + rng.below((w - 2) as usize) as i32,
        1 + rng.below((h - 2) as usize) as i32,
    );
    let nw = 1 + rng.below((w - nx - 1) as usize) as i32;
    let (nx, nw) = if notch_at_corner {
        (w - nw, nw)
    } else {
        (nx, nw)
    };
    let corners: Vec<(i32, i32)> = if notch_at_corner {
        vec![
            (0, 0),
            (w, 0),
            (w, h - depth),
            (nx, h - depth),
            (nx, h),
            (0, h),
        ]
    } else {
        vec![
            (0, 0),
            (w, 0),
            (w, h),
            (nx + nw, h),
            (nx + nw, h - depth),
            (nx, h - depth),
            (nx, h),
            (0, h),
        ]
    };
    let mut out = Vec::new();
    for k in 0..corners.len() {
        let (a, b) = (corners[k], corners[(k + 1) % corners.len()]);
        let steps = (b.0 - a.0).abs().max((b.1 - a.1).abs());
        for s in 0..steps {
            let x = a.0 + (b.0 - a.0) * s / steps;
            let y = a.1 + (b.1 - a.1) * s / steps;
            out.push(v(x as f64, y as f64));
        }
    }
    out
}

/// A zigzag band 1000 long and `height` thick: a sliver with a reflex vertex at every
/// other bend.
fn zigzag(rng: &mut Rng, bends: usize, height: f64) -> Vec<Vec2> {
    let amplitude = rng.range(0.01, 5.0);
    let x = |k: usize| 1000.0 * k as f64 / bends as f64;
    let y = |k: usize| if k.is_multiple_of(2) { 0.0 } else { amplitude };
    let mut out: Vec<Vec2> = (0..=bends).map(|k| v(x(k), y(k))).collect();
    out.extend((0..=bends).rev().map(|k| v(x(k), y(k) + height)));
    out
}

/// A thin arrowhead: 1000 long, `height` across, notched at its back.
fn arrowhead(height: f64) -> Vec<Vec2> {
    vec![
        v(0.0, 0.0),
        v(1000.0, height / 2.0),
        v(0.0, height),
        v(1.0, height / 2.0),
    ]
}

fn reversed(outline: &[Vec2]) -> Vec<Vec2> {
    outline.iter().rev().copied().collect()
}

fn p64(p: Vec2) -> [f64; 2] {
    [p.x as f64, p.y as f64]
}

fn signed_area(poly: &[[f64; 2]]) -> f64 {
    let n = poly.len();
    (0..n)
        .map(|k| {
            let (a, b) = (poly[k], poly[(k + 1) % n]);
            a[0] * b[1] - a[1] * b[0]
        })
        .sum::<f64>()
        / 2.0
}

fn cross(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// The sign of a turn, taking values within rounding of 0 as 0.
fn side(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> i32 {
    let c = cross(o, a, b);
    let scale =
        ((a[0] - o[0]).abs() + (a[1] - o[1]).abs()) * ((b[0] - o[0]).abs() + (b[1] - o[1]).abs());
    if c.abs() <= 1e-12 * scale {
        0
    } else if c > 0.0 {
        1
    } else {
        -1
    }
}

/// Whether segments `ab` and `cd` cross properly (each through the inside of the other).
fn properly_cross(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> bool {
    side(a, b, c) * side(a, b, d) < 0 && side(c, d, a) * side(c, d, b) < 0
}

/// Whether `p` is inside the polygon (crossing number).
fn inside(poly: &[[f64; 2]], p: [f64; 2]) -> bool {
    let n = poly.len();
    let mut odd = false;
    for k in 0..n {
        let (a, b) = (poly[k], poly[(k + 1) % n]);
        if (a[1] > p[1]) != (b[1] > p[1]) {
            let x = a[0] + (p[1] - a[1]) / (b[1] - a[1]) * (b[0] - a[0]);
            if p[0] < x {
                odd = !odd;
            }
        }
    }
    odd
}

/// The part of convex `subject` inside convex `clip` (both counter-clockwise), by
/// clipping against each side of `clip` in turn.
fn convex_clip(subject: &[[f64; 2]], clip: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut out = subject.to_vec();
    for k in 0..clip.len() {
        let (a, b) = (clip[k], clip[(k + 1) % clip.len()]);
        let input = std::mem::take(&mut out);
        for i in 0..input.len() {
            let (p, q) = (input[i], input[(i + 1) % input.len()]);
            let (sp, sq) = (cross(a, b, p), cross(a, b, q));
            if sp >= 0.0 {
                out.push(p);
            }
            if (sp >= 0.0) != (sq >= 0.0) {
                let t = sp / (sp - sq);
                out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
            }
        }
        if out.is_empty() {
            break;
        }
    }
    out
}

fn centroid(poly: &[[f64; 2]]) -> [f64; 2] {
    // A convex polygon's vertex average is inside it; enough here.
    let n = poly.len() as f64;
    let (sx, sy) = poly
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + p[0], y + p[1]));
    [sx / n, sy / n]
}

/// Reflex vertices of an outline, in its own winding.
fn reflex_count(outline: &[Vec2]) -> usize {
    let p: Vec<[f64; 2]> = outline.iter().copied().map(p64).collect();
    let sign = signed_area(&p).signum();
    let n = p.len();
    (0..n)
        .filter(|&k| cross(p[(k + n - 1) % n], p[k], p[(k + 1) % n]) * sign < 0.0)
        .count()
}

/// A lower bound on the pieces of any cut by diagonals, sharper than `ceil(r/2) + 1`.
///
/// In a cut into convex pieces every reflex vertex has a diagonal, and a reflex vertex
/// with exactly one has it inside its wedge (the directions that leave at most 180° on
/// either side). Let `s` of the `r` reflex vertices have one diagonal, the rest two or
/// more: counting ends, `d >= (s + 2(r - s)) / 2`. A diagonal whose two ends both have
/// no other lies in both ends' wedges; those diagonals share no end and cross none of
/// each other, so there are at most `M`, the largest such set of mutual diagonals
/// (found below by an interval recursion over the boundary order, in which two
/// diagonals cross exactly when their ends interleave); so `d >= s - M`. And `s` is at
/// most the number `w` of reflex vertices with any diagonal in their wedge. `d`
/// diagonals make `d + 1` pieces, so the bound is `1 + min over s <= w of max(ceil((2r -
/// s) / 2), s - M)`: the wedge bound alone when `s = w` decides it, more where mutual
/// diagonals are few (on sharp stars they run across the star and cross each other).
fn diagonal_lower_bound(outline: &[Vec2]) -> usize {
    let mut p: Vec<[f64; 2]> = outline.iter().copied().map(p64).collect();
    if signed_area(&p) < 0.0 {
        p.reverse();
    }
    let n = p.len();
    let clear = |i: usize, j: usize| {
        (0..n).all(|e| {
            let f = (e + 1) % n;
            e == i || e == j || f == i || f == j || {
                let (a, b, c, d) = (p[i], p[j], p[e], p[f]);
                side(a, b, c) * side(a, b, d) > 0 || side(c, d, a) * side(c, d, b) > 0
            }
        })
    };
    // Whether the diagonal from reflex vertex v towards vertex b lies in v's wedge.
    let in_wedge = |v: usize, b: usize| {
        let (before, here, after) = (p[(v + n - 1) % n], p[v], p[(v + 1) % n]);
        b != v
            && b != (v + 1) % n
            && b != (v + n - 1) % n
            && cross(here, after, p[b]) >= 0.0
            && cross(here, p[b], before) >= 0.0
    };
    let reflex: Vec<usize> = (0..n)
        .filter(|&v| cross(p[(v + n - 1) % n], p[v], p[(v + 1) % n]) < 0.0)
        .collect();
    let (r, k) = (reflex.len(), reflex.len());
    let w = reflex
        .iter()
        .filter(|&&v| (0..n).any(|b| in_wedge(v, b) && clear(v, b)))
        .count();
    // mutual[x][y]: reflex vertices x and y (positions in `reflex`) joined by a diagonal
    // in both wedges.
    let mut mutual = vec![vec![false; k]; k];
    for x in 0..k {
        for y in x + 1..k {
            let (a, b) = (reflex[x], reflex[y]);
            let ok = in_wedge(a, b) && in_wedge(b, a) && clear(a, b);
            mutual[x][y] = ok;
            mutual[y][x] = ok;
        }
    }
    // most[x][y]: the largest set of mutual diagonals among reflex positions x..=y that
    // share no end and do not interleave.
    let mut most = vec![vec![0usize; k + 1]; k + 1];
    for len in 2..=k {
        for x in 0..=k - len {
            let y = x + len - 1;
            let mut best = most[x + 1][y];
            for z in x + 1..=y {
                if mutual[x][z] {
                    let inside = if z > x + 1 { most[x + 1][z - 1] } else { 0 };
                    let after = if z < y { most[z + 1][y] } else { 0 };
                    best = best.max(1 + inside + after);
                }
            }
            most[x][y] = best;
        }
    }
    let m = if k >= 2 { most[0][k - 1] } else { 0 };
    let d = (0..=w)
        .map(|s| (2 * r - s).div_ceil(2).max(s.saturating_sub(m)))
        .min()
        .unwrap_or(0);
    d + 1
}

/// Cuts `outline` and checks the pieces; returns their number.
fn check_pieces(what: &str, outline: &[Vec2]) -> usize {
    assert_eq!(check_outline(outline), Ok(()), "{what}: a valid outline");
    let pieces = convex_pieces(outline);
    let poly: Vec<[f64; 2]> = outline.iter().copied().map(p64).collect();
    let area = signed_area(&poly).abs();
    assert!(!pieces.is_empty(), "{what}: no pieces");
    let mut total = 0.0;
    let mut piece_polys = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        if let Err(e) = ShapeLibrary::new(&[Shape::Polygon(Polygon::new(piece.clone()))]) {
            panic!("{what}: piece {i} {piece:?} breaks the polygon rules: {e}");
        }
        let p: Vec<[f64; 2]> = piece.iter().copied().map(p64).collect();
        let a = signed_area(&p);
        assert!(a > 0.0, "{what}: piece {i} is not counter-clockwise");
        total += a;
        for q in piece {
            assert!(
                outline.contains(q),
                "{what}: piece {i}: {q} is not an outline vertex"
            );
        }
        let n = p.len();
        for k in 0..n {
            let (a, b) = (p[k], p[(k + 1) % n]);
            for e in 0..poly.len() {
                let (c, d) = (poly[e], poly[(e + 1) % poly.len()]);
                assert!(
                    !properly_cross(a, b, c, d),
                    "{what}: piece {i}'s side {k} crosses outline edge {e}"
                );
            }
        }
        assert!(
            inside(&poly, centroid(&p)),
            "{what}: piece {i} is outside the outline"
        );
        piece_polys.push(p);
    }
    assert!(
        ((total - area) / area).abs() <= 1e-5,
        "{what}: pieces cover {total}, the outline {area}"
    );
    for i in 0..piece_polys.len() {
        for j in i + 1..piece_polys.len() {
            let common = convex_clip(&piece_polys[i], &piece_polys[j]);
            let overlap = if common.len() >= 3 {
                signed_area(&common).abs()
            } else {
                0.0
            };
            assert!(
                overlap <= 1e-9 * area,
                "{what}: pieces {i} and {j} overlap by {overlap} (outline area {area})"
            );
        }
    }
    pieces.len()
}

/// The theorem a Hertel–Mehlhorn merge guarantees: every diagonal left is needed at one
/// of its ends by a reflex vertex, and a reflex vertex needs at most two, so at most
/// `2r` diagonals and `2r + 1` pieces.
fn assert_merge_bound(what: &str, outline: &[Vec2], pieces: usize) {
    let r = reflex_count(outline);
    assert!(
        pieces <= 2 * r + 1,
        "{what}: {pieces} pieces for {r} reflex vertices"
    );
}

fn check_both_windings(what: &str, outline: &[Vec2]) -> [usize; 2] {
    let forward = check_pieces(what, outline);
    assert_merge_bound(what, outline, forward);
    let back = reversed(outline);
    let backward = check_pieces(&format!("{what}, reversed"), &back);
    assert_merge_bound(what, &back, backward);
    [forward, backward]
}

#[test]
fn random_star_outlines_are_cut_well() {
    let mut ratios = Vec::new();
    let mut diagonal_ratios = Vec::new();
    for seed in 0..60u64 {
        let mut rng = Rng::new(seed);
        let n = 3 + rng.below(254);
        let outline = star(&mut rng, n);
        let r = reflex_count(&outline);
        let counts = check_both_windings(&format!("star seed {seed} ({n} vertices)"), &outline);
        let bound = r.div_ceil(2) + 1;
        let diagonal_bound = diagonal_lower_bound(&outline);
        for pieces in counts {
            assert!(
                pieces >= diagonal_bound.max(bound),
                "star seed {seed}: {pieces} pieces, fewer than a lower bound (ceil(r/2)+1 \
                 {bound}, by diagonals {diagonal_bound})"
            );
            ratios.push((pieces as f64 / bound as f64, seed, n, r, pieces));
            diagonal_ratios.push(pieces as f64 / diagonal_bound as f64);
        }
    }
    let mean = ratios.iter().map(|r| r.0).sum::<f64>() / ratios.len() as f64;
    let worst = ratios
        .iter()
        .copied()
        .fold((0.0, 0, 0, 0, 0), |w, r| if r.0 > w.0 { r } else { w });
    println!(
        "concave pieces over the lower bound ceil(r/2)+1, {} random star outlines: mean {mean:.3}, \
         worst {:.3} (seed {}, {} vertices, {} reflex, {} pieces)",
        ratios.len(),
        worst.0,
        worst.1,
        worst.2,
        worst.3,
        worst.4
    );
    let diagonal_mean = diagonal_ratios.iter().sum::<f64>() / diagonal_ratios.len() as f64;
    let diagonal_worst = diagonal_ratios.iter().copied().fold(0.0, f64::max);
    println!(
        "concave pieces over the diagonal lower bound: mean {diagonal_mean:.3}, worst {diagonal_worst:.3}"
    );
}

#[test]
fn combs_spirals_and_grid_shapes_are_cut_well() {
    for seed in 0..12u64 {
        let mut rng = Rng::new(100 + seed);
        let teeth = 2 + rng.below(40);
        let outline = comb(&mut rng, teeth);
        let counts = check_both_windings(&format!("comb seed {seed} ({teeth} teeth)"), &outline);
        // A comb with k teeth is k + 1 rectangles, and no fewer than k pieces.
        for pieces in counts {
            assert!(
                pieces <= 2 * teeth,
                "comb seed {seed}: {pieces} pieces for {teeth} teeth"
            );
        }
        let per_wall = 16 + rng.below(113);
        check_both_windings(&format!("spiral seed {seed}"), &spiral(&mut rng, per_wall));
        let u = grid_u(&mut rng, false);
        let counts = check_both_windings(&format!("U seed {seed}"), &u);
        assert!(
            counts.iter().all(|&c| c <= 3),
            "U seed {seed}: {counts:?} pieces"
        );
        let l = grid_u(&mut rng, true);
        let counts = check_both_windings(&format!("L seed {seed}"), &l);
        assert!(
            counts.iter().all(|&c| c == 2),
            "L seed {seed}: {counts:?} pieces"
        );
    }
}

#[test]
fn slivers_are_cut_into_pieces_the_library_accepts() {
    for seed in 0..8u64 {
        let mut rng = Rng::new(200 + seed);
        let bends = 2 + rng.below(100);
        for height in [1e-3, 0.1] {
            check_both_windings(
                &format!("zigzag seed {seed}, height {height}"),
                &zigzag(&mut rng, bends, height),
            );
        }
    }
    for height in [1e-2, 1e-3] {
        let counts = check_both_windings(&format!("arrowhead {height}"), &arrowhead(height));
        assert_eq!(counts, [2, 2]);
    }
}

#[test]
fn convex_outlines_come_back_whole() {
    for seed in 0..10u64 {
        let mut rng = Rng::new(300 + seed);
        let n = 3 + rng.below(250);
        let r = rng.range(1.0, 100.0);
        let outline: Vec<Vec2> = (0..n)
            .map(|k| {
                let a = (k as f64 + rng.range(0.2, 0.8)) * TAU / n as f64;
                v(r * a.cos(), r * a.sin())
            })
            .collect();
        // Rounding to f32 may bend a nearly straight vertex either way: only outlines
        // that stayed convex count.
        if reflex_count(&outline) == 0 {
            assert_eq!(
                check_both_windings(&format!("convex seed {seed}"), &outline),
                [1, 1]
            );
        }
    }
    // A square with many straight vertices on its sides is one square.
    let mut square = Vec::new();
    for k in 0..40 {
        square.push(v(k as f64, 0.0));
    }
    for k in 0..40 {
        square.push(v(40.0, k as f64));
    }
    for k in 0..40 {
        square.push(v(40.0 - k as f64, 40.0));
    }
    for k in 0..40 {
        square.push(v(0.0, 40.0 - k as f64));
    }
    let pieces = convex_pieces(&square);
    assert_eq!(pieces.len(), 1);
    assert_eq!(pieces[0].len(), 4);
}

#[test]
fn broken_outlines_are_refused_with_the_rule() {
    let o = |points: &[(f64, f64)]| points.iter().map(|&(x, y)| v(x, y)).collect::<Vec<_>>();
    // A bow-tie.
    assert_eq!(
        check_outline(&o(&[(0.0, 0.0), (4.0, 0.0), (0.0, 3.0), (4.0, 3.0)])),
        Err("edges 1 and 3 cross".to_string())
    );
    // Vertex 5 repeats vertex 2, further round.
    assert_eq!(
        check_outline(&o(&[
            (0.0, 0.0),
            (4.0, 0.0),
            (4.0, 4.0),
            (3.0, 4.0),
            (3.0, 5.0),
            (4.0, 4.0),
            (0.0, 5.0)
        ])),
        Err("vertex 5 repeats vertex 2".to_string())
    );
    // Zero area: all on one line.
    assert_eq!(
        check_outline(&o(&[(0.0, 0.0), (1.0, 2.0), (2.0, 4.0), (-1.0, -2.0)])),
        Err("has zero area: its vertices lie on one line".to_string())
    );
    // Vertex 4 lies on edge 1 (from (4, 0) to (4, 4)), which is not its neighbour.
    assert_eq!(
        check_outline(&o(&[
            (0.0, 0.0),
            (4.0, 0.0),
            (4.0, 4.0),
            (2.0, 4.0),
            (4.0, 2.0),
            (0.0, 4.0)
        ])),
        Err("edges 1 and 3 touch".to_string())
    );
    // Too many vertices.
    let mut rng = Rng::new(7);
    let big = star(&mut rng, MAX_CONCAVE_VERTICES + 1);
    assert_eq!(
        check_outline(&big),
        Err(format!(
            "has {} vertices, must have 3 to {MAX_CONCAVE_VERTICES}",
            MAX_CONCAVE_VERTICES + 1
        ))
    );
    // A star of the largest size passes.
    let mut rng = Rng::new(8);
    assert_eq!(check_outline(&star(&mut rng, MAX_CONCAVE_VERTICES)), Ok(()));
}

#[test]
fn time_to_check_and_cut() {
    let mut rng = Rng::new(11);
    let outline = star(&mut rng, 256);
    let start = Instant::now();
    let runs = 20;
    let mut pieces = 0;
    for _ in 0..runs {
        pieces = convex_pieces(&outline).len();
    }
    let cut = start.elapsed() / runs;
    let big = star(&mut rng, MAX_CONCAVE_VERTICES);
    let start = Instant::now();
    for _ in 0..runs {
        assert_eq!(check_outline(&big), Ok(()));
    }
    let check = start.elapsed() / runs;
    println!(
        "concave: cutting a 256-vertex star into {pieces} pieces takes {cut:?}; \
         checking a {MAX_CONCAVE_VERTICES}-vertex star takes {check:?}"
    );
    assert!(pieces >= 1);
}

/// The fewest pieces any cut of `outline` by diagonals makes, found by trying every set
/// of diagonals, smallest sets first (small outlines only). A set of diagonals that
/// cross none of each other cuts the outline into convex pieces exactly when at every
/// vertex the angles between its edges and diagonals are at most 180°.
fn fewest_by_search(outline: &[Vec2]) -> usize {
    let mut p: Vec<[f64; 2]> = outline.iter().copied().map(p64).collect();
    if signed_area(&p) < 0.0 {
        p.reverse();
    }
    let n = p.len();
    let on_segment = |a: [f64; 2], b: [f64; 2], q: [f64; 2]| {
        side(a, b, q) == 0
            && q[0] >= a[0].min(b[0])
            && q[0] <= a[0].max(b[0])
            && q[1] >= a[1].min(b[1])
            && q[1] <= a[1].max(b[1])
    };
    let mut diagonals = Vec::new();
    for i in 0..n {
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue;
            }
            let (a, b) = (p[i], p[j]);
            let clear = (0..n).all(|e| {
                let f = (e + 1) % n;
                if e == i || e == j || f == i || f == j {
                    return true;
                }
                !properly_cross(a, b, p[e], p[f]) && !on_segment(a, b, p[e])
            });
            let middle = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
            if clear && inside(&p, middle) {
                diagonals.push((i, j));
            }
        }
    }
    let angle = |from: usize, to: usize| {
        let d = [p[to][0] - p[from][0], p[to][1] - p[from][1]];
        d[1].atan2(d[0])
    };
    // Whether every vertex's angles between the edges and the chosen diagonals are at
    // most 180°, measured counter-clockwise from the edge to the next vertex.
    let convex = |chosen: &[(usize, usize)]| {
        (0..n).all(|v| {
            let base = angle(v, (v + 1) % n);
            let turn = |to: usize| (angle(v, to) - base).rem_euclid(TAU);
            let mut rays: Vec<f64> = chosen
                .iter()
                .filter_map(|&(a, b)| match v {
                    _ if v == a => Some(turn(b)),
                    _ if v == b => Some(turn(a)),
                    _ => None,
                })
                .collect();
            rays.push(0.0);
            rays.push(turn((v + n - 1) % n));
            rays.sort_by(f64::total_cmp);
            rays.windows(2)
                .all(|w| w[1] - w[0] <= std::f64::consts::PI + 1e-9)
        })
    };
    type Diagonal = (usize, usize);
    fn search(
        diagonals: &[Diagonal],
        p: &[[f64; 2]],
        from: usize,
        left: usize,
        chosen: &mut Vec<Diagonal>,
        convex: &dyn Fn(&[Diagonal]) -> bool,
    ) -> bool {
        if left == 0 {
            return convex(chosen);
        }
        for d in from..diagonals.len() {
            let (i, j) = diagonals[d];
            let crosses = chosen
                .iter()
                .any(|&(a, b)| properly_cross(p[i], p[j], p[a], p[b]));
            if crosses {
                continue;
            }
            chosen.push((i, j));
            let found = search(diagonals, p, d + 1, left - 1, chosen, convex);
            chosen.pop();
            if found {
                return true;
            }
        }
        false
    }
    (0..=diagonals.len())
        .find(|&d| search(&diagonals, &p, 0, d, &mut Vec::new(), &convex))
        .map_or(usize::MAX, |d| d + 1)
}

#[test]
fn small_outlines_are_cut_into_the_fewest_pieces_diagonals_allow() {
    let mut above = 0;
    for seed in 0..300u64 {
        let mut rng = Rng::new(1000 + seed);
        let n = 4 + rng.below(6);
        let outline = star(&mut rng, n);
        let fewest = fewest_by_search(&outline);
        let [forward, backward] = check_both_windings(&format!("small star seed {seed}"), &outline);
        assert_eq!(
            (forward, backward),
            (fewest, fewest),
            "small star seed {seed} ({n} vertices, {} reflex): {outline:?}",
            reflex_count(&outline)
        );
        above += usize::from(fewest > reflex_count(&outline).div_ceil(2) + 1);
    }
    // The search finds outlines where diagonals cannot reach ceil(r/2) + 1.
    assert!(above > 0);
}
