//! The buffers a [`super::GpuCollider`] works in, and how many items each holds: the
//! growable ones are sized by a [`Capacity`], grown to the next power of two and never
//! past one storage binding of the device.

use std::mem::size_of;

use super::readback::PAIRS_AT;
use crate::answer::collider::Pair;
use crate::error::Error;
use crate::grid::query_bucket_count;
use crate::layout::packed::{
    table_words, Aabb, BodyCell, BodyInfo, BodyTransform, Counters, DeferredScan, DispatchArgs,
    GridInfo, LongPair, PairsHeader, Params, SweptLongPair, ARGS_COUNT, BOX_KEY_BODIES,
};
use crate::layout::shaders::{GridBinding, LibraryBinding};

/// How many items each growable buffer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Capacity {
    pub(crate) bodies: u32,
    pub(crate) candidates: u32,
    pub(crate) pairs: u32,
    pub(crate) deferred: u32,
    pub(crate) long_pairs: u32,
    pub(crate) tasks: u32,
    /// Boxes of groups of parts, two for each of the caller's bodies
    /// (`part_groups`); at least one, as a runtime-sized array needs.
    pub(crate) group_boxes: u32,
}

/// What a frame's growable buffers had room for when it was submitted, to tell, once its
/// counters come back, whether everything it found was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Room {
    /// Candidate pairs the candidate buffer holds.
    pub(crate) candidates: u32,
    /// Colliding pairs the pair buffer holds.
    pub(crate) pairs: u32,
    /// Pieces of crowded cells the deferred buffer holds.
    pub(crate) deferred: u32,
    /// Candidates whose exact test is split into chunks.
    pub(crate) long_pairs: u32,
    /// Chunks of those split tests.
    pub(crate) tasks: u32,
}

impl Room {
    /// The room of buffers of this capacity.
    pub(crate) fn of(c: &Capacity) -> Self {
        Room {
            candidates: c.candidates,
            pairs: c.pairs,
            deferred: c.deferred,
            long_pairs: c.long_pairs,
            tasks: c.tasks,
        }
    }

    /// Whether every count of `c` fitted in this room, so nothing the frame found was dropped.
    pub(crate) fn holds(&self, c: &Counters) -> bool {
        c.candidates <= self.candidates
            && c.pairs <= self.pairs
            && c.deferred <= self.deferred
            && c.long_pairs <= self.long_pairs
            && c.tasks <= self.tasks
    }
}

/// Every buffer a frame uses; the shape library's three are uploaded once.
#[derive(Debug)]
pub(crate) struct Buffers {
    pub(crate) params: wgpu::Buffer,
    /// The shape library, uploaded once (`shaders/library.wgsl`).
    pub(crate) library: wgpu::Buffer,
    pub(crate) transforms: wgpu::Buffer,
    pub(crate) infos: wgpu::Buffer,
    pub(crate) aabbs: wgpu::Buffer,
    pub(crate) candidates: wgpu::Buffer,
    /// A verdict per candidate in a frame with motion (`sweep` in `shaders/sweep.wgsl`).
    pub(crate) verdicts: wgpu::Buffer,
    pub(crate) counters: wgpu::Buffer,
    pub(crate) pairs: wgpu::Buffer,
    pub(crate) body_cells: wgpu::Buffer,
    pub(crate) buckets: wgpu::Buffer,
    pub(crate) grid_entries: wgpu::Buffer,
    pub(crate) grid_info: wgpu::Buffer,
    pub(crate) deferred: wgpu::Buffer,
    pub(crate) long_pairs: wgpu::Buffer,
    pub(crate) tasks: wgpu::Buffer,
    /// Indirect dispatch arguments, one slot per `ARGS_*` constant.
    pub(crate) dispatch_args: wgpu::Buffer,
    /// Counters then pairs, copied here for the one readback.
    pub(crate) readback: wgpu::Buffer,
    /// What a frame recorded into the caller's encoder tells the caller's shaders
    /// (`publish`, [`super::GpuCollider::record`]); also their indirect dispatch.
    pub(crate) header: wgpu::Buffer,
    /// Swept pairs (`super::sweep`): each body's displacement over the frame, written
    /// only in frames with motion; the time of impact of each pair, parallel to `pairs`;
    /// the swept candidates whose tests run in chunks; and the times' readback.
    pub(crate) velocities: wgpu::Buffer,
    pub(crate) tois: wgpu::Buffer,
    pub(crate) swept_long_pairs: wgpu::Buffer,
    pub(crate) toi_readback: wgpu::Buffer,
    /// The uniform copies of the sorted grid that the walk reads in
    /// [`GridBinding::Uniform`]; none in the storage form.
    pub(crate) walk: Option<WalkCopies>,
    /// Each group of parts' box and its first part's, by its owner
    /// (`super::part_groups`).
    pub(crate) group_boxes: wgpu::Buffer,
}

