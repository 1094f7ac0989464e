//! Batched queries on the GPU: host side of `shaders/query.wgsl` (its top comment gives
//! the kernels and why they are shaped so); CPU twin [`crate::cpu::query`].
//!
//! A batch is one list, its rays, then its points, then its boxes, and runs in slices of
//! that list, as many queries each as the device's buffers hold (most batches are one
//! slice; [`crate::GpuCollider::set_query_slice`] sets fewer). The first slice's submission
//! builds the bodies' bounds and the broad phase's grid, by its own kernels from infos
//! with every mask opened (`upload_query_bodies`) and with cells sized for the whole
//! batch ([`crate::grid::cell_size::choose_query_grid`]); each slice then runs the query
//! kernels over the grid and reads back its counters, its rays' answers and its points'
//! and boxes' hits, which join the answers in the batch's order. Nothing is dropped:
//! when a counted list (tasks, pieces, hits) overflowed its buffer, the buffers grow to
//! the next power of two and the slice runs again, or, past one storage binding, runs
//! in smaller slices.
//!
//! This module holds the state and the GPU side and knows nothing of the collider; the
//! collider's methods that drive it are in `src/gpu/collider/query.rs`.

use std::mem::size_of;
use std::ops::Range;

use bytemuck::{Pod, Zeroable};

use super::buffers::{make_buffer, Slot};
use super::{Kernel, KernelFinder, KernelNames};
use crate::answer::query::QueryBatch;
use crate::error::{Error, Location};

/// The stage's kernels, in dispatch order.
#[derive(Debug)]
pub(crate) struct Kernels {
    /// Each query's walk of the cells it covers.
    pub(super) cells: Kernel,
    pub(super) args: Kernel,
    pub(super) deferred: Kernel,
    pub(super) test: Kernel,
    pub(super) pick: Kernel,
    pub(super) normal: Kernel,
}

impl KernelNames for Kernels {
    fn find(kernels: &mut KernelFinder) -> Result<Self, String> {
        Ok(Kernels {
            cells: kernels.find("query")?,
            args: kernels.find("query_args")?,
            deferred: kernels.find("query_deferred")?,
            test: kernels.find("query_test")?,
            pick: kernels.find("query_pick")?,
            normal: kernels.find("query_normal")?,
        })
    }
}

/// The buffer at each binding number of `shaders/query.wgsl`.
pub(crate) const BINDINGS: &[(u32, Slot)] = &[
    (0, Slot::Params),
    (1, Slot::Library),
    (2, Slot::Transforms),
    (3, Slot::Infos),
    (4, Slot::Aabbs),
    (5, Slot::Buckets),
    (6, Slot::GridEntries),
    (7, Slot::GridInfo),
    (8, Slot::QueryParams),
    (9, Slot::Queries),
    (10, Slot::QueryTasks),
    (11, Slot::QueryPieces),
    (12, Slot::QueryCounters),
    (13, Slot::QueryHits),
    (14, Slot::RayAnswers),
    (15, Slot::DispatchArgs),
    (16, Slot::BodyCells),
];

/// `PackedQuery::kind` of a ray.
pub const QUERY_RAY: u32 = 0;
/// `PackedQuery::kind` of a point.
pub const QUERY_POINT: u32 = 1;
/// `PackedQuery::kind` of a box.
pub const QUERY_BOX: u32 = 2;

/// The sizes of a batch. Mirrors WGSL `QueryParams` (a uniform).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct QueryParams {
    /// Queries in all: rays, then points, then boxes.
    pub query_count: u32,
    /// Rays, the first queries.
    pub rays: u32,
    /// Where the boxes start.
    pub boxes_from: u32,
    /// Slots in the task buffer.
    pub task_capacity: u32,
    /// Slots in the piece buffer.
    pub piece_capacity: u32,
    /// Slots in the hit buffer.
    pub hit_capacity: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 2],
}

/// One query as the GPU reads it. Mirrors WGSL `PackedQuery`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Pod, Zeroable)]
pub struct PackedQuery {
    /// A ray's origin, a point, a box's min.
    pub a: [f32; 2],
    /// A ray's delta, the point again, a box's max.
    pub b: [f32; 2],
    /// The layers the query sees.
    pub mask: u32,
    /// [`QUERY_RAY`], [`QUERY_POINT`] or [`QUERY_BOX`].
    pub kind: u32,
}

/// One exact test (a chunk of one, for a bitmask). Mirrors WGSL `QueryTask`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Pod, Zeroable)]
pub struct QueryTask {
    /// The query's index.
    pub query: u32,
    /// The body's index.
    pub body: u32,
    /// Which chunk of the test.
    pub chunk: u32,
    /// Chunks of the test.
    pub chunks: u32,
    /// A ray's hit as `!bits(t)`, 0 for none.
    pub key: u32,
    /// Padding.
    pub pad: u32,
    /// A ray's normal there, `(0, 0)` for none.
    pub normal: [f32; 2],
}

