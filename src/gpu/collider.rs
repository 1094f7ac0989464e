//! [`GpuCollider`]: owns the pipelines and buffers of one shape library and runs a frame:
//! upload transforms (and body infos when they change), dispatch bounds, broad and
//! narrow phases in one submission, read back the counters and pairs once.
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

use rayon::prelude::*;
use wgpu::util::DeviceExt;

use std::sync::Arc;

mod contact;
mod pending;
mod query;
mod record;
mod sweep;

use super::buffers::{binding_limit, grown, BodyLists, Buffers, Capacity, Room, WalkCopies};
use super::contact::{ContactState, GpuContact};
use super::narrow::NarrowFrame;
use super::pending::Frames;
use super::query::QueryBuffers;
use super::readback::{read_mapped, PAIRS_AT, STAMPS_AT};
use super::record::Recordings;
use super::timing::StageTimer;
use super::{bins, bounds, broad, narrow, BroadKernels, StageGroups};
use super::{GpuContext, Pipelines};
use crate::body::Body;
use crate::cell_size::{choose_grid, QueryGridChoice};
use crate::collider::{sorted_pairs, Collider, FrameStats, Pair, StageTimes, DEFAULT_MAX_PAIRS};
use crate::contact::Contact;
use crate::error::Error;
use crate::grid::{query_bucket_count, GridParams};
use crate::library::{body_info, update_transforms, ShapeLibrary};
use crate::motion::SweptPair;
use crate::packed::{
    BodyInfo, BodyTransform, Counters, DeferredScan, GridInfo, LongPair, Params, SweptLongPair,
    MAX_BODIES, NO_SOURCE_ANGLE, PAIR_KINDS,
};
use crate::query::{QueryAnswers, QueryBatch};
use crate::shaders::{GridBinding, LibraryBinding, Stage};

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
    pub(crate) context: GpuContext,
    pub(crate) library: ShapeLibrary,
    pub(crate) pipelines: Arc<Pipelines>,
    /// How the kernels read the shape library (`GpuContext::library_binding`).
    pub(crate) library_binding: LibraryBinding,
    /// The broad stage's kernels with the walk reading the grid from storage, and on a
    /// device and at a capacity where it may read uniform copies of it
    /// (`GpuContext::grid_binding`, asked again when the body buffers grow), those
    /// kernels too: crowded frames use them ([`GpuCollider::grid_binding`]).
    pub(crate) broad: Arc<BroadKernels>,
    pub(crate) copied_broad: Option<Arc<BroadKernels>>,
    pub(crate) capacity: Capacity,
    pub(crate) buffers: Buffers,
    groups: Groups,
    /// The body infos on the GPU, to upload them only when they change.
    pub(crate) uploaded_infos: Vec<BodyInfo>,
    /// The grid's layout, chosen again when the infos change.
    pub(crate) grid: GridParams,
    /// The query grid's layout, for the last batch's kind (see `super::query`).
    pub(crate) query_grid: QueryGridChoice,
    /// Per-stage GPU times, where the device has timestamp queries; written only in
    /// frames run while `time_stages` is set ([`Collider::set_stage_timing`]).
    timer: Option<StageTimer>,
    /// Whether the caller asked for stage times (off by default: timestamps cost a
    /// frame on lavapipe 0.3-0.8 ms).
    time_stages: bool,
    last: FrameStats,
    /// Candidates of each kind pair in the last frame that counted them (every frame
    /// without motion), from which a crowded frame lays out its bins (`super::bins`).
    kind_counts: [u32; PAIR_KINDS as usize],
    /// Reused every frame so a frame allocates nothing on the host; `angles` are those the
    /// transforms' rotations were computed from (see [`update_transforms`]).
    pub(crate) transforms: Vec<BodyTransform>,
    angles: Vec<f32>,
    infos: Vec<BodyInfo>,
    /// Box-overlapping pairs past which a frame is refused.
    max_pairs: u64,
    /// Words at which the vertices and the bitmask words start in the library buffer.
    library_bases: (u32, u32),
    /// Frames submitted and not yet collected (`super::pending`).
    pub(crate) frames: Frames,
    /// Frames recorded into the caller's encoders (`super::record`).
    pub(crate) recordings: Recordings,
    /// The contact pass, built on the first `find_contacts` (`super::contact`).
    pub(crate) contact: ContactState,
    /// The queries' buffers, made by the first batch (`super::query`).
    pub(crate) query_buffers: Option<QueryBuffers>,
    /// The most queries a slice of a batch holds (`GpuCollider::set_query_slice`).
    pub(crate) query_slice: Option<std::num::NonZeroU32>,
    /// Whether a pair of the library's shapes may take more than one chunk to test
    /// (`crate::cpu::narrow::has_long_tests`): where none can, frames skip the kernels
    /// of long tests.
    long_tests: bool,
    /// Whether bodies have been uploaded, by any frame or query: until then `reserve`
    /// runs two small frames of made-up bodies (see [`Self::warm_up_frames`]).
    warm: bool,
}

#[derive(Debug)]
struct Groups {
    bounds: StageGroups,
    broad: StageGroups,
    /// Those of the broad kernels whose walk reads the uniform copies, where there are.
    copied_broad: Option<StageGroups>,
    narrow: StageGroups,
}

