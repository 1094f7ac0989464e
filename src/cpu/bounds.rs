//! Stage 1, bounds: the world AABB of every body. Twin of `shaders/bounds.wgsl`.

use glam::Vec2;

use crate::input::library::ShapeLibrary;
use crate::input::shapes::ShapeKind;
use crate::layout::geometry::rotate;
use crate::layout::packed::{Aabb, BodyInfo, BodyTransform};

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
    let position = Vec2::from(t.position);
    let (local_min, local_max) = (Vec2::from(shape.bounds_min), Vec2::from(shape.bounds_max));
    // A polygon's box turns with it, and a capsule's; a circle's and a bitmask's (which
    // cannot turn) do not.
    let turns = match shape.shape_kind() {
        ShapeKind::Polygon | ShapeKind::Capsule => true,
        ShapeKind::Circle | ShapeKind::Bitmask => false,
    };
    if !turns {
        return Aabb {
            min: (position + local_min).to_array(),
            max: (position + local_max).to_array(),
        };
    }
    let rotation = Vec2::from(t.rotation);
    let corner = |v: Vec2| position + rotate(v, rotation);
    let (lo, hi) = if shape.rectangle != 0 {
        // A rectangle's vertices are the corners of its bounds: the same four points as
        // the loop below, without reading them.
        let (a, b) = (
            corner(local_min),
            corner(Vec2::new(local_max.x, local_min.y)),
        );
        let (c, d) = (
            corner(local_max),
            corner(Vec2::new(local_min.x, local_max.y)),
        );
        (a.min(b).min(c.min(d)), a.max(b).max(c.max(d)))
    } else {
        // Rotated vertices give the exact box; the unrotated bounds would not.
        let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
        for k in 0..shape.count {
            let p = corner(Vec2::from(
                library.polygon_vertices[(shape.first + k) as usize].position,
            ));
            lo = lo.min(p);
            hi = hi.max(p);
        }
        // A capsule's ends grown by its radius (a polygon's radius is 0).
        (lo - shape.radius, hi + shape.radius)
    };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::shapes::{Polygon, Shape};
    use crate::layout::packed::BodyTransform;

    /// A rectangle's box from the corners of its bounds is the box its vertex loop gives,
    /// to the bit, at any turn and wherever the rectangle sits around its origin.
    #[test]
    fn a_rectangles_box_from_its_corners_is_its_vertex_loops() {
        let rectangles = [
            Polygon::rectangle(1.0, 6.0),
            Polygon::rectangle(2000.0, 0.4),
            // Off its origin, listed clockwise from another corner.
            Polygon::new(vec![
                Vec2::new(3.0, 7.5),
                Vec2::new(3.0, -1.25),
                Vec2::new(-0.5, -1.25),
                Vec2::new(-0.5, 7.5),
            ]),
        ];
        let shapes: Vec<Shape> = rectangles.into_iter().map(Shape::Polygon).collect();
        let library = ShapeLibrary::new(&shapes).expect("valid");
        let mut looped = library.clone();
        for shape in &mut looped.shapes {
            assert_eq!(shape.rectangle, 1);
            shape.rectangle = 0;
        }
        for s in 0..shapes.len() as u32 {
            let info = BodyInfo {
                shape: s,
                layer: 1,
                mask: 1,
                kind: ShapeKind::Polygon.index(),
                owner: crate::layout::packed::NO_OWNER,
            };
            for k in 0..4000 {
                let angle = k as f32 * 0.001_57 - 3.2;
                let body = crate::input::body::Body::new(s, Vec2::new(k as f32 * 3.7 - 5000.0, 0.3))
                    .with_angle(angle);
                let t: BodyTransform = crate::layout::bodies::body_transform(&body);
                assert_eq!(
                    body_bounds(&library, &t, &info),
                    body_bounds(&looped, &t, &info),
                    "shape {s}, angle {angle}"
                );
            }
        }
    }
}