/// The uniform copies of the grid's entries, its table's bucket starts and its blocks'
/// ends, and of the bodies' box keys (`GridBinding` says why), each the size its WGSL
/// array declares.
#[derive(Debug)]
pub(crate) struct WalkCopies {
    pub(crate) entries: wgpu::Buffer,
    pub(crate) starts: wgpu::Buffer,
    pub(crate) ends: wgpu::Buffer,
    pub(crate) box_keys: wgpu::Buffer,
}

/// Every buffer a kernel binds. The stages' tables (`BINDINGS` in `bounds.rs`, `broad.rs`
/// and `narrow.rs`) say which sits at each binding number, and a test checks each against
/// the name of the WGSL variable at that binding ([`Slot::wgsl_names`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// The frame's parameters ([`crate::layout::packed::Params`]).
    Params,
    /// The shape library's words.
    Library,
    /// Each body's position and rotation.
    Transforms,
    /// Each body's shape and filter.
    Infos,
    /// Each body's world box.
    Aabbs,
    /// The broad phase's candidate pairs, in bins by kind pair.
    Candidates,
    /// The verdicts of long tests' chunks.
    Verdicts,
    /// The frame's counters ([`crate::layout::packed::Counters`]).
    Counters,
    /// The pairs found, after their header.
    Pairs,
    /// Each body's cell, level and filter in the grid.
    BodyCells,
    /// The grid's hash table of buckets.
    Buckets,
    /// The grid's entries, grouped by bucket.
    GridEntries,
    /// What the grid measured of its levels ([`crate::layout::packed::GridInfo`]).
    GridInfo,
    /// Pieces of crowded cells handed over by the broad phase.
    Deferred,
    /// Candidates whose test takes more than one chunk.
    LongPairs,
    /// The chunks of those tests.
    Tasks,
    /// The indirect dispatches' workgroup counts.
    DispatchArgs,
    /// The pairs' header a caller's shaders read.
    Header,
    /// Each body's displacement over the frame.
    Velocities,
    /// The times of impact of swept pairs.
    Tois,
    /// Swept candidates whose test takes more than one chunk.
    SweptLongPairs,
    /// The caller's buffer of bodies (`GpuCollider::record_from_buffer`), bound frame by frame.
    Source,
    /// The queries' own buffers (`super::query::QueryBuffers`), made by the first batch.
    QueryParams,
    /// See [`Slot::QueryParams`].
    Queries,
    /// See [`Slot::QueryParams`].
    QueryTasks,
    /// See [`Slot::QueryParams`].
    QueryPieces,
    /// See [`Slot::QueryParams`].
    QueryCounters,
    /// See [`Slot::QueryParams`].
    QueryHits,
    /// See [`Slot::QueryParams`].
    RayAnswers,
    /// The uniform copy of `GridEntries` the walk reads ([`GridBinding::Uniform`]).
    WalkEntries,
    /// The uniform copy of the bucket starts of `Buckets`.
    WalkStarts,
    /// The uniform copy of the blocks' ends of `Buckets`.
    WalkEnds,
    /// The uniform copy of the box keys in `GridInfo` (`box_key_word` in grid.wgsl).
    WalkBoxKeys,
    /// Each group of parts' box and its first part's, by its owner (`part_groups`).
    GroupBoxes,
}