impl Groups {
    fn new(
        device: &wgpu::Device,
        p: &Pipelines,
        broad: &BroadKernels,
        copied_broad: Option<&Arc<BroadKernels>>,
        buffers: &Buffers,
    ) -> Self {
        Groups {
            bounds: p.bounds.bind(device, buffers),
            broad: broad.bind(device, buffers),
            copied_broad: copied_broad.map(|k| k.bind(device, buffers)),
            narrow: p.narrow.bind(device, buffers),
        }
    }
}

/// The broad kernels whose walk reads the uniform copies of the grid, their bind groups
/// and the copies ([`GridBinding::Uniform`]).
struct CopiedWalk<'a> {
    kernels: &'a BroadKernels,
    groups: &'a StageGroups,
    copies: &'a WalkCopies,
}

/// Records the broad stage with the walk reading uniform copies of the grid: the grid's
/// last sorting steps in one pass, the copies, and the search in a second pass, the
/// stage's start stamped on the first and its end on the second (`timer`, with the
/// stage's index).
fn encode_broad_copied(
    encoder: &mut wgpu::CommandEncoder,
    b: &Buffers,
    walk: CopiedWalk,
    bodies: u32,
    bucket_count: u32,
    timer: Option<(&StageTimer, usize)>,
) {
    let (kernels, groups) = (walk.kernels, walk.groups);
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("broad: grid"),
            timestamp_writes: timer.map(|(t, k)| t.split_pass_writes(k as u32, true)),
        });
        broad::dispatch_grid(kernels, &mut pass, groups, bodies, bucket_count);
    }
    broad::copy_for_walk(encoder, b, walk.copies, bodies, bucket_count);
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(Stage::Broad.name()),
        timestamp_writes: timer.map(|(t, k)| t.split_pass_writes(k as u32, false)),
    });
    broad::dispatch_search(kernels, &mut pass, groups, b);
}

/// What one run of the pipeline found.
pub(crate) struct FrameResult {
    pub(crate) counters: Counters,
    pub(crate) pairs: Vec<Pair>,
    /// In a frame with motion, each stored pair's time of impact (`super::sweep`).
    pub(crate) tois: Vec<f32>,
    /// Milliseconds of bounds, broad and narrow on the GPU, when timed.
    pub(crate) stage_ms: Option<[f64; 3]>,
    /// The stored pairs' contacts, in the same order, when the contact pass ran.
    pub(crate) contacts: Vec<GpuContact>,
}

