//! [`GpuCollider`]: a frame as the caller asks for it, run on a [`FramePipeline`], which
//! owns the buffers and kernels of one shape library and offers the operations a frame
//! is made of (upload, grow, record or submit a run, read back what it found).
//!
//! Nothing is ever dropped: every append counts past its buffer's end, and when a
//! count exceeds the capacity the buffers grow (to the next power of two) and the
//! frame runs again. When the candidates would not fit one storage binding, the frame
//! runs in slices of bodies (each pair is found by exactly one body, in exactly one slice) and
//! the slices' pairs are joined. Past the collider's pair limit the frame is refused
//! with [`Error::TooManyPairs`], before memory grows without bound.
//!
//! The collider's methods for the other kinds of frame (contacts, swept pairs, queries,
//! frames that do not wait, frames recorded into the caller's encoder) are in the
//! modules below, one per kind; the state and GPU side of each kind is in the `gpu`
//! module of the same name, which the collider imports and which imports nothing of it.

use std::mem::size_of;
use std::time::Instant;

mod contact;
mod pending;
mod query;
mod record;
mod sweep;

use super::bins;
use super::buffers::{binding_limit, grown, Capacity};
use super::contact::GpuContact;
use super::pending::Frames;
use super::pipeline::{checked_body_count, frame_lists, FrameList, FramePipeline, CANDIDATES};
use super::record::Recordings;
use super::GpuContext;
use crate::answer::collider::{
    sorted_pairs, Collider, FrameStats, Pair, StageTimes, DEFAULT_MAX_PAIRS,
};
use crate::answer::contact::Contact;
use crate::answer::motion::SweptPair;
use crate::answer::parts::{answers_through_parts, Expansion};
use crate::answer::query::{QueryAnswers, QueryBatch};
use crate::error::Error;
use crate::input::body::Body;
use crate::input::library::ShapeLibrary;
#[cfg(feature = "internals")]
use crate::layout::shaders::{GridBinding, LibraryBinding};

/// Finds colliding pairs with the WGSL pipeline.
///
/// ```no_run
/// use gpu_collide::{Body, Circle, Collider, GpuCollider, GpuContext, Shape, ShapeLibrary, glam::Vec2};
/// let gpu = GpuContext::new()?;
/// let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))])?;
/// let mut collider = GpuCollider::new(&gpu, library)?;
/// let bodies = [Body::new(0, Vec2::ZERO), Body::new(0, Vec2::new(1.5, 0.0))];
/// assert_eq!(collider.find_pairs(&bodies)?, vec![[0, 1]]);
/// # Ok::<(), gpu_collide::Error>(())
/// ```
#[derive(Debug)]
pub struct GpuCollider {
    /// The buffers, kernels and uploads the frames run on.
    pipeline: FramePipeline,
    /// Whether the caller asked for stage times (off by default: timestamps cost a
    /// frame on lavapipe 0.3-0.8 ms).
    time_stages: bool,
    last: FrameStats,
    /// Box-overlapping pairs past which a frame is refused.
    max_pairs: u64,
    /// Frames submitted and not yet collected (`super::pending`).
    frames: Frames,
    /// Frames recorded into the caller's encoders (`super::record`).
    recordings: Recordings,
    /// Set while a contact frame runs, so that each run records the contact pass
    /// (`super::contact`).
    contacts: bool,
    /// The most queries a slice of a batch holds (`GpuCollider::set_query_slice`).
    query_slice: Option<std::num::NonZeroU32>,
    /// The parts of the last frame's bodies, its memory reused.
    expansion: Expansion,
}

impl GpuCollider {
    /// Compiles the pipelines and uploads the shape library, once.
    pub fn new(context: &GpuContext, library: ShapeLibrary) -> Result<Self, Error> {
        Ok(GpuCollider {
            pipeline: FramePipeline::new(context, library)?,
            time_stages: false,
            last: FrameStats::default(),
            max_pairs: DEFAULT_MAX_PAIRS,
            frames: Frames::default(),
            recordings: Recordings::default(),
            contacts: false,
            expansion: Expansion::default(),
            query_slice: None,
        })
    }