impl Slot {
    #[cfg(feature = "internals")]
    /// The names a WGSL variable bound to this buffer may have (a buffer read both as
    /// atomics and plainly has a variable for each view).
    pub fn wgsl_names(self) -> &'static [&'static str] {
        match self {
            Slot::Params => &["uploaded_params"],
            Slot::Library => &["library"],
            Slot::Transforms => &["transforms"],
            Slot::Infos => &["infos"],
            Slot::Aabbs => &["aabbs"],
            Slot::Candidates => &["candidates"],
            Slot::Verdicts => &["verdicts"],
            Slot::Counters => &["counters"],
            Slot::Pairs => &["pairs"],
            Slot::BodyCells => &["body_cells"],
            Slot::Buckets => &["buckets", "bucket_counters"],
            Slot::GridEntries => &["grid_entries"],
            Slot::GridInfo => &["grid_info", "grid_info_counters"],
            Slot::Deferred => &["deferred"],
            Slot::LongPairs => &["long_pairs"],
            Slot::Tasks => &["tasks"],
            Slot::DispatchArgs => &["dispatch_args"],
            Slot::Header => &["header"],
            Slot::Velocities => &["velocities"],
            Slot::Tois => &["tois"],
            Slot::SweptLongPairs => &["swept_long_pairs"],
            Slot::Source => &["source"],
            Slot::QueryParams => &["query_params"],
            Slot::Queries => &["queries"],
            Slot::QueryTasks => &["query_tasks"],
            Slot::QueryPieces => &["query_pieces"],
            Slot::QueryCounters => &["query_counters"],
            Slot::QueryHits => &["query_hits"],
            Slot::RayAnswers => &["ray_answers"],
            Slot::WalkEntries => &["walk_entries"],
            Slot::WalkStarts => &["walk_starts"],
            Slot::WalkEnds => &["walk_ends"],
            Slot::WalkBoxKeys => &["walk_box_keys"],
            Slot::GroupBoxes => &["group_boxes"],
        }
    }
}

impl Buffers {
    /// The buffer in `slot`; `None` for the caller's, which is bound frame by frame, and
    /// for the queries' own.
    pub(crate) fn get(&self, slot: Slot) -> Option<&wgpu::Buffer> {
        match slot {
            Slot::Params => Some(&self.params),
            Slot::Library => Some(&self.library),
            Slot::Transforms => Some(&self.transforms),
            Slot::Infos => Some(&self.infos),
            Slot::Aabbs => Some(&self.aabbs),
            Slot::Candidates => Some(&self.candidates),
            Slot::Verdicts => Some(&self.verdicts),
            Slot::Counters => Some(&self.counters),
            Slot::Pairs => Some(&self.pairs),
            Slot::BodyCells => Some(&self.body_cells),
            Slot::Buckets => Some(&self.buckets),
            Slot::GridEntries => Some(&self.grid_entries),
            Slot::GridInfo => Some(&self.grid_info),
            Slot::Deferred => Some(&self.deferred),
            Slot::LongPairs => Some(&self.long_pairs),
            Slot::Tasks => Some(&self.tasks),
            Slot::DispatchArgs => Some(&self.dispatch_args),
            Slot::Header => Some(&self.header),
            Slot::Velocities => Some(&self.velocities),
            Slot::Tois => Some(&self.tois),
            Slot::SweptLongPairs => Some(&self.swept_long_pairs),
            Slot::WalkEntries => self.walk.as_ref().map(|w| &w.entries),
            Slot::WalkStarts => self.walk.as_ref().map(|w| &w.starts),
            Slot::WalkEnds => self.walk.as_ref().map(|w| &w.ends),
            Slot::WalkBoxKeys => self.walk.as_ref().map(|w| &w.box_keys),
            Slot::GroupBoxes => Some(&self.group_boxes),
            Slot::Source
            | Slot::QueryParams
            | Slot::Queries
            | Slot::QueryTasks
            | Slot::QueryPieces
            | Slot::QueryCounters
            | Slot::QueryHits
            | Slot::RayAnswers => None,
        }
    }
}