impl GpuCollider {
    /// Compiles the pipelines and uploads the shape library, once.
    pub fn new(context: &GpuContext, library: ShapeLibrary) -> Result<Self, Error> {
        let context = context.clone();
        context.clone().scoped(|| {
            let device = &context.device;
            let capacity = Capacity {
                bodies: 256,
                candidates: 4096,
                pairs: 1024,
                deferred: 256,
                long_pairs: 256,
                tasks: 1024,
            };
            // The shape library as one buffer (shaders/library.wgsl): shapes, vertices, words.
            let mut words: Vec<u32> = bytemuck::cast_slice(&library.shapes).to_vec();
            let vertex_base = words.len() as u32;
            words.extend_from_slice(bytemuck::cast_slice(&library.polygon_vertices));
            let word_base = words.len() as u32;
            words.extend_from_slice(&library.bitmask_words);
            // A runtime-sized array needs at least one element.
            words.push(0);
            let limit = binding_limit(device);
            if words.len() as u64 * 4 > limit {
                return Err(Error::buffer_too_large(
                    format!(
                        "the shape library ({} shapes, {} polygon vertices, {} words of \
                         bitmasks)",
                        library.shapes.len(),
                        library.polygon_vertices.len(),
                        library.bitmask_words.len()
                    ),
                    words.len() as u64 * 4,
                    limit,
                    "every kernel reads the library from one buffer: a library of fewer \
                     or smaller shapes (bitmasks take 4 bytes a 32 pixels) fits, or use the \
                     cpu backend",
                ));
            }
            let library_binding = context.library_binding(words.len() as u64 * 4);
            let usage = match library_binding {
                LibraryBinding::Storage => wgpu::BufferUsages::STORAGE,
                LibraryBinding::Uniform => {
                    // The uniform form's array has a fixed length, which the binding
                    // must cover.
                    words.resize(LibraryBinding::UNIFORM_BYTES as usize / 4, 0);
                    wgpu::BufferUsages::UNIFORM
                }
            };
            let library_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("shape library"),
                contents: bytemuck::cast_slice(&words),
                usage,
            });
            let room = context.grid_binding(capacity.bodies);
            let buffers = Buffers::new(device, library_buffer, capacity, room)?;
            let pipelines = context.pipelines(library_binding)?;
            let broad = context.broad_kernels(GridBinding::Storage)?;
            let copied_broad = (room == GridBinding::Uniform)
                .then(|| context.broad_kernels(room))
                .transpose()?;
            let grid = GridParams::for_bodies(&library, &[]);
            let groups = Groups::new(device, &pipelines, &broad, copied_broad.as_ref(), &buffers);
            let long_tests = crate::cpu::narrow::has_long_tests(&library);
            Ok(GpuCollider {
                context: context.clone(),
                library,
                pipelines,
                library_binding,
                broad,
                copied_broad,
                capacity,
                buffers,
                groups,
                uploaded_infos: Vec::new(),
                query_grid: QueryGridChoice::default(),
                grid,
                timer: StageTimer::new(device, &context.queue),
                time_stages: false,
                last: FrameStats::default(),
                kind_counts: [0; PAIR_KINDS as usize],
                transforms: Vec::new(),
                angles: Vec::new(),
                infos: Vec::new(),
                max_pairs: DEFAULT_MAX_PAIRS,
                library_bases: (vertex_base, word_base),
                frames: Frames::default(),
                recordings: Recordings::default(),
                contact: ContactState::default(),
                query_buffers: None,
                query_slice: None,
                long_tests,
                warm: false,
            })
        })
    }

    /// The shape library.
    pub fn library(&self) -> &ShapeLibrary {
        &self.library
    }

    /// How this collider's kernels read its shape library: from a uniform buffer on a
    /// software adapter where the library fits in one, from a storage buffer otherwise
    /// ([`LibraryBinding`] says why).
    pub fn library_binding(&self) -> LibraryBinding {
        self.library_binding
    }

    /// How the next frame's broad phase reads the grid it walks: from uniform copies on
    /// a software adapter while the collider has room for at most
    /// [`GridBinding::UNIFORM_ENTRIES`] bodies and the last frame had at least
    /// [`BIN_FROM_CANDIDATES`](crate::packed::BIN_FROM_CANDIDATES) candidates, from the
    /// grid's storage buffers otherwise ([`GridBinding`] says why). A frame with fewer
    /// candidates walks too little to pay for the copies (measured on lavapipe: the broad
    /// stage of bullet-hell 10k, 60 candidates, took 0.03 ms longer with them).
    pub fn grid_binding(&self) -> GridBinding {
        let crowded = self.last.candidates.unwrap_or(0) >= narrow::BIN_FROM_CANDIDATES as u64;
        if self.copied_broad.is_some() && crowded {
            GridBinding::Uniform
        } else {
            GridBinding::Storage
        }
    }

    /// The device this collider runs on.
    pub fn context(&self) -> &GpuContext {
        &self.context
    }

    /// Replaces the growable buffers with ones of `capacity`, zeroed, and rebinds.
    fn resize(&mut self, capacity: Capacity) -> Result<(), Error> {
        let device = &self.context.device;
        let b = &self.buffers;
        let room = self.context.grid_binding(capacity.bodies);
        self.buffers = Buffers::new(device, b.library.clone(), capacity, room)?;
        let mut encoder = device.create_command_encoder(&Default::default());
        self.buffers.clear(&mut encoder);
        self.context.queue.submit([encoder.finish()]);
        self.copied_broad = (room == GridBinding::Uniform)
            .then(|| self.context.broad_kernels(room))
            .transpose()?;
        self.groups = Groups::new(
            device,
            &self.pipelines,
            &self.broad,
            self.copied_broad.as_ref(),
            &self.buffers,
        );
        self.capacity = capacity;
        // New body buffers hold nothing yet.
        self.uploaded_infos.clear();
        Ok(())
    }

    /// Uploads this frame's transforms, and the infos if they changed.
    pub(crate) fn upload_bodies(&mut self, bodies: &[Body]) {
        update_transforms(bodies, &mut self.transforms, &mut self.angles);
        self.context.queue.write_buffer(
            &self.buffers.transforms,
            0,
            bytemuck::cast_slice(&self.transforms),
        );
        self.upload_infos(bodies, true);
    }

    /// Uploads the bodies' infos if they changed, and then chooses the pairs' grid again:
    /// from a sample of the positions `with_positions` (the transforms just uploaded),
    /// from the shapes' sizes alone otherwise (positions in a buffer of the caller's).
    pub(crate) fn upload_infos(&mut self, bodies: &[Body], with_positions: bool) {
        self.upload_infos_as(bodies, with_positions, false);
    }

    /// Uploads this frame's transforms and the bodies' infos as queries see them: with
    /// every mask opened (a query's own mask decides), so that the grid holds every body
    /// with a layer. A pair frame after it sees infos that differ and uploads its own.
    pub(crate) fn upload_query_bodies(&mut self, bodies: &[Body]) {
        update_transforms(bodies, &mut self.transforms, &mut self.angles);
        self.context.queue.write_buffer(
            &self.buffers.transforms,
            0,
            bytemuck::cast_slice(&self.transforms),
        );
        self.upload_infos_as(bodies, true, true);
    }

    /// [`Self::upload_infos`], with every mask opened when `open_masks`.
    fn upload_infos_as(&mut self, bodies: &[Body], with_positions: bool, open_masks: bool) {
        // Bodies of the caller's: `reserve` no longer needs to warm the kernels up, and
        // would otherwise forget what this frame chose.
        self.warm = true;
        // The shape kinds go along for read_bodies (BodyInfo::kind).
        let shapes = &self.library.shapes;
        let info_of = |body: &Body| {
            let info = BodyInfo {
                kind: shapes[body.shape as usize].kind,
                ..body_info(body)
            };
            if open_masks {
                BodyInfo {
                    mask: u32::MAX,
                    ..info
                }
            } else {
                info
            }
        };
        // Compared where they lie rather than built and then compared: most frames change
        // no info, and at 10^6 bodies building 16 MB to find that out cost 2.5 ms.
        let unchanged = self.uploaded_infos.len() == bodies.len()
            && bodies
                .par_iter()
                .zip(self.uploaded_infos.par_iter())
                .with_min_len(8192)
                .all(|(body, uploaded)| info_of(body) == *uploaded);
        if !unchanged {
            self.infos.clear();
            self.infos
                .par_extend(bodies.par_iter().with_min_len(8192).map(info_of));
            let queue = &self.context.queue;
            queue.write_buffer(&self.buffers.infos, 0, bytemuck::cast_slice(&self.infos));
            // The queries choose a grid of their own (`choose_query_grid`).
            if !open_masks {
                self.grid = if with_positions {
                    choose_grid(&self.library, &self.infos, &self.transforms)
                } else {
                    GridParams::for_bodies(&self.library, &self.infos)
                };
            }
            std::mem::swap(&mut self.uploaded_infos, &mut self.infos);
        }
    }

    /// Runs the three stages once, with the bodies of `slice` looking for partners, and reads
    /// back the counters and the stored pairs.
    /// With `swept`, the swept pairs of a frame with motion, and their times of impact.
    fn run(
        &self,
        bodies: u32,
        slice: (u32, u32),
        limit: u32,
        swept: bool,
    ) -> Result<FrameResult, Error> {
        let b = &self.buffers;
        let toi_target = swept.then_some((&b.toi_readback, 0));
        let _ = self.submit_run(bodies, slice, limit, &b.readback, toi_target);
        let pair_capacity = self.capacity.pairs;
        let timed = self.stage_timer().is_some();
        let mut result = read_mapped(&self.context.device, &b.readback, |bytes| {
            self.frame_result(bytes, pair_capacity, timed)
        })?;
        if swept {
            result.tois = self.read_tois(result.pairs.len())?;
        }
        self.context.check_uncaptured()?;
        Ok(result)
    }

    /// The counters, stage times (where the frame was `timed`) and stored pairs of a
    /// readback of a frame run with room for `pair_capacity` pairs.
    pub(crate) fn frame_result(
        &self,
        bytes: &[u8],
        pair_capacity: u32,
        timed: bool,
    ) -> FrameResult {
        let counters: Counters = bytemuck::pod_read_unaligned(&bytes[..STAMPS_AT as usize]);
        let stage_ms = self
            .timer
            .as_ref()
            .filter(|_| timed)
            .map(|t| t.stage_ms(&bytes[STAMPS_AT as usize..PAIRS_AT as usize]));
        let stored = counters.pairs.min(pair_capacity) as usize;
        let pairs = bytes[PAIRS_AT as usize..][..stored * size_of::<Pair>()]
            .chunks_exact(size_of::<Pair>())
            .map(bytemuck::pod_read_unaligned::<Pair>)
            .collect();
        FrameResult {
            counters,
            pairs,
            tois: Vec::new(),
            stage_ms,
            contacts: Vec::new(),
        }
    }

    /// Records the three stages once, as `run` describes, with the counters, stage times
    /// and pairs copied into `readback`, and submits them; returns at once. With
    /// `toi_target`, a frame with motion (`super::sweep`), whose times of impact are
    /// copied into that buffer at that offset.
    pub(crate) fn submit_run(
        &self,
        bodies: u32,
        slice: (u32, u32),
        limit: u32,
        readback: &wgpu::Buffer,
        toi_target: Option<(&wgpu::Buffer, u64)>,
    ) -> wgpu::SubmissionIndex {
        let mut encoder =
            self.context
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("frame"),
                });
        self.encode_run_with_copies(&mut encoder, bodies, slice, limit, readback, toi_target);
        self.context.queue.submit([encoder.finish()])
    }

    /// Records the three stages as `submit_run` describes, and the copies into `readback`.
    pub(crate) fn encode_run_with_copies(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bodies: u32,
        slice: (u32, u32),
        limit: u32,
        readback: &wgpu::Buffer,
        toi_target: Option<(&wgpu::Buffer, u64)>,
    ) {
        let b = &self.buffers;
        let run = Run {
            bodies,
            slice,
            limit,
            source: None,
            timed: self.time_stages,
            publish: false,
            swept: toi_target.is_some(),
        };
        self.encode_run(encoder, &run);
        encoder.copy_buffer_to_buffer(&b.counters, 0, readback, 0, STAMPS_AT);
        if let Some(timer) = self.stage_timer() {
            timer.resolve(encoder, readback, STAMPS_AT);
        }
        encoder.copy_buffer_to_buffer(&b.pairs, 0, readback, PAIRS_AT, b.pairs.size());
        if let Some((target, offset)) = toi_target {
            encoder.copy_buffer_to_buffer(&b.tois, 0, target, offset, b.tois.size());
        }
    }

    /// Writes the run's parameters (through the queue, so they apply at its next
    /// submission) and records its three stages into `encoder`.
    pub(crate) fn encode_run(&self, encoder: &mut wgpu::CommandEncoder, run: &Run) {
        let bucket_count = self.begin_run(encoder, run);
        let binned = self.bins_candidates(run);
        let timer = self.timer.as_ref().filter(|_| run.timed);
        // One pass per stage, so that each can be timed.
        let p = &self.pipelines;
        let b = &self.buffers;
        for (k, stage) in Stage::ALL.into_iter().enumerate() {
            if let (Stage::Broad, Some(copied)) = (stage, self.copied_walk()) {
                let timer = timer.map(|t| (t, k));
                encode_broad_copied(encoder, b, copied, run.bodies, bucket_count, timer);
                continue;
            }
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(stage.name()),
                timestamp_writes: timer.map(|t| t.pass_writes(k as u32)),
            });
            let g = &self.groups;
            match stage {
                Stage::Bounds => bounds::dispatch(
                    &p.bounds,
                    &mut pass,
                    &g.bounds,
                    run.bodies,
                    run.source.as_ref().map(|s| &s.group),
                    self.grid.waiter_layers == 0 && run.slice.0 != run.slice.1,
                ),
                Stage::Broad => broad::dispatch(
                    &self.broad,
                    &mut pass,
                    &g.broad,
                    b,
                    run.bodies,
                    bucket_count,
                ),
                Stage::Narrow => narrow::dispatch(
                    &p.narrow,
                    &mut pass,
                    &g.narrow,
                    b,
                    NarrowFrame {
                        binned,
                        publish: run.publish,
                        swept: run.swept,
                        long_tests: self.long_tests,
                    },
                ),
                // Not a stage of the pair pipeline (see `super::query`).
                Stage::Query => {}
            }
        }
    }

    /// The broad kernels whose walk reads the uniform copies of the grid, their groups
    /// and the copies, when the next frame uses them ([`GpuCollider::grid_binding`]).
    fn copied_walk(&self) -> Option<CopiedWalk<'_>> {
        match (
            &self.copied_broad,
            &self.groups.copied_broad,
            &self.buffers.walk,
            self.grid_binding(),
        ) {
            (Some(kernels), Some(groups), Some(copies), GridBinding::Uniform) => Some(CopiedWalk {
                kernels,
                groups,
                copies,
            }),
            _ => None,
        }
    }

    /// Records bounds and the grid's counting sort alone (`assign_cell` in the bounds
    /// kernel, `allocate_buckets`, `scatter_cells`) for `bodies` bodies: what the queries read
    /// (`super::query`), with the infos they uploaded.
    pub(crate) fn encode_grid(&self, encoder: &mut wgpu::CommandEncoder, bodies: u32) {
        let run = Run {
            bodies,
            slice: (0, 0),
            limit: 0,
            source: None,
            timed: false,
            publish: false,
            swept: false,
        };
        let bucket_count = self.begin_run(encoder, &run);
        let (p, g) = (&self.pipelines, &self.groups);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("query grid"),
            timestamp_writes: None,
        });
        bounds::dispatch(&p.bounds, &mut pass, &g.bounds, bodies, None, false);
        broad::dispatch_grid(&self.broad, &mut pass, &g.broad, bodies, bucket_count);
    }

    /// Whether the run's broad phase puts each kind pair's candidates in a bin of their
    /// own: bins pay once candidates are many, as the last frame's count says, and a
    /// frame with motion reads its candidates as one list.
    fn bins_candidates(&self, run: &Run) -> bool {
        !run.swept && self.last.candidates.unwrap_or(0) >= narrow::BIN_FROM_CANDIDATES as u64
    }

    /// Keeps a frame's counts of candidates by kind pair, from which later crowded frames
    /// lay out their bins; a frame with motion does not count them.
    pub(crate) fn note_kind_counts(&mut self, c: &Counters, swept: bool) {
        if !swept {
            self.kind_counts = c.kind_counts;
        }
    }

    /// Writes the run's parameters (through the queue, so they apply at its next
    /// submission) and records the clearing of the counters and the grid; the grid's
    /// bucket count.
    fn begin_run(&self, encoder: &mut wgpu::CommandEncoder, run: &Run) -> u32 {
        let (queue, b) = (&self.context.queue, &self.buffers);
        // The table scales with this frame's bodies, within the buffer sized for the
        // capacity (for the query grid's table, the larger), and within the walk's
        // uniform copy where it reads one (a smaller table only shares more buckets).
        let copy_room = match self.copied_broad {
            Some(_) => GridBinding::UNIFORM_BUCKETS,
            None => u32::MAX,
        };
        let bucket_count = self
            .grid
            .bucket_count
            .min(query_bucket_count(self.capacity.bodies as usize))
            .min(copy_room);
        let c = &self.capacity;
        let binned = self.bins_candidates(run);
        let [source_stride, source_position, source_angle] = match &run.source {
            Some(source) => source.words,
            None => [0, 0, NO_SOURCE_ANGLE],
        };
        let params = Params {
            body_count: run.bodies,
            candidate_capacity: c.candidates,
            pair_capacity: c.pairs,
            bucket_count,
            base_cell: self.grid.base_cell,
            candidate_limit: run.limit,
            deferred_capacity: c.deferred,
            long_pair_capacity: c.long_pairs,
            task_capacity: c.tasks,
            slice_start: run.slice.0,
            slice_end: run.slice.1,
            vertex_base: self.library_bases.0,
            word_base: self.library_bases.1,
            source_stride,
            source_position,
            source_angle,
            waiter_layers: self.grid.waiter_layers,
            swept: run.swept as u32,
            row_stride: self.grid.layout.row_stride,
            level_step: self.grid.layout.level_step,
            bin_starts: bins::bin_starts(binned.then_some(&self.kind_counts), c.candidates),
            binned: binned as u32,
            padding: [0; 3],
        };
        queue.write_buffer(&b.params, 0, bytemuck::bytes_of(&params));
        encoder.clear_buffer(&b.counters, 0, None);
        // The summary alone: the list of seekers after it is counted there.
        encoder.clear_buffer(&b.grid_info, 0, Some(size_of::<GridInfo>() as u64));
        // The counts; allocate_buckets writes every block's end after them.
        encoder.clear_buffer(
            &b.buckets,
            0,
            Some(bucket_count as u64 * size_of::<u32>() as u64),
        );
        bucket_count
    }

    /// The most items of `item_bytes` bytes one storage binding of this device holds.
    pub(crate) fn binding_items(&self, item_bytes: usize) -> u32 {
        let bytes = binding_limit(&self.context.device);
        (bytes / item_bytes as u64).min(u32::MAX as u64) as u32
    }

    /// Checks the body count, grows the body buffers if needed and uploads the bodies;
    /// gives the count.
    pub(crate) fn prepare(&mut self, bodies: &[Body]) -> Result<u32, Error> {
        let count = body_count(bodies)?;
        self.grow_bodies(count)?;
        self.upload_bodies(bodies);
        Ok(count)
    }

    /// Grows the body buffers to hold `count` bodies, if they do not, and the candidate
    /// and pair buffers to two candidates and a pair a body (16 and 8 bytes, a fraction of
    /// the 200-odd bytes a body costs in the grid's buffers): most scenes' first frame
    /// then fits, so a one-shot `pairs` on a large file runs once, and a frame recorded
    /// into the caller's encoder (which cannot run again) is whole from the start. A
    /// scene with more grows after its first frame as before. The body buffers grow to
    /// the next power of two, or to as many bodies as each fits one storage binding;
    /// past that the bodies are refused, naming the list that does not fit.
    pub(crate) fn grow_bodies(&mut self, count: u32) -> Result<(), Error> {
        if count > self.capacity.bodies {
            let limit = binding_limit(&self.context.device);
            let (what, bytes) = BodyLists::new(count).largest();
            if bytes > limit {
                // Slices of a frame (`find_slice`) still read every body.
                return Err(Error::buffer_too_large(
                    format!("{what} for {count} bodies"),
                    bytes,
                    limit,
                    format!(
                        "each of the bodies' lists is one storage buffer, which every \
                         kernel reads whole, so the gpu backend holds at most {} bodies on \
                         this device: use the cpu backend, or a device that allows larger \
                         storage buffers",
                        BodyLists::most_bodies(limit)
                    ),
                ));
            }
            // The next power of two, or as many as fit where that would not.
            let bodies = if BodyLists::new(grown(count)).largest().1 <= limit {
                grown(count)
            } else {
                BodyLists::most_bodies(limit)
            };
            let pair_items = self.binding_items(size_of::<Pair>());
            let c = self.capacity;
            self.resize(Capacity {
                bodies,
                candidates: c
                    .candidates
                    .max(grown(count.saturating_mul(2)).min(pair_items)),
                pairs: c.pairs.max(grown(count).min(pair_items)),
                ..c
            })?;
        }
        Ok(())
    }

    /// The transforms and infos last uploaded: the frame's bodies as the GPU sees them.
    pub(crate) fn frame_bodies(&self) -> (&[BodyTransform], &[BodyInfo]) {
        (&self.transforms, &self.uploaded_infos)
    }

    /// Pairs the pair buffer holds now.
    pub(crate) fn pair_capacity(&self) -> u32 {
        self.capacity.pairs
    }

    /// Room for candidates, pairs, crowded-cell pieces, long tests and their chunks.
    pub(crate) fn room(&self) -> Room {
        Room::of(&self.capacity)
    }

    /// Keeps what a frame did, for [`Collider::last_frame`] and the next frame's choices.
    pub(crate) fn keep_stats(&mut self, stats: FrameStats) {
        self.last = stats;
    }

    /// Keeps a recorded frame's candidate count, by which the next frame chooses
    /// whether to bin the candidates.
    pub(crate) fn note_candidates(&mut self, candidates: u64) {
        self.last = FrameStats {
            candidates: Some(candidates),
            stages: None,
            runs: Some(1),
        };
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
        if self.library.is_empty() {
            return Ok(());
        }
        // 12 candidates at most: within the default limit, whatever the caller set.
        let max_pairs = std::mem::replace(&mut self.max_pairs, DEFAULT_MAX_PAIRS);
        let ran = [true, false].into_iter().try_for_each(|waiting| {
            self.find_all(&warm_up_bodies(&self.library, waiting), false)
                .map(drop)
        });
        self.max_pairs = max_pairs;
        ran?;
        self.last = FrameStats::default();
        self.kind_counts = [0; PAIR_KINDS as usize];
        self.uploaded_infos.clear();
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
        let count = self.prepare(bodies)?;
        if swept {
            self.upload_velocities(bodies);
        }
        let upload_ms = start.elapsed().as_secs_f64() * 1e3;
        let mut found = Found::default();
        self.find_slice(bodies, count, (0, count), swept, &mut found)?;
        let total_ms = start.elapsed().as_secs_f64() * 1e3;
        self.last = FrameStats {
            candidates: Some(found.candidates),
            stages: found.stage_ms.map(|[bounds, broad, narrow]| StageTimes {
                upload: upload_ms,
                bounds,
                broad,
                narrow,
                readback: (total_ms - upload_ms - bounds - broad - narrow).max(0.0),
            }),
            runs: Some(found.runs),
        };
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
            let frame = if self.contact.active {
                self.run_with_contacts(count, slice, limit)?
            } else {
                self.run(count, slice, limit, swept)?
            };
            found.runs += 1;
            let c = frame.counters;
            self.note_kind_counts(&c, swept);

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
            if c.long_pairs > 0 && !swept && !self.long_tests {
                return Err(Error::Gpu(format!(
                    "{} pair tests were handed over to kernels this library was judged \
                     not to need, so the frame's answer would be incomplete (a bug of \
                     gpu-collide: please report it with the scene)",
                    c.long_pairs
                )));
            }
            let cap = self.capacity;
            let lists = frame_lists(&c);
            // Crowded cells handed over past their buffer's end went unread, so the
            // candidate count is short: grow that buffer first, and judge the count after;
            // past one binding, the slice runs in smaller slices, each handing over fewer.
            if c.deferred > cap.deferred {
                if c.deferred > self.binding_items(lists[0].item) {
                    return self.find_in_slices(bodies, count, slice, swept, found, &lists[..1]);
                }
                self.grow(Capacity {
                    deferred: grown(c.deferred),
                    ..cap
                })?;
                self.reupload(bodies, swept);
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
                .any(|list| list.count > self.binding_items(list.item));
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
                self.grow(wanted)?;
            }
            self.reupload(bodies, swept);
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
            let limit = binding_limit(&self.context.device);
            let list = lists
                .iter()
                .find(|list| list.count > self.binding_items(list.item))
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
        let most = self.binding_items(size_of::<Pair>());
        let cap = self.capacity;
        let candidates_past = lists.iter().any(|l| l.name == CANDIDATES && l.count > most);
        if candidates_past && (cap.candidates < most || cap.pairs < most) {
            self.grow(Capacity {
                candidates: most,
                pairs: most,
                ..cap
            })?;
            self.reupload(bodies, swept);
        }
        let slices = lists
            .iter()
            .map(|l| l.count.div_ceil((self.binding_items(l.item) / 2).max(1)))
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

    /// Resizes to `capacity`, each buffer kept within one binding: a count that fits a
    /// binding but whose next power of two does not gets exactly the binding's size.
    pub(crate) fn grow(&mut self, capacity: Capacity) -> Result<(), Error> {
        let wanted = capacity;
        let pair_items = self.binding_items(size_of::<Pair>());
        let capacity = Capacity {
            candidates: capacity.candidates.min(pair_items),
            pairs: capacity.pairs.min(pair_items),
            deferred: capacity
                .deferred
                .min(self.binding_items(size_of::<DeferredScan>())),
            long_pairs: capacity.long_pairs.min(self.binding_items(LONG_PAIR_BYTES)),
            tasks: capacity.tasks.min(self.binding_items(size_of::<u32>())),
            ..capacity
        };
        if capacity == self.capacity {
            // Only a buffer already as large as one binding overflowed, in a frame that
            // cannot run in slices (one recorded into the caller's encoder): running
            // again would overflow again.
            let w = wanted;
            let c = capacity;
            let lists = [
                (CANDIDATES, w.candidates, c.candidates, size_of::<Pair>()),
                ("pairs", w.pairs, c.pairs, size_of::<Pair>()),
                (DEFERRED, w.deferred, c.deferred, size_of::<DeferredScan>()),
                (LONG_PAIRS, w.long_pairs, c.long_pairs, LONG_PAIR_BYTES),
                (TASKS, w.tasks, c.tasks, size_of::<u32>()),
            ];
            let (name, items, _, item) = lists
                .into_iter()
                .find(|&(_, wanted, held, _)| wanted > held)
                .unwrap_or(lists[0]);
            return Err(Error::buffer_too_large(
                format!("room for {items} {name} of {item} bytes"),
                items as u64 * item as u64,
                binding_limit(&self.context.device),
                "a frame recorded into an encoder runs once and cannot be split into \
                 slices of bodies: find_pairs can, or the cpu backend",
            ));
        }
        self.resize(capacity)
    }

    /// Whether the next frames measure their stages' times: asked for with
    /// [`Collider::set_stage_timing`], and the device opened with
    /// `wgpu::Features::TIMESTAMP_QUERY`.
    pub fn stage_timing(&self) -> bool {
        self.stage_timer().is_some()
    }

    /// The timer, when this frame is to be timed.
    pub(crate) fn stage_timer(&self) -> Option<&StageTimer> {
        self.timer.as_ref().filter(|_| self.time_stages)
    }

    /// Box-overlapping pairs past which a frame is refused with
    /// [`Error::TooManyPairs`]; see [`Collider::set_max_pairs`].
    pub fn max_pairs(&self) -> u64 {
        self.max_pairs
    }
}

