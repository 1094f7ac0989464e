//! Times of impact of swept pairs (scene format 1.1), in closed form.
//!
//! Both bodies slide without turning, so only their relative motion matters: with body
//! `a` held still, body `b` moves by `t·w` (`w = v_b - v_a`), and the two meet at `t`
//! exactly when `t·w` lies in the Minkowski difference `M = A - B = {p - q}`. The time of
//! impact is where the segment from the origin to `w` first enters `M`: a ray cast
//! against a convex set, with no sampling of time.
//!
//! - Two polygons: `M` is the polygon bounded by the edge lines of `A` and of `-B`, each
//!   at the support offset of `M` along its normal; the segment is clipped against those
//!   half-planes (Cyrus-Beck).
//! - A polygon and a circle: `M` is the polygon grown by the radius; its boundary is the
//!   edges pushed out by the radius and a disc at every vertex; the first of those the
//!   centre's path crosses, entering, is the impact.
//! - Two circles: one disc of the summed radii.
//! - A capsule and a polygon, circle or capsule: the segments (and points) that bound
//!   the difference of their cores, each grown by the summed radii into a capsule;
//!   the first of those the path enters ([`segments_toi`]).
//! - A moving shape and a still bitmask: the first impact with any set cell, each cell a
//!   unit square (a polygon), over the cells the sweep can reach row by row.
//!
//! A pair that already intersects at `t = 0` (by the narrow phase's own test, so that a
//! frame without motion gives exactly its pairs) has time 0. Everything is f32 in the
//! frame of one body, as a shader would compute it.

use glam::Vec2;

use crate::input::library::ShapeLibrary;
use crate::layout::geometry::{capsule_entry, disc_entry};
use crate::layout::packed::{BodyInfo, BodyTransform, PackedShape};

use super::narrow;
use super::placed::{cell_points, cells_between, set_cells_in_row, Convex, Placed, BOX_NORMALS};

/// The first `t` in `[0, 1]` at which bodies `i` and `j` meet, each moving by `t` times
/// its velocity, or `None` when they do not meet during the frame. Filters are the
/// broad phase's business.
pub fn time_of_impact(
    library: &ShapeLibrary,
    transforms: &[BodyTransform],
    infos: &[BodyInfo],
    velocities: &[Vec2],
    i: usize,
    j: usize,
) -> Option<f32> {
    if narrow::bodies_collide(library, transforms, infos, i, j) {
        return Some(0.0);
    }
    let shape = |k: usize| &library.shapes[infos[k].shape as usize];
    // Polygon < circle < capsule < bitmask, as the narrow phase orders a pair: a bitmask is always
    // `b`, and it never moves.
    let (a, b) = if shape(j).kind < shape(i).kind {
        (j, i)
    } else {
        (i, j)
    };
    let w = velocities[b] - velocities[a];
    if w == Vec2::ZERO {
        return None; // apart at t = 0 and at every other time
    }
    let origin = Vec2::from(transforms[a].position);
    let pa = Placed::new(library, shape(a), &transforms[a], origin);
    let pb = Placed::new(library, shape(b), &transforms[b], origin);
    placed_toi(library, &pa, &pb, w)
}

/// The first `t` in `[0, 1]` at which `b`, moved by `t·w`, meets `a`; `a` may not be a
/// bitmask unless `b` is one too (kinds ordered as [`time_of_impact`] orders them).
fn placed_toi(library: &ShapeLibrary, a: &Placed, b: &Placed, w: Vec2) -> Option<f32> {
    match (a, b) {
        (Placed::Polygon { points, normals }, Placed::Polygon { .. }) => {
            let pa = Convex { points, normals };
            b.convex().and_then(|pb| polygon_polygon_toi(&pa, &pb, w))
        }
        (Placed::Polygon { points, normals }, Placed::Circle { centre, radius }) => {
            circle_polygon_toi(&Convex { points, normals }, *centre, *radius, w)
        }
        (
            Placed::Circle {
                centre: ca,
                radius: ra,
            },
            Placed::Circle {
                centre: cb,
                radius: rb,
            },
        ) => disc_toi(*cb - *ca, ra + rb, w),
        (Placed::Polygon { points, normals }, Placed::Capsule { a: c0, b: c1, radius }) => {
            polygon_capsule_toi(&Convex { points, normals }, (*c0, *c1), *radius, w)
        }
        // Every point of the moving capsule is within the radii of its segment, so the
        // circle's centre, moving the other way, enters the capsule grown by its radius.
        (Placed::Circle { centre, radius: rc }, Placed::Capsule { a: c0, b: c1, radius }) => {
            capsule_entry(*centre, -w, *c0, *c1, rc + radius).map(|(t, _)| t)
        }
        (
            Placed::Capsule {
                a: a0,
                b: a1,
                radius: ra,
            },
            Placed::Capsule {
                a: b0,
                b: b1,
                radius: rb,
            },
        ) => segments_toi(&[*a0, *a1], &[*b0, *b1], ra + rb, w),
        // The bitmask stays still and the shape `a` moves by `-w` against it.
        (shape, Placed::Bitmask { mask, origin }) => {
            shape_bitmask_toi(library, shape, mask, *origin, -w)
        }
        // Two bitmasks never move; anything else is ordered away above.
        _ => None,
    }
}

