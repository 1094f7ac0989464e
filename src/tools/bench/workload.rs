//! What the benchmark feeds the backends: a scene and how its bodies move from one frame
//! to the next, so that no frame repeats the last (a backend that cached last frame's
//! answer would gain nothing).
//!
//! Generated bullet-hell scenes move as the game does ([`BulletHell::step`]). Other
//! scenes (random ones and scene files) drift: each body gets a small seeded velocity
//! and spin, and bitmask bodies, which must sit on whole coordinates, step by whole
//! units instead. The same seed gives the same frames on every backend and machine.

use glam::{IVec2, Vec2};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::answer::query::{BoxQuery, PointQuery, QueryBatch, Ray};
use crate::input::body::Body;
use crate::input::library::MAX_BITMASK_COORDINATE;
use crate::input::scene::Scene;
use crate::input::shapes::Shape;
use crate::tools::generate::{BulletHell, LAYER_ENEMY_BULLET, LAYER_PLAYER_BULLET};

/// Seconds between two frames: a 60 Hz game.
pub const FRAME_DT: f32 = 1.0 / 60.0;

/// How far a bullet of the swept bullet-hell moves in a frame, in units: 5 to 40, so
/// that a fast one passes through a 10-unit ship between two frames.
pub const SWEEP_UNITS: std::ops::Range<f32> = 5.0..40.0;

/// Queries per frame of the `queries` scene: rays, points, boxes.
pub const QUERIES: (usize, usize, usize) = (10_000, 1_000, 1_000);

/// A scene and its motion.
#[derive(Debug, Clone)]
pub struct Workload {
    motion: Motion,
}

#[derive(Debug, Clone)]
enum Motion {
    /// The game moves itself.
    Game(BulletHell),
    /// Every body drifts.
    Drift {
        scene: Scene,
        /// Units per second of each body without a bitmask.
        velocities: Vec<Vec2>,
        /// Radians per second of each body without a bitmask.
        spins: Vec<f32>,
        /// Whole units per frame of each bitmask body; zero for the others.
        steps: Vec<IVec2>,
    },
}

impl Workload {
    /// A bullet-hell game of `bodies` bodies ([`BulletHell::new`]).
    pub fn bullet_hell(bodies: usize, seed: u64) -> Self {
        Workload {
            motion: Motion::Game(BulletHell::new(bodies, seed)),
        }
    }

    /// A bullet-hell game whose bodies sweep: every body carries its motion over the
    /// frame as [`Body::velocity`], each bullet moving [`SWEEP_UNITS`] a frame (seeded,
    /// in the direction it flies), the player and enemies as in the game. Each step moves
    /// every body by its velocity, so a frame starts where the last one ended.
    pub fn swept_bullet_hell(bodies: usize, seed: u64) -> Self {
        let mut game = BulletHell::new(bodies, seed);
        let mut rng = Pcg64::seed_from_u64(seed.wrapping_add(0x5eed));
        for (body, velocity) in game.scene.bodies.iter_mut().zip(&mut game.velocities) {
            if body.layer & (LAYER_PLAYER_BULLET | LAYER_ENEMY_BULLET) != 0 {
                let units = rng.random_range(SWEEP_UNITS);
                *velocity = velocity.normalize_or(Vec2::Y) * (units / FRAME_DT);
            }
            body.velocity = *velocity * FRAME_DT;
        }
        Workload {
            motion: Motion::Game(game),
        }
    }

    /// Any scene, its bodies drifting by seeded velocities (about 0 to 30 units a second,
    /// half a unit a frame at most) and spins (within ±1 radian a second); bitmask
    /// bodies step one unit a frame in one of the eight directions.
    pub fn drifting(scene: Scene, seed: u64) -> Self {
        let mut rng = Pcg64::seed_from_u64(seed);
        let n = scene.bodies.len();
        let mut velocities = Vec::with_capacity(n);
        let mut spins = Vec::with_capacity(n);
        let mut steps = Vec::with_capacity(n);
        for body in &scene.bodies {
            let is_bitmask = matches!(
                scene.shapes.get(body.shape as usize),
                Some(Shape::Bitmask(_))
            );
            if is_bitmask {
                let directions = [
                    IVec2::new(1, 0),
                    IVec2::new(1, 1),
                    IVec2::new(0, 1),
                    IVec2::new(-1, 1),
                    IVec2::new(-1, 0),
                    IVec2::new(-1, -1),
                    IVec2::new(0, -1),
                    IVec2::new(1, -1),
                ];
                steps.push(directions[rng.random_range(0..directions.len())]);
                velocities.push(Vec2::ZERO);
                spins.push(0.0);
            } else {
                let angle = rng.random_range(-std::f32::consts::PI..std::f32::consts::PI);
                velocities.push(Vec2::from_angle(angle) * rng.random_range(0.0..30.0));
                spins.push(rng.random_range(-1.0..1.0));
                steps.push(IVec2::ZERO);
            }
        }
        Workload {
            motion: Motion::Drift {
                scene,
                velocities,
                spins,
                steps,
            },
        }
    }

    /// The scene as it is this frame.
    pub fn scene(&self) -> &Scene {
        match &self.motion {
            Motion::Game(game) => &game.scene,
            Motion::Drift { scene, .. } => scene,
        }
    }

    /// The bodies as they are this frame.
    pub fn bodies(&self) -> &[Body] {
        &self.scene().bodies
    }

