//! The shape library: shapes checked against the rules of the scene format and packed
//! once into the flat arrays both backends read (`src/layout/packed.rs`). Bodies are
//! checked against it every frame (and packed by `src/layout/bodies.rs`).

use crate::error::{f32_text, Location, SceneError};
use crate::input::body::Body;
use crate::input::concave::{check_outline, convex_pieces};
use crate::input::shapes::{
    words_per_row, Bitmask, Capsule, Compound, Concave, Polygon, Shape, ShapeKind,
    MAX_POLYGON_VERTICES,
};
use crate::layout::packed::{PackedShape, PolygonVertex};
use glam::Vec2;

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
    /// How the caller's shapes are made of the packed ones when some shape is concave
    /// or compound; `None` when every shape is its own packed shape, index for index.
    pub(crate) parts: Option<Parts>,
}

/// The caller's shapes as packed shapes placed in their frames: a concave shape is its
/// convex pieces, a compound its parts (a concave part expanded in place into its
/// pieces), any other shape the one packed shape. Bodies are expanded into one body a
/// part for the stages, which never see the caller's shapes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Parts {
    /// Shape `k`'s parts are `list[ranges[k].0 .. ranges[k].0 + ranges[k].1]`.
    pub(crate) ranges: Vec<(u32, u32)>,
    /// Every shape's parts, shape after shape.
    pub(crate) list: Vec<PartPlace>,
    /// Whether shape `k` is concave or compound (its contacts name their parts).
    pub(crate) in_parts: Vec<bool>,
    /// Shape `k`'s outline when it is concave, `None` for any other shape.
    pub(crate) outlines: Vec<Option<Outline>>,
}

/// A concave shape's outline and where its pieces' vertices lie on it. The pieces are
/// cut along diagonals, so each of their vertices is a vertex of the outline (the same
/// f32 values): a frame turns the outline once and boxes every piece from it, rather
/// than turning each piece, which turns each vertex about twice (1.95 times over the
/// outlines of the concave bench scene).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Outline {
    /// The outline's vertices, in the shape's frame.
    pub(crate) points: Vec<Vec2>,
    /// The pieces' vertices as indices into `points`: piece after piece in the order of
    /// the shape's parts, each piece's in the order they are packed.
    pub(crate) corners: Vec<u32>,
}

/// A packed shape placed in the frame of the caller's shape it is a part of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PartPlace {
    /// The packed shape.
    pub(crate) shape: u32,
    /// Where its origin lies.
    pub(crate) offset: Vec2,
    /// Its turn.
    pub(crate) angle: f32,
}

/// The most packed parts one compound may expand into (its parts, each concave part
/// counted as its pieces): each is a body of the stages for every body of the compound.
pub const MAX_COMPOUND_PIECES: usize = 4096;

/// The most parts a compound may list.
pub const MAX_COMPOUND_PARTS: usize = 1024;

/// One convex part of a shape, in the shape's own frame, as the answers use it
/// ([`ShapeLibrary::parts`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ConvexPart {
    /// A convex polygon, its vertices counter-clockwise.
    Polygon(Vec<Vec2>),
    /// A circle.
    Circle {
        /// Its centre.
        centre: Vec2,
        /// Its radius.
        radius: f32,
    },
    /// A capsule, segment or point.
    Capsule(Capsule),
    /// A whole bitmask (its cells are tested one by one).
    Bitmask,
}

