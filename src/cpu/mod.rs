//! The CPU paths. Each stage module is the twin of the WGSL file of the same name in
//! `shaders/`, with the same functions in the same loop shape, so the two can be read
//! side by side.
//!
//! - [`ReferenceCollider`]: the readable reference (every pair of boxes, one thread),
//!   the oracle of the tests.
//! - [`CpuCollider`]: the cpu backend, the same stages as the GPU (grid broad phase)
//!   run on every core, checked against the reference.

internal_mods!(bounds, broad, contact, narrow, placed, query, stretches, sweep);
pub mod reference;

pub use reference::ReferenceCollider;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bytemuck::Zeroable;
use rayon::prelude::*;

use crate::answer::collider::{Collider, FrameStats, Pair, DEFAULT_MAX_PAIRS};
use crate::answer::contact::Contact;
use crate::answer::motion::{any_moving, SweptPair};
use crate::answer::parts::{answers_through_parts, Expansion};
use crate::answer::query::{QueryAnswers, QueryBatch};
use crate::cpu::stretches::split_at_starts;
use crate::error::{Error, SceneError};
use crate::grid::cell_size::{choose_grid, choose_grid_of_boxes, QueryGridChoice};
use crate::grid::GridParams;
use crate::input::body::Body;
use crate::input::library::{Outline, ShapeLibrary};
use crate::layout::bodies::{body_info, refresh_transform};
use crate::layout::packed::{Aabb, BodyInfo, BodyTransform};

/// Bodies per parallel task: small enough to balance two to dozens of cores, large
/// enough that scheduling costs nothing next to the work.
const CHUNK: usize = 1024;

/// The caller's bodies per parallel task when they have parts: a concave 10^4 frame
/// has about seven parts a body, so a task has about [`CHUNK`] parts.
const OWNERS_PER_RUN: usize = CHUNK / 8;

/// The candidate pairs of the bodies in `grid`, boxed by `aabbs`: each body that may
/// search visits its cells. Refuses the frame past `limit` pairs.
fn search(
    grid: &broad::Grid,
    params: &GridParams,
    aabbs: &[Aabb],
    limit: u64,
) -> Result<Vec<Pair>, Error> {
    let (found, refused) = (AtomicU64::new(0), AtomicBool::new(false));
    let visit = |out: Vec<Pair>, i: usize| {
        let mut out = out;
        if !refused.load(Ordering::Relaxed)
            && !grid.candidates_of(params, i, aabbs, limit, &found, &mut out)
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
        None => (0..aabbs.len())
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
    // The tally may be short of the lists by less than a step each.
    if candidates.len() as u64 > limit {
        return Err(Error::TooManyPairs {
            found: candidates.len() as u64,
            limit,
        });
    }
    Ok(candidates)
}

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
    /// The same for the grid of the caller's bodies, when their shapes have parts.
    owner_grid_params: Option<(GridParams, Vec<BodyInfo>)>,
    /// The query grid's parameters, for the last batch's kind.
    query_grid: QueryGridChoice,
    last: FrameStats,
    /// Reused from frame to frame, so a frame does not pay for fresh memory.
    scratch: Scratch,
    /// Box-overlapping pairs past which a frame is refused.
    max_pairs: u64,
    /// The parts of the last frame's bodies, its memory reused.
    expansion: Expansion,
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
    /// The caller's bodies when their shapes have parts: each one's filter (and shape,
    /// which keys the grid's parameters), its box around its parts' boxes, and its grid.
    owner_infos: Vec<BodyInfo>,
    owner_aabbs: Vec<Aabb>,
    owner_grid: broad::Grid,
}

