//! A second baseline: the same scenes answered by [rapier2d](https://rapier.rs), set up
//! the way its documentation has a game find every overlapping pair each frame among
//! bodies whose positions the game sets itself, behind the crate's [`Collider`] trait so
//! its pairs are compared with the other backends'.
//!
//! What is kept across frames (the point of this baseline, unlike the parry2d one, which
//! starts every frame from the bodies alone): one `ColliderSet` with a collider per body,
//! rapier's broad phase (`BroadPhaseBvh`, a BVH that it refits and updates from the
//! colliders that changed) and its narrow phase (the graph of pairs whose fattened boxes
//! overlap, updated as pairs appear and go). Each frame:
//! 1. a collider whose body moved gets its position and rotation
//!    (`Collider::set_position`), and its filter if the body's changed; a collider whose
//!    body did not change is not touched, so it stays out of rapier's modified set. A body
//!    that jumped farther than [`JUMP`] (a bullet wrapping at the world's edge) gets a new
//!    collider instead, as a game respawns it: moved in place, its BVH leaf would stretch
//!    the boxes above it across the world, and measured on bullet-hell that costs every
//!    later frame about twice the time;
//! 2. `CollisionPipeline::step` with a prediction distance of 0 (broad phase, then the
//!    narrow phase on every pair with a moved collider);
//! 3. the pairs of the narrow phase's intersection graph marked intersecting, mapped back
//!    to bodies (each collider's `user_data` is its body's index) and sorted.
//!
//! The colliders are sensors with no rigid body (rapier's collision pipeline moves no
//! body, and a collider without a parent is placed directly), with
//! `ActiveCollisionTypes::all()` so that pairs of such colliders are tested at all; a
//! sensor pair is an exact `intersection_test` of the two shapes, the question the other
//! backends answer, and no contact manifold is computed (the contact graph stays empty).
//! No events and no hooks are asked for (`ActiveEvents` and `ActiveHooks` are empty): the
//! pairs are read from the graph.
//!
//! Shapes are those of the parry2d baseline ([`super::shapes`]; rapier2d is built on the
//! same parry2d): polygons with their vertices unmodified, circles as balls, a bitmask as
//! a compound of one cuboid per run of set cells in a row (extended down where the next
//! rows repeat the run), each inset by [`super::shapes::CELL_INSET`]; one shape per
//! library shape, shared by its colliders.
//!
//! Threads: one. rapier2d's `parallel` feature is off: on the benchmark's two-core
//! machines rapier ran as fast or faster on one thread than on rayon's pool (the
//! comparison is in BENCHMARKS.md).
//!
//! Set-ups measured and not kept, each answering the same pairs: rapier's
//! `PhysicsPipeline` with a kinematic position-based body per collider, as its
//! documentation suggests for moving colliders, was 20 to 60% slower (bodies, islands
//! and the solver's bookkeeping on top of the same broad and narrow phases; moving the
//! bodies with `set_next_kinematic_position` would even give the previous frame's
//! pairs, the bodies reaching their next pose only at the end of the step);
//! `set_position_wrt_parent` applies only to colliders attached to a body; bitmasks as
//! `Voxels` shapes were 4 to 8 times slower on the bitmask scene than the compounds;
//! the broad phase's adaptive change-detection margin made no measurable difference.
//!
//! Swept pairs and queries are not answered ([`Error::Unsupported`], which the benchmark
//! skips with a note). Swept frames: rapier's continuous collision detection moves
//! dynamic bodies back to their first contact during a simulation step and gives no
//! time of impact per pair, so answering them would mean calling parry's `cast_shapes`
//! again, which the parry2d baseline already measures. Queries: rapier's `QueryPipeline`
//! over the broad phase's BVH could answer them (with a predicate for the query's mask,
//! which is one-way where `InteractionGroups` test both ways); that is not done here.

use rapier2d::dynamics::{IslandManager, RigidBodySet, SoftBodySet};
use rapier2d::geometry::{
    ActiveCollisionTypes, BroadPhaseBvh, ColliderBuilder, ColliderHandle, ColliderSet, Group,
    InteractionGroups, InteractionTestMode, NarrowPhase,
};
use rapier2d::math::{Pose, Vector};
use rapier2d::parry::bounding_volume::BoundingVolume;
use rapier2d::parry::shape::SharedShape;
use rapier2d::pipeline::CollisionPipeline;

