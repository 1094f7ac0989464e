//! [`FramePipeline`]: the device side of a collider. It owns the shape library's buffer
//! and binding, the stages' kernels, the frame's buffers and their bind groups, the
//! capacity they were made for, the body infos and grid last uploaded, the counts the
//! next frame lays its bins out from, and the stage timer; and it offers what a frame
//! is made of: upload the bodies (their infos when they change, their velocities in a
//! frame with motion), grow the buffers, record a run into an encoder or submit one,
//! and read back what a run found. The contact pass and the query kernels, which bind
//! the frame's buffers, are driven from here too (the modules below).
//!
//! What to do with a frame (how many runs, in what slices, when to grow, what to keep
//! for the caller) is the collider's; no field here is seen outside this module.

use std::mem::size_of;
use std::sync::Arc;

use rayon::prelude::*;
use wgpu::util::DeviceExt;

mod contact;
mod query;

use super::buffers::{binding_limit, grown, BodyLists, Buffers, Capacity, Room, WalkCopies};
use super::contact::{ContactState, GpuContact};
use super::narrow::NarrowFrame;
use super::part_groups::PartGroups;
use super::query::QueryBuffers;
use super::readback::{read_mapped, PAIRS_AT, STAMPS_AT};
use super::record::RecordedFrame;
use super::timing::StageTimer;
use super::{bins, bounds, broad, narrow, BroadKernels, StageGroups};
use super::{GpuContext, Pipelines};
use crate::answer::collider::Pair;
use crate::answer::parts::Expansion;
use crate::error::Error;
use crate::grid::cell_size::{choose_grid, QueryGridChoice};
use crate::grid::{query_bucket_count, GridParams};
use crate::input::body::Body;
use crate::input::library::ShapeLibrary;
use crate::layout::bodies::{body_info, update_transforms};
use crate::layout::packed::{
    BodyInfo, BodyTransform, Counters, DeferredScan, GridInfo, LongPair, Params, SweptLongPair,
    GROUP_SHIFT, MAX_BODIES, NO_OWNER, NO_SOURCE_ANGLE, PAIR_KINDS,
};
use crate::layout::shaders::{GridBinding, LibraryBinding, Stage};

