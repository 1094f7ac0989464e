//! Whether a pair on which two backends differ lies in the scene format's tolerance
//! band: the benchmark has no oracle, so it recomputes the pair in f64 and excuses a
//! difference only when the two bodies are within [`BAND`] of touching. Anything else
//! is reported as a disagreement.
//!
//! The separation of two bodies is the gap between them when they are apart and minus
//! the depth of their overlap (the shortest move that parts them) when they overlap:
//! exact for convex polygons and circles (the minimum over edge normals of the
//! projections' overlap, or the distance between the boundaries). A bitmask is the union
//! of its set cells; its separation from a shape is taken cell by cell (the nearest
//! cell's gap, or the deepest cell's overlap), which can only call a pair nearer the band
//! than the union would. Two bitmasks share a cell or not, with no band at all.

use glam::DVec2;

use crate::input::body::Body;
use crate::input::shapes::{Bitmask, Shape};

/// The format's tolerance: pairs whose boundaries come within this of touching may go
/// either way.
pub const BAND: f64 = 0.01;

/// What the f64 recomputation says of a pair on which two backends differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Within [`BAND`] of touching: either answer is right.
    InBand,
    /// Overlapping by more than [`BAND`]: the backend that left the pair out is wrong.
    Colliding,
    /// Apart by more than [`BAND`]: the backend that reported the pair is wrong.
    Apart,
    /// Two bitmasks, which this module does not test against each other: one of the two
    /// backends is wrong, and the recomputation cannot say which.
    Undecided,
}

/// Whether bodies `a` and `b` over `shapes` are within [`BAND`] of touching, so that
/// backends may differ on them. `None` when a body names a shape that does not exist.
pub fn within_band(shapes: &[Shape], a: &Body, b: &Body) -> Option<bool> {
    verdict(shapes, a, b).map(|v| v == Verdict::InBand)
}

/// The [`Verdict`] on bodies `a` and `b` over `shapes`. `None` when a body names a shape
/// that does not exist.
pub fn verdict(shapes: &[Shape], a: &Body, b: &Body) -> Option<Verdict> {
    let (parts_a, parts_b) = (placed_parts(shapes, a)?, placed_parts(shapes, b)?);
    // The union of parts against the union: colliding when any two parts are, in the
    // band when none is and some are, apart when all are.
    let mut verdicts = Vec::new();
    for pa in &parts_a {
        for pb in &parts_b {
            verdicts.push(convex_verdict(pa.clone(), pb.clone()));
        }
    }
    [
        Verdict::Colliding,
        Verdict::InBand,
        Verdict::Undecided,
        Verdict::Apart,
    ]
    .into_iter()
    .find(|v| verdicts.contains(v))
}

/// The body's shape as convex parts in world coordinates: a concave shape cut into
/// pieces (the library's cut), a compound's parts each placed by the body and the part.
fn placed_parts<'a>(shapes: &'a [Shape], body: &Body) -> Option<Vec<Placed<'a>>> {
    match shapes.get(body.shape as usize)? {
        Shape::Concave(c) => Some(
            crate::input::concave::convex_pieces(&c.vertices)
                .into_iter()
                .map(|piece| placed_polygon(&piece, body))
                .collect(),
        ),
        Shape::Compound(c) => {
            let mut all = Vec::new();
            let (sin, cos) = (body.angle as f64).sin_cos();
            for part in &c.parts {
                let (x, y) = (part.offset.x as f64, part.offset.y as f64);
                let placed = Body {
                    shape: part.shape,
                    position: glam::Vec2::new(
                        (body.position.x as f64 + cos * x - sin * y) as f32,
                        (body.position.y as f64 + sin * x + cos * y) as f32,
                    ),
                    angle: (body.angle as f64 + part.angle as f64) as f32,
                    ..*body
                };
                if matches!(shapes.get(part.shape as usize)?, Shape::Compound(_)) {
                    return None;
                }
                all.extend(placed_parts(shapes, &placed)?);
            }
            Some(all)
        }
        shape => Some(vec![placed(shape, body)]),
    }
}