impl ShapeLibrary {
    /// Checks every shape and packs them; the first broken rule is returned, naming the
    /// shape (and the part or vertex).
    pub fn new(shapes: &[Shape]) -> Result<Self, SceneError> {
        let mut library = ShapeLibrary::default();
        let multi = shapes
            .iter()
            .any(|s| matches!(s, Shape::Concave(_) | Shape::Compound(_)));
        // Every shape but the compounds, in order: a concave one as its pieces.
        let mut own: Vec<Vec<PartPlace>> = Vec::with_capacity(shapes.len());
        let mut outlines: Vec<Option<Outline>> = Vec::with_capacity(shapes.len());
        for (index, shape) in shapes.iter().enumerate() {
            let location = Location::Shape(index);
            let packed = match shape {
                Shape::Polygon(polygon) => vec![library.add_polygon(location, polygon)?],
                Shape::Circle(circle) => {
                    let r = circle.radius;
                    if !(r.is_finite() && r > 0.0) {
                        return Err(SceneError::new(
                            location,
                            "circle",
                            format!("radius {} must be finite and greater than 0", f32_text(r)),
                        ));
                    }
                    vec![PackedShape {
                        bounds_min: [-r, -r],
                        bounds_max: [r, r],
                        kind: ShapeKind::Circle.index(),
                        radius: r,
                        ..PackedShape::zeroed()
                    }]
                }
                Shape::Capsule(capsule) => vec![library.add_capsule(location, capsule)?],
                Shape::Bitmask(mask) => vec![library.add_bitmask(mask)],
                Shape::Concave(concave) => library.add_concave(location, concave)?,
                Shape::Compound(_) => Vec::new(),
            };
            let mut places = Vec::with_capacity(packed.len());
            for packed in packed {
                places.push(PartPlace {
                    shape: library.shapes.len() as u32,
                    offset: Vec2::ZERO,
                    angle: 0.0,
                });
                library.extents.push(library.extent(&packed));
                library.shapes.push(packed);
            }
            outlines.push(match shape {
                Shape::Concave(concave) => library.outline(&concave.vertices, &places),
                _ => None,
            });
            own.push(places);
        }
        if multi {
            let mut parts = Parts {
                outlines,
                ..Parts::default()
            };
            for (index, shape) in shapes.iter().enumerate() {
                let places = match shape {
                    Shape::Compound(compound) => {
                        compound_places(Location::Shape(index), shapes, compound, &own)?
                    }
                    _ => own[index].clone(),
                };
                parts
                    .ranges
                    .push((parts.list.len() as u32, places.len() as u32));
                parts.list.extend(places);
                parts
                    .in_parts
                    .push(matches!(shape, Shape::Concave(_) | Shape::Compound(_)));
            }
            library.parts = Some(parts);
        }
        Ok(library)
    }

    /// The convex parts that the answers use for shape `shape`, in the shape's own frame:
    /// the one part of a polygon, circle, capsule or bitmask, the pieces a concave shape
    /// is cut into, a compound's parts in order (a concave part as its pieces). Empty for
    /// an index past the library's end.
    pub fn parts(&self, shape: usize) -> Vec<ConvexPart> {
        let places: Vec<PartPlace> = match &self.parts {
            None if shape < self.shapes.len() => vec![PartPlace {
                shape: shape as u32,
                offset: Vec2::ZERO,
                angle: 0.0,
            }],
            None => Vec::new(),
            Some(parts) => parts
                .ranges
                .get(shape)
                .map_or(Vec::new(), |&(first, count)| {
                    parts.list[first as usize..(first + count) as usize].to_vec()
                }),
        };
        places.iter().map(|place| self.convex_part(place)).collect()
    }

    /// A packed shape placed by `place`, as a [`ConvexPart`].
    fn convex_part(&self, place: &PartPlace) -> ConvexPart {
        let packed = &self.shapes[place.shape as usize];
        let turn = Vec2::from_angle(place.angle);
        let put = |k: u32| {
            let v = self.polygon_vertices[(packed.first + k) as usize].position;
            place.offset + turn.rotate(Vec2::from(v))
        };
        match packed.shape_kind() {
            ShapeKind::Polygon => ConvexPart::Polygon((0..packed.count).map(put).collect()),
            ShapeKind::Circle => ConvexPart::Circle {
                centre: place.offset,
                radius: packed.radius,
            },
            ShapeKind::Capsule => ConvexPart::Capsule(Capsule::new(put(0), put(1), packed.radius)),
            ShapeKind::Bitmask => ConvexPart::Bitmask,
        }
    }