/// The buffers, kernels and uploads of one collider's frames, and the operations a
/// frame is made of.
#[derive(Debug)]
pub(crate) struct FramePipeline {
    context: GpuContext,
    library: ShapeLibrary,
    pipelines: Arc<Pipelines>,
    /// How the kernels read the shape library (`GpuContext::library_binding`).
    library_binding: LibraryBinding,
    /// The broad stage's kernels with the walk reading the grid from storage, and on a
    /// device and at a capacity where it may read uniform copies of it
    /// (`GpuContext::grid_binding`, asked again when the body buffers grow), those
    /// kernels too: crowded frames use them ([`FramePipeline::grid_binding`]).
    broad: Arc<BroadKernels>,
    copied_broad: Option<Arc<BroadKernels>>,
    capacity: Capacity,
    buffers: Buffers,
    groups: Groups,
    /// The body infos on the GPU, to upload them only when they change.
    uploaded_infos: Vec<BodyInfo>,
    /// Where the library cuts shapes into parts: the caller's body each body of the
    /// frame is a part of ([`BodyInfo::owner`]), set by [`Self::set_owners`]; empty
    /// where the bodies are the caller's own.
    owners: Vec<u32>,
    /// The groups those parts are in, and their boxes (set with the owners).
    part_groups: PartGroups,
    /// Whether the bodies last uploaded are in groups, their boxes uploaded with them.
    grouped: bool,
    /// The grid's layout, chosen again when the infos change.
    grid: GridParams,
    /// The query grid's layout, for the last batch's kind (see `super::query`).
    query_grid: QueryGridChoice,
    /// Per-stage GPU times, where the device has timestamp queries; written only in
    /// runs asked to be timed.
    timer: Option<StageTimer>,
    /// Candidates the last frame counted, as the collider keeps them for its stats:
    /// crowded frames bin their candidates and may walk uniform copies of the grid.
    last_candidates: u64,
    /// Candidates of each kind pair in the last frame that counted them (every frame
    /// without motion), from which a crowded frame lays out its bins (`super::bins`).
    kind_counts: [u32; PAIR_KINDS as usize],
    /// Reused every frame so a frame allocates nothing on the host; `angles` are those the
    /// transforms' rotations were computed from (see [`update_transforms`]).
    transforms: Vec<BodyTransform>,
    angles: Vec<f32>,
    infos: Vec<BodyInfo>,
    /// Words at which the vertices and the bitmask words start in the library buffer.
    library_bases: (u32, u32),
    /// The contact pass, built on the first contact frame (`super::contact`).
    contact: ContactState,
    /// The queries' buffers, made by the first batch (`super::query`).
    query_buffers: Option<QueryBuffers>,
    /// Whether a pair of the library's shapes may take more than one chunk to test
    /// (`crate::cpu::narrow::has_long_tests`): where none can, frames skip the kernels
    /// of long tests.
    long_tests: bool,
    /// Whether bodies have been uploaded, by any frame or query.
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
    /// Whether the frame's parts are in groups (`broad::dispatch_search`).
    part_groups: bool,
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
    broad::dispatch_search(kernels, &mut pass, groups, b, walk.part_groups);
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

impl FramePipeline {
    /// Compiles the pipelines and uploads the shape library, once.
    pub(crate) fn new(context: &GpuContext, library: ShapeLibrary) -> Result<Self, Error> {
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
                group_boxes: 1,
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
            let part_groups = PartGroups::new(&library.shapes);
            Ok(FramePipeline {
                context: context.clone(),
                library,
                part_groups,
                grouped: false,
                pipelines,
                library_binding,
                broad,
                copied_broad,
                capacity,
                buffers,
                groups,
                uploaded_infos: Vec::new(),
                owners: Vec::new(),
                query_grid: QueryGridChoice::default(),
                grid,
                timer: StageTimer::new(device, &context.queue),
                last_candidates: 0,
                kind_counts: [0; PAIR_KINDS as usize],
                transforms: Vec::new(),
                angles: Vec::new(),
                infos: Vec::new(),
                library_bases: (vertex_base, word_base),
                contact: ContactState::default(),
                query_buffers: None,
                long_tests,
                warm: false,
            })
        })
    }

    /// The shape library.
    pub(crate) fn library(&self) -> &ShapeLibrary {
        &self.library
    }

    #[cfg(feature = "internals")]
    /// How the kernels read the shape library (`GpuCollider::library_binding`).
    pub(crate) fn library_binding(&self) -> LibraryBinding {
        self.library_binding
    }

    /// How the next frame's broad phase reads the grid it walks
    /// (`GpuCollider::grid_binding` says when and why).
    pub(crate) fn grid_binding(&self) -> GridBinding {
        let crowded = self.last_candidates >= narrow::BIN_FROM_CANDIDATES as u64;
        if self.copied_broad.is_some() && crowded {
            GridBinding::Uniform
        } else {
            GridBinding::Storage
        }
    }

    /// The device the pipeline runs on.
    pub(crate) fn context(&self) -> &GpuContext {
        &self.context
    }

    /// Keeps the last frame's candidate count (`None` where it counted none), by which
    /// the next frame chooses whether to bin its candidates and how to walk the grid.
    pub(crate) fn note_candidates(&mut self, candidates: Option<u64>) {
        self.last_candidates = candidates.unwrap_or(0);
    }

    /// The timer, when a run asked to be `timed` is (the device has timestamp queries).
    pub(crate) fn timer(&self, timed: bool) -> Option<&StageTimer> {
        self.timer.as_ref().filter(|_| timed)
    }

    /// Whether the device can time the stages.
    pub(crate) fn can_time(&self) -> bool {
        self.timer.is_some()
    }

    /// The buffers' capacity now.
    pub(crate) fn capacity(&self) -> Capacity {
        self.capacity
    }

    /// Whether the library's shapes may need long tests (see the field).
    pub(crate) fn long_tests(&self) -> bool {
        self.long_tests
    }

    /// Whether bodies have been uploaded, by any frame or query, since the pipeline was
    /// made.
    pub(crate) fn is_warm(&self) -> bool {
        self.warm
    }

    /// Forgets the bodies uploaded and the kind counts kept, as if no frame had run
    /// (the next frame uploads its own infos and chooses its own grid).
    pub(crate) fn forget_frames(&mut self) {
        self.last_candidates = 0;
        self.kind_counts = [0; PAIR_KINDS as usize];
        self.uploaded_infos.clear();
    }

    /// Dispatches each kernel once over no work (a driver that compiles a kernel at its
    /// first dispatch, as llvmpipe does, compiles it now), and waits for the GPU.
    pub(crate) fn warm_up_kernels(&self) -> Result<(), Error> {
        let device = &self.context.device;
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
        self.context.queue.submit([encoder.finish()]);
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the GPU failed: {e}")))?;
        Ok(())
    }

    /// Binds the caller's buffer of bodies for the bounds kernel (`read_bodies`).
    pub(crate) fn bind_source(&self, binding: wgpu::BufferBinding) -> wgpu::BindGroup {
        bounds::source_group(
            &self.context.device,
            &self.pipelines.bounds,
            &self.buffers,
            binding,
        )
    }

    /// Records the copies of the counters and the pairs' header into `status`, a
    /// recorded frame's count buffer of `status_bytes` bytes.
    pub(crate) fn copy_status(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        status: &wgpu::Buffer,
        status_bytes: u64,
    ) {
        let at = size_of::<Counters>() as u64;
        let b = &self.buffers;
        encoder.copy_buffer_to_buffer(&b.counters, 0, status, 0, at);
        encoder.copy_buffer_to_buffer(&b.header, 0, status, at, status_bytes - at);
    }

    /// The recorded frame numbered `frame`: the buffers its pairs stay in.
    pub(crate) fn recorded_frame(&self, frame: u64) -> RecordedFrame {
        RecordedFrame {
            frame,
            pairs: self.buffers.pairs.clone(),
            header: self.buffers.header.clone(),
            pair_capacity: self.capacity.pairs,
        }
    }

    /// Uploads each body's displacement over the frame, for a frame with motion.
    pub(crate) fn upload_velocities(&mut self, bodies: &[Body]) {
        let velocities: Vec<[f32; 2]> = bodies.iter().map(|b| b.velocity.to_array()).collect();
        self.context.queue.write_buffer(
            &self.buffers.velocities,
            0,
            bytemuck::cast_slice(&velocities),
        );
    }

    /// Uploads the bodies again after the buffers grew (new buffers hold nothing), and
    /// their displacements in a frame with motion.
    pub(crate) fn reupload(&mut self, bodies: &[Body], swept: bool) {
        self.upload_bodies(bodies);
        if swept {
            self.upload_velocities(bodies);
        }
    }

    /// The first `stored` times of impact, copied to the readback by a swept run.
    pub(crate) fn read_tois(&self, stored: usize) -> Result<Vec<f32>, Error> {
        let b = &self.buffers;
        read_mapped(&self.context.device, &b.toi_readback, |bytes| {
            bytes[..stored * size_of::<f32>()]
                .chunks_exact(size_of::<f32>())
                .map(bytemuck::pod_read_unaligned::<f32>)
                .collect()
        })
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
        // Room for the groups' boxes was made by `prepare`; without it (or without
        // groups) every part walks alone.
        let mut grouped = false;
        if self.part_groups.room() <= self.capacity.group_boxes {
            if let Some(boxes) = self.part_groups.boxes(bodies) {
                let queue = &self.context.queue;
                queue.write_buffer(&self.buffers.group_boxes, 0, bytemuck::cast_slice(boxes));
                grouped = true;
            }
        }
        self.grouped = grouped;
        self.upload_infos_as(bodies, true, false, grouped);
    }

    /// Uploads the bodies' infos if they changed, and then chooses the pairs' grid again:
    /// from a sample of the positions `with_positions` (the transforms just uploaded),
    /// from the shapes' sizes alone otherwise (positions in a buffer of the caller's).
    pub(crate) fn upload_infos(&mut self, bodies: &[Body], with_positions: bool) {
        self.grouped = false;
        self.upload_infos_as(bodies, with_positions, false, false);
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
        self.grouped = false;
        self.upload_infos_as(bodies, true, true, false);
    }

    /// The caller's body each body of the next frames is a part of, from the frame's
    /// expansion; `None` where the bodies are the caller's own.
    pub(crate) fn set_owners(&mut self, parts: Option<&Expansion>) {
        self.owners.clear();
        if let Some(parts) = parts {
            self.owners.extend_from_slice(parts.part_owners());
        }
        self.part_groups.set(parts);
    }

    /// [`Self::upload_infos`], with every mask opened when `open_masks`, and the parts'
    /// group codes when `grouped` (their boxes uploaded for these bodies).
    fn upload_infos_as(
        &mut self,
        bodies: &[Body],
        with_positions: bool,
        open_masks: bool,
        grouped: bool,
    ) {
        // Bodies of the caller's: `reserve` no longer needs to warm the kernels up, and
        // would otherwise forget what this frame chose.
        self.warm = true;
        // The shape kinds go along for read_bodies (BodyInfo::kind).
        let shapes = &self.library.shapes;
        // Owners that are not this frame's would drop pairs that are not parts of one
        // body: then none are dropped here (the host drops them, `Expansion`).
        debug_assert!(self.owners.is_empty() || self.owners.len() == bodies.len());
        let owners = if self.owners.len() == bodies.len() {
            &self.owners[..]
        } else {
            &[]
        };
        let part_groups = &self.part_groups;
        let group = |k: usize| {
            if grouped {
                part_groups.code(k, bodies.len())
            } else {
                0
            }
        };
        let info_of = |k: usize, body: &Body| {
            let info = BodyInfo {
                kind: shapes[body.shape as usize].kind | group(k) << GROUP_SHIFT,
                owner: owners.get(k).copied().unwrap_or(NO_OWNER),
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
                .enumerate()
                .zip(self.uploaded_infos.par_iter())
                .with_min_len(8192)
                .all(|((k, body), uploaded)| info_of(k, body) == *uploaded);
        if !unchanged {
            self.infos.clear();
            self.infos.par_extend(
                bodies
                    .par_iter()
                    .enumerate()
                    .with_min_len(8192)
                    .map(|(k, body)| info_of(k, body)),
            );
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
    /// Stage times are written where `timed` and the device has timestamps.
    pub(crate) fn run(
        &self,
        bodies: u32,
        slice: (u32, u32),
        limit: u32,
        swept: bool,
        timed: bool,
    ) -> Result<FrameResult, Error> {
        let b = &self.buffers;
        let toi_target = swept.then_some((&b.toi_readback, 0));
        let _ = self.submit_run(bodies, slice, limit, &b.readback, toi_target, timed);
        let pair_capacity = self.capacity.pairs;
        let timed = self.timer(timed).is_some();
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
        timed: bool,
    ) -> wgpu::SubmissionIndex {
        let mut encoder =
            self.context
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("frame"),
                });
        let run = Run::uploaded(bodies, slice, limit, timed, toi_target.is_some());
        self.encode_run_with_copies(&mut encoder, &run, readback, toi_target);
        self.context.queue.submit([encoder.finish()])
    }

    /// Records `run` as `submit_run` describes, and the copies into `readback`.
    fn encode_run_with_copies(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        run: &Run,
        readback: &wgpu::Buffer,
        toi_target: Option<(&wgpu::Buffer, u64)>,
    ) {
        let b = &self.buffers;
        self.encode_run(encoder, run);
        encoder.copy_buffer_to_buffer(&b.counters, 0, readback, 0, STAMPS_AT);
        if let Some(timer) = self.timer(run.timed) {
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
                    self.grouped,
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
    /// and the copies, when the next frame uses them ([`FramePipeline::grid_binding`]).
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
                part_groups: self.grouped,
            }),
            _ => None,
        }
    }

    /// Records bounds and the grid's counting sort alone (`assign_cell` in the bounds
    /// kernel, `allocate_buckets`, `scatter_cells`) for `bodies` bodies: what the queries read
    /// (`super::query`), with the infos they uploaded.
    pub(crate) fn encode_grid(&self, encoder: &mut wgpu::CommandEncoder, bodies: u32) {
        let run = Run::uploaded(bodies, (0, 0), 0, false, false);
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
        !run.swept && self.last_candidates >= narrow::BIN_FROM_CANDIDATES as u64
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
        let room = self.part_groups.room();
        if room > self.capacity.group_boxes {
            self.resize(Capacity {
                group_boxes: grown(room),
                ..self.capacity
            })?;
        }
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
                // Slices of a frame (`GpuCollider::find_slice`) still read every body.
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
}

