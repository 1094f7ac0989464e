//! The benchmark's baseline: the same scenes answered by [parry2d](https://parry.rs),
//! used the way a game programmer would use it without a GPU, behind the crate's
//! [`Collider`] trait so its pairs can be compared with the other backends'.
//!
//! Every frame, as the other backends do, it starts from the bodies alone:
//! 1. the world AABB of each body (`Shape::compute_aabb` at the body's pose);
//! 2. a BVH built over those boxes (`Bvh::from_leaves`, binned SAH build), traversed
//!    against itself (`traverse_bvtt_single_tree`) for the pairs of overlapping boxes;
//! 3. the layer/mask filter, then `query::intersection_test` on the pair's shapes.
//!
//! Shapes are converted once, when the collider is made ([`super::shapes`], shared
//! with the rapier2d baseline): polygons unmodified, circles as balls, a bitmask as a
//! compound of one cuboid per run of set cells in a row (extended down where the next
//! rows repeat the run), each inset by [`CELL_INSET`].
//!
//! Swept pairs and query batches are answered with parry's own queries, so that the
//! benchmark compares like with like:
//! - swept pairs: the BVH over each body's swept box (its box at the start of the frame
//!   and at the end), traversed against itself, then `query::cast_shapes` with the two
//!   velocities and a time of impact of at most 1 (penetration at the start gives 0);
//! - rays: `Bvh::cast_ray` over the bodies' boxes, each leaf answered by the shape's own
//!   `cast_ray_and_get_normal` (solid, so a ray starting inside hits at 0);
//! - points: the BVH's leaves whose box holds the point, then `contains_point`;
//! - boxes: `Bvh::intersect_aabb`, then `intersection_test` against a `Cuboid` of the
//!   box's size.
//!
//! parry2d is a normal dependency, not a dev one, because the `bench` command of the
//! binary runs it.

use parry2d::bounding_volume::Aabb;
use parry2d::math::{Pose, Vector};
use parry2d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry2d::query::{self, ShapeCastOptions};
use parry2d::shape::{Cuboid, SharedShape};

use crate::answer::collider::{sorted_pairs, Collider, FrameStats, Pair};
use crate::answer::motion::SweptPair;
use crate::answer::query::{QueryAnswers, QueryBatch, RayHit};
use crate::error::Error;
use crate::input::body::{filters_agree, Body};
use crate::input::library::ShapeLibrary;

pub use super::shapes::CELL_INSET;

/// The name this baseline gives in its errors.
const BACKEND: &str = "parry2d baseline";

/// The baseline's own failure, as the library's error for backends outside it.
fn baseline(message: String) -> Error {
    super::shapes::baseline_error(BACKEND, message)
}

/// Finds colliding pairs with parry2d: per frame a BVH build, its self-traversal, and
/// `intersection_test` on every pair whose boxes overlap and whose filters agree.
///
/// ```
/// use gpu_collide::{Body, Circle, Collider, Shape, ShapeLibrary, bench::parry::ParryCollider, glam::Vec2};
/// let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))])?;
/// let mut parry = ParryCollider::new(library)?;
/// let bodies = [Body::new(0, Vec2::ZERO), Body::new(0, Vec2::new(1.5, 0.0)), Body::new(0, Vec2::new(9.0, 0.0))];
/// assert_eq!(parry.find_pairs(&bodies)?, vec![[0, 1]]);
/// # Ok::<(), gpu_collide::Error>(())
/// ```
pub struct ParryCollider {
    library: ShapeLibrary,
    /// One parry shape per library shape; `None` for a bitmask with no set cell, which
    /// touches nothing.
    shapes: Vec<Option<SharedShape>>,
    /// Reused every frame, as parry suggests, so traversal allocates nothing.
    workspace: BvhWorkspace,
    /// Reused every frame.
    poses: Vec<Pose>,
    leaves: Vec<Aabb>,
    /// The body of each leaf: bodies without a shape have none.
    leaf_bodies: Vec<u32>,
    last: FrameStats,
    max_pairs: u64,
}

impl std::fmt::Debug for ParryCollider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParryCollider")
            .field("shapes", &self.shapes.len())
            .field("last", &self.last)
            .finish()
    }
}