    /// A packed shape's size whatever its rotation (see [`ShapeLibrary::extents`]).
    fn extent(&self, packed: &PackedShape) -> f32 {
        let farthest = |count: u32| {
            (0..count)
                .map(|k| {
                    Vec2::from(self.polygon_vertices[(packed.first + k) as usize].position).length()
                })
                .fold(0.0, f32::max)
        };
        match packed.shape_kind() {
            ShapeKind::Polygon => 2.0 * farthest(packed.count),
            ShapeKind::Circle => 2.0 * packed.radius,
            ShapeKind::Capsule => 2.0 * (farthest(2) + packed.radius),
            ShapeKind::Bitmask => {
                let side = |axis: usize| packed.bounds_max[axis] - packed.bounds_min[axis];
                side(0).max(side(1)).max(0.0)
            }
        }
    }

    /// A concave outline checked and cut into convex pieces, each packed as a polygon.
    fn add_concave(
        &mut self,
        location: Location,
        concave: &Concave,
    ) -> Result<Vec<PackedShape>, SceneError> {
        check_outline(&concave.vertices)
            .map_err(|rule| SceneError::new(location, "concave", rule))?;
        convex_pieces(&concave.vertices)
            .into_iter()
            .map(|piece| self.add_polygon(location, &Polygon::new(piece)))
            .collect()
    }

    /// The outline `points` of a concave shape and its packed pieces `places`, each
    /// piece vertex found among the points by its bits; `None` should a piece have a
    /// vertex of its own, and then each piece is turned on its own.
    fn outline(&self, points: &[Vec2], places: &[PartPlace]) -> Option<Outline> {
        let index: std::collections::HashMap<[u32; 2], u32> = points
            .iter()
            .enumerate()
            .map(|(k, p)| ([p.x.to_bits(), p.y.to_bits()], k as u32))
            .collect();
        let mut corners = Vec::new();
        for place in places {
            let packed = &self.shapes[place.shape as usize];
            let vertices = &self.polygon_vertices[packed.first as usize..][..packed.count as usize];
            for vertex in vertices {
                let [x, y] = vertex.position;
                corners.push(*index.get(&[x.to_bits(), y.to_bits()])?);
            }
        }
        Some(Outline {
            points: points.to_vec(),
            corners,
        })
    }

    /// The packed shapes, for the crate's own benchmarks of single stages.
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn packed_shapes(&self) -> &[PackedShape] {
        &self.shapes
    }

