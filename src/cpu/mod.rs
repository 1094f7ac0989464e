//! The CPU paths. Each stage module is the twin of the WGSL file of the same name in
//! `shaders/`, with the same functions in the same loop shape, so the two can be read
//! side by side.
//!
//! - [`ReferenceCollider`]: the readable reference (every pair of boxes, one thread),
//!   the oracle of the tests.
//! - [`CpuCollider`]: the cpu backend, the same stages as the GPU (grid broad phase)
//!   run on every core, checked against the reference.

internal_mods!(bounds, broad, contact, narrow, placed, query, sweep);
pub mod reference;

pub use reference::ReferenceCollider;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bytemuck::Zeroable;
use rayon::prelude::*;

use crate::answer::collider::{Collider, FrameStats, Pair, DEFAULT_MAX_PAIRS};
use crate::answer::contact::Contact;
use crate::answer::motion::{any_moving, SweptPair};
use crate::answer::parts::answers_through_parts;
use crate::answer::query::{QueryAnswers, QueryBatch};
use crate::error::{Error, SceneError};
use crate::grid::cell_size::{choose_grid, QueryGridChoice};
use crate::grid::GridParams;
use crate::input::body::Body;
use crate::input::library::ShapeLibrary;
use crate::layout::bodies::{body_info, refresh_transform};
use crate::layout::packed::{Aabb, BodyInfo, BodyTransform};

/// Bodies per parallel task: small enough to balance two to dozens of cores, large
/// enough that scheduling costs nothing next to the work.
const CHUNK: usize = 1024;

/// The cpu backend: the GPU's stages, on all cores.
///
/// ```
/// use gpu_collide::{Body, Circle, Collider, CpuCollider, Shape, ShapeLibrary, glam::Vec2};
/// let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))]).unwrap();
/// let mut collider = CpuCollider::new(library);
/// let bodies = [Body::new(0, Vec2::ZERO), Body::new(0, Vec2::new(1.5, 0.0)), Body::new(0, Vec2::new(9.0, 0.0))];
/// assert_eq!(collider.find_pairs(&bodies).unwrap(), vec![[0, 1]]);
/// ```
#[derive(Debug, Clone)]
pub struct CpuCollider {
    library: ShapeLibrary,
    /// The grid's parameters and the body infos they were chosen for.
    grid_params: Option<(GridParams, Vec<BodyInfo>)>,
    /// The query grid's parameters, for the last batch's kind.
    query_grid: QueryGridChoice,
    last: FrameStats,
    /// Reused from frame to frame, so a frame does not pay for fresh memory.
    scratch: Scratch,
    /// Box-overlapping pairs past which a frame is refused.
    max_pairs: u64,
}

/// The per-frame arrays of [`CpuCollider`].
#[derive(Debug, Clone, Default)]
struct Scratch {
    transforms: Vec<BodyTransform>,
    /// The angles `transforms`' rotations were computed from.
    angles: Vec<f32>,
    infos: Vec<BodyInfo>,
    aabbs: Vec<Aabb>,
    grid: broad::Grid,
    /// The bodies as queries see them: by their layer alone (a query's mask decides), so
    /// every body is in the grid, whatever its own mask.
    query_infos: Vec<BodyInfo>,
    query_grid: broad::Grid,
}

impl CpuCollider {
    /// A collider over this shape library.
    pub fn new(library: ShapeLibrary) -> Self {
        CpuCollider {
            library,
            grid_params: None,
            query_grid: QueryGridChoice::default(),
            last: FrameStats::default(),
            scratch: Scratch::default(),
            max_pairs: DEFAULT_MAX_PAIRS,
        }
    }

    /// The shape library.
    pub fn library(&self) -> &ShapeLibrary {
        &self.library
    }

    /// The grid parameters for these infos, chosen again only when the infos change.
    fn grid_params(&mut self) -> GridParams {
        let (infos, transforms) = (&self.scratch.infos, &self.scratch.transforms);
        match &self.grid_params {
            Some((params, seen)) if seen == infos => *params,
            _ => {
                let params = choose_grid(&self.library, infos, transforms);
                self.grid_params = Some((params, infos.clone()));
                params
            }
        }
    }
}

