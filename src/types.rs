//! The Rust twin of the helpers in `shaders/types.wgsl` (whose structs `packed` mirrors):
//! the few small functions every stage uses, written once here for the CPU twins, operation
//! for operation as the WGSL, so that the two paths round alike.

use glam::Vec2;

use crate::packed::Aabb;

/// Rotates `v` by the rotation stored as `(cos, sin)`; WGSL `rotate`.
pub fn rotate(v: Vec2, rotation: Vec2) -> Vec2 {
    Vec2::new(
        rotation.x * v.x - rotation.y * v.y,
        rotation.y * v.x + rotation.x * v.y,
    )
}

/// Whether two bodies' filters let them collide: each must be in a group the other
/// accepts; WGSL `filters_agree`.
pub fn filters_agree(layer_a: u32, mask_a: u32, layer_b: u32, mask_b: u32) -> bool {
    layer_a & mask_b != 0 && layer_b & mask_a != 0
}

/// Whether two closed boxes share a point; WGSL `aabbs_overlap`.
pub fn aabbs_overlap(a: &Aabb, b: &Aabb) -> bool {
    a.min[0] <= b.max[0] && b.min[0] <= a.max[0] && a.min[1] <= b.max[1] && b.min[1] <= a.max[1]
}