    /// Number of shapes (as given, whatever they are cut into).
    pub fn len(&self) -> usize {
        self.parts
            .as_ref()
            .map_or(self.shapes.len(), |parts| parts.ranges.len())
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
    pub fn check_bodies(&self, bodies: &[Body]) -> Result<(), SceneError> {
        match &self.parts {
            None => self.check_stage_bodies(bodies),
            Some(parts) => bodies
                .iter()
                .enumerate()
                .try_for_each(|(index, body)| self.place_checked_parts(parts, index, body, |_| {})),
        }
    }

    /// Body `index` of a library with concave or compound shapes, checked, its parts
    /// handed to `placed` in order as bodies of the stages ([`place_parts`]): its shape
    /// is one of the caller's, and each of its parts must pass the rules of a body of that
    /// part's shape (a bitmask's included), named as the body. Checking and placing go
    /// together so that the parts of a frame's bodies are placed once.
    pub(crate) fn place_checked_parts(
        &self,
        parts: &Parts,
        index: usize,
        body: &Body,
        mut placed: impl FnMut(Body),
    ) -> Result<(), SceneError> {
        let Some(&(first, count)) = parts.ranges.get(body.shape as usize) else {
            return Err(SceneError::new(
                Location::Body(index),
                "shape",
                format!(
                    "{} is not a shape index (the library has {} shapes)",
                    body.shape,
                    parts.ranges.len()
                ),
            ));
        };
        let own = &parts.list[first as usize..(first + count) as usize];
        // The body's own numbers first, as a body of its first part's shape (a bitmask
        // is always a shape's only part), then its parts' placements.
        self.check_body(
            index,
            &Body {
                shape: own[0].shape,
                ..*body
            },
        )?;
        // Parts at the body's own origin, unturned (a convex shape's one part, a concave
        // shape's pieces), are the body with another shape: no turn to compute, and no
        // placement to check.
        if own
            .iter()
            .all(|place| place.offset == Vec2::ZERO && place.angle == 0.0)
        {
            for place in own {
                placed(Body {
                    shape: place.shape,
                    ..*body
                });
            }
            return Ok(());
        }
        for part in place_parts(body, own) {
            for (field, value) in [
                ("x", part.position.x),
                ("y", part.position.y),
                ("angle", part.angle),
            ] {
                if !value.is_finite() {
                    return Err(SceneError::new(
                        Location::Body(index),
                        field,
                        format!("a part of the body lands at {value}, beyond a 32-bit float"),
                    ));
                }
            }
            placed(part);
        }
        Ok(())
    }

    /// Checks bodies whose shapes are the packed shapes (the caller's, index for index,
    /// when no shape is concave or compound), as the stages take them.
    ///
    /// On all cores: at 10^5 bodies a frame this was 6% of the cpu backend's bullet-hell
    /// frame on one. `find_first` keeps the error the first bad body's, as one loop would.
    pub(crate) fn check_stage_bodies(&self, bodies: &[Body]) -> Result<(), SceneError> {
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

/// The bodies of the stages for the parts `places` of `body`: each part's packed shape,
/// placed by the body (its position turned and moved, its angle added), with the body's
/// motion and filter. Computed in f64 and rounded once; the body's turn is computed once
/// for all its parts.
pub(crate) fn place_parts<'a>(
    body: &'a Body,
    places: &'a [PartPlace],
) -> impl Iterator<Item = Body> + 'a {
    let (sin, cos) = (body.angle as f64).sin_cos();
    places.iter().map(move |place| {
        let (x, y) = (place.offset.x as f64, place.offset.y as f64);
        let position = Vec2::new(
            (body.position.x as f64 + cos * x - sin * y) as f32,
            (body.position.y as f64 + sin * x + cos * y) as f32,
        );
        Body {
            shape: place.shape,
            position,
            angle: (body.angle as f64 + place.angle as f64) as f32,
            ..*body
        }
    })
}

/// A compound's parts as packed shapes placed in its frame, after checking them: 1 to
/// [`MAX_COMPOUND_PARTS`] parts, each naming a shape of the library that is neither a
/// compound nor a bitmask, with a finite offset and angle, and no more than
/// [`MAX_COMPOUND_PIECES`] pieces in all. `own` holds every other shape's packed parts.
fn compound_places(
    location: Location,
    shapes: &[Shape],
    compound: &Compound,
    own: &[Vec<PartPlace>],
) -> Result<Vec<PartPlace>, SceneError> {
    let fail = |rule: String| Err(SceneError::new(location, "compound", rule));
    let count = compound.parts.len();
    if !(1..=MAX_COMPOUND_PARTS).contains(&count) {
        return fail(format!(
            "has {count} parts, must have 1 to {MAX_COMPOUND_PARTS}"
        ));
    }
    let mut places = Vec::new();
    for (k, part) in compound.parts.iter().enumerate() {
        let index = part.shape as usize;
        match shapes.get(index) {
            None => {
                return fail(format!(
                    "part {k}: shape {index} is not a shape index (the library has {} shapes)",
                    shapes.len()
                ))
            }
            Some(Shape::Compound(_)) => {
                return fail(format!("part {k}: shape {index} is a compound"))
            }
            Some(Shape::Bitmask(_)) => {
                return fail(format!("part {k}: shape {index} is a bitmask"))
            }
            Some(_) => {}
        }
        if !part.offset.is_finite() {
            return fail(format!("part {k}: x, y: must be finite"));
        }
        if !part.angle.is_finite() {
            return fail(format!("part {k}: angle: must be finite"));
        }
        // The part's pieces, placed in the part's frame, then in the compound's.
        let turn = Vec2::from_angle(part.angle);
        places.extend(own[index].iter().map(|p| PartPlace {
            shape: p.shape,
            offset: part.offset + turn.rotate(p.offset),
            angle: part.angle + p.angle,
        }));
        if places.len() > MAX_COMPOUND_PIECES {
            return fail(format!(
                "has more than {MAX_COMPOUND_PIECES} convex pieces in all (at part {k})"
            ));
        }
    }
    Ok(places)
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