    /// The shape library.
    pub fn library(&self) -> &ShapeLibrary {
        self.pipeline.library()
    }

    /// How this collider's kernels read its shape library: from a uniform buffer on a
    /// software adapter where the library fits in one, from a storage buffer otherwise
    /// ([`LibraryBinding`] says why). For the tests of both forms.
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn library_binding(&self) -> LibraryBinding {
        self.pipeline.library_binding()
    }

    /// How the next frame's broad phase reads the grid it walks: from uniform copies on
    /// a software adapter while the collider has room for at most
    /// [`GridBinding::UNIFORM_ENTRIES`] bodies and the last frame had at least
    /// [`BIN_FROM_CANDIDATES`](crate::layout::packed::BIN_FROM_CANDIDATES) candidates, from the
    /// grid's storage buffers otherwise ([`GridBinding`] says why). A frame with fewer
    /// candidates walks too little to pay for the copies (measured on lavapipe: the broad
    /// stage of bullet-hell 10k, 60 candidates, took 0.03 ms longer with them). For the
    /// tests of both forms.
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn grid_binding(&self) -> GridBinding {
        self.pipeline.grid_binding()
    }

    /// The device this collider runs on.
    pub fn context(&self) -> &GpuContext {
        self.pipeline.context()
    }

    /// Keeps what a frame did, for [`Collider::last_frame`] and the next frame's choices.
    pub(crate) fn keep_stats(&mut self, stats: FrameStats) {
        self.pipeline.note_candidates(stats.candidates);
        self.last = stats;
    }

    /// Keeps a recorded frame's candidate count, by which the next frame chooses
    /// whether to bin the candidates.
    pub(crate) fn note_candidates(&mut self, candidates: u64) {
        self.keep_stats(FrameStats {
            candidates: Some(candidates),
            stages: None,
            runs: Some(1),
        });
    }

    /// Runs two frames of a few made-up bodies, one where most wait to be found and one
    /// where none do, then forgets them: the next frame uploads its own bodies and
    /// chooses its own grid, as the first one would. Why: llvmpipe pays something the
    /// first time each kernel runs on real work that dispatching it over no work (as
    /// `reserve` does) does not pay, about 1.8 ms in the bounds stage of a 200k-body
    /// frame; a frame of 1000 of the same bodies first took that away, and only for the
    /// bounds kernel of its own kind (bodies waiting or not). Measured:
    /// BENCHMARKS.md, "The first frame".
    fn warm_up_frames(&mut self) -> Result<(), Error> {
        if self.library().is_empty() {
            return Ok(());
        }
        // 12 candidates at most: within the default limit, whatever the caller set.
        let max_pairs = std::mem::replace(&mut self.max_pairs, DEFAULT_MAX_PAIRS);
        let ran = [true, false].into_iter().try_for_each(|waiting| {
            let bodies = warm_up_bodies(self.library(), waiting);
            self.find_all(&bodies, false).map(drop)
        });
        self.max_pairs = max_pairs;
        ran?;
        self.keep_stats(FrameStats::default());
        self.pipeline.forget_frames();
        Ok(())
    }

    fn find_pairs_checked(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
        let found = self.find_all(bodies, false)?;
        Ok(sorted_pairs(found.pairs))
    }

    /// The pairs of the frame, unsorted, and when the contact pass is active their
    /// contacts, in the same order.
    pub(crate) fn find_frame(
        &mut self,
        bodies: &[Body],
    ) -> Result<(Vec<Pair>, Vec<GpuContact>), Error> {
        let found = self.find_all(bodies, false)?;
        Ok((found.pairs, found.contacts))
    }

    /// Every pair of the frame (with `swept`, every swept pair and its time of impact,
    /// unsorted), with the frame's stats kept.
    pub(crate) fn find_all(&mut self, bodies: &[Body], swept: bool) -> Result<Found, Error> {
        // The upload is timed with the growth of the body buffers it may need.
        let start = Instant::now();
        let count = self.pipeline.prepare(bodies)?;
        if swept {
            self.pipeline.upload_velocities(bodies);
        }
        let upload_ms = start.elapsed().as_secs_f64() * 1e3;
        let mut found = Found::default();
        self.find_slice(bodies, count, (0, count), swept, &mut found)?;
        let total_ms = start.elapsed().as_secs_f64() * 1e3;
        self.keep_stats(FrameStats {
            candidates: Some(found.candidates),
            stages: found.stage_ms.map(|[bounds, broad, narrow]| StageTimes {
                upload: upload_ms,
                bounds,
                broad,
                narrow,
                readback: (total_ms - upload_ms - bounds - broad - narrow).max(0.0),
            }),
            runs: Some(found.runs),
        });
        Ok(found)
    }

