//! Contacts of colliding pairs (scene format 1.1): penetration depth and normal from the
//! separating axis test, overlapping cells for pairs with a bitmask.
//!
//! The separating axis test already measures, on each candidate axis, how far one
//! shape's projection reaches into the other's; the axis where that is least is the
//! shortest way out. Here the overlap on an axis is measured one way only, as the move of
//! body `j` along the axis that would leave the two touching: the axes are `i`'s outward
//! edge normals and `j`'s turned round (the faces of the Minkowski difference), and for
//! a circle the axis from the polygon's nearest vertex to its centre, which the edges
//! miss when the circle sits off a corner. Ties go to the first axis in that order.
//!
//! A pair with a capsule is a pair of cores (a capsule's segment, a circle's centre, a
//! polygon) grown by radii ([`rounded_contact`]): cores that overlap part along the
//! separating axis test's least overlap plus the radii, cores apart along the line
//! between their nearest points.
//!
//! Cells are counted a 32-pixel word at a time: two bitmasks by the set bits of their
//! ANDed words (as `pygame.mask.Mask.overlap_area`), a shape against a bitmask by the
//! set bits under its extent along each row it crosses, which is exactly the set cells
//! it meets (the shape within a row's band is convex, so it meets a cell of that row
//! exactly when its extent along the row reaches the cell).

use glam::{IVec2, Vec2};

use crate::answer::contact::ContactKind;
use crate::input::library::ShapeLibrary;
use crate::input::shapes::ShapeKind;
use crate::layout::geometry::{segment_closest, segments_cross};
use crate::layout::packed::{BodyInfo, BodyTransform, PackedShape};

use super::placed::{
    capsule_span, cells_between, circle_span, length, mask_bits, polygon_span, set_cells_in_row,
    unit, Convex, Placed,
};

/// How bodies `i` and `j`, which collide, overlap; the normal points from `i` to `j`.
pub fn contact(
    library: &ShapeLibrary,
    transforms: &[BodyTransform],
    infos: &[BodyInfo],
    i: usize,
    j: usize,
) -> ContactKind {
    let shape = |k: usize| &library.shapes[infos[k].shape as usize];
    let (si, sj) = (shape(i), shape(j));
    // Frames: a bitmask's own when there is one (its cells then sit on whole numbers, as
    // in the narrow phase), else body i's.
    let origin = if sj.shape_kind() == ShapeKind::Bitmask {
        Vec2::from(transforms[j].position)
    } else {
        Vec2::from(transforms[i].position)
    };
    let pi = Placed::new(library, si, &transforms[i], origin);
    let pj = Placed::new(library, sj, &transforms[j], origin);
    match (&pi, &pj) {
        (
            Placed::Bitmask {
                mask: a,
                origin: oa,
            },
            Placed::Bitmask {
                mask: b,
                origin: ob,
            },
        ) => ContactKind::Area(bitmask_bitmask_area(
            library,
            a,
            b,
            (*ob - *oa).round().as_ivec2(),
        )),
        (Placed::Bitmask { mask, origin }, shape) | (shape, Placed::Bitmask { mask, origin }) => {
            ContactKind::Area(shape_bitmask_area(library, shape, mask, *origin))
        }
        (Placed::Polygon { points, normals }, Placed::Polygon { .. }) => {
            let pa = Convex { points, normals };
            let (normal, depth) = pj
                .convex()
                .map_or((Vec2::X, 0.0), |pb| polygon_polygon(&pa, &pb));
            ContactKind::Penetration { normal, depth }
        }
        (Placed::Polygon { points, normals }, Placed::Circle { centre, radius }) => {
            let (normal, depth) = polygon_circle(&Convex { points, normals }, *centre, *radius);
            ContactKind::Penetration { normal, depth }
        }
        (Placed::Circle { centre, radius }, Placed::Polygon { points, normals }) => {
            // Pushing the circle out of the polygon one way is pushing the polygon out
            // of the circle the other.
            let (normal, depth) = polygon_circle(&Convex { points, normals }, *centre, *radius);
            ContactKind::Penetration {
                normal: -normal,
                depth,
            }
        }
        (
            Placed::Circle {
                centre: ci,
                radius: ri,
            },
            Placed::Circle {
                centre: cj,
                radius: rj,
            },
        ) => {
            let (normal, depth) = circle_circle(*cj - *ci, *ri + *rj);
            ContactKind::Penetration { normal, depth }
        }
        // A capsule and a convex shape: the cores (outline, segment or point) and the
        // radii they are grown by.
        (Placed::Capsule { .. }, _) | (_, Placed::Capsule { .. }) => {
            let (normal, depth) = rounded_contact(&core(&pi), &core(&pj));
            ContactKind::Penetration { normal, depth }
        }
    }
}

/// A convex shape as a core grown by a radius: its points (a polygon's vertices
/// counter-clockwise, a capsule's two ends, or one point for a circle or a capsule whose
/// ends are one), the axes its projections are compared on, and the radius.
pub struct Core {
    /// The core's points.
    pub points: Vec<Vec2>,
    /// A polygon's outward edge normals; a segment's normal and direction, both ways
    /// (the faces of the difference of a segment and another core include its ends');
    /// a point's none.
    pub axes: Vec<Vec2>,
    /// What the core is grown by.
    pub radius: f32,
}