/// Names of the lists a frame appends to, as messages give them.
const CANDIDATES: &str = "pair candidates";
const DEFERRED: &str = "crowded-cell pieces of the broad phase";
const LONG_PAIRS: &str = "long pair tests";
const TASKS: &str = "chunks of long pair tests";
/// A long test's bytes: a frame with motion keeps its long tests in the larger
/// SweptLongPair.
const LONG_PAIR_BYTES: usize = if size_of::<LongPair>() > size_of::<SweptLongPair>() {
    size_of::<LongPair>()
} else {
    size_of::<SweptLongPair>()
};

/// One of the lists a frame appends to, each in a buffer of its own: how many items the
/// run counted, of how many bytes each.
#[derive(Debug, Clone, Copy)]
struct FrameList {
    name: &'static str,
    count: u32,
    item: usize,
}

/// The lists a run counted, the crowded-cell pieces first: past their buffer's end they
/// leave the other counts short.
fn frame_lists(c: &Counters) -> [FrameList; 5] {
    let list = |name, count, item| FrameList { name, count, item };
    [
        list(DEFERRED, c.deferred, size_of::<DeferredScan>()),
        list(CANDIDATES, c.candidates, size_of::<Pair>()),
        list("pairs", c.pairs, size_of::<Pair>()),
        // A frame with motion keeps its long tests in the larger SweptLongPair.
        list(LONG_PAIRS, c.long_pairs, LONG_PAIR_BYTES),
        list(TASKS, c.tasks, size_of::<u32>()),
    ]
}