impl ParryCollider {
    /// Converts the library's shapes to parry shapes, once.
    pub fn new(library: ShapeLibrary) -> Result<Self, Error> {
        let shapes = super::shapes::parry_shapes(&library, BACKEND)?;
        Ok(ParryCollider {
            library,
            shapes,
            workspace: BvhWorkspace::default(),
            poses: Vec::new(),
            leaves: Vec::new(),
            leaf_bodies: Vec::new(),
            last: FrameStats::default(),
            max_pairs: crate::answer::collider::DEFAULT_MAX_PAIRS,
        })
    }
}

impl ParryCollider {
    /// The pose of every body, and a leaf for each body with a shape: its box at the
    /// start of the frame, or with `swept` the box covering its start and its end.
    fn place(&mut self, bodies: &[Body], swept: bool) {
        self.poses.clear();
        self.poses.extend(
            bodies
                .iter()
                .map(|b| Pose::new(Vector::new(b.position.x, b.position.y), b.angle)),
        );
        self.leaves.clear();
        self.leaf_bodies.clear();
        for (i, (body, pose)) in bodies.iter().zip(&self.poses).enumerate() {
            if let Some(Some(shape)) = self.shapes.get(body.shape as usize) {
                let mut aabb = shape.compute_aabb(pose);
                if swept {
                    let v = Vector::new(body.velocity.x, body.velocity.y);
                    aabb = Aabb::new(aabb.mins.min(aabb.mins + v), aabb.maxs.max(aabb.maxs + v));
                }
                self.leaves.push(aabb);
                self.leaf_bodies.push(i as u32);
            }
        }
    }
}

impl Collider for ParryCollider {
    fn find_pairs(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
        self.library.check_bodies(bodies)?;
        crate::answer::motion::refuse_motion(&self.describe(), bodies)?;
        self.place(bodies, false);
        // Leaves numbered 0..n: parry 0.31's `from_iter` panics on other numbers when
        // there are only one or two leaves.
        let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &self.leaves);

