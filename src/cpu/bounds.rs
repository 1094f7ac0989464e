//! Stage 1, bounds: the world AABB of every body. Twin of `shaders/bounds.wgsl`.

use glam::Vec2;

use crate::library::ShapeLibrary;
use crate::packed::{Aabb, BodyInfo, BodyTransform, SHAPE_POLYGON};

/// World bounds of each body.
pub fn bounds(
    library: &ShapeLibrary,
    transforms: &[BodyTransform],
    infos: &[BodyInfo],
) -> Vec<Aabb> {
    transforms
        .iter()
        .zip(infos)
        .map(|(t, info)| body_bounds(library, t, info))
        .collect()
}

/// World bounds of one body.
pub fn body_bounds(library: &ShapeLibrary, t: &BodyTransform, info: &BodyInfo) -> Aabb {
    let shape = &library.shapes[info.shape as usize];
    if shape.kind != SHAPE_POLYGON {
        return Aabb {
            min: add(t.position, shape.bounds_min),
            max: add(t.position, shape.bounds_max),
        };
    }
    // Rotated vertices give the exact box; the unrotated bounds would not.
    let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
    for k in 0..shape.count {
        let v = library.polygon_vertices[(shape.first + k) as usize].position;
        let p = Vec2::from(add(t.position, rotate(v, t.rotation)));
        lo = lo.min(p);
        hi = hi.max(p);
    }
    Aabb {
        min: lo.to_array(),
        max: hi.to_array(),
    }
}

/// The box a body covers over the whole frame when it moves by `velocity`: its box at
/// `t = 0` joined with its box at `t = 1` (it slides without turning, so every box in
/// between lies within). The broad phase of swept pairs compares these.
pub fn swept_bounds(aabb: Aabb, velocity: [f32; 2]) -> Aabb {
    let moved = add(aabb.max, velocity);
    let start = add(aabb.min, velocity);
    Aabb {
        min: [aabb.min[0].min(start[0]), aabb.min[1].min(start[1])],
        max: [aabb.max[0].max(moved[0]), aabb.max[1].max(moved[1])],
    }
}

/// Rotates `v` by the rotation stored as `(cos, sin)`; as WGSL `rotate`.
pub fn rotate(v: [f32; 2], rotation: [f32; 2]) -> [f32; 2] {
    let [c, s] = rotation;
    [c * v[0] - s * v[1], s * v[0] + c * v[1]]
}

/// Component-wise sum.
pub fn add(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0] + b[0], a[1] + b[1]]
}