impl CpuCollider {
    /// A collider over this shape library.
    pub fn new(library: ShapeLibrary) -> Self {
        CpuCollider {
            library,
            grid_params: None,
            owner_grid_params: None,
            query_grid: QueryGridChoice::default(),
            last: FrameStats::default(),
            scratch: Scratch::default(),
            max_pairs: DEFAULT_MAX_PAIRS,
            expansion: Expansion::default(),
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
    ///
    /// With `parts`, `bodies` are the parts it placed (and checked), and the caller's
    /// bodies are described and boxed too, for their grid ([`Self::candidates`]): the
    /// caller's boxes grown by the motion when `swept`, the parts' boxes never.
    fn prepare(
        &mut self,
        bodies: &[Body],
        swept: bool,
        parts: Option<&Expansion>,
    ) -> Result<(), Error> {
        let (library, s) = (&self.library, &mut self.scratch);
        // One pass over each run of bodies, which checks, turns, describes and bounds
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
        let Some(parts) = parts else {
            return bodies
                .par_chunks(CHUNK)
                .zip(s.transforms.par_chunks_mut(CHUNK))
                .zip(s.angles.par_chunks_mut(CHUNK))
                .zip(s.infos.par_chunks_mut(CHUNK))
                .zip(s.aabbs.par_chunks_mut(CHUNK))
                .enumerate()
                .map(|(c, ((((bodies, transforms), angles), infos), aabbs))| {
                    let mut run = Run {
                        transforms,
                        angles,
                        infos,
                        aabbs,
                    };
                    for (k, body) in bodies.iter().enumerate() {
                        // The first error by index is reported, as `check_bodies` does.
                        library.check_body(c * CHUNK + k, body)?;
                        run.refresh(library, k, body, swept);
                    }
                    Ok::<(), SceneError>(())
                })
                .find_first(Result::is_err)
                .unwrap_or(Ok(()))
                .map_err(Error::from);
        };
        // Runs of whole caller's bodies, so that each body's box is joined from its
        // parts' boxes as they are made, not in a pass of its own over them.
        let owners = parts.owners();
        s.owner_infos.resize(owners, Zeroable::zeroed());
        s.owner_aabbs.resize(owners, Zeroable::zeroed());
        let firsts: Vec<(usize, usize)> = (0..owners)
            .step_by(OWNERS_PER_RUN)
            .map(|owner| (owner, parts.first_part(owner)))
            .collect();
        let owner_starts = || firsts.iter().map(|&(owner, _)| owner);
        let part_starts = || firsts.iter().map(|&(_, part)| part);
        let runs: Vec<_> = split_at_starts(&mut s.transforms, part_starts())
            .into_iter()
            .zip(split_at_starts(&mut s.angles, part_starts()))
            .zip(split_at_starts(&mut s.infos, part_starts()))
            .zip(split_at_starts(&mut s.aabbs, part_starts()))
            .zip(split_at_starts(&mut s.owner_infos, owner_starts()))
            .zip(split_at_starts(&mut s.owner_aabbs, owner_starts()))
            .collect();
        runs.into_par_iter().enumerate().for_each(
            |(r, (((((transforms, angles), infos), aabbs), owner_infos), owner_aabbs))| {
                let mut run = Run {
                    transforms,
                    angles,
                    infos,
                    aabbs,
                };
                let first_owner = r * OWNERS_PER_RUN;
                let first_part = parts.first_part(first_owner);
                let outlines = library.parts.as_ref().map(|p| p.outlines.as_slice());
                let mut turned = Vec::new();
                for (o, (info, aabb)) in owner_infos.iter_mut().zip(owner_aabbs).enumerate() {
                    let own = parts.parts_of(first_owner + o);
                    // Empty when the parts' boxes are, and then in no cell.
                    let mut joined = Aabb {
                        min: [f32::INFINITY; 2],
                        max: [f32::NEG_INFINITY; 2],
                    };
                    let outline = outlines
                        .and_then(|list| list[parts.shape_of(first_owner + o) as usize].as_ref());
                    match outline {
                        Some(outline) => run.refresh_pieces(
                            library,
                            own.start - first_part..own.end - first_part,
                            &bodies[own.clone()],
                            outline,
                            &mut turned,
                        ),
                        None => {
                            for p in own.clone() {
                                run.refresh(library, p - first_part, &bodies[p], false);
                            }
                        }
                    }
                    // Each part keeps its box at `t = 0`, for the times at which two
                    // parts' boxes meet (`earliest_part_impact`); the body's box covers
                    // its parts' motion, for the grid.
                    for p in own.clone() {
                        let (aabb, body) = (run.aabbs[p - first_part], &bodies[p]);
                        joined = joined.join(&if swept && body.moves() {
                            bounds::swept_bounds(aabb, body.velocity.to_array())
                        } else {
                            aabb
                        });
                    }
                    // The filter of the first part (every part has its body's) and the
                    // body's own shape, which keys the grid's parameters.
                    *info = BodyInfo {
                        shape: parts.shape_of(first_owner + o),
                        ..run.infos[own.start - first_part]
                    };
                    *aabb = joined;
                }
            },
        );
        Ok(())
    }

    /// Checks the bodies, then bounds, grid and candidate pairs: the pairs whose filters
    /// agree and whose boxes overlap, the boxes covering each body's whole motion when
    /// `swept`. Refuses the frame past the pair limit.
    ///
    /// With `parts`, `bodies` are the parts of the caller's bodies, and the grid holds
    /// the caller's bodies instead, each boxed around its parts, so the candidates are
    /// pairs of the caller's bodies ([`part_pairs`] cuts each into pairs of parts): a
    /// concave outline's pieces all meet near its centre, and as bodies of the grid every
    /// pair of them was a candidate (334,060 candidates where the outlines' hulls made
    /// 9,434 on the concave 10^4 scene).
    fn candidates(
        &mut self,
        bodies: &[Body],
        swept: bool,
        parts: Option<&Expansion>,
    ) -> Result<Vec<Pair>, Error> {
        self.prepare(bodies, swept, parts)?;
        if parts.is_none() {
            let params = self.grid_params();
            let s = &mut self.scratch;
            s.grid.rebuild(&params, &s.infos, &s.aabbs);
            let candidates = search(&s.grid, &params, &s.aabbs, self.max_pairs)?;
            self.note_candidates(candidates.len());
            return Ok(candidates);
        }
        let s = &mut self.scratch;
        let params = match &self.owner_grid_params {
            Some((params, seen)) if *seen == s.owner_infos => *params,
            _ => {
                let params = choose_grid_of_boxes(&s.owner_infos, &s.owner_aabbs);
                self.owner_grid_params = Some((params, s.owner_infos.clone()));
                params
            }
        };
        s.owner_grid
            .rebuild(&params, &s.owner_infos, &s.owner_aabbs);
        let candidates = search(&s.owner_grid, &params, &s.owner_aabbs, self.max_pairs)?;
        self.note_candidates(candidates.len());
        Ok(candidates)
    }

    fn note_candidates(&mut self, count: usize) {
        self.last = FrameStats {
            candidates: Some(count as u64),
            stages: None,
            runs: None,
        };
    }

    /// The pairs at `t = 0`, whatever the velocities. With `parts`, the pairs of parts:
    /// for each pair of the caller's bodies the first pair of parts found to collide, or
    /// with `every_part` all of them.
    fn pairs_at_start(
        &mut self,
        bodies: &[Body],
        parts: Option<&Expansion>,
        every_part: bool,
    ) -> Result<Vec<Pair>, Error> {
        let candidates = self.candidates(bodies, false, parts)?;
        let (library, s) = (&self.library, &self.scratch);
        let (infos, transforms) = (&s.infos, &s.transforms);
        let collide = |&[i, j]: &Pair| {
            narrow::bodies_collide(library, transforms, infos, i as usize, j as usize)
        };
        let mut pairs: Vec<Pair> = match parts {
            None => candidates
                .par_iter()
                .with_min_len(CHUNK)
                .copied()
                .filter(collide)
                .collect(),
            Some(parts) => {
                let cut = |&owners: &Pair| part_pairs(parts, &s.aabbs, &s.owner_aabbs, owners);
                let pairs = candidates.par_iter().with_min_len(CHUNK / 8);
                if every_part {
                    pairs.flat_map_iter(|o| cut(o).filter(collide)).collect()
                } else {
                    pairs.filter_map(|o| cut(o).find(collide)).collect()
                }
            }
        };
        // Pairs of parts are sorted as pairs of the caller's bodies when brought back.
        if parts.is_none() {
            crate::answer::pair_sort::sort_pairs(&mut pairs);
        }
        Ok(pairs)
    }
}

/// A run of the bodies of the stages: their transforms, the angles those were turned
/// by, their infos and their boxes.
struct Run<'a> {
    transforms: &'a mut [BodyTransform],
    angles: &'a mut [f32],
    infos: &'a mut [BodyInfo],
    aabbs: &'a mut [Aabb],
}

impl Run<'_> {
    /// Brings the run's body `k` up to date from `body`: its box grown by its motion
    /// when `swept`.
    #[inline]
    fn refresh(&mut self, library: &ShapeLibrary, k: usize, body: &Body, swept: bool) {
        self.turn(k, body);
        let aabb = bounds::body_bounds(library, &self.transforms[k], &self.infos[k]);
        self.aabbs[k] = if swept && body.moves() {
            bounds::swept_bounds(aabb, body.velocity.to_array())
        } else {
            aabb
        };
    }