    /// Adds to `found` the pairs that bodies `slice.0 .. slice.1` find: in one run
    /// when they fit the buffers (growing them and running again when they did not), in
    /// slices of them when a list the run fills would not fit one binding.
    fn find_slice(
        &mut self,
        bodies: &[Body],
        count: u32,
        slice: (u32, u32),
        swept: bool,
        found: &mut Found,
    ) -> Result<(), Error> {
        loop {
            let remaining = self.max_pairs.saturating_sub(found.candidates);
            // At most 2^31, so no counter on the GPU can wrap around.
            let limit = remaining.min(1 << 31) as u32;
            // Contacts are of the pairs at t = 0: their frames never sweep.
            let (pipeline, timed) = (&mut self.pipeline, self.time_stages);
            let frame = if self.contacts {
                pipeline.run_with_contacts(count, slice, limit, timed)?
            } else {
                pipeline.run(count, slice, limit, swept, timed)?
            };
            found.runs += 1;
            let c = frame.counters;
            self.pipeline.note_kind_counts(&c, swept);

            if c.unfinished > 0 {
                return Err(Error::Gpu(format!(
                    "{} shader invocations stopped at their loop guard, so the frame's \
                     answer would be incomplete (a bug of gpu-collide: please report it \
                     with the scene)",
                    c.unfinished
                )));
            }
            // Long tests are decided by kernels a frame of motion always runs, and other
            // frames only where the library may have them: one handed over otherwise
            // went undecided.
            if c.long_pairs > 0 && !swept && !self.pipeline.long_tests() {
                return Err(Error::Gpu(format!(
                    "{} pair tests were handed over to kernels this library was judged \
                     not to need, so the frame's answer would be incomplete (a bug of \
                     gpu-collide: please report it with the scene)",
                    c.long_pairs
                )));
            }
            let cap = self.pipeline.capacity();
            let lists = frame_lists(&c);
            // Crowded cells handed over past their buffer's end went unread, so the
            // candidate count is short: grow that buffer first, and judge the count after;
            // past one binding, the slice runs in smaller slices, each handing over fewer.
            if c.deferred > cap.deferred {
                if c.deferred > self.pipeline.binding_items(lists[0].item) {
                    return self.find_in_slices(bodies, count, slice, swept, found, &lists[..1]);
                }
                self.pipeline.grow(Capacity {
                    deferred: grown(c.deferred),
                    ..cap
                })?;
                self.pipeline.reupload(bodies, swept);
                continue;
            }
            if c.candidates as u64 > remaining {
                return Err(Error::TooManyPairs {
                    found: found.candidates + c.candidates as u64,
                    limit: self.max_pairs,
                });
            }
            // Candidates, pairs, long tests or their chunks past one binding: in slices.
            let past = lists[1..]
                .iter()
                .any(|list| list.count > self.pipeline.binding_items(list.item));
            if past {
                return self.find_in_slices(bodies, count, slice, swept, found, &lists[1..]);
            }
            let fits = c.candidates <= cap.candidates
                && c.pairs <= cap.pairs
                && c.long_pairs <= cap.long_pairs
                && c.tasks <= cap.tasks;
            if fits && c.overflowed_bins == 0 {
                found.candidates += c.candidates as u64;
                found.pairs.extend(frame.pairs);
                found.contacts.extend(frame.contacts);
                found.tois.extend(frame.tois);
                found.stage_ms = match (found.stage_ms, frame.stage_ms) {
                    (Some(a), Some(b)) => Some(std::array::from_fn(|k| a[k] + b[k])),
                    (_, b) => b,
                };
                return Ok(());
            }
            // Some did not fit: grow whatever overflowed and run again. Bins that did not
            // hold their candidates in a buffer that did are laid out again from this
            // frame's counts, which hold it (a buffer with little spare grows too).
            let wanted = Capacity {
                candidates: cap.candidates.max(bins::candidate_room(&c)),
                pairs: cap.pairs.max(grown(c.pairs)),
                long_pairs: cap.long_pairs.max(grown(c.long_pairs)),
                tasks: cap.tasks.max(grown(c.tasks)),
                ..cap
            };
            if !fits || wanted != cap {
                self.pipeline.grow(wanted)?;
            }
            self.pipeline.reupload(bodies, swept);
        }
    }