/// One run of the pipeline, as [`GpuCollider::encode_run`] records it.
pub(crate) struct Run {
    pub(crate) bodies: u32,
    /// Only these bodies look for partners (see `find_slice`).
    pub(crate) slice: (u32, u32),
    /// Candidates past which the broad phase stops.
    pub(crate) limit: u32,
    /// Bodies read from the caller's buffer rather than uploaded.
    pub(crate) source: Option<SourceBinding>,
    /// Stage times written, where the device has timestamps.
    pub(crate) timed: bool,
    /// The header for the caller's shaders written last (`publish`).
    pub(crate) publish: bool,
    /// A frame with motion: swept bounds and the swept narrow phase (`super::sweep`).
    pub(crate) swept: bool,
}

/// The caller's buffer of bodies, bound for `read_bodies`, and where in its structs the
/// stride, position and angle sit, in words (the `source_*` of [`Params`]).
pub(crate) struct SourceBinding {
    pub(crate) group: wgpu::BindGroup,
    pub(crate) words: [u32; 3],
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

impl Collider for GpuCollider {
    fn find_pairs(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
        self.library.check_bodies(bodies)?;
        if crate::motion::any_moving(bodies) {
            let swept = self.find_swept_pairs(bodies)?;
            return Ok(swept.into_iter().map(|s| s.pair).collect());
        }
        if bodies.len() < 2 {
            return Ok(Vec::new());
        }
        let context = self.context.clone();
        context.scoped(|| self.find_pairs_checked(bodies))
    }