/// Clips the segment `t·w`, `t` in `[0, 1]`, against the half-plane `n·x <= h`: the range
/// `[enter, exit]` shrinks, and `None` once it is empty.
fn clip(range: (f32, f32), n: Vec2, h: f32, w: Vec2) -> Option<(f32, f32)> {
    let (mut enter, mut exit) = range;
    let speed = n.dot(w);
    if speed == 0.0 {
        // Parallel to the line: inside for all t or for none.
        return (h >= 0.0).then_some(range);
    }
    let t = h / speed;
    if speed > 0.0 {
        exit = exit.min(t);
    } else {
        enter = enter.max(t);
    }
    (enter <= exit).then_some((enter, exit))
}

/// When polygon `b`, moved by `t·w`, first meets polygon `a`: the segment `t·w` clipped
/// to `A - B`, whose edges are `a`'s edges (outward normal `n`, offset
/// `max(a·n) - min(b·n)`) and `b`'s edges turned round (normal `-m`, offset
/// `max(b·m) - min(a·m)`).
pub fn polygon_polygon_toi(a: &Convex, b: &Convex, w: Vec2) -> Option<f32> {
    let mut range = (0.0f32, 1.0f32);
    for &n in a.normals {
        let h = a.support(n) - b.interval(n).0;
        range = clip(range, n, h, w)?;
    }
    for &m in b.normals {
        let h = b.support(m) - a.interval(m).0;
        range = clip(range, -m, h, w)?;
    }
    Some(range.0)
}

/// When the outline `b` (its vertices in order), moved by `t·w`, first comes within
/// `reach` of the outline `a`: the segments of the Minkowski difference of the two
/// outlines are each a vertex of one less an edge of the other, and the difference
/// grown by `reach` is covered by those segments grown by `reach`, so its first
/// entry is the first entry of a vertex of `b` (moving by `w`) into an edge of `a`
/// grown by `reach`, or of a vertex of `a` (moving by `-w`) into an edge of `b`. An
/// outline of two vertices is a segment, one edge; of one vertex, a point. The two start
/// apart. WGSL `segments_toi`.
pub fn segments_toi(a: &[Vec2], b: &[Vec2], reach: f32, w: Vec2) -> Option<f32> {
    let edges = |p: &[Vec2]| -> Vec<(Vec2, Vec2)> {
        match p.len() {
            1 | 2 => vec![(p[0], p[p.len() - 1])],
            n => (0..n).map(|k| (p[k], p[(k + 1) % n])).collect(),
        }
    };
    let mut best: Option<f32> = None;
    let mut keep = |entry: Option<(f32, Option<Vec2>)>| {
        if let Some((t, _)) = entry {
            if best.is_none_or(|b| t < b) {
                best = Some(t);
            }
        }
    };
    for (e0, e1) in edges(a) {
        for &v in b {
            keep(capsule_entry(v, w, e0, e1, reach));
        }
    }
    for (e0, e1) in edges(b) {
        for &v in a {
            keep(capsule_entry(v, -w, e0, e1, reach));
        }
    }
    best
}

/// When a capsule (`ends`, `radius`) moving by `t·w` first meets polygon `p`, which it
/// starts apart from ([`segments_toi`]).
pub fn polygon_capsule_toi(p: &Convex, ends: (Vec2, Vec2), radius: f32, w: Vec2) -> Option<f32> {
    segments_toi(p.points, &[ends.0, ends.1], radius, w)
}