impl CpuCollider {
    /// Checks the bodies and brings transforms, infos and boxes (grown by each body's
    /// motion when `swept`) up to date. The grid is the caller's: the pairs' grid
    /// ([`Self::grid_params`]) or the queries' (which choosing the pairs' would only
    /// delay when the bodies change).
    fn prepare(&mut self, bodies: &[Body], swept: bool) -> Result<(), Error> {
        let (library, s) = (&self.library, &mut self.scratch);
        // One pass over each chunk of bodies, which checks, turns, describes and bounds
        // them together: as four passes over all the bodies (`check_bodies`,
        // `update_transforms`, then infos and boxes) the cpu backend's bullet-hell 100k
        // frame read every body three more times and woke the threads three more times.
        // Rotations are reused by index as `update_transforms` reuses them; an index new
        // this frame gets a NaN angle, which no checked body has, so it is computed.
        let count = bodies.len();
        let kept = count.min(s.angles.len());
        s.angles.truncate(kept);
        s.angles.resize(count, f32::NAN);
        s.transforms.resize(count, Zeroable::zeroed());
        s.infos.resize(count, Zeroable::zeroed());
        s.aabbs.resize(count, Zeroable::zeroed());
        bodies
            .par_chunks(CHUNK)
            .zip(s.transforms.par_chunks_mut(CHUNK))
            .zip(s.angles.par_chunks_mut(CHUNK))
            .zip(s.infos.par_chunks_mut(CHUNK))
            .zip(s.aabbs.par_chunks_mut(CHUNK))
            .enumerate()
            .map(|(c, ((((bodies, transforms), angles), infos), aabbs))| {
                for (k, body) in bodies.iter().enumerate() {
                    // The first error by index is reported, as `check_bodies` reports it.
                    library.check_body(c * CHUNK + k, body)?;
                    refresh_transform(body, &mut transforms[k], &mut angles[k]);
                    infos[k] = body_info(body);
                    let aabb = bounds::body_bounds(library, &transforms[k], &infos[k]);
                    aabbs[k] = if swept && body.moves() {
                        bounds::swept_bounds(aabb, body.velocity.to_array())
                    } else {
                        aabb
                    };
                }
                Ok::<(), SceneError>(())
            })
            .find_first(Result::is_err)
            .unwrap_or(Ok(()))
            .map_err(Error::from)
    }

    /// Checks the bodies, then bounds, grid and candidate pairs: the pairs whose filters
    /// agree and whose boxes overlap, the boxes covering each body's whole motion when
    /// `swept`. Refuses the frame past the pair limit.
    fn candidates(&mut self, bodies: &[Body], swept: bool) -> Result<Vec<Pair>, Error> {
        self.prepare(bodies, swept)?;
        let params = self.grid_params();
        let s = &mut self.scratch;
        s.grid.rebuild(&params, &s.infos, &s.aabbs);
        let (grid, aabbs) = (&s.grid, &s.aabbs);
        let (limit, found, refused) = (self.max_pairs, AtomicU64::new(0), AtomicBool::new(false));
        let visit = |out: Vec<Pair>, i: usize| {
            let mut out = out;
            if !refused.load(Ordering::Relaxed)
                && !grid.candidates_of(&params, i, aabbs, limit, &found, &mut out)
            {
                refused.store(true, Ordering::Relaxed);
            }
            out
        };
        // Only the bodies that may search are visited: in a bullet-hell frame the 1% that
        // seek (each reading many cells, so shared out in small runs), not the bullets.
        let candidates: Vec<Pair> = match grid.listed_seekers() {
            Some(seekers) => seekers
                .par_iter()
                .with_min_len(16)
                .fold(Vec::new, |out, &i| visit(out, i as usize))
                .flatten_iter()
                .collect(),
            None => (0..bodies.len())
                .into_par_iter()
                .with_min_len(CHUNK)
                .fold(Vec::new, visit)
                .flatten_iter()
                .collect(),
        };
        if refused.into_inner() {
            return Err(Error::TooManyPairs {
                found: found.into_inner(),
                limit,
            });
        }
        self.last = FrameStats {
            candidates: Some(candidates.len() as u64),
            stages: None,
            runs: None,
        };
        Ok(candidates)
    }

    /// The pairs at `t = 0`, whatever the velocities.
    fn pairs_at_start(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
        let candidates = self.candidates(bodies, false)?;
        let (library, s) = (&self.library, &self.scratch);
        let (infos, transforms) = (&s.infos, &s.transforms);
        let mut pairs: Vec<Pair> = candidates
            .par_iter()
            .with_min_len(CHUNK)
            .copied()
            .filter(|&[i, j]| {
                narrow::bodies_collide(library, transforms, infos, i as usize, j as usize)
            })
            .collect();
        crate::answer::pair_sort::sort_pairs(&mut pairs);
        Ok(pairs)
    }
}

