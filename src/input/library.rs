//! The shape library: shapes checked against the rules of the scene format and packed
//! once into the flat arrays both backends read (`src/layout/packed.rs`). Bodies are
//! checked against it and packed every frame.

use crate::error::{f32_text, Location, SceneError};
use crate::input::body::Body;
use crate::input::shapes::{
    words_per_row, Bitmask, Polygon, Shape, ShapeKind, MAX_POLYGON_VERTICES,
};
use crate::layout::packed::{BodyInfo, BodyTransform, PackedShape, PolygonVertex};

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
pub struct ShapeLibrary {
    /// One entry per shape, in the order given.
    pub shapes: Vec<PackedShape>,
    /// All polygons' vertices, counter-clockwise, with edge normals.
    pub polygon_vertices: Vec<PolygonVertex>,
    /// All bitmasks' words.
    pub bitmask_words: Vec<u32>,
    /// Each shape's size whatever its rotation: the diameter of a circle, twice the
    /// largest vertex distance of a polygon, the larger side of a bitmask's set cells
    /// (0 when none is set). The grid sizes its cells by it.
    pub extents: Vec<f32>,
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
                Shape::Bitmask(mask) => library.add_bitmask(mask),
            };
            library.extents.push(rotation_free_extent(shape, &packed));
            library.shapes.push(packed);
        }
        Ok(library)
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
        Shape::Bitmask(_) => {
            let side = |axis: usize| packed.bounds_max[axis] - packed.bounds_min[axis];
            side(0).max(side(1)).max(0.0)
        }
    }
}

/// Angles (radians) up to which [`body_transform`] takes its rotation from
/// [`source_rotation`]: there it is within 1e-6 of the f64 rotation (a unit test holds it
/// to that), 0.001 at 1000 units from a body's origin, a tenth of the format's band.
/// Past it, the f32 reduction loses that, and the rotation is computed in f64.
pub const FAST_ROTATION_LIMIT: f32 = 8192.0;

/// The per-frame part of a body, with its rotation as `(cos, sin)`.
///
/// The rotation is [`source_rotation`]'s, the one the GPU computes for angles it reads from
/// a caller's buffer, for angles within [`FAST_ROTATION_LIMIT`]: f64 `sin_cos` branches
/// on its argument, and on a body list's scattered angles its mispredictions took a fifth
/// of the cpu backend's frame on bullet-hell 100k when every body turned.
pub fn body_transform(body: &Body) -> BodyTransform {
    let rotation = if body.angle.abs() <= FAST_ROTATION_LIMIT {
        source_rotation(body.angle)
    } else {
        let (sin, cos) = (body.angle as f64).sin_cos();
        [cos as f32, sin as f32]
    };
    BodyTransform {
        position: body.position.to_array(),
        rotation,
    }
}

/// `(cos, sin)` of `angle` computed in f32 the way `read_bodies` (shaders/bounds.wgsl)
/// computes it for angles read from a caller's buffer, operation for operation: within a
/// few f32 ulps of the f64 rotation for angles up to thousands of radians, where WGSL's
/// own `sin` and `cos` may be off by 2^-11.
// The literals are written as in the WGSL, digit for digit, so that the two are easy to
// compare; they round to the same f32s.
#[allow(clippy::excessive_precision)]
pub fn source_rotation(angle: f32) -> [f32; 2] {
    // angle = k pi/2 + r, |r| <= pi/4, pi/2 split in three (Cody and Waite).
    let k = round_ties_even(angle * std::f32::consts::FRAC_2_PI); // as WGSL rounds
    let r = ((angle - k * 1.570_312_5) - k * 4.838_267_9e-4) - k * 2.563_282_9e-12;
    let r2 = r * r;
    let s = r + r
        * r2
        * (-1.666_666_7e-1 + r2 * (8.333_333_3e-3 + r2 * (-1.984_127e-4 + r2 * 2.755_731_9e-6)));
    let c = 1.0
        + r2 * (-0.5
            + r2 * (4.166_666_7e-2
                + r2 * (-1.388_888_9e-3 + r2 * (2.480_158_7e-5 - r2 * 2.755_731_9e-7))));
    // The quadrant, chosen without branches: for a body list's random angles a `match`
    // on it mispredicted, and the cpu backend's rotations of bullet-hell 100k took 0.84
    // ms instead of 0.3. Quadrants 1 and 3 swap the pair to (-s, c); 2 and 3 negate it.
    let quadrant = k as i32;
    let (x, y) = if quadrant & 1 == 0 { (c, s) } else { (-s, c) };
    let negate = ((quadrant & 2) as u32) << 30;
    [
        f32::from_bits(x.to_bits() ^ negate),
        f32::from_bits(y.to_bits() ^ negate),
    ]
}

/// `x` rounded to the nearest whole number, ties to even, as WGSL's `round`. Below 2^22,
/// adding and taking away 1.5 * 2^23 rounds it in the FPU's default mode without the
/// libm call `f32::round_ties_even` makes on targets without SSE4.1.
fn round_ties_even(x: f32) -> f32 {
    const SHIFT: f32 = 12_582_912.0; // 1.5 * 2^23
    if x.abs() < 4_194_304.0 {
        (x + SHIFT) - SHIFT
    } else {
        x.round_ties_even()
    }
}