    fn find_contacts(&mut self, bodies: &[Body]) -> Result<Vec<Contact>, Error> {
        self.library.check_bodies(bodies)?;
        if bodies.len() < 2 {
            return Ok(Vec::new());
        }
        let context = self.context.clone();
        context.scoped(|| self.contacts_checked(bodies))
    }

    fn query(&mut self, bodies: &[Body], batch: &QueryBatch) -> Result<QueryAnswers, Error> {
        batch.validate()?;
        self.library.check_bodies(bodies)?;
        let context = self.context.clone();
        context.scoped(|| self.query_checked(bodies, batch))
    }

    fn find_swept_pairs(&mut self, bodies: &[Body]) -> Result<Vec<SweptPair>, Error> {
        self.library.check_bodies(bodies)?;
        if bodies.len() < 2 {
            return Ok(Vec::new());
        }
        let context = self.context.clone();
        context.scoped(|| self.find_swept_pairs_checked(bodies))
    }

    // Makes and zeroes the buffers a frame of `bodies` bodies needs, dispatches each
    // kernel once over no work (a driver that compiles a kernel at its first dispatch,
    // as llvmpipe does, compiles it now), and waits for the GPU.
    fn reserve(&mut self, bodies: usize) -> Result<(), Error> {
        let count = checked_body_count(bodies)?;
        let context = self.context.clone();
        context.scoped(|| {
            self.grow_bodies(count)?;
            let device = &context.device;
            let mut encoder = device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                let (p, g) = (&self.pipelines, &self.groups);
                p.bounds.warm_up(&mut pass, &g.bounds);
                self.broad.warm_up(&mut pass, &g.broad);
                if let (Some(kernels), Some(groups)) = (&self.copied_broad, &g.copied_broad) {
                    kernels.warm_up(&mut pass, groups);
                }
                p.narrow.warm_up(&mut pass, &g.narrow);
            }
            context.queue.submit([encoder.finish()]);
            device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| Error::Gpu(format!("waiting for the GPU failed: {e}")))?;
            if !self.warm {
                self.warm_up_frames()?;
            }
            Ok(())
        })
    }

    fn describe(&self) -> String {
        format!("gpu on {}", self.context.describe())
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

/// The number of bodies as the GPU counts them, or the error naming the limit.
pub(crate) fn body_count(bodies: &[Body]) -> Result<u32, Error> {
    checked_body_count(bodies.len())
}

/// `count` as a `u32`, refused past [`MAX_BODIES`].
fn checked_body_count(count: usize) -> Result<u32, Error> {
    u32::try_from(count)
        .ok()
        .filter(|&n| n <= MAX_BODIES)
        .ok_or_else(|| Error::TooLarge {
            what: format!("numbering a frame of {count} bodies"),
            needed: count as u64,
            limit: MAX_BODIES as u64,
            unit: "body indices",
            allowed: "the kernels (which keep a candidate's shape kinds in the top bits of \
                      a body's index) allow",
            hint: "use the cpu backend".into(),
        })
}
