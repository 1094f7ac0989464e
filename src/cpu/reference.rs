//! The reference path: bounds, every pair of bodies, exact tests; single-threaded and
//! written to be read. It is the oracle that the fast CPU path and the GPU are held to
//! on scenes small enough for its `O(n²)` broad phase.

use crate::answer::collider::{sorted_pairs, Collider, FrameStats, Pair, DEFAULT_MAX_PAIRS};
use crate::answer::contact::Contact;
use crate::answer::motion::{any_moving, SweptPair};
use crate::answer::parts::{answers_through_parts, Expansion};
use crate::answer::query::{QueryAnswers, QueryBatch};
use crate::error::Error;
use crate::input::body::Body;
use crate::input::library::ShapeLibrary;
use crate::layout::bodies::{body_info, body_transform};
use crate::layout::packed::{BodyInfo, BodyTransform};

use super::broad::all_pairs;
use super::{bounds, contact, narrow, query, sweep};

/// Finds colliding pairs by testing every pair of boxes, then the exact shapes.
///
/// ```
/// use gpu_collide::{Body, Circle, Collider, Shape, ShapeLibrary, glam::Vec2};
/// use gpu_collide::cpu::ReferenceCollider;
/// let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))]).unwrap();
/// let mut collider = ReferenceCollider::new(library);
/// let bodies = [Body::new(0, Vec2::ZERO), Body::new(0, Vec2::new(1.5, 0.0)), Body::new(0, Vec2::new(9.0, 0.0))];
/// assert_eq!(collider.find_pairs(&bodies).unwrap(), vec![[0, 1]]);
/// ```
#[derive(Debug, Clone)]
pub struct ReferenceCollider {
    library: ShapeLibrary,
    last: FrameStats,
    max_pairs: u64,
    /// The parts of the last frame's bodies, its memory reused.
    expansion: Expansion,
}

impl ReferenceCollider {
    /// A collider over this shape library.
    pub fn new(library: ShapeLibrary) -> Self {
        ReferenceCollider {
            library,
            last: FrameStats::default(),
            max_pairs: DEFAULT_MAX_PAIRS,
            expansion: Expansion::default(),
        }
    }

    /// The shape library.
    pub fn library(&self) -> &ShapeLibrary {
        &self.library
    }
}

/// One frame's bodies as the stages read them.
struct Frame {
    transforms: Vec<BodyTransform>,
    infos: Vec<BodyInfo>,
    candidates: Vec<Pair>,
}

impl ReferenceCollider {
    /// Checks the bodies and finds every pair whose filters agree and whose boxes
    /// overlap: at `t = 0`, or over the whole frame's motion when `swept`.
    fn frame(&mut self, bodies: &[Body], swept: bool) -> Result<Frame, Error> {
        self.library.check_stage_bodies(bodies)?;
        let transforms: Vec<BodyTransform> = bodies.iter().map(body_transform).collect();
        let infos: Vec<BodyInfo> = bodies.iter().map(body_info).collect();
        let mut aabbs = bounds::bounds(&self.library, &transforms, &infos);
        if swept {
            for (aabb, body) in aabbs.iter_mut().zip(bodies) {
                *aabb = bounds::swept_bounds(*aabb, body.velocity.to_array());
            }
        }
        let candidates = all_pairs(&infos, &aabbs, self.max_pairs);
        if candidates.len() as u64 > self.max_pairs {
            return Err(Error::TooManyPairs {
                found: candidates.len() as u64,
                limit: self.max_pairs,
            });
        }
        self.last = FrameStats {
            candidates: Some(candidates.len() as u64),
            stages: None,
            runs: None,
        };
        Ok(Frame {
            transforms,
            infos,
            candidates,
        })
    }

    /// The pairs at `t = 0`, whatever the velocities.
    fn pairs_at_start(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
        let frame = self.frame(bodies, false)?;
        let pairs = narrow::narrow(
            &self.library,
            &frame.transforms,
            &frame.infos,
            &frame.candidates,
        );
        Ok(sorted_pairs(pairs))
    }
}

impl Collider for ReferenceCollider {
    answers_through_parts!();

    fn describe(&self) -> String {
        "cpu reference (all pairs, one thread)".to_string()
    }

    fn set_max_pairs(&mut self, max: u64) {
        self.max_pairs = max;
    }

    fn last_frame(&self) -> FrameStats {
        self.last
    }
}

/// The frames of the stages: bodies whose shapes are the library's packed shapes. Every
/// part is a body of the broad phase here (the caller's bodies, `_parts`, are not
/// looked at): pairs of one body's parts are found, then dropped by [`Expansion`].
impl ReferenceCollider {
    fn stage_pairs(
        &mut self,
        bodies: &[Body],
        _parts: Option<&Expansion>,
    ) -> Result<Vec<Pair>, Error> {
        if any_moving(bodies) {
            let swept = self.stage_swept_pairs(bodies, None)?;
            return Ok(swept.into_iter().map(|s| s.pair).collect());
        }
        self.pairs_at_start(bodies)
    }

    fn stage_contacts(
        &mut self,
        bodies: &[Body],
        _parts: Option<&Expansion>,
    ) -> Result<Vec<Contact>, Error> {
        let frame = self.frame(bodies, false)?;
        let pairs = narrow::narrow(
            &self.library,
            &frame.transforms,
            &frame.infos,
            &frame.candidates,
        );
        let contacts = sorted_pairs(pairs)
            .into_iter()
            .map(|pair| Contact {
                parts: None,
                pair,
                kind: contact::contact(
                    &self.library,
                    &frame.transforms,
                    &frame.infos,
                    pair[0] as usize,
                    pair[1] as usize,
                ),
            })
            .collect();
        Ok(contacts)
    }

    fn stage_query(&mut self, bodies: &[Body], batch: &QueryBatch) -> Result<QueryAnswers, Error> {
        self.library.check_stage_bodies(bodies)?;
        let transforms: Vec<BodyTransform> = bodies.iter().map(body_transform).collect();
        let infos: Vec<BodyInfo> = bodies.iter().map(body_info).collect();
        let aabbs = bounds::bounds(&self.library, &transforms, &infos);
        let frame = query::Bodies {
            library: &self.library,
            transforms: &transforms,
            infos: &infos,
            aabbs: &aabbs,
        };
        // Every query against every body.
        let all = || 0..bodies.len();
        Ok(QueryAnswers {
            rays: batch
                .rays
                .iter()
                .map(|r| frame.first_hit(r, all()))
                .collect(),
            points: batch
                .points
                .iter()
                .map(|q| frame.point_bodies(q, all()))
                .collect(),
            boxes: batch
                .boxes
                .iter()
                .map(|q| frame.box_bodies(q, all()))
                .collect(),
        })
    }

    fn stage_swept_pairs(
        &mut self,
        bodies: &[Body],
        _parts: Option<&Expansion>,
    ) -> Result<Vec<SweptPair>, Error> {
        let frame = self.frame(bodies, true)?;
        let velocities: Vec<glam::Vec2> = bodies.iter().map(|b| b.velocity).collect();
        let mut pairs = Vec::new();
        for &[i, j] in &frame.candidates {
            let toi = sweep::time_of_impact(
                &self.library,
                &frame.transforms,
                &frame.infos,
                &velocities,
                i as usize,
                j as usize,
            );
            if let Some(toi) = toi {
                pairs.push(SweptPair { pair: [i, j], toi });
            }
        }
        pairs.sort_by_key(|s| s.pair);
        Ok(pairs)
    }
}
