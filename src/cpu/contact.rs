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
//! Cells are counted a 32-pixel word at a time: two bitmasks by the set bits of their
//! ANDed words (as `pygame.mask.Mask.overlap_area`), a shape against a bitmask by the
//! set bits under its extent along each row it crosses, which is exactly the set cells
//! it meets (the shape within a row's band is convex, so it meets a cell of that row
//! exactly when its extent along the row reaches the cell).

use glam::{IVec2, Vec2};

use crate::answer::contact::ContactKind;
use crate::input::library::ShapeLibrary;
use crate::input::shapes::ShapeKind;
use crate::layout::packed::{BodyInfo, BodyTransform, PackedShape};

use super::placed::{cells_between, length, mask_bits, set_cells_in_row, unit, Convex, Placed};

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
    }
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
        Placed::Bitmask { .. } => return 0,
    };
    let rows = cells_between(lo.y - origin.y, hi.y - origin.y, mask.rows);
    let mut area = 0;
    for row in rows.x.max(0)..=rows.y.min(mask.rows as i32 - 1) {
        let (y0, y1) = (origin.y + row as f32, origin.y + row as f32 + 1.0);
        let span = match shape {
            Placed::Polygon { points, .. } => polygon_span(points, y0, y1),
            Placed::Circle { centre, radius } => circle_span(*centre, *radius, y0, y1),
            Placed::Bitmask { .. } => None,
        };
        if let Some((x0, x1)) = span {
            let columns = cells_between(x0 - origin.x, x1 - origin.x, mask.count);
            area += set_cells_in_row(library, mask, row, columns.x, columns.y).count() as u32;
        }
    }
    area
}

/// The x extent of a convex polygon within the band `y0 <= y <= y1`, if it reaches it:
/// its vertices in the band and its edges' crossings of the band's two lines.
pub fn polygon_span(points: &[Vec2], y0: f32, y1: f32) -> Option<(f32, f32)> {
    let n = points.len();
    let (mut lo, mut hi) = (f32::MAX, -f32::MAX);
    for k in 0..n {
        let (a, b) = (points[k], points[(k + 1) % n]);
        if a.y >= y0 && a.y <= y1 {
            lo = lo.min(a.x);
            hi = hi.max(a.x);
        }
        for y in [y0, y1] {
            if (a.y < y) != (b.y < y) {
                let x = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y);
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
    }
    (lo <= hi).then_some((lo, hi))
}

/// The x extent of a circle within the band `y0 <= y <= y1`, if it reaches it: the half
/// chord at the band's nearest height to the centre.
pub fn circle_span(centre: Vec2, radius: f32, y0: f32, y1: f32) -> Option<(f32, f32)> {
    let dy = (y0 - centre.y).max(centre.y - y1).max(0.0);
    if dy > radius {
        return None;
    }
    let half = ((radius - dy) * (radius + dy)).sqrt();
    Some((centre.x - half, centre.x + half))
}