/// The capacity to grow to for `count` items: the next power of two, so a growing
/// scene reallocates a logarithmic number of times.
pub(crate) fn grown(count: u32) -> u32 {
    count.checked_next_power_of_two().unwrap_or(u32::MAX)
}

/// The bytes of each buffer that holds something for every body, for a capacity of
/// `bodies`: each is one storage binding, so together they bound the bodies a frame may
/// have on a device ([`BodyLists::largest`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BodyLists {
    pub(crate) transforms: u64,
    pub(crate) infos: u64,
    pub(crate) aabbs: u64,
    pub(crate) body_cells: u64,
    /// The grid's table, sized for the query grid's, twice the pairs'
    /// (`query_bucket_count` says why): a word a bucket and a word a block of them
    /// (`bucket_start` in grid.wgsl).
    pub(crate) buckets: u64,
    /// A body's index each (shaders/broad.wgsl says why no more).
    pub(crate) grid_entries: u64,
    /// The summary, then a placement a body (two words, `placement_word` in grid.wgsl),
    /// the list of seekers (a body each at most) and the box keys (`box_key_word`, a
    /// body each up to `BOX_KEY_BODIES`).
    pub(crate) grid_info: u64,
    pub(crate) velocities: u64,
}

impl BodyLists {
    pub(crate) fn new(bodies: u32) -> Self {
        let items = |item: usize| bodies as u64 * item as u64;
        let words = size_of::<u32>() as u64;
        BodyLists {
            transforms: items(size_of::<BodyTransform>()),
            infos: items(size_of::<BodyInfo>()),
            aabbs: items(size_of::<Aabb>()),
            body_cells: items(size_of::<BodyCell>()),
            buckets: table_words(query_bucket_count(bodies as usize)) as u64 * words,
            grid_entries: items(size_of::<u32>()),
            grid_info: size_of::<GridInfo>() as u64
                + 3 * items(size_of::<u32>())
                + bodies.min(BOX_KEY_BODIES) as u64 * words,
            velocities: items(size_of::<[f32; 2]>()),
        }
    }

    /// The most bodies whose every list fits `limit` bytes.
    pub(crate) fn most_bodies(limit: u64) -> u32 {
        // The lists grow with the bodies: the largest count that fits, by bisection.
        let (mut fits, mut fails) = (0u32, u32::MAX);
        while fails - fits > 1 {
            let mid = fits + (fails - fits) / 2;
            if BodyLists::new(mid).largest().1 <= limit {
                fits = mid;
            } else {
                fails = mid;
            }
        }
        fits
    }

    /// The largest of the lists, named as a person would: what must fit one binding.
    pub(crate) fn largest(&self) -> (&'static str, u64) {
        [
            ("the bodies' transforms", self.transforms),
            ("the bodies' infos", self.infos),
            ("the bodies' boxes", self.aabbs),
            ("the bodies' grid cells", self.body_cells),
            ("the grid's hash table", self.buckets),
            ("the grid's entries", self.grid_entries),
            ("the grid's placements and lists", self.grid_info),
            ("the bodies' velocities", self.velocities),
        ]
        .into_iter()
        .max_by_key(|&(_, bytes)| bytes)
        .unwrap_or(("the bodies' transforms", self.transforms))
    }
}

/// The most bytes one storage buffer of this device may hold and be bound whole.
pub(crate) fn binding_limit(device: &wgpu::Device) -> u64 {
    let limits = device.limits();
    limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
}

