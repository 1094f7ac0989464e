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

use crate::body::Body;
use crate::generate::BulletHell;
use crate::library::MAX_BITMASK_COORDINATE;
use crate::scene::Scene;
use crate::shapes::Shape;

/// Seconds between two frames: a 60 Hz game.
pub const FRAME_DT: f32 = 1.0 / 60.0;

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
    use crate::generate::{random_scene, SceneKind};

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
