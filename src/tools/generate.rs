//! Seeded random scenes for tests and benchmarks: the same seed gives the same scene
//! on every machine.

use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::input::body::Body;
use crate::input::scene::Scene;
use crate::input::shapes::{Bitmask, Capsule, Circle, Compound, Concave, Part, Polygon, Shape};

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
    Scene {
        shapes,
        bodies,
        ..Scene::default()
    }
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

/// Layer bit of the player in [`BulletHell`] scenes.
pub const LAYER_PLAYER: u32 = 1;
/// Layer bit of enemies.
pub const LAYER_ENEMY: u32 = 2;
/// Layer bit of the player's bullets.
pub const LAYER_PLAYER_BULLET: u32 = 4;
/// Layer bit of the enemies' bullets.
pub const LAYER_ENEMY_BULLET: u32 = 8;

/// A bullet-hell frame generator: one player, about 1% enemies (polygons of 3 to 10
/// vertices), and bullets (small circles and thin polygons) from both sides. Filters
/// let the player meet enemies and their bullets, enemies meet the player and the
/// player's bullets, and bullets never meet bullets. [`BulletHell::step`] moves
/// everything, so no frame repeats the last.
///
/// ```
/// use gpu_collide::generate::BulletHell;
/// let mut game = BulletHell::new(10_000, 7);
/// let first = game.scene.bodies[5].position;
/// game.step(1.0 / 60.0);
/// assert_ne!(game.scene.bodies[5].position, first);
/// ```
#[derive(Debug, Clone)]
pub struct BulletHell {
    /// Shapes and the bodies where they are this frame.
    pub scene: Scene,
    /// Each body's velocity, units per second.
    pub velocities: Vec<Vec2>,
    /// Bodies live in `[-half_size, half_size]²` and wrap around its edges.
    pub half_size: f32,
}

impl BulletHell {
    /// A scene of `bodies` bodies (at least one, the player), the same for the same seed.
    /// About one body per 25 × 25 units, so a million bodies stay within ±12500.
    pub fn new(bodies: usize, seed: u64) -> Self {
        let mut rng = Pcg64::seed_from_u64(seed);
        let bodies = bodies.max(1);
        let half_size = (bodies as f32 * 625.0).sqrt() / 2.0;
        let mut shapes = vec![
            // 0: the player's ship.
            Shape::Polygon(Polygon::new(vec![
                Vec2::new(0.0, 10.0),
                Vec2::new(-7.0, -6.0),
                Vec2::new(-3.0, -8.0),
                Vec2::new(3.0, -8.0),
                Vec2::new(7.0, -6.0),
            ])),
            // 1-3: bullets.
            Shape::Circle(Circle::new(1.5)),
            Shape::Circle(Circle::new(3.0)),
            Shape::Polygon(Polygon::rectangle(1.0, 6.0)),
        ];
        let enemy_shapes = shapes.len()..shapes.len() + 8;
        for k in 0..8 {
            let sides = 3 + k % 8; // 3 to 10 vertices
            shapes.push(Shape::Polygon(Polygon::regular(
                sides,
                rng.random_range(8.0..24.0),
            )));
        }
        let place = |rng: &mut Pcg64| {
            Vec2::new(
                rng.random_range(-half_size..half_size),
                rng.random_range(-half_size..half_size),
            )
        };
        let mut scene_bodies = Vec::with_capacity(bodies);
        let mut velocities = Vec::with_capacity(bodies);
        let everything = LAYER_ENEMY | LAYER_ENEMY_BULLET;
        scene_bodies.push(Body::new(0, Vec2::ZERO).with_filter(LAYER_PLAYER, everything));
        velocities.push(Vec2::new(40.0, 25.0));
        let enemies = (bodies / 100).max(1).min(bodies - 1);
        for _ in 0..enemies {
            let shape = rng.random_range(enemy_shapes.clone()) as u32;
            let body = Body::new(shape, place(&mut rng))
                .with_angle(rng.random_range(-std::f32::consts::PI..std::f32::consts::PI))
                .with_filter(LAYER_ENEMY, LAYER_PLAYER | LAYER_PLAYER_BULLET);
            scene_bodies.push(body);
            velocities.push(Vec2::new(
                rng.random_range(-20.0..20.0),
                rng.random_range(-20.0..20.0),
            ));
        }
        while scene_bodies.len() < bodies {
            // A fifth of the bullets are the player's, shot upwards; the rest spray from enemies.
            let player_bullet = rng.random_bool(0.2);
            let shape = rng.random_range(1..=3u32);
            let (layer, mask) = if player_bullet {
                (LAYER_PLAYER_BULLET, LAYER_ENEMY)
            } else {
                (LAYER_ENEMY_BULLET, LAYER_PLAYER)
            };
            let velocity = if player_bullet {
                Vec2::new(0.0, rng.random_range(300.0..500.0))
            } else {
                Vec2::from_angle(rng.random_range(-std::f32::consts::PI..std::f32::consts::PI))
                    * rng.random_range(60.0..200.0)
            };
            // Thin bullets point where they fly.
            let angle = velocity.y.atan2(velocity.x) - std::f32::consts::FRAC_PI_2;
            scene_bodies.push(
                Body::new(shape, place(&mut rng))
                    .with_angle(angle)
                    .with_filter(layer, mask),
            );
            velocities.push(velocity);
        }
        BulletHell {
            scene: Scene {
                shapes,
                bodies: scene_bodies,
                ..Scene::default()
            },
            velocities,
            half_size,
        }
    }