use crate::answer::collider::{sorted_pairs, Collider, FrameStats, Pair};
use crate::error::Error;
use crate::input::body::Body;
use crate::input::library::ShapeLibrary;

/// The name this baseline gives in its errors.
const BACKEND: &str = "rapier2d baseline";

/// How far a body may move in one frame, in world units, and keep its collider: one
/// that moves farther (a bullet wrapping at the world's edge) gets a new collider, as a
/// game despawns and respawns such a body. Moved in place, its leaf in rapier's BVH would
/// stretch every box above it across the jump until the tree's incremental optimizer
/// repairs them, and the traversal of every later frame pays for the stretched boxes.
/// 64 units is far beyond any steady motion of the benchmark's scenes (the fastest
/// bullets move about 8 units a frame, drifting bodies half a unit, bitmasks one).
pub const JUMP: f32 = 64.0;

/// A body's filter as rapier's collision groups: memberships are the layer, the filter
/// is the mask, and the test is `InteractionTestMode::And`, which rapier evaluates as
/// `(memberships_a & filter_b) != 0 && (memberships_b & filter_a) != 0`
/// (`InteractionGroups::test_and`): exactly the format's two-way rule
/// `(layer_i & mask_j) != 0 && (layer_j & mask_i) != 0`.
fn groups(body: &Body) -> InteractionGroups {
    InteractionGroups::new(
        Group::from_bits_retain(body.layer),
        Group::from_bits_retain(body.mask),
        InteractionTestMode::And,
    )
}

/// A body's pose as rapier's.
fn pose(body: &Body) -> Pose {
    Pose::new(Vector::new(body.position.x, body.position.y), body.angle)
}

/// The collider of one body, as this baseline last set it up.
#[derive(Debug, Clone, Copy)]
struct Slot {
    handle: ColliderHandle,
    /// The library shape its collider has.
    shape: u32,
}

/// Finds colliding pairs with rapier2d's collision pipeline, whose broad and narrow
/// phases carry over from one frame to the next.
///
/// ```
/// use gpu_collide::{Body, Circle, Collider, Shape, ShapeLibrary, bench::rapier::RapierCollider, glam::Vec2};
/// let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))])?;
/// let mut rapier = RapierCollider::new(library)?;
/// let mut bodies = [Body::new(0, Vec2::ZERO), Body::new(0, Vec2::new(1.5, 0.0)), Body::new(0, Vec2::new(9.0, 0.0))];
/// assert_eq!(rapier.find_pairs(&bodies)?, vec![[0, 1]]);
/// bodies[2].position.x = 3.0;
/// assert_eq!(rapier.find_pairs(&bodies)?, vec![[0, 1], [1, 2]]);
/// # Ok::<(), gpu_collide::Error>(())
/// ```
pub struct RapierCollider {
    library: ShapeLibrary,
    /// One parry shape per library shape; `None` for a bitmask with no set cell, whose
    /// bodies get no collider (they touch nothing).
    shapes: Vec<Option<SharedShape>>,
    /// The collider of each body of the last frame, by body index; `None` for a body
    /// without a shape.
    slots: Vec<Option<Slot>>,
    colliders: ColliderSet,
    broad_phase: BroadPhaseBvh,
    narrow_phase: NarrowPhase,
    pipeline: CollisionPipeline,
    /// Empty, as the collision pipeline needs them: no body is simulated.
    islands: IslandManager,
    bodies: RigidBodySet,
    soft_bodies: SoftBodySet,
    last: FrameStats,
    max_pairs: u64,
}

impl std::fmt::Debug for RapierCollider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RapierCollider")
            .field("shapes", &self.shapes.len())
            .field("colliders", &self.colliders.len())
            .field("last", &self.last)
            .finish()
    }
}