/// Fails when a buffer of `size` bytes cannot be bound as storage on this device, naming
/// it by `label`. The callers size their buffers within the limit beforehand and name
/// what overflowed with its count; this is the last guard.
pub(crate) fn check_binding(device: &wgpu::Device, label: &str, size: u64) -> Result<(), Error> {
    let limit = binding_limit(device);
    if size > limit {
        return Err(Error::buffer_too_large(
            format!("the `{label}` buffer"),
            size,
            limit,
            "",
        ));
    }
    Ok(())
}

const UNIFORM_BYTES: u64 = LibraryBinding::UNIFORM_BYTES;

impl Buffers {
    /// The buffers for `capacity`, with the uniform copies of the grid where the walk
    /// reads it through `grid`.
    pub(crate) fn new(
        device: &wgpu::Device,
        library: wgpu::Buffer,
        capacity: Capacity,
        grid: GridBinding,
    ) -> Result<Self, Error> {
        use wgpu::BufferUsages as U;
        let make =
            |label: &'static str, size: u64, usage: U| make_buffer(device, label, size, usage);
        let items = |n: u32, item: usize| n as u64 * item as u64;
        let pair_bytes = items(capacity.pairs, size_of::<Pair>());
        let toi_bytes = items(capacity.pairs, size_of::<f32>());
        let body_lists = BodyLists::new(capacity.bodies);
        Ok(Buffers {
            params: make(
                "params",
                size_of::<Params>() as u64,
                U::UNIFORM | U::COPY_DST,
            )?,
            library,
            transforms: make(
                "transforms",
                body_lists.transforms,
                U::STORAGE | U::COPY_DST,
            )?,
            infos: make("body infos", body_lists.infos, U::STORAGE | U::COPY_DST)?,
            aabbs: make("aabbs", body_lists.aabbs, U::STORAGE)?,
            candidates: make(
                "candidates",
                items(capacity.candidates, size_of::<Pair>()),
                U::STORAGE,
            )?,
            verdicts: make(
                "verdicts",
                items(capacity.candidates, size_of::<Pair>()),
                U::STORAGE,
            )?,
            counters: make(
                "counters",
                size_of::<Counters>() as u64,
                U::STORAGE | U::COPY_SRC | U::COPY_DST,
            )?,
            pairs: make("pairs", pair_bytes, U::STORAGE | U::COPY_SRC)?,
            body_cells: make("body cells", body_lists.body_cells, U::STORAGE)?,
            buckets: make(
                "buckets",
                body_lists.buckets,
                U::STORAGE | U::COPY_DST | U::COPY_SRC,
            )?,
            grid_entries: make(
                "grid entries",
                body_lists.grid_entries,
                U::STORAGE | U::COPY_SRC,
            )?,
            grid_info: make(
                "grid info",
                body_lists.grid_info,
                U::STORAGE | U::COPY_DST | U::COPY_SRC,
            )?,
            deferred: make(
                "deferred scans",
                items(capacity.deferred, size_of::<DeferredScan>()),
                U::STORAGE,
            )?,
            long_pairs: make(
                "long pairs",
                items(capacity.long_pairs, size_of::<LongPair>()),
                U::STORAGE,
            )?,
            tasks: make("tasks", items(capacity.tasks, size_of::<u32>()), U::STORAGE)?,
            dispatch_args: make(
                "dispatch arguments",
                ARGS_COUNT as u64 * size_of::<DispatchArgs>() as u64,
                U::STORAGE | U::INDIRECT,
            )?,
            readback: make("readback", PAIRS_AT + pair_bytes, U::MAP_READ | U::COPY_DST)?,
            header: make(
                "pairs header",
                size_of::<PairsHeader>() as u64,
                U::STORAGE | U::INDIRECT | U::COPY_SRC,
            )?,
            velocities: make(
                "velocities",
                body_lists.velocities,
                U::STORAGE | U::COPY_DST,
            )?,
            tois: make("tois", toi_bytes, U::STORAGE | U::COPY_SRC)?,
            swept_long_pairs: make(
                "swept long pairs",
                items(capacity.long_pairs, size_of::<SweptLongPair>()),
                U::STORAGE,
            )?,
            toi_readback: make("toi readback", toi_bytes, U::MAP_READ | U::COPY_DST)?,
            group_boxes: make(
                "group boxes",
                items(capacity.group_boxes.max(1), size_of::<Aabb>()),
                U::STORAGE | U::COPY_DST,
            )?,
            walk: match grid {
                GridBinding::Storage => None,
                GridBinding::Uniform => Some(WalkCopies {
                    entries: make("walk entries", UNIFORM_BYTES, U::UNIFORM | U::COPY_DST)?,
                    starts: make("walk starts", UNIFORM_BYTES, U::UNIFORM | U::COPY_DST)?,
                    ends: make(
                        "walk ends",
                        GridBinding::UNIFORM_END_BYTES,
                        U::UNIFORM | U::COPY_DST,
                    )?,
                    box_keys: make("walk box keys", UNIFORM_BYTES, U::UNIFORM | U::COPY_DST)?,
                }),
            },
        })
    }
}

