//! Seeded random scenes for tests and benchmarks: the same seed gives the same scene
//! on every machine.

use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::body::Body;
use crate::scene::Scene;
use crate::shapes::{Bitmask, Circle, Polygon, Shape};

/// What a random scene is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SceneKind {
    /// Convex polygons of 3 to 16 vertices, slivers among them.
    Polygons,
    /// Circles.
    Circles,
    /// Bitmasks, some narrower than a word, some wider, none a multiple of 32 wide but one.
    Bitmasks,
    /// All three shape kinds together.
    Mixed,
    /// All three, with random layer and mask bits.
    Filtered,
}

impl SceneKind {
    /// Every kind.
    pub const ALL: [SceneKind; 5] = [
        SceneKind::Polygons,
        SceneKind::Circles,
        SceneKind::Bitmasks,
        SceneKind::Mixed,
        SceneKind::Filtered,
    ];
}

/// A random scene of `bodies` bodies, dense enough that many pairs touch, placed
/// around a random centre within ±12000 so that f32 precision at large coordinates
/// is exercised too.
pub fn random_scene(kind: SceneKind, bodies: usize, seed: u64) -> Scene {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut shapes = Vec::new();
    let want = |k: SceneKind| kind == k || matches!(kind, SceneKind::Mixed | SceneKind::Filtered);
    if want(SceneKind::Polygons) {
        for _ in 0..8 {
            shapes.push(Shape::Polygon(random_convex(&mut rng)));
        }
        // A sliver: 20 units long, a fiftieth as thick.
        shapes.push(Shape::Polygon(Polygon::rectangle(20.0, 0.4)));
    }
    if want(SceneKind::Circles) {
        for _ in 0..6 {
            shapes.push(Shape::Circle(Circle::new(rng.random_range(0.5..8.0))));
        }
    }
    if want(SceneKind::Bitmasks) {
        for width in [1, 7, 31, 32, 33, 45, 70] {
            shapes.push(Shape::Bitmask(random_bitmask(&mut rng, width)));
        }
    }
    // About one body per 15x15 units: crowded enough for many contacts.
    let side = (bodies as f32 * 225.0).sqrt().max(20.0);
    let centre = Vec2::new(
        rng.random_range(-12000.0..12000.0),
        rng.random_range(-12000.0..12000.0),
    );
    let bodies = (0..bodies)
        .map(|_| {
            let shape = rng.random_range(0..shapes.len());
            let offset = Vec2::new(
                rng.random_range(-side / 2.0..side / 2.0),
                rng.random_range(-side / 2.0..side / 2.0),
            );
            let mut body = Body::new(shape as u32, centre + offset);
            if let Shape::Bitmask(_) = shapes[shape] {
                body.position = body.position.round();
            } else {
                body.angle = rng.random_range(-std::f32::consts::PI..std::f32::consts::PI);
            }
            if kind == SceneKind::Filtered {
                body.layer = 1 << rng.random_range(0..4);
                body.mask = rng.random_range(0..16);
            }
            body
        })
        .collect();
    Scene { shapes, bodies }
}

/// A convex polygon: 3 to 16 points at increasing angles on a random ellipse.
fn random_convex(rng: &mut Pcg64) -> Polygon {
    let n = rng.random_range(3..=16);
    let (a, b) = (
        rng.random_range(1.0..12.0f64),
        rng.random_range(0.5..12.0f64),
    );
    // Distinct sorted angles, each in its own sector, so no two points coincide.
    let vertices = (0..n)
        .map(|k| {
            let sector = std::f64::consts::TAU / n as f64;
            let t = sector * (k as f64 + rng.random_range(0.1..0.9));
            Vec2::new((a * t.cos()) as f32, (b * t.sin()) as f32)
        })
        .collect();
    Polygon::new(vertices)
}

/// A `width`-pixel-wide bitmask filled with a blob (a noisy disc), at least one pixel set.
fn random_bitmask(rng: &mut Pcg64, width: u32) -> Bitmask {
    let height = rng.random_range(1..=24u32);
    let mut mask = Bitmask::new(width, height).unwrap_or_else(|_| unreachable!("sides in range"));
    let (cx, cy) = (width as f32 / 2.0, height as f32 / 2.0);
    for r in 0..height {
        for c in 0..width {
            let d = Vec2::new((c as f32 + 0.5 - cx) / cx, (r as f32 + 0.5 - cy) / cy).length();
            mask.set(c, r, d < 1.0 && rng.random_bool(0.85));
        }
    }
    mask.set(width / 2, height / 2, true);
    mask
}