impl RapierCollider {
    /// Converts the library's shapes to parry shapes, once; the collider set and the
    /// pipeline start empty and are filled by the first frame.
    pub fn new(library: ShapeLibrary) -> Result<Self, Error> {
        let shapes = super::shapes::parry_shapes(&library, BACKEND)?;
        Ok(RapierCollider {
            library,
            shapes,
            slots: Vec::new(),
            colliders: ColliderSet::new(),
            broad_phase: BroadPhaseBvh::new(),
            narrow_phase: NarrowPhase::new(),
            pipeline: CollisionPipeline::new(),
            islands: IslandManager::new(),
            bodies: RigidBodySet::new(),
            soft_bodies: SoftBodySet::new(),
            last: FrameStats::default(),
            max_pairs: crate::answer::collider::DEFAULT_MAX_PAIRS,
        })
    }

    /// Removes the collider of `slot`, if it has one.
    fn remove(&mut self, slot: Option<Slot>) {
        if let Some(slot) = slot {
            self.colliders.remove(
                slot.handle,
                &mut self.islands,
                &mut self.bodies,
                &mut self.soft_bodies,
                false,
            );
        }
    }

    /// Brings the collider set to this frame's bodies: a collider made for a body new to
    /// the set, or whose body jumped ([`JUMP`]); its shape replaced where the body's shape
    /// changed; its pose and groups set where they changed, so a collider whose body did
    /// not move stays out of rapier's modified set; removed for bodies gone or without a
    /// shape.
    fn place(&mut self, bodies: &[Body]) {
        while self.slots.len() > bodies.len() {
            let slot = self.slots.pop().flatten();
            self.remove(slot);
        }
        self.slots.resize(bodies.len(), None);
        for (i, body) in bodies.iter().enumerate() {
            let has_shape = matches!(self.shapes.get(body.shape as usize), Some(Some(_)));
            let mut slot = self.slots[i];
            if !has_shape {
                self.slots[i] = None;
                self.remove(slot);
                continue;
            }
            let (at, filter) = (pose(body), groups(body));
            let jumped = slot
                .and_then(|s| self.colliders.get(s.handle))
                .is_some_and(|c| c.position().translation.distance(at.translation) > JUMP);
            if jumped {
                self.remove(slot);
                slot = None;
            }
            let current = slot.and_then(|s| Some((s, self.colliders.get(s.handle)?)));
            match current {
                Some((slot, collider)) => {
                    let same_shape = slot.shape == body.shape;
                    if same_shape
                        && *collider.position() == at
                        && collider.collision_groups() == filter
                    {
                        continue;
                    }
                    let Some(collider) = self.colliders.get_mut(slot.handle) else {
                        continue;
                    };
                    if !same_shape {
                        if let Some(Some(shape)) = self.shapes.get(body.shape as usize) {
                            collider.set_shape(shape.clone());
                        }
                        self.slots[i] = Some(Slot {
                            handle: slot.handle,
                            shape: body.shape,
                        });
                    }
                    if *collider.position() != at {
                        collider.set_position(at);
                    }
                    // Changes nothing when the groups are the same.
                    collider.set_collision_groups(filter);
                }
                None => {
                    let Some(Some(shape)) = self.shapes.get(body.shape as usize) else {
                        continue;
                    };
                    let collider = ColliderBuilder::new(shape.clone())
                        .sensor(true)
                        .active_collision_types(ActiveCollisionTypes::all())
                        .collision_groups(filter)
                        .position(at)
                        .user_data(i as u128)
                        .build();
                    self.slots[i] = Some(Slot {
                        handle: self.colliders.insert(collider),
                        shape: body.shape,
                    });
                }
            }
        }
    }

    /// Of the narrow phase's pairs, those whose colliders' own boxes (not the broad
    /// phase's fattened ones) overlap: the candidates the other backends count.
    fn tight_candidates(&self) -> u64 {
        let graph = self.narrow_phase.intersection_graph();
        graph
            .interactions_with_endpoints()
            .filter(
                |(a, b, _)| match (self.colliders.get(*a), self.colliders.get(*b)) {
                    (Some(a), Some(b)) => a.compute_aabb().intersects(&b.compute_aabb()),
                    _ => false,
                },
            )
            .count() as u64
    }
}