        let mut candidates = 0u64;
        let mut pairs = Vec::new();
        let mut unsupported = None;
        let (shapes, poses, leaf_bodies) = (&self.shapes, &self.poses, &self.leaf_bodies);
        bvh.traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |a, b| {
            let (a, b) = (leaf_bodies[a as usize], leaf_bodies[b as usize]);
            let (i, j) = (a.min(b) as usize, a.max(b) as usize);
            let (bi, bj) = (&bodies[i], &bodies[j]);
            if !filters_agree(bi.layer, bi.mask, bj.layer, bj.mask) {
                return;
            }
            candidates += 1;
            // Both are in the tree, so both have a shape.
            let (Some(Some(si)), Some(Some(sj))) =
                (shapes.get(bi.shape as usize), shapes.get(bj.shape as usize))
            else {
                return;
            };
            match query::intersection_test(&poses[i], si.as_ref(), &poses[j], sj.as_ref()) {
                Ok(hit) if hit.intersecting => pairs.push([i as u32, j as u32]),
                Ok(_) => {}
                Err(_) => unsupported = Some((i, j)),
            }
        });
        if candidates > self.max_pairs {
            return Err(Error::TooManyPairs {
                found: candidates,
                limit: self.max_pairs,
            });
        }
        if let Some((i, j)) = unsupported {
            return Err(baseline(format!(
                "intersection_test does not support the shapes of bodies {i} and {j}"
            )));
        }
        self.last = FrameStats {
            candidates: Some(candidates),
            stages: None,
            runs: None,
        };
        Ok(sorted_pairs(pairs))
    }

    fn find_swept_pairs(&mut self, bodies: &[Body]) -> Result<Vec<SweptPair>, Error> {
        self.library.check_bodies(bodies)?;
        self.place(bodies, true);
        let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &self.leaves);
        let options = ShapeCastOptions {
            max_time_of_impact: 1.0,
            target_distance: 0.0,
            stop_at_penetration: true,
            compute_impact_geometry_on_penetration: false,
        };
        let mut candidates = 0u64;
        let mut pairs = Vec::new();
        let mut unsupported = None;
        let (shapes, poses, leaf_bodies) = (&self.shapes, &self.poses, &self.leaf_bodies);
        bvh.traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |a, b| {
            let (a, b) = (leaf_bodies[a as usize], leaf_bodies[b as usize]);
            let (i, j) = (a.min(b) as usize, a.max(b) as usize);
            let (bi, bj) = (&bodies[i], &bodies[j]);
            if !filters_agree(bi.layer, bi.mask, bj.layer, bj.mask) {
                return;
            }
            candidates += 1;
            let (Some(Some(si)), Some(Some(sj))) =
                (shapes.get(bi.shape as usize), shapes.get(bj.shape as usize))
            else {
                return;
            };
            let velocity = |b: &Body| Vector::new(b.velocity.x, b.velocity.y);
            match query::cast_shapes(
                &poses[i],
                velocity(bi),
                si.as_ref(),
                &poses[j],
                velocity(bj),
                sj.as_ref(),
                options,
            ) {
                Ok(Some(hit)) if hit.time_of_impact <= 1.0 => pairs.push(SweptPair {
                    pair: [i as u32, j as u32],
                    toi: hit.time_of_impact.max(0.0),
                }),
                Ok(_) => {}
                Err(_) => unsupported = Some((i, j)),
            }
        });
        if candidates > self.max_pairs {
            return Err(Error::TooManyPairs {
                found: candidates,
                limit: self.max_pairs,
            });
        }
        if let Some((i, j)) = unsupported {
            return Err(baseline(format!(
                "cast_shapes does not support the shapes of bodies {i} and {j}"
            )));
        }
        self.last = FrameStats {
            candidates: Some(candidates),
            stages: None,
            runs: None,
        };
        pairs.sort_unstable_by_key(|p| p.pair);
        Ok(pairs)
    }

    fn query(&mut self, bodies: &[Body], batch: &QueryBatch) -> Result<QueryAnswers, Error> {
        self.library.check_bodies(bodies)?;
        batch.validate()?;
        self.place(bodies, false);
        let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &self.leaves);
        let (shapes, poses, leaf_bodies) = (&self.shapes, &self.poses, &self.leaf_bodies);
        // The body and shape of a leaf, when the query's mask sees it.
        let seen = |leaf: u32, mask: u32| {
            let k = leaf_bodies[leaf as usize] as usize;
            let body = &bodies[k];
            match shapes.get(body.shape as usize) {
                Some(Some(shape)) if body.layer & mask != 0 => Some((k, shape)),
                _ => None,
            }
        };
        let rays = batch
            .rays
            .iter()
            .map(|r| {
                let ray = query::Ray::new(
                    Vector::new(r.origin.x, r.origin.y),
                    Vector::new(r.delta.x, r.delta.y),
                );
                let (leaf, t) = bvh.cast_ray(&ray, 1.0, |leaf, best| {
                    let (k, shape) = seen(leaf, r.mask)?;
                    shape.cast_ray(&poses[k], &ray, best, true)
                })?;
                let (k, shape) = seen(leaf, r.mask)?;
                // The normal where it hits, as the other backends give it.
                let normal = (t > 0.0)
                    .then(|| shape.cast_ray_and_get_normal(&poses[k], &ray, 1.0, true))
                    .flatten()
                    .map(|hit| glam::Vec2::new(hit.normal.x, hit.normal.y));
                Some(RayHit {
                    body: k as u32,
                    t,
                    normal,
                })
            })
            .collect();
        let points = batch
            .points
            .iter()
            .map(|q| {
                let p = Vector::new(q.point.x, q.point.y);
                let mut found: Vec<u32> = bvh
                    .leaves(|node| node.aabb().contains_local_point(p))
                    .filter_map(|leaf| seen(leaf, q.mask))
                    .filter(|(k, shape)| shape.contains_point(&poses[*k], p))
                    .map(|(k, _)| k as u32)
                    .collect();
                found.sort_unstable();
                found
            })
            .collect();
        let boxes = batch
            .boxes
            .iter()
            .map(|q| {
                let aabb = Aabb::new(Vector::new(q.min.x, q.min.y), Vector::new(q.max.x, q.max.y));
                let centre = Pose::from_translation(aabb.center());
                let cuboid = Cuboid::new(aabb.half_extents());
                let mut found: Vec<u32> = bvh
                    .intersect_aabb(&aabb)
                    .filter_map(|leaf| seen(leaf, q.mask))
                    .filter(|(k, shape)| {
                        query::intersection_test(&centre, &cuboid, &poses[*k], shape.as_ref())
                            .is_ok_and(|hit| hit.intersecting)
                    })
                    .map(|(k, _)| k as u32)
                    .collect();
                found.sort_unstable();
                found
            })
            .collect();
        Ok(QueryAnswers {
            rays,
            points,
            boxes,
        })
    }

    fn describe(&self) -> String {
        "parry2d".to_string()
    }

    /// The baseline's traversal has no early stop; the benchmark runs scenes that stay
    /// far under any limit, so this one only refuses a frame after the fact.
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
    use crate::tools::generate::{random_scene, BulletHell, SceneKind};
    use crate::CpuCollider;

    /// How far apart (positive) or how deep (negative) bodies `i` and `j` are, by parry.
    fn signed_distance(parry: &ParryCollider, bodies: &[Body], [i, j]: Pair) -> f32 {
        let pose = |b: &Body| Pose::new(Vector::new(b.position.x, b.position.y), b.angle);
        let shape = |b: &Body| parry.shapes[b.shape as usize].clone().expect("a shape");
        let (bi, bj) = (&bodies[i as usize], &bodies[j as usize]);
        match query::contact(&pose(bi), &*shape(bi), &pose(bj), &*shape(bj), 1.0) {
            Ok(Some(contact)) => contact.dist,
            Ok(None) => f32::INFINITY,
            Err(_) => f32::NAN,
        }
    }

    #[test]
    fn agrees_with_the_cpu_outside_the_tolerance_band() {
        let mut scenes: Vec<_> = SceneKind::ALL
            .iter()
            .map(|&kind| random_scene(kind, 1000, 11))
            .collect();
        scenes.push(BulletHell::new(2000, 3).scene);
        for scene in scenes {
            let library = scene.validate().expect("valid scene");
            let mut parry = ParryCollider::new(library.clone()).expect("parry shapes");
            let ours = CpuCollider::new(library)
                .find_pairs(&scene.bodies)
                .expect("cpu");
            let theirs = parry.find_pairs(&scene.bodies).expect("parry");
            for pair in ours.iter().filter(|p| !theirs.contains(p)) {
                let d = signed_distance(&parry, &scene.bodies, *pair);
                // Bitmask cells are inset by CELL_INSET, so parry sees them that much apart.
                assert!(
                    d.abs() <= 0.01 + CELL_INSET,
                    "only the cpu finds {pair:?}: distance {d}"
                );
            }
            for pair in theirs.iter().filter(|p| !ours.contains(p)) {
                let d = signed_distance(&parry, &scene.bodies, *pair);
                assert!(
                    d.abs() <= 0.01 + CELL_INSET,
                    "only parry finds {pair:?}: distance {d}"
                );
            }
        }
    }

    #[test]
    fn bitmasks_sharing_an_edge_do_not_collide() {
        let mask = crate::Bitmask::from_rows(&["##", "##"]).expect("mask");
        let scene = crate::Scene {
            shapes: vec![crate::Shape::Bitmask(mask)],
            bodies: vec![
                Body::new(0, glam::Vec2::new(0.0, 0.0)),
                Body::new(0, glam::Vec2::new(2.0, 0.0)), // shares an edge with 0
                Body::new(0, glam::Vec2::new(-1.0, 1.0)), // shares a cell with 0
            ],
            ..crate::Scene::default()
        };
        let mut parry = ParryCollider::new(scene.validate().expect("valid")).expect("parry");
        assert_eq!(
            parry.find_pairs(&scene.bodies).expect("pairs"),
            vec![[0, 2]]
        );
    }

    #[test]
    fn a_bitmask_with_no_set_cell_touches_nothing() {
        let empty = crate::Bitmask::new(3, 3).expect("mask");
        let scene = crate::Scene {
            shapes: vec![
                crate::Shape::Bitmask(empty),
                crate::Shape::Circle(crate::Circle::new(5.0)),
            ],
            bodies: vec![
                Body::new(0, glam::Vec2::ZERO),
                Body::new(1, glam::Vec2::ZERO),
                Body::new(1, glam::Vec2::new(1.0, 0.0)),
            ],
            ..crate::Scene::default()
        };
        let mut parry = ParryCollider::new(scene.validate().expect("valid")).expect("parry");
        assert_eq!(
            parry.find_pairs(&scene.bodies).expect("pairs"),
            vec![[1, 2]]
        );
        assert_eq!(parry.last_frame().candidates, Some(1));
    }
}