/// Names of the lists a frame appends to, as messages give them.
pub(super) const CANDIDATES: &str = "pair candidates";
pub(super) const DEFERRED: &str = "crowded-cell pieces and pairs of part groups of the broad phase";
pub(super) const LONG_PAIRS: &str = "long pair tests";
pub(super) const TASKS: &str = "chunks of long pair tests";
/// A long test's bytes: a frame with motion keeps its long tests in the larger
/// SweptLongPair.
pub(super) const LONG_PAIR_BYTES: usize = if size_of::<LongPair>() > size_of::<SweptLongPair>() {
    size_of::<LongPair>()
} else {
    size_of::<SweptLongPair>()
};

/// One of the lists a frame appends to, each in a buffer of its own: how many items the
/// run counted, of how many bytes each.
#[derive(Debug, Clone, Copy)]
pub(super) struct FrameList {
    pub(super) name: &'static str,
    pub(super) count: u32,
    pub(super) item: usize,
}

/// The lists a run counted, the crowded-cell pieces first: past their buffer's end they
/// leave the other counts short.
pub(super) fn frame_lists(c: &Counters) -> [FrameList; 5] {
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

/// One run of the pipeline, as [`FramePipeline::encode_run`] records it.
pub(crate) struct Run {
    pub(crate) bodies: u32,
    /// Only these bodies look for partners (see `GpuCollider::find_slice`).
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

impl Run {
    /// A run over bodies the host uploaded, whose answer comes back by readback rather
    /// than staying published for a caller's shaders.
    pub(crate) fn uploaded(
        bodies: u32,
        slice: (u32, u32),
        limit: u32,
        timed: bool,
        swept: bool,
    ) -> Run {
        Run {
            bodies,
            slice,
            limit,
            source: None,
            timed,
            publish: false,
            swept,
        }
    }
}

/// The caller's buffer of bodies, bound for `read_bodies`, and where in its structs the
/// stride, position and angle sit, in words (the `source_*` of [`Params`]).
pub(crate) struct SourceBinding {
    pub(crate) group: wgpu::BindGroup,
    pub(crate) words: [u32; 3],
}

/// The number of bodies as the GPU counts them, or the error naming the limit.
pub(crate) fn body_count(bodies: &[Body]) -> Result<u32, Error> {
    checked_body_count(bodies.len())
}

/// `count` as a `u32`, refused past [`MAX_BODIES`].
pub(crate) fn checked_body_count(count: usize) -> Result<u32, Error> {
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