    /// Brings the run's body `k`'s transform and info up to date from `body`.
    #[inline]
    fn turn(&mut self, k: usize, body: &Body) {
        // The parts of a concave body share its turn: each after the first takes the
        // rotation just computed rather than its own sine and cosine.
        if k > 0 && self.angles[k - 1].to_bits() == body.angle.to_bits() {
            self.transforms[k] = BodyTransform {
                position: body.position.to_array(),
                rotation: self.transforms[k - 1].rotation,
            };
            self.angles[k] = body.angle;
        } else {
            refresh_transform(body, &mut self.transforms[k], &mut self.angles[k]);
        }
        self.infos[k] = body_info(body);
    }

    /// Brings the run's bodies `ks`, the pieces `bodies` of one concave body, up to date,
    /// boxed at `t = 0` from its outline turned once into `turned`: the boxes
    /// [`bounds::body_bounds`] gives, for about half the turns.
    fn refresh_pieces(
        &mut self,
        library: &ShapeLibrary,
        ks: std::ops::Range<usize>,
        bodies: &[Body],
        outline: &Outline,
        turned: &mut Vec<glam::Vec2>,
    ) {
        // The pieces are the body itself with other shapes (`place_checked_parts`).
        let first = ks.start;
        self.turn(first, &bodies[0]);
        for (k, body) in ks.clone().zip(bodies).skip(1) {
            self.transforms[k] = self.transforms[first];
            self.angles[k] = self.angles[first];
            self.infos[k] = BodyInfo {
                shape: body.shape,
                ..self.infos[first]
            };
        }
        let pieces = self.infos[ks.clone()].iter().map(|info| info.shape);
        let boxes = bounds::outline_piece_bounds(
            library,
            outline,
            pieces,
            &self.transforms[ks.start],
            turned,
        );
        for (aabb, piece) in self.aabbs[ks].iter_mut().zip(boxes) {
            *aabb = piece;
        }
    }
}