/// Entries of a run of cells in a row (or of a whole level) handed over by a query's
/// walk, to be read by `query_deferred`. Mirrors WGSL `QueryPiece`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct QueryPiece {
    /// The run's first cell: its column and its row.
    pub cell: [i32; 2],
    /// The run's last column.
    pub last: i32,
    /// Its level, with the top bit set for a whole level.
    pub level: u32,
    /// The query.
    pub query: u32,
    /// First entry.
    pub first: u32,
    /// One past the last.
    pub end: u32,
    /// Padding to 32 bytes.
    pub pad: u32,
}

/// The queries' append counters. Mirrors WGSL `QueryCounters`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct QueryCounters {
    /// Tasks appended.
    pub tasks: u32,
    /// Pieces handed over.
    pub pieces: u32,
    /// Hits of points and boxes.
    pub hits: u32,
    /// Invocations stopped by the loop guard; the host fails the batch if any.
    pub unfinished: u32,
}

/// A ray's first hit as the GPU keeps it. Mirrors WGSL `RayAnswer`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Pod, Zeroable)]
pub struct RayAnswer {
    /// `!bits(t)` of the first hit, 0 for none.
    pub key: u32,
    /// `!body` of the lowest body hit there.
    pub body: u32,
    /// Its normal, `(0, 0)` for none.
    pub normal: [f32; 2],
}

/// How many items the queries' growable buffers hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct QueryCapacity {
    pub(super) queries: u32,
    pub(super) tasks: u32,
    pub(super) pieces: u32,
    pub(super) hits: u32,
}

/// Bytes of a hit, `(query, body)`.
pub(super) const HIT_BYTES: usize = size_of::<[u32; 2]>();

/// A first guess of what a query needs of each list, which fits most batches at once: a
/// few tasks a query, a piece for each row of cells it passes on each level, a few hits
/// a point or box. A batch runs in slices of as many queries as these fit one binding.
pub(super) const TASKS_A_QUERY: u32 = 8;
pub(super) const PIECES_A_QUERY: u32 = 16;
pub(super) const HITS_A_QUERY: u32 = 4;

/// The queries' buffers, made by the first batch and grown as batches need.
#[derive(Debug)]
pub(crate) struct QueryBuffers {
    pub(super) capacity: QueryCapacity,
    pub(super) params: wgpu::Buffer,
    pub(super) queries: wgpu::Buffer,
    tasks: wgpu::Buffer,
    pieces: wgpu::Buffer,
    pub(super) counters: wgpu::Buffer,
    pub(super) hits: wgpu::Buffer,
    pub(super) ray_answers: wgpu::Buffer,
    /// The counters, then the rays' answers, read back.
    pub(super) readback: wgpu::Buffer,
    /// The hits, read back: a buffer of their own, so that each readback stays within
    /// the device's largest buffer wherever the lists it copies are each one binding.
    pub(super) hit_readback: wgpu::Buffer,
}

impl QueryBuffers {
    pub(super) fn new(device: &wgpu::Device, capacity: QueryCapacity) -> Result<Self, Error> {
        use wgpu::BufferUsages as U;
        let make =
            |label: &'static str, size: u64, usage: U| make_buffer(device, label, size, usage);
        let items = |n: u32, item: usize| n.max(1) as u64 * item as u64;
        let c = capacity;
        Ok(QueryBuffers {
            capacity,
            params: make(
                "query params",
                size_of::<QueryParams>() as u64,
                U::UNIFORM | U::COPY_DST,
            )?,
            queries: make(
                "queries",
                items(c.queries, size_of::<PackedQuery>()),
                U::STORAGE | U::COPY_DST,
            )?,
            tasks: make(
                "query tasks",
                items(c.tasks, size_of::<QueryTask>()),
                U::STORAGE,
            )?,
            pieces: make(
                "query pieces",
                items(c.pieces, size_of::<QueryPiece>()),
                U::STORAGE,
            )?,
            counters: make(
                "query counters",
                size_of::<QueryCounters>() as u64,
                U::STORAGE | U::COPY_SRC | U::COPY_DST,
            )?,
            hits: make(
                "query hits",
                items(c.hits, HIT_BYTES),
                U::STORAGE | U::COPY_SRC,
            )?,
            ray_answers: make(
                "ray answers",
                items(c.queries, size_of::<RayAnswer>()),
                U::STORAGE | U::COPY_SRC | U::COPY_DST,
            )?,
            readback: make(
                "query readback",
                size_of::<QueryCounters>() as u64 + items(c.queries, size_of::<RayAnswer>()),
                U::MAP_READ | U::COPY_DST,
            )?,
            hit_readback: make(
                "query hit readback",
                items(c.hits, HIT_BYTES),
                U::MAP_READ | U::COPY_DST,
            )?,
        })
    }

