//! The shape library: shapes checked against the rules of the scene format and packed
//! once into the flat arrays both backends read (`src/layout/packed.rs`). Bodies are
//! checked against it every frame (and packed by `src/layout/bodies.rs`).

use crate::error::{f32_text, Location, SceneError};
use crate::input::body::Body;
use crate::input::shapes::{
    words_per_row, Bitmask, Capsule, Polygon, Shape, ShapeKind, MAX_POLYGON_VERTICES,
};
use crate::layout::packed::{PackedShape, PolygonVertex};

pub use crate::layout::packed::MAX_BITMASK_COORDINATE;

/// A body's displacement over a frame (`vx`, `vy`) may not pass this magnitude. The
/// limit is far beyond any motion a game gives a body in a frame (the format's world is
/// 32768 units across), and under it the times of impact are computed without
/// overflow: the relative motion of two bodies, its projections and their quotients stay
/// far within f32's range, where at ±3.4e38 a difference of two displacements is not a
/// number at all.
pub const MAX_DISPLACEMENT: f32 = 1e18;

/// Validated, packed shapes, ready to upload once and share by all bodies.
///
/// ```
/// use gpu_collide::{Circle, Polygon, Shape, ShapeLibrary};
/// let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(2.0)), Shape::Polygon(Polygon::rectangle(4.0, 1.0))]).unwrap();
/// assert_eq!(library.len(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
///
/// The packed arrays are private: every entry was checked when the library was built,
/// and the stages rely on it (a shape's kind is a kind, its vertices are in range).
pub struct ShapeLibrary {
    /// One entry per shape, in the order given.
    pub(crate) shapes: Vec<PackedShape>,
    /// All polygons' vertices, counter-clockwise, with edge normals.
    pub(crate) polygon_vertices: Vec<PolygonVertex>,
    /// All bitmasks' words.
    pub(crate) bitmask_words: Vec<u32>,
    /// Each shape's size whatever its rotation: the diameter of a circle, twice the
    /// largest vertex distance of a polygon, the larger side of a bitmask's set cells
    /// (0 when none is set). The grid sizes its cells by it.
    pub(crate) extents: Vec<f32>,
}

impl ShapeLibrary {
    /// Checks every shape and packs them; the first broken rule is returned, naming the shape.
    pub fn new(shapes: &[Shape]) -> Result<Self, SceneError> {
        let mut library = ShapeLibrary::default();
        for (index, shape) in shapes.iter().enumerate() {
            let location = Location::Shape(index);
            let packed = match shape {
                Shape::Polygon(polygon) => library.add_polygon(location, polygon)?,
                Shape::Circle(circle) => {
                    let r = circle.radius;
                    if !(r.is_finite() && r > 0.0) {
                        return Err(SceneError::new(
                            location,
                            "circle",
                            format!("radius {} must be finite and greater than 0", f32_text(r)),
                        ));
                    }
                    PackedShape {
                        bounds_min: [-r, -r],
                        bounds_max: [r, r],
                        kind: ShapeKind::Circle.index(),
                        radius: r,
                        ..PackedShape::zeroed()
                    }
                }
                Shape::Capsule(capsule) => library.add_capsule(location, capsule)?,
                Shape::Bitmask(mask) => library.add_bitmask(mask),
            };
            library.extents.push(rotation_free_extent(shape, &packed));
            library.shapes.push(packed);
        }
        Ok(library)
    }

    /// The packed shapes, for the crate's own benchmarks of single stages.
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn packed_shapes(&self) -> &[PackedShape] {
        &self.shapes
    }