/// The core of a polygon, circle or capsule (a bitmask has none: empty).
pub fn core(shape: &Placed) -> Core {
    let (points, axes, radius) = match shape {
        Placed::Polygon { points, normals } => (points.clone(), normals.clone(), 0.0),
        Placed::Circle { centre, radius } => (vec![*centre], Vec::new(), *radius),
        Placed::Capsule { a, b, radius } if a == b => (vec![*a], Vec::new(), *radius),
        Placed::Capsule { a, b, radius } => (vec![*a, *b], segment_axes(*a, *b), *radius),
        Placed::Bitmask { .. } => (Vec::new(), Vec::new(), 0.0),
    };
    Core {
        points,
        axes,
        radius,
    }
}

/// A segment's axes: its normal (the outward one were it a polygon's edge from `a` to
/// `b`) and direction, each both ways; WGSL `segment_axis`.
fn segment_axes(a: Vec2, b: Vec2) -> Vec<Vec2> {
    let normal = Vec2::new(b.y - a.y, a.x - b.x);
    let normal = normal / length(normal);
    let along = (b - a) / length(b - a);
    vec![normal, -normal, along, -along]
}

/// The edges of a core: a polygon's (counter-clockwise), a segment's one, a point's one
/// of no length.
fn core_edges(points: &[Vec2]) -> Vec<(Vec2, Vec2)> {
    match points.len() {
        0 => Vec::new(),
        1 | 2 => vec![(points[0], points[points.len() - 1])],
        n => (0..n).map(|k| (points[k], points[(k + 1) % n])).collect(),
    }
}

/// Whether `p` is in the polygon core `c` (closed); a segment or a point holds nothing
/// here (its edges say whether it is met).
fn core_holds(c: &Core, p: Vec2) -> bool {
    c.points.len() >= 3
        && c.points
            .iter()
            .zip(&c.axes)
            .all(|(&v, &n)| (p - v).dot(n) <= 0.0)
}

/// How far apart two cores are, and the line from a's nearest point to b's: 0 (and no
/// line) when they meet, a point of one in the other or two edges crossing; otherwise
/// the nearest points are a vertex of one and a point of an edge of the other. WGSL
/// `capsule_nearest` and its kin.
pub fn core_nearest(a: &Core, b: &Core) -> (f32, Vec2) {
    if core_holds(a, b.points[0]) || core_holds(b, a.points[0]) {
        return (0.0, Vec2::ZERO);
    }
    let (edges_a, edges_b) = (core_edges(&a.points), core_edges(&b.points));
    for &(a0, a1) in &edges_a {
        for &(b0, b1) in &edges_b {
            if segments_cross(a0, a1, b0, b1) {
                return (0.0, Vec2::ZERO);
            }
        }
    }
    let mut nearest = (f32::MAX, Vec2::ZERO);
    let mut consider = |from: Vec2, to: Vec2| {
        let d = (to - from).length();
        if d < nearest.0 {
            nearest = (d, to - from);
        }
    };
    for &(e0, e1) in &edges_a {
        for &v in &b.points {
            consider(segment_closest(e0, e1, v), v);
        }
    }
    for &(e0, e1) in &edges_b {
        for &v in &a.points {
            consider(v, segment_closest(e0, e1, v));
        }
    }
    nearest
}

/// Cores closer than this part along the best axis of the separating axis test rather
/// than along the line between their nearest points, which has no direction to speak of
/// at that length.
pub const NEAREST_LINE_MIN: f32 = 1e-4;

/// The least move of core `b` that leaves it touching core `a` when each is grown by
/// its radius: `(unit direction, length)`. WGSL `capsule_least` and its kin.
///
/// Two candidates, the least kept: every face of the cores' difference, a's axes and
/// b's turned round (the move along it that parts their projections, plus the radii), and when the cores are apart, the line
/// between their nearest points (the radii less the distance). Cores that overlap part
/// along an axis, exactly as two polygons do; cores `d` apart part after `radii - d`
/// along their nearest line, which no axis beats (an axis parts them by at most `d`).
pub fn rounded_contact(a: &Core, b: &Core) -> (Vec2, f32) {
    let reach = a.radius + b.radius;
    let support = |p: &[Vec2], axis: Vec2| p.iter().map(|v| v.dot(axis)).fold(f32::MIN, f32::max);
    let mut best = (Vec2::X, f32::MAX);
    // The faces of the difference a - b: a's axes, and b's turned round.
    for axis in a.axes.iter().copied().chain(b.axes.iter().map(|&m| -m)) {
        let overlap = support(&a.points, axis) + support(&b.points, -axis) + reach;
        if overlap < best.1 {
            best = (axis, overlap);
        }
    }
    let (distance, line) = core_nearest(a, b);
    if distance > NEAREST_LINE_MIN && reach - distance < best.1 {
        best = (line / distance, reach - distance);
    }
    if best.1 == f32::MAX {
        // Two points nearer than NEAREST_LINE_MIN: they part any way, along x.
        best = (Vec2::X, reach - distance);
    }
    (best.0, depth_of(best.1))
}