/// Brings `transforms` up to date with `bodies`, where `angles` holds the angle each
/// transform's rotation was computed from (both as the last call left them). A rotation
/// is a function of the angle's bits alone, so it is reused wherever those did not change,
/// whatever body now sits at that index: the rotations were once most of the host's work
/// in a frame (`sin_cos` in f64: 1.7 to 2.3 ms for 100k bodies on two cores, before
/// [`body_transform`] used [`source_rotation`]), and in many games most bodies do not turn
/// from one frame to the next.
pub fn update_transforms(
    bodies: &[Body],
    transforms: &mut Vec<BodyTransform>,
    angles: &mut Vec<f32>,
) {
    use rayon::prelude::*;
    // Also when the count changed: a game removes the bodies that were hit every frame,
    // and recomputing every rotation then took the cpu backend's 100k bullet-hell frame
    // from 2.9 ms to 4.8-7.4 (the bodies after a removed one shift down an index, and
    // most of them, bullets, share their angle with the one they replace).
    let kept = bodies.len().min(transforms.len()).min(angles.len());
    transforms.truncate(kept);
    angles.truncate(kept);
    transforms
        .par_iter_mut()
        .zip(angles.par_iter_mut())
        .zip(bodies[..kept].par_iter())
        .with_min_len(8192)
        .for_each(|((transform, angle), body)| refresh_transform(body, transform, angle));
    let added = &bodies[kept..];
    transforms.par_extend(added.par_iter().with_min_len(8192).map(body_transform));
    angles.par_extend(added.par_iter().map(|b| b.angle));
}

/// Brings one body's transform up to date, where `angle` is the angle its rotation was
/// computed from: the rotation is reused when the body's angle has the same bits. See
/// [`update_transforms`].
#[inline]
pub(crate) fn refresh_transform(body: &Body, transform: &mut BodyTransform, angle: &mut f32) {
    if angle.to_bits() == body.angle.to_bits() {
        transform.position = body.position.to_array();
    } else {
        *transform = body_transform(body);
        *angle = body.angle;
    }
}

/// The rarely changing part of a body.
pub fn body_info(body: &Body) -> BodyInfo {
    BodyInfo {
        shape: body.shape,
        layer: body.layer,
        mask: body.mask,
        kind: 0,
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

    #[test]
    fn rounding_is_the_standard_librarys_ties_to_even() {
        let mut xs: Vec<f32> = (-20_000..=20_000).map(|k| k as f32 * 0.25).collect();
        xs.extend([
            0.499_999_97,
            -0.499_999_97,
            4_194_303.5,
            4_194_304.0,
            8_388_609.0,
            1e30,
        ]);
        for x in xs.iter().flat_map(|&x| [x, -x]) {
            // By value: -0.4 rounds to +0 here and to -0 there, which `source_rotation`
            // cannot tell apart (k only multiplies and picks the quadrant).
            assert_eq!(round_ties_even(x), x.round_ties_even(), "{x}");
        }
    }

    #[test]
    fn source_rotation_is_within_a_few_ulps_of_f64() {
        // Every quadrant, both signs, the reduction's edges, and angles a game that keeps
        // adding to an angle reaches.
        let mut angles: Vec<f32> = (-4000..=4000).map(|k| k as f32 * 0.001_234_5).collect();
        angles.extend((-200..=200).map(|k| k as f32 * std::f32::consts::FRAC_PI_4));
        angles.extend([0.0, -0.0, 1e-30, 1000.0, -2500.5, 6283.0]);
        // Up to the limit below which `body_transform` uses it.
        angles.extend((0..=2000).map(|k| FAST_ROTATION_LIMIT - k as f32 * 0.123));
        angles.extend([-FAST_ROTATION_LIMIT, FAST_ROTATION_LIMIT]);
        let mut worst = 0.0f64;
        for angle in angles {
            let [c, s] = source_rotation(angle);
            let (sin, cos) = (angle as f64).sin_cos();
            worst = worst
                .max((c as f64 - cos).abs())
                .max((s as f64 - sin).abs());
        }
        // 1e-6 rad at 1000 units from a body's origin is 0.001, a tenth of the format's band.
        assert!(worst < 1e-6, "worst error {worst:e}");
    }

    #[test]
    fn updated_transforms_equal_fresh_ones_frame_after_frame() {
        use glam::Vec2;
        let mut bodies: Vec<Body> = (0..20_000)
            .map(|k| Body::new(0, Vec2::new(k as f32, 1.0)).with_angle(k as f32 * 0.001))
            .collect();
        let (mut transforms, mut angles) = (Vec::new(), Vec::new());
        for frame in 0..4 {
            for (k, body) in bodies.iter_mut().enumerate() {
                body.position.y += 0.5;
                if k % (frame + 2) == 0 {
                    body.angle += 0.25; // some turn, most do not
                }
            }
            if frame == 2 {
                bodies.truncate(15_000); // fewer bodies
                bodies.swap(3, 4_000); // a different body at an index
                bodies.remove(7); // the rest shift down an index
            }
            if frame == 3 {
                // more bodies than before, some turned as the last ones are
                let more = (0..3_000).map(|k| Body::new(0, Vec2::ZERO).with_angle(k as f32));
                bodies.extend(more);
            }
            update_transforms(&bodies, &mut transforms, &mut angles);
            let fresh: Vec<BodyTransform> = bodies.iter().map(body_transform).collect();
            assert!(transforms == fresh, "frame {frame}");
        }
    }
}