/// The [`Verdict`] on two convex parts (or bitmasks).
fn convex_verdict(pa: Placed, pb: Placed) -> Verdict {
    let outside = |s: f64| {
        if s > 0.0 {
            Verdict::Apart
        } else {
            Verdict::Colliding
        }
    };
    match (pa, pb) {
        (Placed::Mask(..), Placed::Mask(..)) => Verdict::Undecided,
        (Placed::Mask(mask, origin), other) | (other, Placed::Mask(mask, origin)) => {
            // The nearest cell's separation, and the deepest overlap of any cell.
            let (mut nearest, mut deepest) = (f64::INFINITY, f64::INFINITY);
            for_set_cells_near(mask, origin, &other, |cell| {
                let s = separation(&Placed::Polygon(cell), &other);
                nearest = nearest.min(s.max(0.0));
                deepest = deepest.min(s);
            });
            if deepest > 0.0 {
                if nearest <= BAND {
                    Verdict::InBand
                } else {
                    Verdict::Apart
                }
            } else if deepest >= -BAND {
                // Overlapping some cell: in the band only if no cell is overlapped deeper.
                Verdict::InBand
            } else {
                Verdict::Colliding
            }
        }
        (pa, pb) => match separation(&pa, &pb) {
            s if s.abs() <= BAND => Verdict::InBand,
            s => outside(s),
        },
    }
}

/// A body's shape in world coordinates, in f64.
#[derive(Clone)]
enum Placed<'a> {
    /// Vertices counter-clockwise.
    Polygon(Vec<DVec2>),
    /// Centre and radius.
    Circle(DVec2, f64),
    /// A capsule's ends and radius.
    Capsule(DVec2, DVec2, f64),
    /// A mask and its origin.
    Mask(&'a Bitmask, DVec2),
}

/// A convex shape (or a bitmask) placed by `body`; a concave or compound shape is
/// [`placed_parts`]' work, and places as nothing here.
fn placed<'a>(shape: &'a Shape, body: &Body) -> Placed<'a> {
    let origin = body.position.as_dvec2();
    let rotation = DVec2::from_angle(body.angle as f64);
    match shape {
        Shape::Polygon(p) => placed_polygon(&p.vertices, body),
        Shape::Circle(c) => Placed::Circle(origin, c.radius as f64),
        Shape::Capsule(c) => Placed::Capsule(
            origin + rotation.rotate(c.a.as_dvec2()),
            origin + rotation.rotate(c.b.as_dvec2()),
            c.radius as f64,
        ),
        Shape::Bitmask(m) => Placed::Mask(m, origin),
        Shape::Concave(_) | Shape::Compound(_) => Placed::Polygon(Vec::new()),
    }
}

/// A convex polygon placed by `body`, counter-clockwise.
fn placed_polygon<'a>(vertices: &[glam::Vec2], body: &Body) -> Placed<'a> {
    let origin = body.position.as_dvec2();
    let rotation = DVec2::from_angle(body.angle as f64);
    let mut placed: Vec<DVec2> = vertices
        .iter()
        .map(|v| origin + rotation.rotate(v.as_dvec2()))
        .collect();
    if signed_area(&placed) < 0.0 {
        placed.reverse();
    }
    Placed::Polygon(placed)
}

/// Calls `visit` with each set cell of a mask whose origin is at `origin` that lies
/// within twice the band of the box of `other`, as a square (counter-clockwise corners).
fn for_set_cells_near(
    mask: &Bitmask,
    origin: DVec2,
    other: &Placed,
    mut visit: impl FnMut(Vec<DVec2>),
) {
    let (lo, hi) = match other {
        Placed::Polygon(p) => p
            .iter()
            .fold((DVec2::INFINITY, DVec2::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            }),
        Placed::Circle(c, r) => (*c - *r, *c + *r),
        Placed::Capsule(a, b, r) => (a.min(*b) - *r, a.max(*b) + *r),
        Placed::Mask(..) => return,
    };
    let (lo, hi) = (lo - origin - 2.0 * BAND, hi - origin + 2.0 * BAND);
    let size = DVec2::new(mask.width() as f64, mask.height() as f64);
    let first = lo.floor().max(DVec2::ZERO);
    let end = (hi.floor() + 1.0).min(size);
    for row in first.y as u32..end.y.max(first.y) as u32 {
        for column in first.x as u32..end.x.max(first.x) as u32 {
            if mask.get(column, row) {
                let corner = origin + DVec2::new(column as f64, row as f64);
                visit(vec![
                    corner,
                    corner + DVec2::X,
                    corner + DVec2::ONE,
                    corner + DVec2::Y,
                ]);
            }
        }
    }
}

fn signed_area(vertices: &[DVec2]) -> f64 {
    let n = vertices.len();
    (0..n)
        .map(|k| vertices[k].perp_dot(vertices[(k + 1) % n]))
        .sum::<f64>()
        / 2.0
}