impl Collider for CpuCollider {
    fn reserve(&mut self, bodies: usize) -> Result<(), Error> {
        let s = &mut self.scratch;
        let refused = |e: std::collections::TryReserveError| Error::Backend {
            backend: "cpu",
            message: format!("cannot make room for {bodies} bodies: {e}"),
        };
        // Each array is cleared and refilled every frame, so room made now stays.
        s.transforms.try_reserve(bodies).map_err(refused)?;
        s.angles.try_reserve(bodies).map_err(refused)?;
        s.infos.try_reserve(bodies).map_err(refused)?;
        s.aabbs.try_reserve(bodies).map_err(refused)?;
        Ok(())
    }

    answers_through_parts!();

    fn describe(&self) -> String {
        format!("cpu ({} threads)", rayon::current_num_threads())
    }

    fn set_max_pairs(&mut self, max: u64) {
        self.max_pairs = max;
    }

    fn last_frame(&self) -> FrameStats {
        self.last
    }
}

/// The frames of the stages: bodies whose shapes are the library's packed shapes.
impl CpuCollider {
    fn stage_pairs(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
        if any_moving(bodies) {
            let swept = self.stage_swept_pairs(bodies)?;
            return Ok(swept.into_iter().map(|s| s.pair).collect());
        }
        self.pairs_at_start(bodies)
    }

    fn stage_contacts(&mut self, bodies: &[Body]) -> Result<Vec<Contact>, Error> {
        let pairs = self.pairs_at_start(bodies)?;
        let (library, s) = (&self.library, &self.scratch);
        let (infos, transforms) = (&s.infos, &s.transforms);
        Ok(pairs
            .par_iter()
            .with_min_len(CHUNK)
            .map(|&pair| Contact {
                parts: None,
                pair,
                kind: contact::contact(
                    library,
                    transforms,
                    infos,
                    pair[0] as usize,
                    pair[1] as usize,
                ),
            })
            .collect())
    }

    fn stage_query(&mut self, bodies: &[Body], batch: &QueryBatch) -> Result<QueryAnswers, Error> {
        self.prepare(bodies, false)?;
        let s = &mut self.scratch;
        s.query_infos.clear();
        s.query_infos.extend(s.infos.iter().map(|info| BodyInfo {
            mask: u32::MAX,
            ..*info
        }));
        // Every body is in the query grid and none waits: a query has its own mask. Its
        // cells are sized for the queries (`choose_query_grid`), not the pairs.
        let params = self
            .query_grid
            .params(&self.library, &s.query_infos, &s.transforms, batch);
        s.query_grid.rebuild(&params, &s.query_infos, &s.aabbs);
        let s = &self.scratch;
        let (grid, params) = (&s.query_grid, &params);
        let frame = query::Bodies {
            library: &self.library,
            transforms: &s.transforms,
            infos: &s.infos,
            aabbs: &s.aabbs,
        };
        let near = |mask: u32, min: glam::Vec2, max: glam::Vec2| {
            let mut found = Vec::new();
            query::grid_candidates(grid, params, query::Reach::of_box(mask, min, max), |k| {
                found.push(k);
                1.0
            });
            found
        };
        // A ray is tested as its walk meets bodies, which stops past its nearest hit.
        let rays = batch
            .rays
            .par_iter()
            .map(|ray| {
                let mut best = None;
                query::grid_candidates(grid, params, query::Reach::of_ray(ray), |k| {
                    frame.nearer_hit(ray, k, &mut best)
                });
                best
            })
            .collect();
        let points = batch
            .points
            .par_iter()
            .map(|q| frame.point_bodies(q, near(q.mask, q.point, q.point).into_iter()))
            .collect();
        let boxes = batch
            .boxes
            .par_iter()
            .map(|q| frame.box_bodies(q, near(q.mask, q.min, q.max).into_iter()))
            .collect();
        Ok(QueryAnswers {
            rays,
            points,
            boxes,
        })
    }

    fn stage_swept_pairs(&mut self, bodies: &[Body]) -> Result<Vec<SweptPair>, Error> {
        let candidates = self.candidates(bodies, true)?;
        let (library, s) = (&self.library, &self.scratch);
        let (infos, transforms) = (&s.infos, &s.transforms);
        let velocities: Vec<glam::Vec2> = bodies.iter().map(|b| b.velocity).collect();
        let mut pairs: Vec<SweptPair> = candidates
            .par_iter()
            .with_min_len(CHUNK)
            .filter_map(|&[i, j]| {
                let (i, j) = (i as usize, j as usize);
                sweep::time_of_impact(library, transforms, infos, &velocities, i, j).map(|toi| {
                    SweptPair {
                        pair: [i as u32, j as u32],
                        toi,
                    }
                })
            })
            .collect();
        pairs.par_sort_unstable_by_key(|s| s.pair);
        Ok(pairs)
    }
}