/// The least move of `b` that leaves it touching `a`: `(unit direction, length)`.
pub fn polygon_polygon(a: &Convex, b: &Convex) -> (Vec2, f32) {
    let mut best = (Vec2::X, f32::MAX);
    let mut consider = |axis: Vec2, depth: f32| {
        if depth < best.1 {
            best = (axis, depth);
        }
    };
    for &n in a.normals {
        consider(n, a.support(n) - b.interval(n).0);
    }
    for &m in b.normals {
        consider(-m, b.support(m) - a.interval(m).0);
    }
    (best.0, depth_of(best.1))
}

/// The least move of a circle (`centre`, `radius`) that leaves it touching polygon `p`:
/// the polygon's edge normals, then the axis from its nearest vertex to the centre.
pub fn polygon_circle(p: &Convex, centre: Vec2, radius: f32) -> (Vec2, f32) {
    let mut best = (Vec2::X, f32::MAX);
    let mut nearest = p.points[0];
    for (&n, &v) in p.normals.iter().zip(p.points) {
        let depth = p.support(n) - (centre.dot(n) - radius);
        if depth < best.1 {
            best = (n, depth);
        }
        if (v - centre).length_squared() < (nearest - centre).length_squared() {
            nearest = v;
        }
    }
    if let Some(axis) = unit(centre - nearest) {
        let depth = p.support(axis) - (centre.dot(axis) - radius);
        if depth < best.1 {
            best = (axis, depth);
        }
    }
    (best.0, depth_of(best.1))
}

/// A measured overlap as a depth: at least 0 (touching), and finite even when the
/// arithmetic overflowed far past the format's range, so that it can be written.
fn depth_of(overlap: f32) -> f32 {
    if overlap.is_nan() || overlap < 0.0 {
        0.0
    } else {
        overlap.min(f32::MAX)
    }
}

/// Two circles whose centres are `offset` apart (from `i` to `j`) and whose radii add up
/// to `reach`. Concentric circles may part any way: the x axis is chosen.
pub fn circle_circle(offset: Vec2, reach: f32) -> (Vec2, f32) {
    let normal = unit(offset).unwrap_or(Vec2::X);
    (normal, depth_of(reach - length(offset)))
}

/// Cells set in both masks, `b`'s cell `(0, 0)` lying on `a`'s cell `d`: for each row
/// they share, each word of `a` ANDed with the 32 cells of `b` under it, set bits counted.
pub fn bitmask_bitmask_area(
    library: &ShapeLibrary,
    a: &PackedShape,
    b: &PackedShape,
    d: IVec2,
) -> u32 {
    let column_first = d.x.max(0);
    let column_end = (a.count as i32).min(d.x + b.count as i32);
    let row_first = d.y.max(0);
    let row_end = (a.rows as i32).min(d.y + b.rows as i32);
    if column_first >= column_end {
        return 0;
    }
    let mut area = 0;
    for row in row_first..row_end {
        for w in (column_first >> 5)..=((column_end - 1) >> 5) {
            let bits_a = mask_bits(library, a, row, w * 32);
            if bits_a != 0 {
                area += (bits_a & mask_bits(library, b, row - d.y, w * 32 - d.x)).count_ones();
            }
        }
    }
    area
}

/// The set cells of `mask` (cell `(0, 0)` at `origin`) that a polygon or circle meets.
pub fn shape_bitmask_area(
    library: &ShapeLibrary,
    shape: &Placed,
    mask: &PackedShape,
    origin: Vec2,
) -> u32 {
    let (lo, hi) = match shape {
        Placed::Polygon { points, normals } => Convex { points, normals }.bounds(),
        Placed::Circle { centre, radius } => (*centre - *radius, *centre + *radius),
        Placed::Capsule { a, b, radius } => (a.min(*b) - *radius, a.max(*b) + *radius),
        Placed::Bitmask { .. } => return 0,
    };
    let rows = cells_between(lo.y - origin.y, hi.y - origin.y, mask.rows);
    let mut area = 0;
    for row in rows.x.max(0)..=rows.y.min(mask.rows as i32 - 1) {
        let (y0, y1) = (origin.y + row as f32, origin.y + row as f32 + 1.0);
        let span = match shape {
            Placed::Polygon { points, .. } => polygon_span(points, y0, y1),
            Placed::Circle { centre, radius } => circle_span(*centre, *radius, y0, y1),
            Placed::Capsule { a, b, radius } => capsule_span(*a, *b, *radius, y0, y1),
            Placed::Bitmask { .. } => None,
        };
        if let Some((x0, x1)) = span {
            let columns = cells_between(x0 - origin.x, x1 - origin.x, mask.count);
            area += set_cells_in_row(library, mask, row, columns.x, columns.y).count() as u32;
        }
    }
    area
}