/// The gap between two convex shapes, or minus the depth of their overlap.
fn separation(a: &Placed, b: &Placed) -> f64 {
    match (a, b) {
        (Placed::Circle(ca, ra), Placed::Circle(cb, rb)) => ca.distance(*cb) - ra - rb,
        (Placed::Polygon(p), Placed::Circle(c, r)) | (Placed::Circle(c, r), Placed::Polygon(p)) => {
            signed_distance(p, *c) - r
        }
        (Placed::Polygon(p), Placed::Polygon(q)) => polygon_separation(p, q),
        // Callers take masks apart cell by cell.
        (Placed::Mask(..), _) | (_, Placed::Mask(..)) => f64::INFINITY,
        (Placed::Capsule(..), _) | (_, Placed::Capsule(..)) => {
            let ((p, rp), (q, rq)) = (core(a), core(b));
            core_separation(&p, &q) - rp - rq
        }
    }
}

/// A convex shape as a core grown by a radius (a capsule's ends, one point when they
/// are one; a circle's centre; a polygon's vertices and 0).
fn core(shape: &Placed) -> (Vec<DVec2>, f64) {
    match shape {
        Placed::Polygon(p) => (p.clone(), 0.0),
        Placed::Circle(c, r) => (vec![*c], *r),
        Placed::Capsule(a, b, r) if a == b => (vec![*a], *r),
        Placed::Capsule(a, b, r) => (vec![*a, *b], *r),
        Placed::Mask(..) => (Vec::new(), 0.0),
    }
}

/// The gap between two cores (polygons, segments or points), or minus the depth of
/// their overlap: the least overlap over both cores' axes (a polygon's edge normals, a
/// segment's normal and direction both ways), and when that is a gap, the distance
/// from a vertex of one to an edge of the other.
fn core_separation(p: &[DVec2], q: &[DVec2]) -> f64 {
    let edges = |c: &[DVec2]| -> Vec<(DVec2, DVec2)> {
        match c.len() {
            1 | 2 => vec![(c[0], c[c.len() - 1])],
            n => (0..n).map(|k| (c[k], c[(k + 1) % n])).collect(),
        }
    };
    let axes = |c: &[DVec2]| -> Vec<DVec2> {
        match c.len() {
            1 => Vec::new(),
            2 => {
                let u = (c[1] - c[0]).normalize();
                vec![u, -u, u.perp(), -u.perp()]
            }
            _ => (0..c.len()).map(|k| normal(c, k)).collect(),
        }
    };
    let all_axes: Vec<DVec2> = axes(p).into_iter().chain(axes(q)).collect();
    if !all_axes.is_empty() {
        let depth = all_axes
            .iter()
            .map(|&axis| {
                let (a, b) = (interval(p, axis), interval(q, axis));
                (a.1 - b.0).min(b.1 - a.0)
            })
            .fold(f64::INFINITY, f64::min);
        if depth >= 0.0 {
            return -depth;
        }
    }
    let mut gap = f64::INFINITY;
    for (shape, other) in [(p, q), (q, p)] {
        for &v in other {
            for (a, b) in edges(shape) {
                gap = gap.min(if a == b {
                    v.distance(a)
                } else {
                    segment_distance(a, b, v)
                });
            }
        }
    }
    gap
}

/// Outward unit normal of edge `k` (from vertex k to k + 1) of a counter-clockwise polygon.
fn normal(p: &[DVec2], k: usize) -> DVec2 {
    let edge = p[(k + 1) % p.len()] - p[k];
    DVec2::new(edge.y, -edge.x).normalize()
}

/// The projection of a polygon on `axis`, as (min, max).
fn interval(p: &[DVec2], axis: DVec2) -> (f64, f64) {
    p.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            let d = v.dot(axis);
            (lo.min(d), hi.max(d))
        })
}

fn polygon_separation(p: &[DVec2], q: &[DVec2]) -> f64 {
    // The least overlap over every edge normal is the depth; a negative one is a gap.
    let mut depth = f64::INFINITY;
    for (shape, other) in [(p, q), (q, p)] {
        for k in 0..shape.len() {
            let axis = normal(shape, k);
            let (a, b) = (interval(shape, axis), interval(other, axis));
            depth = depth.min((a.1 - b.0).min(b.1 - a.0));
        }
    }
    if depth >= 0.0 {
        return -depth;
    }
    // Apart: the nearest vertex of one to an edge of the other.
    let mut gap = f64::INFINITY;
    for (shape, other) in [(p, q), (q, p)] {
        for &v in other {
            for k in 0..shape.len() {
                gap = gap.min(segment_distance(shape[k], shape[(k + 1) % shape.len()], v));
            }
        }
    }
    gap
}