    /// Number of shapes.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    /// Whether the library has no shapes.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    fn add_polygon(
        &mut self,
        location: Location,
        polygon: &Polygon,
    ) -> Result<PackedShape, SceneError> {
        let vertices = counter_clockwise(location, &polygon.vertices)?;
        let first = self.polygon_vertices.len() as u32;
        let n = vertices.len();
        let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
        for k in 0..n {
            let (a, b) = (vertices[k], vertices[(k + 1) % n]);
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            let length = ex.hypot(ey);
            // Counter-clockwise: the outside is on the right of each edge.
            let normal = [(ey / length) as f32, (-ex / length) as f32];
            let position = [a[0] as f32, a[1] as f32];
            self.polygon_vertices
                .push(PolygonVertex { position, normal });
            for axis in 0..2 {
                lo[axis] = lo[axis].min(position[axis]);
                hi[axis] = hi[axis].max(position[axis]);
            }
        }
        // Four vertices, each a corner of the bounds and no two alike (in f32, as they are
        // stored), are the four corners.
        let placed = &self.polygon_vertices[first as usize..];
        let rectangle = n == 4
            && placed.iter().all(|v| {
                (v.position[0] == lo[0] || v.position[0] == hi[0])
                    && (v.position[1] == lo[1] || v.position[1] == hi[1])
            })
            && (0..4).all(|a| (a + 1..4).all(|b| placed[a].position != placed[b].position));
        Ok(PackedShape {
            bounds_min: lo,
            bounds_max: hi,
            kind: ShapeKind::Polygon.index(),
            first,
            count: n as u32,
            rectangle: rectangle as u32,
            ..PackedShape::zeroed()
        })
    }

    /// A capsule's two ends go in the vertex list like a polygon's, each with the unit
    /// normal of the segment on its right going on from it (zero when the ends are one
    /// point), so that the stages read them with the polygons' functions.
    fn add_capsule(
        &mut self,
        location: Location,
        capsule: &Capsule,
    ) -> Result<PackedShape, SceneError> {
        let fail = |field: &str, rule: String| {
            Err(SceneError::new(location, format!("capsule: {field}"), rule))
        };
        for (field, end) in [("a", capsule.a), ("b", capsule.b)] {
            if !end.is_finite() {
                return fail(field, "must be finite".to_string());
            }
        }
        let r = capsule.radius;
        if !(r.is_finite() && r >= 0.0) {
            return fail("radius", format!("{} must be finite and >= 0", f32_text(r)));
        }
        let (a, b) = (capsule.a, capsule.b);
        let along = (b.as_dvec2() - a.as_dvec2()).normalize_or_zero();
        let normal = [along.y as f32, -along.x as f32];
        let first = self.polygon_vertices.len() as u32;
        self.polygon_vertices.push(PolygonVertex {
            position: a.to_array(),
            normal,
        });
        self.polygon_vertices.push(PolygonVertex {
            position: b.to_array(),
            normal: [-normal[0], -normal[1]],
        });
        let (lo, hi) = (a.min(b) - r, a.max(b) + r);
        Ok(PackedShape {
            bounds_min: lo.to_array(),
            bounds_max: hi.to_array(),
            kind: ShapeKind::Capsule.index(),
            first,
            count: 2,
            radius: r,
            ..PackedShape::zeroed()
        })
    }

    fn add_bitmask(&mut self, mask: &Bitmask) -> PackedShape {
        let first = self.bitmask_words.len() as u32;
        self.bitmask_words.extend_from_slice(mask.words());
        // Bounds of the set cells only: an empty border costs the broad phase nothing.
        let (mut lo, mut hi) = ([u32::MAX; 2], [0u32; 2]);
        for r in 0..mask.height() {
            for c in 0..mask.width() {
                if mask.get(c, r) {
                    lo = [lo[0].min(c), lo[1].min(r)];
                    hi = [hi[0].max(c + 1), hi[1].max(r + 1)];
                }
            }
        }
        let (bounds_min, bounds_max) = if lo[0] == u32::MAX {
            // No set cell: an inverted box that overlaps nothing.
            ([f32::MAX; 2], [f32::MIN; 2])
        } else {
            ([lo[0] as f32, lo[1] as f32], [hi[0] as f32, hi[1] as f32])
        };
        PackedShape {
            bounds_min,
            bounds_max,
            kind: ShapeKind::Bitmask.index(),
            first,
            count: mask.width(),
            rows: mask.height(),
            words_per_row: words_per_row(mask.width()),
            radius: 0.0,
            rectangle: 0,
            padding: 0,
        }
    }

    /// Checks bodies against the library and the rules of the format, naming the first bad body.
    ///
    /// On all cores: at 10^5 bodies a frame this was 6% of the cpu backend's bullet-hell
    /// frame on one. `find_first` keeps the error the first bad body's, as one loop would.
    pub fn check_bodies(&self, bodies: &[Body]) -> Result<(), SceneError> {
        use rayon::prelude::*;
        const CHUNK: usize = 8192;
        bodies
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                chunk
                    .iter()
                    .enumerate()
                    .try_for_each(|(k, body)| self.check_body(c * CHUNK + k, body))
            })
            .find_first(Result::is_err)
            .unwrap_or(Ok(()))
    }

    /// Checks body `index` against the library and the rules of the format.
    pub(crate) fn check_body(&self, index: usize, body: &Body) -> Result<(), SceneError> {
        let location = Location::Body(index);
        let Some(shape) = self.shapes.get(body.shape as usize) else {
            return Err(SceneError::new(
                location,
                "shape",
                format!(
                    "{} is not a shape index (the library has {} shapes)",
                    body.shape,
                    self.shapes.len()
                ),
            ));
        };
        for (field, value) in [
            ("x", body.position.x),
            ("y", body.position.y),
            ("angle", body.angle),
            ("vx", body.velocity.x),
            ("vy", body.velocity.y),
        ] {
            if !value.is_finite() {
                return Err(SceneError::new(
                    location,
                    field,
                    format!("{value} is not a finite 32-bit number"),
                ));
            }
        }
        for (field, value) in [("vx", body.velocity.x), ("vy", body.velocity.y)] {
            if value.abs() > MAX_DISPLACEMENT {
                return Err(SceneError::new(
                    location,
                    field,
                    format!(
                        "a displacement of {} is beyond ±{MAX_DISPLACEMENT:e}",
                        f32_text(value)
                    ),
                ));
            }
        }
        if shape.shape_kind() == ShapeKind::Bitmask {
            if body.angle != 0.0 {
                return Err(SceneError::new(
                    location,
                    "angle",
                    format!("a bitmask body cannot be rotated (angle {})", body.angle),
                ));
            }
            // Bitmasks are tested cell by cell against whole-number offsets, and a
            // sweep of a bitmask would need its cells swept too: they stay put.
            for (field, value) in [("vx", body.velocity.x), ("vy", body.velocity.y)] {
                if value != 0.0 {
                    return Err(SceneError::new(
                        location,
                        field,
                        format!("a bitmask body cannot move ({field} {})", f32_text(value)),
                    ));
                }
            }
            for (field, value) in [("x", body.position.x), ("y", body.position.y)] {
                if value.fract() != 0.0 || value.abs() > MAX_BITMASK_COORDINATE {
                    return Err(SceneError::new(
                        location,
                        field,
                        format!("a bitmask body must sit on a whole number within ±{MAX_BITMASK_COORDINATE}, not {value}"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// See [`ShapeLibrary::extents`].
fn rotation_free_extent(shape: &Shape, packed: &PackedShape) -> f32 {
    match shape {
        Shape::Polygon(p) => 2.0 * p.vertices.iter().map(|v| v.length()).fold(0.0, f32::max),
        Shape::Circle(c) => 2.0 * c.radius,
        Shape::Capsule(c) => 2.0 * (c.a.length().max(c.b.length()) + c.radius),
        Shape::Bitmask(_) => {
            let side = |axis: usize| packed.bounds_max[axis] - packed.bounds_min[axis];
            side(0).max(side(1)).max(0.0)
        }
    }
}

/// The polygon's vertices in f64, counter-clockwise, after checking the polygon rules:
/// vertex count, finiteness, no repeated vertex, no three consecutive collinear vertices,
/// strictly convex and winding once around (which excludes zero area and self-intersection).
fn counter_clockwise(
    location: Location,
    vertices: &[glam::Vec2],
) -> Result<Vec<[f64; 2]>, SceneError> {
    let fail = |rule: String| Err(SceneError::new(location, "polygon", rule));
    let n = vertices.len();
    if !(3..=MAX_POLYGON_VERTICES).contains(&n) {
        return fail(format!(
            "has {n} vertices, must have 3 to {MAX_POLYGON_VERTICES}"
        ));
    }
    if let Some(k) = vertices.iter().position(|v| !v.is_finite()) {
        return fail(format!("vertex {k} is not finite"));
    }
    let v: Vec<[f64; 2]> = vertices.iter().map(|p| [p.x as f64, p.y as f64]).collect();
    for k in 0..n {
        if v[k] == v[(k + 1) % n] {
            return fail(format!("vertex {} repeats vertex {k}", (k + 1) % n));
        }
    }
    // Cross products of consecutive edges: all the same sign for a convex polygon.
    let turn = |k: usize| {
        let (a, b, c) = (v[(k + n - 1) % n], v[k], v[(k + 1) % n]);
        (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
    };
    let sign = turn(0).signum();
    let mut total_angle = 0.0;
    for k in 0..n {
        let t = turn(k);
        if t == 0.0 {
            return fail(format!("vertex {k} is collinear with its neighbours"));
        }
        if t.signum() != sign {
            return fail(format!("is not convex (vertex {k})"));
        }
        let (a, b, c) = (v[(k + n - 1) % n], v[k], v[(k + 1) % n]);
        let dot = (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]);
        total_angle += t.atan2(dot);
    }
    // A convex polygon turns exactly once; a star (pentagram) turns twice with the same signs.
    if (total_angle.abs() - std::f64::consts::TAU).abs() > 1e-6 {
        return fail("is not convex: its edges wind around more than once".to_string());
    }
    let mut v = v;
    if sign < 0.0 {
        v.reverse();
    }
    Ok(v)
}

use bytemuck::Zeroable;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::shapes::Circle;

    #[test]
    fn checking_on_all_cores_still_names_the_first_bad_body() {
        let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))]).expect("valid");
        let mut bodies = vec![Body::new(0, glam::Vec2::ZERO); 50_000];
        assert!(library.check_bodies(&bodies).is_ok());
        bodies[40_000].position.y = f32::NAN;
        bodies[30_000].shape = 7;
        bodies[9_000].angle = f32::INFINITY;
        for first in [9_000, 30_000, 40_000] {
            let error = library.check_bodies(&bodies).unwrap_err().to_string();
            assert!(error.contains(&format!("{first}")), "{first}: {error}");
            match first {
                9_000 => bodies[9_000].angle = 0.0,
                30_000 => bodies[30_000].shape = 0,
                _ => bodies[40_000].position.y = 0.0,
            }
        }
        assert!(library.check_bodies(&bodies).is_ok());
    }

    #[test]
    fn only_axis_aligned_rectangles_are_marked_as_rectangles() {
        use crate::input::shapes::{Circle, Polygon};
        use glam::Vec2;
        let quad =
            |points: [[f32; 2]; 4]| Shape::Polygon(Polygon::new(points.map(Vec2::from).to_vec()));
        let cases = [
            (Shape::Polygon(Polygon::rectangle(1.0, 6.0)), 1),
            (
                quad([[3.0, 7.5], [3.0, -1.0], [-0.5, -1.0], [-0.5, 7.5]]),
                1,
            ),
            // A square turned 45 degrees, a trapezoid, a triangle, a circle.
            (quad([[0.0, -1.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]), 0),
            (quad([[0.0, 0.0], [4.0, 0.0], [3.0, 1.0], [1.0, 1.0]]), 0),
            (Shape::Polygon(Polygon::regular(3, 2.0)), 0),
            (Shape::Circle(Circle::new(1.0)), 0),
        ];
        for (k, (shape, rectangle)) in cases.into_iter().enumerate() {
            let library = ShapeLibrary::new(&[shape]).expect("valid");
            assert_eq!(library.shapes[0].rectangle, rectangle, "case {k}");
        }
    }
}