    /// Moves every body on to the next frame.
    pub fn step(&mut self) {
        match &mut self.motion {
            Motion::Game(game) => game.step(FRAME_DT),
            Motion::Drift {
                scene,
                velocities,
                spins,
                steps,
            } => {
                for (k, body) in scene.bodies.iter_mut().enumerate() {
                    if steps[k] != IVec2::ZERO {
                        step_bitmask(body, &mut steps[k]);
                    } else {
                        body.position += velocities[k] * FRAME_DT;
                        body.angle = wrap_angle(body.angle + spins[k] * FRAME_DT);
                    }
                }
            }
        }
    }
}

/// A seeded batch of `rays`, `points` and `boxes` queries over the box holding the
/// bodies' positions: rays from anywhere, 20 to 200 units long in any direction; points
/// anywhere; boxes 5 to 50 units a side. Every query sees every body.
pub fn query_batch(
    bodies: &[Body],
    (rays, points, boxes): (usize, usize, usize),
    seed: u64,
) -> QueryBatch {
    let mut rng = Pcg64::seed_from_u64(seed);
    let (mut lo, mut hi) = (Vec2::splat(-1.0), Vec2::splat(1.0));
    for body in bodies {
        lo = lo.min(body.position);
        hi = hi.max(body.position);
    }
    let anywhere =
        |rng: &mut Pcg64| Vec2::new(rng.random_range(lo.x..=hi.x), rng.random_range(lo.y..=hi.y));
    QueryBatch {
        rays: (0..rays)
            .map(|_| {
                let origin = anywhere(&mut rng);
                let angle = rng.random_range(-std::f32::consts::PI..std::f32::consts::PI);
                Ray::new(
                    origin,
                    Vec2::from_angle(angle) * rng.random_range(20.0..200.0),
                )
            })
            .collect(),
        points: (0..points)
            .map(|_| PointQuery::new(anywhere(&mut rng)))
            .collect(),
        boxes: (0..boxes)
            .map(|_| {
                let min = anywhere(&mut rng);
                let size = Vec2::new(rng.random_range(5.0..50.0), rng.random_range(5.0..50.0));
                BoxQuery::new(min, min + size)
            })
            .collect(),
    }
}

/// Moves a bitmask body one step, turning back on an axis where it would leave the
/// range where its whole coordinates are exact.
fn step_bitmask(body: &mut Body, step: &mut IVec2) {
    for axis in 0..2 {
        // In f64: past 2^24, f32 would round the step away.
        let next = body.position[axis] as f64 + step[axis] as f64;
        if next.abs() > MAX_BITMASK_COORDINATE as f64 {
            step[axis] = -step[axis];
        }
        body.position[axis] += step[axis] as f32;
    }
}

/// The angle in `[-pi, pi)`.
fn wrap_angle(angle: f32) -> f32 {
    let pi = std::f32::consts::PI;
    (angle + pi).rem_euclid(2.0 * pi) - pi
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::generate::{random_scene, SceneKind};

    #[test]
    fn every_frame_differs_and_stays_valid() {
        for mut workload in [
            Workload::bullet_hell(300, 1),
            Workload::drifting(random_scene(SceneKind::Mixed, 300, 2), 3),
            Workload::drifting(random_scene(SceneKind::Bitmasks, 300, 4), 5),
        ] {
            let library = workload.scene().validate().expect("valid scene");
            for _ in 0..5 {
                let before = workload.bodies().to_vec();
                workload.step();
                assert_ne!(before, workload.bodies());
                library
                    .check_bodies(workload.bodies())
                    .expect("bodies stay valid: bitmasks on whole units");
            }
        }
    }

    #[test]
    fn swept_bullets_move_5_to_40_units_a_frame_and_start_where_they_ended() {
        let mut workload = Workload::swept_bullet_hell(500, 1);
        let library = workload.scene().validate().expect("valid scene");
        let before = workload.bodies().to_vec();
        workload.step();
        library
            .check_bodies(workload.bodies())
            .expect("valid bodies");
        for (a, b) in before.iter().zip(workload.bodies()) {
            assert!(a.moves());
            if a.layer & (LAYER_PLAYER_BULLET | LAYER_ENEMY_BULLET) != 0 {
                let units = a.velocity.length();
                assert!((4.99..=40.01).contains(&units), "{units}");
            }
            let moved = b.position - a.position;
            // Unless it wrapped at the world's edge.
            if moved.length() < 100.0 {
                assert!(
                    (moved - a.velocity).length() < 1e-2,
                    "{moved} {}",
                    a.velocity
                );
            }
        }
    }

    #[test]
    fn query_batches_are_valid_and_seeded() {
        let bodies = Workload::bullet_hell(300, 1).bodies().to_vec();
        let batch = query_batch(&bodies, (50, 5, 5), 3);
        batch.validate().expect("valid batch");
        assert_eq!(
            (batch.rays.len(), batch.points.len(), batch.boxes.len()),
            (50, 5, 5)
        );
        assert_eq!(batch, query_batch(&bodies, (50, 5, 5), 3));
    }

    #[test]
    fn same_seed_same_frames() {
        let scene = random_scene(SceneKind::Mixed, 100, 9);
        let (mut a, mut b) = (
            Workload::drifting(scene.clone(), 1),
            Workload::drifting(scene, 1),
        );
        for _ in 0..3 {
            a.step();
            b.step();
        }
        assert_eq!(a.bodies(), b.bodies());
    }

    #[test]
    fn bitmask_bodies_turn_back_at_the_coordinate_limit() {
        let mut body = Body::new(0, Vec2::new(MAX_BITMASK_COORDINATE, 0.0));
        let mut step = IVec2::new(1, 1);
        step_bitmask(&mut body, &mut step);
        assert_eq!(body.position, Vec2::new(MAX_BITMASK_COORDINATE - 1.0, 1.0));
        assert_eq!(step, IVec2::new(-1, 1));
    }
}