    pub(super) fn get(&self, slot: Slot) -> Option<&wgpu::Buffer> {
        match slot {
            Slot::QueryParams => Some(&self.params),
            Slot::Queries => Some(&self.queries),
            Slot::QueryTasks => Some(&self.tasks),
            Slot::QueryPieces => Some(&self.pieces),
            Slot::QueryCounters => Some(&self.counters),
            Slot::QueryHits => Some(&self.hits),
            Slot::RayAnswers => Some(&self.ray_answers),
            _ => None,
        }
    }
}

/// The queries `range` of the batch as the GPU reads them: the batch is one list, its
/// rays, then its points, then its boxes, and a slice is a run of that list.
pub(super) fn pack(batch: &QueryBatch, range: Range<usize>) -> Vec<PackedQuery> {
    let (rays, points) = (batch.rays.len(), batch.points.len());
    range
        .map(|k| {
            if k < rays {
                let r = &batch.rays[k];
                PackedQuery {
                    a: r.origin.to_array(),
                    b: r.delta.to_array(),
                    mask: r.mask,
                    kind: QUERY_RAY,
                }
            } else if k < rays + points {
                let p = &batch.points[k - rays];
                PackedQuery {
                    a: p.point.to_array(),
                    b: p.point.to_array(),
                    mask: p.mask,
                    kind: QUERY_POINT,
                }
            } else {
                let b = &batch.boxes[k - rays - points];
                PackedQuery {
                    a: b.min.to_array(),
                    b: b.max.to_array(),
                    mask: b.mask,
                    kind: QUERY_BOX,
                }
            }
        })
        .collect()
}

/// Which query of the batch the `k`th of its one list is (rays, points, boxes).
pub(super) fn locate(batch: &QueryBatch, k: usize) -> Location {
    let (rays, points) = (batch.rays.len(), batch.points.len());
    if k < rays {
        Location::Ray(k)
    } else if k < rays + points {
        Location::Point(k - rays)
    } else {
        Location::Box(k - rays - points)
    }
}

/// What one run of the query kernels found.
pub(super) struct QueryRun {
    pub(super) counters: QueryCounters,
    pub(super) rays: Vec<RayAnswer>,
    pub(super) hits: Vec<[u32; 2]>,
}

/// One of the lists a run of the query kernels appends to: its name in messages, how
/// many items the run counted, the most one binding holds, and an item's bytes.
pub(super) struct QueryList {
    pub(super) name: &'static str,
    pub(super) count: u32,
    pub(super) room: u32,
    pub(super) item: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::query::{BoxQuery, PointQuery, Ray};
    use glam::Vec2;

    #[test]
    fn slices_of_the_batch_pack_and_locate_as_the_whole_does() {
        let batch = QueryBatch {
            rays: (0..3)
                .map(|k| Ray::new(Vec2::new(k as f32, 0.0), Vec2::X).with_mask(k))
                .collect(),
            points: (0..2)
                .map(|k| PointQuery::new(Vec2::new(0.0, k as f32)))
                .collect(),
            boxes: (0..4)
                .map(|k| BoxQuery::new(Vec2::splat(-(k as f32)), Vec2::splat(k as f32)))
                .collect(),
        };
        let whole = pack(&batch, 0..9);
        let kinds: Vec<u32> = whole.iter().map(|q| q.kind).collect();
        assert_eq!(kinds, [0, 0, 0, 1, 1, 2, 2, 2, 2]);
        assert_eq!((whole[2].a, whole[2].mask), ([2.0, 0.0], 2));
        assert_eq!((whole[4].a, whole[4].b), ([0.0, 1.0], [0.0, 1.0]));
        assert_eq!((whole[8].a, whole[8].b), ([-3.0, -3.0], [3.0, 3.0]));
        for size in 1..=9 {
            let mut joined = Vec::new();
            for first in (0..9).step_by(size) {
                joined.extend(pack(&batch, first..(first + size).min(9)));
            }
            assert_eq!(joined, whole, "slices of {size}");
        }
        let names: Vec<String> = (0..9).map(|k| locate(&batch, k).to_string()).collect();
        assert_eq!(
            names,
            ["ray 0", "ray 1", "ray 2", "point 0", "point 1", "box 0", "box 1", "box 2", "box 3"]
        );
    }
}