    /// Adds to `found` the pairs that bodies `slice.0 .. slice.1` find, in as many
    /// slices of them as keep each of `lists` (counted over all of them) within half a
    /// binding, so that each slice runs once; a slice that still overflows splits again.
    /// A single body's lists do not split: past a binding they are refused.
    fn find_in_slices(
        &mut self,
        bodies: &[Body],
        count: u32,
        slice: (u32, u32),
        swept: bool,
        found: &mut Found,
        lists: &[FrameList],
    ) -> Result<(), Error> {
        let span = slice.1 - slice.0;
        if span <= 1 {
            let limit = binding_limit(&self.context().device);
            let list = lists
                .iter()
                .find(|list| list.count > self.pipeline.binding_items(list.item))
                .unwrap_or(&lists[0]);
            return Err(Error::buffer_too_large(
                format!(
                    "the {} of body {} ({} of {} bytes)",
                    list.name, slice.0, list.count, list.item
                ),
                list.count as u64 * list.item as u64,
                limit,
                "the frame runs in slices of bodies, and this is one body's share: \
                 use the cpu backend",
            ));
        }
        // With the candidates past a binding, slices fill their buffers: both a binding.
        let most = self.pipeline.binding_items(size_of::<Pair>());
        let cap = self.pipeline.capacity();
        let candidates_past = lists.iter().any(|l| l.name == CANDIDATES && l.count > most);
        if candidates_past && (cap.candidates < most || cap.pairs < most) {
            self.pipeline.grow(Capacity {
                candidates: most,
                pairs: most,
                ..cap
            })?;
            self.pipeline.reupload(bodies, swept);
        }
        let slices = lists
            .iter()
            .map(|l| {
                l.count
                    .div_ceil((self.pipeline.binding_items(l.item) / 2).max(1))
            })
            .max()
            .unwrap_or(2)
            .clamp(2, span);
        for k in 0..slices {
            let first = slice.0 + (span as u64 * k as u64 / slices as u64) as u32;
            let end = slice.0 + (span as u64 * (k + 1) as u64 / slices as u64) as u32;
            self.find_slice(bodies, count, (first, end), swept, found)?;
        }
        Ok(())
    }

    /// Whether the next frames measure their stages' times: asked for with
    /// [`Collider::set_stage_timing`], and the device opened with
    /// `wgpu::Features::TIMESTAMP_QUERY`.
    pub fn stage_timing(&self) -> bool {
        self.time_stages && self.pipeline.can_time()
    }

    /// Box-overlapping pairs past which a frame is refused with
    /// [`Error::TooManyPairs`]; see [`Collider::set_max_pairs`].
    pub fn max_pairs(&self) -> u64 {
        self.max_pairs
    }
}

/// What the runs of one frame found so far.
#[derive(Debug, Default)]
pub(crate) struct Found {
    candidates: u64,
    pub(crate) pairs: Vec<Pair>,
    /// In a frame with motion, each pair's time of impact.
    pub(crate) tois: Vec<f32>,
    stage_ms: Option<[f64; 3]>,
    /// The pairs' contacts, in the same order, when the contact pass runs.
    contacts: Vec<GpuContact>,
    /// Runs of the pipeline, every slice's and every rerun's.
    runs: u32,
}

