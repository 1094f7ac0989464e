//! Stage 1, bounds: the world AABB of every body. Twin of `shaders/bounds.wgsl`.

use glam::Vec2;

use crate::input::library::{Outline, ShapeLibrary};
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

/// The world boxes of the pieces `pieces` (packed shapes, in order) of a concave shape
/// with `outline`, placed by `t`: its outline turned once into `turned`, then each
/// piece's box over its corners. The same boxes as [`body_bounds`] gives each piece, since
/// each piece vertex is an outline vertex turned by the same arithmetic.
pub(crate) fn outline_piece_bounds<'a>(
    library: &'a ShapeLibrary,
    outline: &'a Outline,
    pieces: impl Iterator<Item = u32> + 'a,
    t: &BodyTransform,
    turned: &'a mut Vec<Vec2>,
) -> impl Iterator<Item = Aabb> + 'a {
    let (position, rotation) = (Vec2::from(t.position), Vec2::from(t.rotation));
    turned.clear();
    turned.extend(outline.points.iter().map(|&v| position + rotate(v, rotation)));
    let turned: &'a [Vec2] = turned;
    let mut corners = outline.corners.iter();
    pieces.map(move |piece| {
        let count = library.shapes[piece as usize].count as usize;
        let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
        for &corner in corners.by_ref().take(count) {
            let p = turned[corner as usize];
            lo = lo.min(p);
            hi = hi.max(p);
        }
        Aabb {
            min: lo.to_array(),
            max: hi.to_array(),
        }
    })
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
    use crate::tools::generate::concave_scene;
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

    /// The pieces of a concave shape boxed from its outline turned once have the boxes
    /// each piece has on its own, at any turn and place, for outlines of 5 to 48
    /// vertices over several seeds, and for a large and far one.
    #[test]
    fn pieces_boxed_from_their_outline_are_boxed_as_on_their_own() {
        let mut libraries = Vec::new();
        for seed in 1..=4 {
            libraries.push(concave_scene(16, seed, false).shapes);
        }
        let far_star: Vec<Vec2> = (0..96)
            .map(|k| {
                let reach = if k % 2 == 0 { 500.0 } else { 180.0 };
                Vec2::from_angle(k as f32 * std::f32::consts::TAU / 96.0) * reach
                    + Vec2::new(0.25, -0.75)
            })
            .collect();
        libraries.push(vec![Shape::Concave(crate::input::shapes::Concave::new(far_star))]);
        let mut turned = Vec::new();
        let mut checked = 0;
        for shapes in libraries {
            let library = ShapeLibrary::new(&shapes).expect("valid");
            let parts = library.parts.as_ref().expect("concave shapes have parts");
            for (shape, outline) in parts.outlines.iter().enumerate() {
                let Some(outline) = outline else {
                    assert!(!matches!(shapes[shape], Shape::Concave(_)), "shape {shape}");
                    continue;
                };
                let (first, count) = parts.ranges[shape];
                let pieces: Vec<u32> = parts.list[first as usize..][..count as usize]
                    .iter()
                    .map(|place| place.shape)
                    .collect();
                for k in 0..500 {
                    let body = crate::input::body::Body::new(
                        0,
                        Vec2::new(k as f32 * 61.3 - 16000.0, 9000.0 - k as f32 * 17.9),
                    )
                    .with_angle(k as f32 * 0.0127 - 3.1);
                    let t = crate::layout::bodies::body_transform(&body);
                    let boxes: Vec<Aabb> = outline_piece_bounds(
                        &library,
                        outline,
                        pieces.iter().copied(),
                        &t,
                        &mut turned,
                    )
                    .collect();
                    assert_eq!(boxes.len(), pieces.len());
                    for (&piece, got) in pieces.iter().zip(&boxes) {
                        let info = BodyInfo {
                            shape: piece,
                            layer: 1,
                            mask: 1,
                            kind: ShapeKind::Polygon.index(),
                            owner: crate::layout::packed::NO_OWNER,
                        };
                        assert_eq!(*got, body_bounds(&library, &t, &info), "shape {shape}, turn {k}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked} boxes checked");
    }
}