impl Buffers {
    /// Records the zeroing of every buffer a frame writes. wgpu zeroes a buffer before
    /// the first command that uses it, which on a new buffer of a software adapter also
    /// means the first touch of its memory: recorded here, right after the buffers are
    /// made, the first frame no longer pays it (about a third of a steady frame at
    /// 200k bodies on lavapipe; BENCHMARKS.md, "The first frame").
    pub(crate) fn clear(&self, encoder: &mut wgpu::CommandEncoder) {
        // Every buffer but the library, which was written when it was made.
        let written = [
            &self.params,
            &self.transforms,
            &self.infos,
            &self.aabbs,
            &self.candidates,
            &self.verdicts,
            &self.counters,
            &self.pairs,
            &self.body_cells,
            &self.buckets,
            &self.grid_entries,
            &self.grid_info,
            &self.deferred,
            &self.long_pairs,
            &self.tasks,
            &self.dispatch_args,
            &self.readback,
            &self.header,
            &self.velocities,
            &self.tois,
            &self.swept_long_pairs,
            &self.toi_readback,
        ];
        for buffer in written {
            encoder.clear_buffer(buffer, 0, None);
        }
    }
}

/// A buffer of `size` bytes, refused with [`Error::TooLarge`] naming `label` when it is a
/// storage buffer larger than one binding of the device may be (`check_binding`). Every
/// buffer may be cleared (`COPY_DST`; wgpu asks that of every buffer internally anyway,
/// to zero it before its first use), so [`Buffers::clear`] can do that zeroing early.
pub(crate) fn make_buffer(
    device: &wgpu::Device,
    label: &'static str,
    size: u64,
    usage: wgpu::BufferUsages,
) -> Result<wgpu::Buffer, Error> {
    if usage.contains(wgpu::BufferUsages::STORAGE) {
        check_binding(device, label, size)?;
    }
    Ok(device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bodies_a_binding_holds_are_bounded_by_their_grid_cells() {
        // Lavapipe's and WebGPU's default 128 MiB: 24 bytes a body's grid cell.
        let limit = 1 << 27;
        let most = BodyLists::most_bodies(limit);
        assert_eq!(most, (limit / size_of::<BodyCell>() as u64) as u32);
        assert_eq!(
            BodyLists::new(most).largest(),
            ("the bodies' grid cells", most as u64 * 24)
        );
        assert!(BodyLists::new(most + 1).largest().1 > limit);
        // Small limits, where the grid's table of at least 1024 buckets is the largest.
        for limit in [1 << 14, 1 << 20, 1 << 30] {
            let most = BodyLists::most_bodies(limit);
            assert!(BodyLists::new(most).largest().1 <= limit, "{limit}");
            assert!(BodyLists::new(most + 1).largest().1 > limit, "{limit}");
        }
    }
}
