//! Batched queries against a frame's bodies (scene format 1.1): rays that stop at the
//! first body they meet, points and boxes that list the bodies they touch. A batch goes
//! in with [`crate::Collider::query`], its answers come back in the batch's order.
//!
//! ```
//! use gpu_collide::{Body, Circle, Collider, CpuCollider, Shape, ShapeLibrary, glam::Vec2};
//! use gpu_collide::query::{QueryBatch, Ray, PointQuery};
//! let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))])?;
//! let bodies = [Body::new(0, Vec2::new(5.0, 0.0))];
//! let batch = QueryBatch {
//!     rays: vec![Ray::new(Vec2::ZERO, Vec2::new(10.0, 0.0))],
//!     points: vec![PointQuery::new(Vec2::new(5.5, 0.0))],
//!     ..QueryBatch::default()
//! };
//! let answers = CpuCollider::new(library).query(&bodies, &batch)?;
//! let hit = answers.rays[0].expect("the ray meets the circle");
//! assert_eq!((hit.body, hit.normal), (0, Some(Vec2::new(-1.0, 0.0))));
//! assert!((hit.t - 0.4).abs() < 1e-6);
//! assert_eq!(answers.points[0], vec![0]);
//! # Ok::<(), gpu_collide::Error>(())
//! ```

use glam::Vec2;

use crate::error::{f32_text, Location, SceneError};

/// A segment from `origin` to `origin + delta`, stopping at the first body it meets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Where the ray starts (`x`, `y`).
    pub origin: Vec2,
    /// The segment's extent (`dx`, `dy`); not zero.
    pub delta: Vec2,
    /// The ray sees only bodies with `layer & mask != 0`.
    pub mask: u32,
}

impl Ray {
    /// A ray that sees every body.
    pub fn new(origin: Vec2, delta: Vec2) -> Self {
        Ray {
            origin,
            delta,
            mask: u32::MAX,
        }
    }

    /// The same ray seeing only bodies with `layer & mask != 0`.
    pub fn with_mask(self, mask: u32) -> Self {
        Ray { mask, ..self }
    }
}

/// The bodies whose shape contains a point (closed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointQuery {
    /// The point (`x`, `y`).
    pub point: Vec2,
    /// See [`Ray::mask`].
    pub mask: u32,
}

impl PointQuery {
    /// A point query that sees every body.
    pub fn new(point: Vec2) -> Self {
        PointQuery {
            point,
            mask: u32::MAX,
        }
    }

    /// The same query seeing only bodies with `layer & mask != 0`.
    pub fn with_mask(self, mask: u32) -> Self {
        PointQuery { mask, ..self }
    }
}

/// The bodies whose shape meets a closed axis-aligned box (exactly, not their bounds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxQuery {
    /// The lower corner; `min <= max` on both axes (equal makes a segment or a point).
    pub min: Vec2,
    /// The upper corner.
    pub max: Vec2,
    /// See [`Ray::mask`].
    pub mask: u32,
}

impl BoxQuery {
    /// A box query that sees every body.
    pub fn new(min: Vec2, max: Vec2) -> Self {
        BoxQuery {
            min,
            max,
            mask: u32::MAX,
        }
    }

    /// The same query seeing only bodies with `layer & mask != 0`.
    pub fn with_mask(self, mask: u32) -> Self {
        BoxQuery { mask, ..self }
    }
}

/// A frame's queries, answered together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryBatch {
    /// Rays, answered by [`QueryAnswers::rays`].
    pub rays: Vec<Ray>,
    /// Points, answered by [`QueryAnswers::points`].
    pub points: Vec<PointQuery>,
    /// Boxes, answered by [`QueryAnswers::boxes`].
    pub boxes: Vec<BoxQuery>,
}

/// Where a ray first meets a body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    /// The body's index.
    pub body: u32,
    /// The smallest `t` in `[0, 1]` at which `origin + t · delta` lies in the body's shape.
    pub t: f32,
    /// The shape's outward unit normal there; `None` when `t = 0`, the ray starting in or
    /// on the shape, where no side was crossed.
    pub normal: Option<Vec2>,
}

/// The answers to a [`QueryBatch`], each list in the order of the batch's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryAnswers {
    /// The first hit of each ray, or `None` when it meets no body it sees.
    pub rays: Vec<Option<RayHit>>,
    /// For each point, the bodies containing it, ascending.
    pub points: Vec<Vec<u32>>,
    /// For each box, the bodies meeting it, ascending.
    pub boxes: Vec<Vec<u32>>,
}

impl QueryBatch {
    /// Whether the batch has no query at all.
    pub fn is_empty(&self) -> bool {
        self.rays.is_empty() && self.points.is_empty() && self.boxes.is_empty()
    }

    /// Checks the format's rules, naming the first query that breaks one as
    /// `ray 3: dx, dy: zero length`: finite numbers, rays of non-zero length, boxes with
    /// `min <= max` on both axes.
    pub fn validate(&self) -> Result<(), SceneError> {
        for (i, ray) in self.rays.iter().enumerate() {
            let at = Location::Ray(i);
            finite(
                at,
                &[
                    ("x", ray.origin.x),
                    ("y", ray.origin.y),
                    ("dx", ray.delta.x),
                    ("dy", ray.delta.y),
                ],
            )?;
            if ray.delta == Vec2::ZERO {
                return Err(SceneError::new(
                    at,
                    "dx, dy",
                    "zero length: a ray must go somewhere (as 32-bit floats)",
                ));
            }
        }
        for (i, point) in self.points.iter().enumerate() {
            finite(
                Location::Point(i),
                &[("x", point.point.x), ("y", point.point.y)],
            )?;
        }
        for (i, query) in self.boxes.iter().enumerate() {
            let at = Location::Box(i);
            finite(
                at,
                &[
                    ("min", query.min.x),
                    ("min", query.min.y),
                    ("max", query.max.x),
                    ("max", query.max.y),
                ],
            )?;
            for (axis, lo, hi) in [
                ("x", query.min.x, query.max.x),
                ("y", query.min.y, query.max.y),
            ] {
                if lo > hi {
                    return Err(SceneError::new(
                        at,
                        "min, max",
                        format!(
                            "min is greater than max on {axis} ({} > {})",
                            f32_text(lo),
                            f32_text(hi)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

fn finite(at: Location, values: &[(&str, f32)]) -> Result<(), SceneError> {
    for &(field, value) in values {
        if !value.is_finite() {
            return Err(SceneError::new(
                at,
                field,
                format!("{value} is not a finite 32-bit number"),
            ));
        }
    }
    Ok(())
}