impl Collider for RapierCollider {
    fn find_pairs(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
        self.library.check_bodies(bodies)?;
        crate::answer::motion::refuse_motion(&self.describe(), bodies)?;
        self.place(bodies);
        self.pipeline.step(
            0.0,
            &mut self.islands,
            &mut self.broad_phase,
            &mut self.narrow_phase,
            &mut self.bodies,
            &mut self.colliders,
            &(),
            &(),
        );

        let mut candidates = 0u64;
        let mut pairs = Vec::new();
        for (a, b, intersecting) in self.narrow_phase.intersection_pairs() {
            candidates += 1;
            if !intersecting {
                continue;
            }
            let body = |h: ColliderHandle| self.colliders.get(h).map(|c| c.user_data as u32);
            let (Some(i), Some(j)) = (body(a), body(b)) else {
                return Err(super::shapes::baseline_error(
                    BACKEND,
                    "the narrow phase holds a pair of a removed collider".into(),
                ));
            };
            pairs.push([i.min(j), i.max(j)]);
        }
        // The graph keeps pairs whose fattened boxes overlap, more than the others count;
        // only a frame over the limit pays for counting the same pairs they do.
        if candidates > self.max_pairs {
            let found = self.tight_candidates();
            if found > self.max_pairs {
                return Err(Error::TooManyPairs {
                    found,
                    limit: self.max_pairs,
                });
            }
        }
        self.last = FrameStats {
            candidates: Some(candidates),
            stages: None,
            runs: None,
        };
        Ok(sorted_pairs(pairs))
    }

    fn describe(&self) -> String {
        "rapier2d".to_string()
    }

    /// Checked after the step: rapier's pipeline has no early stop.
    fn set_max_pairs(&mut self, max: u64) {
        self.max_pairs = max;
    }

    fn last_frame(&self) -> FrameStats {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::bench::baseline_checks as checks;
    use glam::Vec2;

    fn rapier(library: ShapeLibrary) -> RapierCollider {
        RapierCollider::new(library).expect("rapier shapes")
    }

    #[test]
    fn agrees_with_the_cpu_frame_after_frame() {
        checks::agrees_with_the_cpu_frame_after_frame(&|library| Box::new(rapier(library)));
    }

    #[test]
    fn follows_bodies_that_come_go_and_change() {
        let mut rapier = rapier(checks::changing_library());
        checks::follows_bodies_that_come_go_and_change(&mut rapier);
        assert_eq!(
            rapier.colliders.len(),
            2,
            "one collider per body with a shape"
        );
    }

    #[test]
    fn the_filter_must_agree_both_ways() {
        checks::the_filter_must_agree_both_ways(&mut rapier(checks::circle_library()));
    }

    #[test]
    fn too_many_pairs_are_refused_with_the_others_count() {
        checks::too_many_pairs_are_refused_with_the_others_count(&mut rapier(
            checks::circle_library(),
        ));
    }

    /// A body that jumps farther than [`JUMP`] gets a new collider, which pairs where it
    /// landed; a body that stays put keeps its collider; one that moves less keeps it too.
    #[test]
    fn a_body_that_jumps_gets_a_new_collider() {
        let mut rapier = rapier(checks::circle_library());
        let at = |x: f32| Body::new(0, Vec2::new(x, 0.0));
        let handles = |r: &RapierCollider| -> Vec<ColliderHandle> {
            r.slots
                .iter()
                .map(|s| s.expect("a collider").handle)
                .collect()
        };
        let far = 1.5 * JUMP;
        assert_eq!(
            rapier
                .find_pairs(&[at(0.0), at(1.5), at(far)])
                .expect("pairs"),
            vec![[0, 1]]
        );
        let before = handles(&rapier);
        // Body 1 wraps to body 2; body 2 moves a little.
        assert_eq!(
            rapier
                .find_pairs(&[at(0.0), at(far + 1.0), at(far + 0.5)])
                .expect("pairs"),
            vec![[1, 2]]
        );
        let after = handles(&rapier);
        assert_eq!(after[0], before[0], "a body that stays keeps its collider");
        assert_ne!(after[1], before[1], "a body that jumps gets a new one");
        assert_eq!(after[2], before[2], "a body that moves keeps its collider");
        assert_eq!(rapier.colliders.len(), 3);
    }

    #[test]
    fn moving_bodies_and_swept_frames_are_refused_as_unsupported() {
        checks::moving_bodies_are_refused_as_unsupported(
            &mut rapier(checks::circle_library()),
            "rapier2d",
        );
    }
}