/// The frames of the stages: bodies whose shapes are the library's packed shapes. Every
/// part is a body of the broad phase here, which drops pairs of one body's parts by
/// their owners (`parts`, see [`FramePipeline::set_owners`]).
impl GpuCollider {
    pub(crate) fn stage_pairs(
        &mut self,
        bodies: &[Body],
        parts: Option<&Expansion>,
    ) -> Result<Vec<Pair>, Error> {
        self.library().check_stage_bodies(bodies)?;
        if crate::answer::motion::any_moving(bodies) {
            return Ok(self
                .stage_swept_pairs(bodies, parts)?
                .into_iter()
                .map(|s| s.pair)
                .collect());
        }
        if bodies.len() < 2 {
            return Ok(Vec::new());
        }
        self.pipeline.set_owners(parts);
        let context = self.context().clone();
        context.scoped(|| self.find_pairs_checked(bodies))
    }

    fn stage_contacts(
        &mut self,
        bodies: &[Body],
        parts: Option<&Expansion>,
    ) -> Result<Vec<Contact>, Error> {
        self.library().check_stage_bodies(bodies)?;
        if bodies.len() < 2 {
            return Ok(Vec::new());
        }
        self.pipeline.set_owners(parts);
        let context = self.context().clone();
        context.scoped(|| self.contacts_checked(bodies))
    }

    fn stage_query(&mut self, bodies: &[Body], batch: &QueryBatch) -> Result<QueryAnswers, Error> {
        self.library().check_stage_bodies(bodies)?;
        let context = self.context().clone();
        context.scoped(|| self.query_checked(bodies, batch))
    }

    fn stage_swept_pairs(
        &mut self,
        bodies: &[Body],
        parts: Option<&Expansion>,
    ) -> Result<Vec<SweptPair>, Error> {
        self.library().check_stage_bodies(bodies)?;
        if bodies.len() < 2 {
            return Ok(Vec::new());
        }
        self.pipeline.set_owners(parts);
        let context = self.context().clone();
        context.scoped(|| self.find_swept_pairs_checked(bodies))
    }
}

impl Collider for GpuCollider {
    answers_through_parts!();

    // Makes and zeroes the buffers a frame of `bodies` bodies needs, dispatches each
    // kernel once over no work (a driver that compiles a kernel at its first dispatch,
    // as llvmpipe does, compiles it now), and waits for the GPU.
    fn reserve(&mut self, bodies: usize) -> Result<(), Error> {
        let count = checked_body_count(bodies)?;
        let context = self.context().clone();
        context.scoped(|| {
            self.pipeline.grow_bodies(count)?;
            self.pipeline.warm_up_kernels()?;
            if !self.pipeline.is_warm() {
                self.warm_up_frames()?;
            }
            Ok(())
        })
    }

    fn describe(&self) -> String {
        format!("gpu on {}", self.context().describe())
    }

    fn set_max_pairs(&mut self, max: u64) {
        self.max_pairs = max;
    }

    fn set_stage_timing(&mut self, on: bool) {
        self.time_stages = on;
    }

    fn last_frame(&self) -> FrameStats {
        self.last
    }
}

/// The made-up bodies of [`GpuCollider::warm_up_frames`]: eight bodies of the first
/// eight shapes (taken in turn where there are fewer), all at the origin unturned, with
/// filters that keep the candidates few: a frame's cost here is its pairs, and eight
/// 8192-pixel masks sharing one corner pixel took `reserve` 241 ms when all 28 pairs
/// were candidates, 72 ms with these. With `waiting`, six take layer 1 and accept only layer 2, which the
/// other two take, accepting layer 1: the six wait to be found, and each of the two
/// seekers meets them (12 candidates). Otherwise bodies 2j and 2j + 1 share a layer of
/// their own and accept only it (4 candidates, nobody waiting).
fn warm_up_bodies(library: &ShapeLibrary, waiting: bool) -> Vec<Body> {
    let shapes = library.len().min(8);
    (0..8)
        .map(|k| {
            let body = Body::new((k % shapes) as u32, glam::Vec2::ZERO);
            let (layer, mask) = match (waiting, k % 4 == 0) {
                (true, true) => (2, 1),
                (true, false) => (1, 2),
                (false, _) => (1 << (k / 2), 1 << (k / 2)),
            };
            body.with_filter(layer, mask)
        })
        .collect()
}