    /// Moves every body by its velocity over `dt` seconds, wrapping at the world's edges,
    /// and turns the enemies a little.
    pub fn step(&mut self, dt: f32) {
        let size = 2.0 * self.half_size;
        for (body, velocity) in self.scene.bodies.iter_mut().zip(&self.velocities) {
            let p = body.position + *velocity * dt + Vec2::splat(self.half_size);
            body.position = p.rem_euclid(Vec2::splat(size)) - Vec2::splat(self.half_size);
            if body.layer == LAYER_ENEMY {
                body.angle = (body.angle + 0.5 * dt).rem_euclid(std::f32::consts::TAU);
            }
        }
    }
}

/// The lengths of the lasers of [`lasers_scene`], each a capsule along its flight.
const LASERS: [(f32, f32); 3] = [(60.0, 1.0), (120.0, 1.5), (200.0, 0.0)];

/// A bullet-hell scene ([`BulletHell`]) with lasers and ships: every tenth bullet is a
/// laser, a capsule up to 200 units long along its flight (the longest a segment, of no
/// width), and the enemies are compound ships, their hull with two capsule wings. With
/// `as_circles`, each laser is a circle of its radius instead (a segment, of radius
/// 0.5), the same bodies otherwise: the scene the lasers' cost is measured against.
pub fn lasers_scene(bodies: usize, seed: u64, as_circles: bool) -> Scene {
    let game = BulletHell::new(bodies, seed);
    let mut scene = game.scene;
    let first_laser = scene.shapes.len() as u32;
    for (length, radius) in LASERS {
        let half = length / 2.0;
        scene.shapes.push(if as_circles {
            Shape::Circle(Circle::new(radius.max(0.5)))
        } else {
            Shape::Capsule(Capsule::new(
                Vec2::new(0.0, -half),
                Vec2::new(0.0, half),
                radius,
            ))
        });
    }
    // Ships: each enemy hull (shapes 4 to 11) with a wing on either side.
    let wing = scene.shapes.len() as u32;
    scene.shapes.push(Shape::Capsule(Capsule::new(
        Vec2::ZERO,
        Vec2::new(14.0, 0.0),
        2.0,
    )));
    let first_ship = scene.shapes.len() as u32;
    for hull in 4..12u32 {
        scene.shapes.push(Shape::Compound(Compound::new(vec![
            Part::new(hull),
            Part::new(wing).at(Vec2::new(4.0, 0.0)).turned(-0.4),
            Part::new(wing)
                .at(Vec2::new(-4.0, 0.0))
                .turned(std::f32::consts::PI + 0.4),
        ])));
    }
    let mut bullets = 0;
    for body in &mut scene.bodies {
        match body.layer {
            LAYER_ENEMY => body.shape = first_ship + (body.shape - 4),
            LAYER_PLAYER_BULLET | LAYER_ENEMY_BULLET => {
                bullets += 1;
                if bullets % 10 == 0 {
                    body.shape = first_laser + (bullets / 10) % LASERS.len() as u32;
                }
            }
            _ => {}
        }
    }
    scene
}

/// A crowded scene of concave outlines (stars of 5 to 48 vertices, 4 to 24 units
/// across) and, one body in four, convex polygons and circles, placed as
/// [`random_scene`] places its bodies. With `as_hulls`, each outline is the convex
/// polygon of its hull instead, the same bodies otherwise: the scene the cost of the
/// concave outlines is measured against.
pub fn concave_scene(bodies: usize, seed: u64, as_hulls: bool) -> Scene {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut shapes = Vec::new();
    for k in 0..8 {
        let n = [5, 7, 9, 12, 16, 24, 32, 48][k];
        let reach = rng.random_range(2.0..12.0f32);
        let outline: Vec<Vec2> = (0..n)
            .map(|i| {
                let sector = std::f32::consts::TAU / n as f32;
                let t = sector * (i as f32 + rng.random_range(0.1..0.9));
                let r = reach
                    * if i % 2 == 0 {
                        1.0
                    } else {
                        rng.random_range(0.3..0.7)
                    };
                Vec2::new(r * t.cos(), r * t.sin())
            })
            .collect();
        shapes.push(if as_hulls {
            Shape::Polygon(Polygon::new(convex_hull(&outline)))
        } else {
            Shape::Concave(Concave::new(outline))
        });
    }
    for _ in 0..2 {
        shapes.push(Shape::Polygon(random_convex(&mut rng)));
        shapes.push(Shape::Circle(Circle::new(rng.random_range(0.5..8.0))));
    }
    let side = (bodies as f32 * 225.0).sqrt().max(20.0);
    let bodies = (0..bodies)
        .map(|k| {
            let shape = if k % 4 == 3 {
                rng.random_range(8..shapes.len())
            } else {
                rng.random_range(0..8)
            };
            let offset = Vec2::new(
                rng.random_range(-side / 2.0..side / 2.0),
                rng.random_range(-side / 2.0..side / 2.0),
            );
            Body::new(shape as u32, offset)
                .with_angle(rng.random_range(-std::f32::consts::PI..std::f32::consts::PI))
        })
        .collect();
    Scene {
        shapes,
        bodies,
        ..Scene::default()
    }
}

/// The convex hull of `points`, counter-clockwise, without straight vertices (Andrew's
/// monotone chain).
fn convex_hull(points: &[Vec2]) -> Vec<Vec2> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let turn = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    let mut hull: Vec<Vec2> = Vec::with_capacity(2 * sorted.len());
    for pass in 0..2 {
        let start = hull.len();
        let points: Box<dyn Iterator<Item = &Vec2>> = if pass == 0 {
            Box::new(sorted.iter())
        } else {
            Box::new(sorted.iter().rev())
        };
        for &p in points {
            while hull.len() >= start + 2
                && turn(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}