/// The pairs of parts of the caller's bodies `[a, b]` whose boxes overlap, each part of
/// `a` first: only the parts of `a` that reach `b`'s box are paired.
fn part_pairs<'a>(
    parts: &'a Expansion,
    aabbs: &'a [Aabb],
    owner_aabbs: &'a [Aabb],
    [a, b]: Pair,
) -> impl Iterator<Item = Pair> + 'a {
    let theirs = parts.parts_of(b as usize);
    parts
        .parts_of(a as usize)
        .filter(move |&p| aabbs[p].overlaps(&owner_aabbs[b as usize]))
        .flat_map(move |p| {
            theirs
                .clone()
                .filter(move |&q| aabbs[p].overlaps(&aabbs[q]))
                .map(move |q| [p as u32, q as u32])
        })
}

/// Half the band within which a pair may go either way: how far the boxes of
/// [`boxes_meet`] are grown, so that the f32 rounding of a box and of the shape in it
/// never decides a pair.
const BOX_MARGIN: f64 = 0.005;

/// The first `t` in `[0, 1]` at which box `a`, standing still, and box `b`, moved by
/// `t·w`, overlap, each grown by [`BOX_MARGIN`]; `None` when they do not within the
/// frame. In f64, where the f32 boxes and motion subtract and divide with no rounding
/// that matters, up to the largest displacement.
fn boxes_meet(a: &Aabb, b: &Aabb, w: glam::Vec2) -> Option<f64> {
    boxes_meet_grown(a, b, w.as_dvec2(), BOX_MARGIN)
}

