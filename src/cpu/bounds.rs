//! Stage 1, bounds: the world AABB of every body. Twin of `shaders/bounds.wgsl`.

use glam::Vec2;

use crate::library::ShapeLibrary;
use crate::packed::{Aabb, BodyInfo, BodyTransform, SHAPE_POLYGON};
use crate::types::rotate;

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
            min: (Vec2::from(t.position) + Vec2::from(shape.bounds_min)).to_array(),
            max: (Vec2::from(t.position) + Vec2::from(shape.bounds_max)).to_array(),
        };
    }
    // Rotated vertices give the exact box; the unrotated bounds would not.
    let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
    for k in 0..shape.count {
        let v = library.polygon_vertices[(shape.first + k) as usize].position;
        let p = Vec2::from(t.position) + rotate(Vec2::from(v), Vec2::from(t.rotation));
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
    let (min, max, v) = (
        Vec2::from(aabb.min),
        Vec2::from(aabb.max),
        Vec2::from(velocity),
    );
    Aabb {
        min: min.min(min + v).to_array(),
        max: max.max(max + v).to_array(),
    }
}
