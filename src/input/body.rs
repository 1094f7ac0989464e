//! Bodies: a shape placed in the world, with the layer and mask bits that decide
//! which other bodies it may collide with.

use glam::Vec2;

/// [`Body::id`] of a body the caller gave no id.
pub const NO_ID: u64 = u64::MAX;

/// A shape placed in the world.
///
/// ```
/// use gpu_collide::{Body, glam::Vec2};
/// let bullet = Body::new(1, Vec2::new(10.0, 20.0)).with_filter(0b10, 0b01);
/// assert_eq!(bullet.angle, 0.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    /// Index into the shape library.
    pub shape: u32,
    /// World position of the shape's origin.
    pub position: Vec2,
    /// Rotation in radians, counter-clockwise, about the origin. Bitmask bodies must have 0.
    pub angle: f32,
    /// The body's displacement over the frame: it sweeps, without turning, from
    /// `position` at `t = 0` to `position + velocity` at `t = 1` (scene format 1.1, `vx`,
    /// `vy`). [`Vec2::ZERO`] unless set; bitmask bodies cannot move. When any body of a
    /// frame moves, [`crate::Collider::find_pairs`] answers the swept question.
    pub velocity: Vec2,
    /// The groups this body belongs to.
    pub layer: u32,
    /// The groups this body may collide with.
    pub mask: u32,
    /// The caller's own id for the body (an entity id), which [`crate::TouchTracker`]
    /// keys its events by; [`NO_ID`] unless set. The colliders do not read it: pairs are
    /// always indices into the frame's body list.
    pub id: u64,
}

impl Body {
    /// A body of `shape` at `position`, unrotated, in every group and colliding with every group.
    pub fn new(shape: u32, position: Vec2) -> Self {
        Body {
            shape,
            position,
            angle: 0.0,
            velocity: Vec2::ZERO,
            layer: u32::MAX,
            mask: u32::MAX,
            id: NO_ID,
        }
    }

    /// The same body with the caller's id `id`.
    pub fn with_id(self, id: u64) -> Self {
        Body { id, ..self }
    }

    /// The same body rotated by `angle` radians.
    pub fn with_angle(self, angle: f32) -> Self {
        Body { angle, ..self }
    }

    /// The same body moving by `velocity` over the frame (see [`Body::velocity`]).
    pub fn with_velocity(self, velocity: Vec2) -> Self {
        Body { velocity, ..self }
    }

    /// Whether the body moves during the frame.
    pub fn moves(&self) -> bool {
        self.velocity != Vec2::ZERO
    }

    /// The same body with these layer and mask bits.
    pub fn with_filter(self, layer: u32, mask: u32) -> Self {
        Body {
            layer,
            mask,
            ..self
        }
    }
}

pub use crate::layout::geometry::filters_agree;