/// Distance from `point` to the boundary of a convex polygon, negative inside.
fn signed_distance(p: &[DVec2], point: DVec2) -> f64 {
    let outside = (0..p.len()).any(|k| (point - p[k]).dot(normal(p, k)) > 0.0);
    let boundary = (0..p.len())
        .map(|k| segment_distance(p[k], p[(k + 1) % p.len()], point))
        .fold(f64::INFINITY, f64::min);
    if outside {
        boundary
    } else {
        -boundary
    }
}

fn segment_distance(a: DVec2, b: DVec2, point: DVec2) -> f64 {
    let ab = b - a;
    let t = ((point - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
    point.distance(a + ab * t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::shapes::{Circle, Polygon};
    use glam::Vec2;

    fn square() -> Shape {
        Shape::Polygon(Polygon::rectangle(2.0, 2.0))
    }

    #[test]
    fn polygons_near_touching_are_in_the_band_and_others_are_not() {
        let shapes = [square(), Shape::Circle(Circle::new(1.0))];
        let at = |shape: u32, x: f32| Body::new(shape, Vec2::new(x, 0.0));
        let band = |a: &Body, b: &Body| within_band(&shapes, a, b);
        assert_eq!(band(&at(0, 0.0), &at(0, 2.005)), Some(true)); // gap 0.005
        assert_eq!(band(&at(0, 0.0), &at(0, 1.995)), Some(true)); // overlap 0.005
        assert_eq!(band(&at(0, 0.0), &at(0, 2.05)), Some(false)); // gap 0.05
        assert_eq!(band(&at(0, 0.0), &at(0, 1.5)), Some(false)); // overlap 0.5
        assert_eq!(band(&at(0, 0.0), &at(1, 2.008)), Some(true));
        assert_eq!(band(&at(1, 0.0), &at(1, 1.9)), Some(false));
        assert_eq!(band(&at(0, 0.0), &at(5, 0.0)), None);
    }

    #[test]
    fn a_circle_off_a_corner_is_measured_to_the_corner() {
        let shapes = [square(), Shape::Circle(Circle::new(1.0))];
        // The corner (1, 1) is sqrt(2) - 1 - 0.005 from a unit circle centred diagonally out.
        let d = (1.0 + (1.0 + 0.005) / 2f64.sqrt()) as f32;
        let circle = Body::new(1, Vec2::new(d, d));
        assert_eq!(
            within_band(&shapes, &Body::new(0, Vec2::ZERO), &circle),
            Some(true)
        );
    }

    #[test]
    fn bitmask_cells_count_one_by_one() {
        let mask = Bitmask::from_rows(&["#."]).expect("valid");
        let shapes = [Shape::Bitmask(mask.clone()), square(), Shape::Bitmask(mask)];
        let cell = Body::new(0, Vec2::ZERO);
        // The square's edge 0.004 short of the set cell; well past the clear one.
        let near = Body::new(1, Vec2::new(-1.004, 0.5));
        assert_eq!(within_band(&shapes, &cell, &near), Some(true));
        let deep = Body::new(1, Vec2::new(0.0, 0.5));
        assert_eq!(within_band(&shapes, &near, &cell), Some(true));
        assert_eq!(within_band(&shapes, &cell, &deep), Some(false));
        // Two masks share a cell or not: never in the band.
        assert_eq!(
            within_band(&shapes, &cell, &Body::new(2, Vec2::new(1.0, 0.0))),
            Some(false)
        );
    }

    #[test]
    fn the_verdict_says_which_answer_is_wrong() {
        let mask = Bitmask::from_rows(&["#."]).expect("valid");
        let shapes = [Shape::Bitmask(mask.clone()), square(), Shape::Bitmask(mask)];
        let cell = Body::new(0, Vec2::ZERO);
        let verdict_at = |x: f32, y: f32| verdict(&shapes, &cell, &Body::new(1, Vec2::new(x, y)));
        assert_eq!(verdict_at(-1.004, 0.5), Some(Verdict::InBand));
        assert_eq!(verdict_at(0.0, 0.5), Some(Verdict::Colliding));
        assert_eq!(verdict_at(-1.5, 0.5), Some(Verdict::Apart));
        // Two 2-unit squares (the thin-wall case parry2d got wrong was polygon-polygon).
        let a = Body::new(1, Vec2::ZERO);
        let near = |d: f32| verdict(&shapes, &a, &Body::new(1, Vec2::new(2.0 + d, 0.0)));
        assert_eq!(near(0.1), Some(Verdict::Apart));
        assert_eq!(near(-0.1), Some(Verdict::Colliding));
        assert_eq!(near(0.005), Some(Verdict::InBand));
        assert_eq!(
            verdict(&shapes, &cell, &Body::new(2, Vec2::new(1.0, 0.0))),
            Some(Verdict::Undecided)
        );
    }
}