/// [`boxes_meet`], each box grown by `grow`; with `grow` 0 and the exact relative
/// motion, the exact answer that the GPU's f32 test (`frame_boxes_meet`) is held to.
pub(crate) fn boxes_meet_grown(a: &Aabb, b: &Aabb, w: glam::DVec2, grow: f64) -> Option<f64> {
    let (mut enter, mut exit) = (0.0f64, 1.0f64);
    for axis in 0..2 {
        // `b` moved by `d` overlaps `a` along this axis when `low <= d <= high`.
        let low = a.min[axis] as f64 - b.max[axis] as f64 - 2.0 * grow;
        let high = a.max[axis] as f64 - b.min[axis] as f64 + 2.0 * grow;
        let speed = w[axis];
        if speed == 0.0 {
            if low > 0.0 || high < 0.0 {
                return None;
            }
        } else {
            let (first, last) = if speed > 0.0 {
                (low / speed, high / speed)
            } else {
                (high / speed, low / speed)
            };
            enter = enter.max(first);
            exit = exit.min(last);
        }
    }
    (enter <= exit).then_some(enter)
}

/// The earliest impact of the parts of the caller's bodies `[a, b]`, as the pair of
/// parts that makes it, or `None` when no parts meet in the frame. `aabbs` are the
/// parts' boxes at `t = 0`, `owner_aabbs` the bodies' boxes over the frame.
///
/// Every part moves with its body, so two parts' shapes meet no sooner than their boxes
/// do: a pair of parts whose boxes never overlap at one time in the frame is not tried,
/// nor one whose boxes meet after the earliest impact found so far, and an impact at the
/// start ends the search, as nothing is earlier. Compound ships of up to 64 parts tried
/// some 300 pairs of parts for each pair of ships when every pair whose boxes over the
/// whole frame overlapped was tried. Sorting the pairs by when their boxes meet found
/// the earliest sooner but cost more than it saved, and memory besides.
fn earliest_part_impact(
    parts: &Expansion,
    bodies: &[Body],
    aabbs: &[Aabb],
    owner_aabbs: &[Aabb],
    [a, b]: Pair,
    impact: impl Fn(&Pair) -> Option<SweptPair>,
) -> Option<SweptPair> {
    let (mine, theirs) = (parts.parts_of(a as usize), parts.parts_of(b as usize));
    let (first_mine, first_theirs) = (bodies.get(mine.start)?, bodies.get(theirs.start)?);
    let w = first_theirs.velocity - first_mine.velocity;
    // Each part's box over the frame, for the parts that reach the other body's: the
    // cheap test first, as for the pairs at the start.
    let reaching = |own: std::ops::Range<usize>, other: &Aabb| -> Vec<(usize, Aabb)> {
        own.map(|p| {
            (
                p,
                bounds::swept_bounds(aabbs[p], bodies[p].velocity.to_array()),
            )
        })
        .filter(|(_, swept)| swept.overlaps(other))
        .collect()
    };
    let theirs = reaching(theirs, &owner_aabbs[a as usize]);
    let mut earliest: Option<SweptPair> = None;
    for (p, swept) in reaching(mine, &owner_aabbs[b as usize]) {
        for &(q, _) in theirs.iter().filter(|(_, other)| swept.overlaps(other)) {
            let Some(meet) = boxes_meet(&aabbs[p], &aabbs[q], w) else {
                continue;
            };
            if earliest.is_some_and(|e| meet > e.toi as f64) {
                continue;
            }
            if let Some(found) = impact(&[p as u32, q as u32]) {
                if earliest.is_none_or(|e| found.toi < e.toi) {
                    earliest = Some(found);
                }
                if found.toi <= 0.0 {
                    return earliest;
                }
            }
        }
    }
    earliest
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

/// The frames of the stages: bodies whose shapes are the library's packed shapes; with
/// `parts`, the parts of the caller's bodies, found through a grid of those bodies
/// ([`CpuCollider::candidates`]).
impl CpuCollider {
    fn stage_pairs(
        &mut self,
        bodies: &[Body],
        parts: Option<&Expansion>,
    ) -> Result<Vec<Pair>, Error> {
        if any_moving(bodies) {
            let swept = self.stage_swept_pairs(bodies, parts)?;
            return Ok(swept.into_iter().map(|s| s.pair).collect());
        }
        self.pairs_at_start(bodies, parts, false)
    }

    fn stage_contacts(
        &mut self,
        bodies: &[Body],
        parts: Option<&Expansion>,
    ) -> Result<Vec<Contact>, Error> {
        let pairs = self.pairs_at_start(bodies, parts, true)?;
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
        self.prepare(bodies, false, None)?;
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

    fn stage_swept_pairs(
        &mut self,
        bodies: &[Body],
        parts: Option<&Expansion>,
    ) -> Result<Vec<SweptPair>, Error> {
        let candidates = self.candidates(bodies, true, parts)?;
        let (library, s) = (&self.library, &self.scratch);
        let (infos, transforms) = (&s.infos, &s.transforms);
        let velocities: Vec<glam::Vec2> = bodies.iter().map(|b| b.velocity).collect();
        let impact = |&[i, j]: &Pair| {
            let (p, q) = (i as usize, j as usize);
            sweep::time_of_impact(library, transforms, infos, &velocities, p, q)
                .map(|toi| SweptPair { pair: [i, j], toi })
        };
        let mut pairs: Vec<SweptPair> = match parts {
            None => candidates
                .par_iter()
                .with_min_len(CHUNK)
                .filter_map(impact)
                .collect(),
            // The pair of bodies is at the earliest of its parts' times.
            Some(parts) => candidates
                .par_iter()
                .with_min_len(CHUNK / 8)
                .filter_map(|&owners| {
                    earliest_part_impact(parts, bodies, &s.aabbs, &s.owner_aabbs, owners, impact)
                })
                .collect(),
        };
        pairs.par_sort_unstable_by_key(|s| s.pair);
        Ok(pairs)
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;

    fn unit_box(x: f32, y: f32) -> Aabb {
        Aabb {
            min: [x, y],
            max: [x + 1.0, y + 1.0],
        }
    }

    /// Hand-worked times: a box sliding into another meets it where the gap, less both
    /// margins, is crossed; one sliding away, or past a corner, never does.
    #[test]
    fn boxes_meet_when_their_gap_closes_within_the_frame() {
        let a = unit_box(0.0, 0.0);
        let close = |t: Option<f64>, expected: f64| {
            let t = t.expect("the boxes meet");
            assert!((t - expected).abs() < 1e-12, "{t} against {expected}");
        };
        // A gap of 2 closed at 4 a frame, less 0.01 of margins.
        close(
            boxes_meet(&a, &unit_box(3.0, 0.0), Vec2::new(-4.0, 0.0)),
            1.99 / 4.0,
        );
        assert_eq!(
            boxes_meet(&a, &unit_box(3.0, 0.0), Vec2::new(4.0, 0.0)),
            None
        );
        // Too far for one frame: the gap of 2 needs t = 0.5025 at a speed of 3.98.
        assert_eq!(
            boxes_meet(&a, &unit_box(3.0, 0.0), Vec2::new(-1.98, 0.0)),
            None
        );
        // Overlapping at the start, whatever the motion.
        close(
            boxes_meet(&a, &unit_box(0.5, 0.5), Vec2::new(100.0, -7.0)),
            0.0,
        );
        // Still: within the margins they meet at once, past them never.
        close(boxes_meet(&a, &unit_box(1.009, 0.0), Vec2::ZERO), 0.0);
        assert_eq!(boxes_meet(&a, &unit_box(1.02, 0.0), Vec2::ZERO), None);
        // Past a corner: along x they overlap for t in [1/2, 1], along y only until
        // 3/8, so never both, though the box over the whole motion covers `a`.
        let b = unit_box(-3.0, 0.5);
        let w = Vec2::new(4.0, -4.0);
        assert!(bounds::swept_bounds(b, w.to_array()).overlaps(&a));
        assert_eq!(boxes_meet(&a, &b, w), None);
        // Across the corner: x from 1/2, y until 5/8 (plus margins).
        close(boxes_meet(&a, &unit_box(-3.0, 1.0), w), (2.0 - 0.01) / 4.0);
    }

    /// At the largest displacement the times stay right: a box 1e18 away closing at
    /// 2e18 a frame meets at one half.
    #[test]
    fn boxes_meet_at_the_largest_displacement() {
        let a = unit_box(0.0, 0.0);
        let t = boxes_meet(&a, &unit_box(1e18, 0.0), Vec2::new(-2e18, 0.0)).expect("meet");
        assert!((t - 0.5).abs() < 1e-9, "{t}");
    }
}