/// When a disc of `radius` centred at `centre` and moving by `t·w` first meets the
/// origin's disc of radius 0, i.e. when `|centre + t·w| <= radius`; see
/// [`disc_entry`] for the form that neither cancels nor overflows.
pub fn disc_toi(centre: Vec2, radius: f32, w: Vec2) -> Option<f32> {
    disc_entry(centre, radius, w).map(|(t, _)| t)
}

/// When a circle (`centre`, `radius`) moving by `t·w` first meets polygon `p`: the first
/// crossing, entering, of an edge pushed out by the radius (within the edge's extent)
/// or of a disc of the radius around a vertex. The circle starts apart from the polygon.
pub fn circle_polygon_toi(p: &Convex, centre: Vec2, radius: f32, w: Vec2) -> Option<f32> {
    let n = p.points.len();
    let mut best: Option<f32> = None;
    let mut keep = |t: f32| {
        if (0.0..=1.0).contains(&t) && best.is_none_or(|b| t < b) {
            best = Some(t);
        }
    };
    for k in 0..n {
        let (v, next, normal) = (p.points[k], p.points[(k + 1) % n], p.normals[k]);
        let speed = normal.dot(w);
        if speed < 0.0 {
            let t = (v.dot(normal) + radius - centre.dot(normal)) / speed;
            let edge = next - v;
            let along = (centre + t * w - v).dot(edge);
            if (0.0..=edge.dot(edge)).contains(&along) {
                keep(t);
            }
        }
        if let Some(t) = disc_toi(centre - v, radius, w) {
            keep(t);
        }
    }
    best
}

/// When `shape` (a polygon or circle, in the mask's frame, the mask's cell `(0, 0)`
/// starting at `origin`), moving by `t·w`, first meets a set cell of the still `mask`.
///
/// Only the cells the sweep can reach are tested: for each row the shape's box crosses
/// during the frame, the times its box is within the row, and the columns its box covers
/// then (padded by a cell, since only the exact tests decide).
fn shape_bitmask_toi(
    library: &ShapeLibrary,
    shape: &Placed,
    mask: &PackedShape,
    origin: Vec2,
    w: Vec2,
) -> Option<f32> {
    // The shape's box in the mask's cell coordinates.
    let (lo, hi) = match shape {
        Placed::Polygon { points, normals } => Convex { points, normals }.bounds(),
        Placed::Circle { centre, radius } => (*centre - *radius, *centre + *radius),
        Placed::Capsule { a, b, radius } => (a.min(*b) - *radius, a.max(*b) + *radius),
        Placed::Bitmask { .. } => return None,
    };
    let (lo, hi) = (lo - origin, hi - origin);
    let rows = cells_between(lo.y + w.y.min(0.0), hi.y + w.y.max(0.0), mask.rows);
    let mut best: Option<f32> = None;
    for row in (rows.x - 1).max(0)..=(rows.y + 1).min(mask.rows as i32 - 1) {
        // Times at which the box's rows reach this row: lo.y + t·w.y <= row + 1 and
        // hi.y + t·w.y >= row.
        let (mut t0, mut t1) = (0.0f32, best.unwrap_or(1.0));
        if w.y != 0.0 {
            let (enter, leave) = ((row as f32 - hi.y) / w.y, (row as f32 + 1.0 - lo.y) / w.y);
            t0 = t0.max(enter.min(leave));
            t1 = t1.min(enter.max(leave));
        }
        if t0 > t1 {
            continue;
        }
        let (x0, x1) = (t0 * w.x, t1 * w.x);
        let columns = cells_between(lo.x + x0.min(x1), hi.x + x0.max(x1), mask.count);
        for column in set_cells_in_row(library, mask, row, columns.x - 1, columns.y + 1) {
            let corners = cell_points(column, row).map(|p| p + origin);
            let cell = Convex {
                points: &corners,
                normals: &BOX_NORMALS,
            };
            let t = match shape {
                Placed::Polygon { points, normals } => {
                    polygon_polygon_toi(&cell, &Convex { points, normals }, w)
                }
                Placed::Circle { centre, radius } => circle_polygon_toi(&cell, *centre, *radius, w),
                Placed::Capsule { a, b, radius } => polygon_capsule_toi(&cell, (*a, *b), *radius, w),
                Placed::Bitmask { .. } => None,
            };
            if let Some(t) = t {
                if best.is_none_or(|b| t < b) {
                    best = Some(t);
                }
            }
        }
    }
    best
}
