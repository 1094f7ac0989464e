//! Batched queries on the GPU: host side of `shaders/query.wgsl` (its top comment gives
//! the kernels and why they are shaped so); CPU twin [`crate::cpu::query`].
//!
//! A batch is one list, its rays, then its points, then its boxes, and runs in slices of
//! that list, as many queries each as the device's buffers hold (most batches are one
//! slice; [`GpuCollider::set_query_slice`] sets fewer). The first slice's submission
//! builds the bodies' bounds and the broad phase's grid, by its own kernels from infos
//! with every mask opened (`upload_query_bodies`) and with cells sized for the whole
//! batch ([`crate::cell_size::choose_query_grid`]); each slice then runs the query
//! kernels over the grid and reads back its counters, its rays' answers and its points'
//! and boxes' hits, which join the answers in the batch's order. Nothing is dropped:
//! when a counted list (tasks, pieces, hits) overflowed its buffer, the buffers grow to
//! the next power of two and the slice runs again, or, past one storage binding, runs
//! in smaller slices.

use std::mem::size_of;
use std::num::NonZeroU32;
use std::ops::Range;

use bytemuck::{Pod, Zeroable};
use glam::Vec2;

use super::buffers::{grown, make_buffer, Slot};
use super::collider::{body_count, GpuCollider};
use super::readback::read_mapped;
use super::{Kernel, KernelFinder, KernelNames};
use crate::body::Body;
use crate::error::{Error, Location};
use crate::grid::GridParams;
use crate::packed::{dispatch_size, ARGS_DEFERRED, ARGS_TASKS};
use crate::query::{QueryAnswers, QueryBatch, RayHit};

/// The stage's kernels, in dispatch order.
#[derive(Debug)]
pub(crate) struct Kernels {
    /// Each query's walk of the cells it covers.
    cells: Kernel,
    args: Kernel,
    deferred: Kernel,
    test: Kernel,
    pick: Kernel,
    normal: Kernel,
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
struct QueryCapacity {
    queries: u32,
    tasks: u32,
    pieces: u32,
    hits: u32,
}

/// Bytes of a hit, `(query, body)`.
const HIT_BYTES: usize = size_of::<[u32; 2]>();

/// A first guess of what a query needs of each list, which fits most batches at once: a
/// few tasks a query, a piece for each row of cells it passes on each level, a few hits
/// a point or box. A batch runs in slices of as many queries as these fit one binding.
const TASKS_A_QUERY: u32 = 8;
const PIECES_A_QUERY: u32 = 16;
const HITS_A_QUERY: u32 = 4;

/// The queries' buffers, made by the first batch and grown as batches need.
#[derive(Debug)]
pub(crate) struct QueryBuffers {
    capacity: QueryCapacity,
    params: wgpu::Buffer,
    queries: wgpu::Buffer,
    tasks: wgpu::Buffer,
    pieces: wgpu::Buffer,
    counters: wgpu::Buffer,
    hits: wgpu::Buffer,
    ray_answers: wgpu::Buffer,
    /// The counters, then the rays' answers, read back.
    readback: wgpu::Buffer,
    /// The hits, read back: a buffer of their own, so that each readback stays within
    /// the device's largest buffer wherever the lists it copies are each one binding.
    hit_readback: wgpu::Buffer,
}

impl QueryBuffers {
    fn new(device: &wgpu::Device, capacity: QueryCapacity) -> Result<Self, Error> {
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

    fn get(&self, slot: Slot) -> Option<&wgpu::Buffer> {
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
fn pack(batch: &QueryBatch, range: Range<usize>) -> Vec<PackedQuery> {
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
fn locate(batch: &QueryBatch, k: usize) -> Location {
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
struct QueryRun {
    counters: QueryCounters,
    rays: Vec<RayAnswer>,
    hits: Vec<[u32; 2]>,
}

/// One of the lists a run of the query kernels appends to: its name in messages, how
/// many items the run counted, the most one binding holds, and an item's bytes.
struct QueryList {
    name: &'static str,
    count: u32,
    room: u32,
    item: usize,
}

impl GpuCollider {
    /// Runs later query batches in slices of at most `queries` queries each; `None`, the
    /// default, runs as many at once as the device's buffers hold. A batch of any size is
    /// answered either way, with the same answers: smaller slices bound the memory the
    /// queries' buffers take (some 850 bytes a query of a slice, more where queries meet
    /// many bodies), at the cost of a submission and a readback a slice.
    ///
    /// ```no_run
    /// # use gpu_collide::{GpuCollider, GpuContext, ShapeLibrary};
    /// # let gpu = GpuContext::new()?;
    /// let mut collider = GpuCollider::new(&gpu, ShapeLibrary::default())?;
    /// collider.set_query_slice(std::num::NonZeroU32::new(100_000));
    /// # Ok::<(), gpu_collide::Error>(())
    /// ```
    pub fn set_query_slice(&mut self, queries: Option<NonZeroU32>) {
        self.query_slice = queries;
    }

    /// The most queries a slice of a batch holds, as set with
    /// [`GpuCollider::set_query_slice`]; `None` for as many as the device's buffers hold.
    pub fn query_slice(&self) -> Option<NonZeroU32> {
        self.query_slice
    }

    /// [`crate::Collider::query`] once the batch and the bodies are checked.
    pub(crate) fn query_checked(
        &mut self,
        bodies: &[Body],
        batch: &QueryBatch,
    ) -> Result<QueryAnswers, Error> {
        let mut answers = QueryAnswers {
            rays: vec![None; batch.rays.len()],
            points: vec![Vec::new(); batch.points.len()],
            boxes: vec![Vec::new(); batch.boxes.len()],
        };
        if bodies.is_empty() || batch.is_empty() {
            return Ok(answers);
        }
        let count = body_count(bodies)?;
        self.grow_bodies(count)?;
        self.upload_query_bodies(bodies);
        // The grid's cells are sized for the queries (`choose_query_grid`); the pairs'
        // grid is put back afterwards, for frames whose infos match these.
        let query_grid = self.query_grid_params(batch);
        let pairs_grid = std::mem::replace(&mut self.grid, query_grid);
        let answered = self.answer(count, batch, &mut answers);
        self.grid = pairs_grid;
        answered.map(|()| answers)
    }

    /// The grid for `batch` over the uploaded bodies, chosen again when they or the
    /// batch's counts change.
    fn query_grid_params(&mut self, batch: &QueryBatch) -> GridParams {
        let (library, infos, transforms) = (&self.library, &self.uploaded_infos, &self.transforms);
        self.query_grid.params(library, infos, transforms, batch)
    }

    /// The most items each of the queries' buffers may hold: one storage binding each.
    fn query_room(&self) -> QueryCapacity {
        QueryCapacity {
            // The rays' answers, 16 bytes a query, fit where the queries do.
            queries: self.binding_items(size_of::<PackedQuery>().max(size_of::<RayAnswer>())),
            tasks: self.binding_items(size_of::<QueryTask>()),
            pieces: self.binding_items(size_of::<QueryPiece>()),
            hits: self.binding_items(HIT_BYTES),
        }
    }

    /// Answers the batch over the `count` uploaded bodies with the grid in place, into
    /// `answers`: in slices of as many queries as the first guess of their lists fits
    /// the device's buffers (and [`GpuCollider::query_slice`] allows), in the batch's
    /// order. The first slice's submission builds the grid, which the others read.
    fn answer(
        &mut self,
        count: u32,
        batch: &QueryBatch,
        answers: &mut QueryAnswers,
    ) -> Result<(), Error> {
        let room = self.query_room();
        let fits = room
            .queries
            .min(room.tasks / TASKS_A_QUERY)
            .min(room.pieces / PIECES_A_QUERY)
            .min(room.hits / HITS_A_QUERY)
            .max(1);
        let slice = self.query_slice.map_or(fits, |n| n.get().min(fits)) as usize;
        let total = batch.rays.len() + batch.points.len() + batch.boxes.len();
        let mut build_grid = true;
        let mut first = 0;
        while first < total {
            let end = first + slice.min(total - first);
            self.answer_slice(count, batch, first..end, &mut build_grid, answers)?;
            first = end;
        }
        Ok(())
    }

    /// Answers the queries `range` of the batch (of its one list: rays, points, boxes)
    /// into `answers`, growing the buffers and running again as long as what a run
    /// counted fits one binding, and in smaller slices once it does not. With
    /// `build_grid`, the first run builds the grid, and clears the flag.
    fn answer_slice(
        &mut self,
        bodies: u32,
        batch: &QueryBatch,
        range: Range<usize>,
        build_grid: &mut bool,
        answers: &mut QueryAnswers,
    ) -> Result<(), Error> {
        let room = self.query_room();
        let queries = range.len() as u32;
        let within = |n: usize| (n.clamp(range.start, range.end) - range.start) as u32;
        let rays = within(batch.rays.len());
        let boxes_from = within(batch.rays.len() + batch.points.len());
        let wanted = QueryCapacity {
            queries,
            tasks: grown(queries.saturating_mul(TASKS_A_QUERY)).min(room.tasks),
            pieces: grown(queries.saturating_mul(PIECES_A_QUERY)).min(room.pieces),
            hits: grown(queries.saturating_mul(HITS_A_QUERY)).min(room.hits),
        };
        self.ensure_query_buffers(wanted, room)?;
        let packed = pack(batch, range.clone());
        let run = loop {
            if let Some(q) = &self.query_buffers {
                let queue = &self.context.queue;
                queue.write_buffer(&q.queries, 0, bytemuck::cast_slice(&packed));
            }
            let run = self.run_queries(bodies, queries, rays, boxes_from, *build_grid)?;
            *build_grid = false;
            let c = run.counters;
            if c.unfinished > 0 {
                return Err(Error::Gpu(format!(
                    "{} query invocations stopped at their loop guard, so the answers \
                     would be incomplete (a bug of gpu-collide: please report it with the \
                     scene)",
                    c.unfinished
                )));
            }
            let Some(cap) = self.query_buffers.as_ref().map(|q| q.capacity) else {
                return Err(Error::Gpu("the query buffers were not made".into()));
            };
            if c.pieces <= cap.pieces && c.tasks <= cap.tasks && c.hits <= cap.hits {
                break run;
            }
            // Pieces lost leave the task count short, and tasks lost the hit count: grow
            // everything that overflowed and run again, or past one binding, split.
            let lists = [
                QueryList {
                    name: "piece list",
                    count: c.pieces,
                    room: room.pieces,
                    item: size_of::<QueryPiece>(),
                },
                QueryList {
                    name: "task list",
                    count: c.tasks,
                    room: room.tasks,
                    item: size_of::<QueryTask>(),
                },
                QueryList {
                    name: "hit list",
                    count: c.hits,
                    room: room.hits,
                    item: HIT_BYTES,
                },
            ];
            if lists.iter().any(|l| l.count > l.room) {
                return self.answer_in_slices(bodies, batch, range, build_grid, answers, &lists);
            }
            self.ensure_query_buffers(
                QueryCapacity {
                    queries,
                    tasks: cap.tasks.max(grown(c.tasks)).min(room.tasks),
                    pieces: cap.pieces.max(grown(c.pieces)).min(room.pieces),
                    hits: cap.hits.max(grown(c.hits)).min(room.hits),
                },
                room,
            )?;
        };
        for (k, ray) in run.rays.iter().enumerate() {
            if ray.key != 0 {
                let normal = Vec2::from(ray.normal);
                answers.rays[range.start + k] = Some(RayHit {
                    body: !ray.body,
                    t: f32::from_bits(!ray.key),
                    normal: (normal != Vec2::ZERO).then_some(normal),
                });
            }
        }
        // A bitmask's chunks may each report their body: sorted and deduplicated, each
        // query's bodies come out ascending, and once.
        let mut hits = run.hits;
        hits.sort_unstable();
        hits.dedup();
        for [query, body] in hits {
            let list = match locate(batch, range.start + query as usize) {
                Location::Point(i) => answers.points.get_mut(i),
                Location::Box(i) => answers.boxes.get_mut(i),
                _ => None,
            };
            if let Some(list) = list {
                list.push(body);
            }
        }
        Ok(())
    }

    /// Answers the queries `range` in as many slices as keep each of `lists`, as one run
    /// over all of them counted it, within half a binding; a slice that still overflows
    /// splits again. A single query does not split: past a binding it is refused.
    fn answer_in_slices(
        &mut self,
        bodies: u32,
        batch: &QueryBatch,
        range: Range<usize>,
        build_grid: &mut bool,
        answers: &mut QueryAnswers,
        lists: &[QueryList],
    ) -> Result<(), Error> {
        let span = range.len();
        if span <= 1 {
            let list = lists.iter().find(|l| l.count > l.room).unwrap_or(&lists[0]);
            return Err(Error::buffer_too_large(
                format!(
                    "the query stage's {} for {} ({} items of {} bytes)",
                    list.name,
                    locate(batch, range.start),
                    list.count,
                    list.item
                ),
                list.count as u64 * list.item as u64,
                list.room as u64 * list.item as u64,
                "a batch runs in slices of queries, and this is one query's share: \
                 split that query (shorter rays, smaller boxes), or use the cpu backend",
            ));
        }
        let slices = lists
            .iter()
            .map(|l| l.count.div_ceil((l.room / 2).max(1)) as usize)
            .max()
            .unwrap_or(2)
            .clamp(2, span);
        for k in 0..slices {
            let first = range.start + span * k / slices;
            let end = range.start + span * (k + 1) / slices;
            self.answer_slice(bodies, batch, first..end, build_grid, answers)?;
        }
        Ok(())
    }

    /// Makes the query buffers, or makes them again larger, to hold `wanted`, each
    /// within `room`; the batch's queries are to be uploaded afterwards.
    fn ensure_query_buffers(
        &mut self,
        wanted: QueryCapacity,
        room: QueryCapacity,
    ) -> Result<(), Error> {
        let fits = self.query_buffers.as_ref().is_some_and(|q| {
            let c = q.capacity;
            c.queries >= wanted.queries
                && c.tasks >= wanted.tasks
                && c.pieces >= wanted.pieces
                && c.hits >= wanted.hits
        });
        if fits {
            return Ok(());
        }
        let capacity = match self.query_buffers.as_ref().map(|q| q.capacity) {
            Some(c) => QueryCapacity {
                queries: c.queries.max(grown(wanted.queries).min(room.queries)),
                tasks: c.tasks.max(wanted.tasks),
                pieces: c.pieces.max(wanted.pieces),
                hits: c.hits.max(wanted.hits),
            },
            None => QueryCapacity {
                queries: grown(wanted.queries).min(room.queries),
                ..wanted
            },
        };
        // The old buffers go first: at their largest they are a binding each.
        self.query_buffers = None;
        self.query_buffers = Some(QueryBuffers::new(&self.context.device, capacity)?);
        Ok(())
    }

    /// Runs the query kernels once over `queries` queries (the first `rays` rays, boxes
    /// from `boxes_from`), after bounds and the grid over the `bodies` bodies when
    /// `build_grid` (later slices of a batch read the grid the first one built), and
    /// reads back what they found.
    fn run_queries(
        &self,
        bodies: u32,
        queries: u32,
        rays: u32,
        boxes_from: u32,
        build_grid: bool,
    ) -> Result<QueryRun, Error> {
        let (device, queue) = (&self.context.device, &self.context.queue);
        let q = self
            .query_buffers
            .as_ref()
            .ok_or_else(|| Error::Gpu("the query buffers were not made".into()))?;
        let c = q.capacity;
        let params = QueryParams {
            query_count: queries,
            rays,
            boxes_from,
            task_capacity: c.tasks,
            piece_capacity: c.pieces,
            hit_capacity: c.hits,
            pad: [0; 2],
        };
        queue.write_buffer(&q.params, 0, bytemuck::bytes_of(&params));
        let kernels = &self.pipelines.query;
        let b = &self.buffers;
        // Bound afresh each batch: the collider's buffers may have been replaced since.
        let groups = kernels.bind_all_with(device, |slot| b.get(slot).or_else(|| q.get(slot)));
        let k = &kernels.named;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("queries"),
        });
        if build_grid {
            self.encode_grid(&mut encoder, bodies);
        }
        encoder.clear_buffer(&q.counters, 0, None);
        encoder.clear_buffer(
            &q.ray_answers,
            0,
            Some(rays.max(1) as u64 * size_of::<RayAnswer>() as u64),
        );
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("queries"),
                timestamp_writes: None,
            });
            let args = &b.dispatch_args;
            kernels.dispatch(&mut pass, &groups, k.cells, dispatch_size(queries));
            kernels.dispatch(&mut pass, &groups, k.args, (1, 1));
            kernels.dispatch_indirect(&mut pass, &groups, k.deferred, args, ARGS_DEFERRED);
            kernels.dispatch(&mut pass, &groups, k.args, (1, 1));
            for kernel in [k.test, k.pick, k.normal] {
                kernels.dispatch_indirect(&mut pass, &groups, kernel, args, ARGS_TASKS);
            }
        }
        let counter_bytes = size_of::<QueryCounters>() as u64;
        let ray_bytes = rays as u64 * size_of::<RayAnswer>() as u64;
        encoder.copy_buffer_to_buffer(&q.counters, 0, &q.readback, 0, counter_bytes);
        if ray_bytes > 0 {
            encoder.copy_buffer_to_buffer(&q.ray_answers, 0, &q.readback, counter_bytes, ray_bytes);
        }
        encoder.copy_buffer_to_buffer(&q.hits, 0, &q.hit_readback, 0, q.hits.size());
        queue.submit([encoder.finish()]);
        let (counters, rays) = read_mapped(device, &q.readback, |bytes| {
            let counters: QueryCounters =
                bytemuck::pod_read_unaligned(&bytes[..counter_bytes as usize]);
            let rays = bytes[counter_bytes as usize..][..ray_bytes as usize]
                .chunks_exact(size_of::<RayAnswer>())
                .map(bytemuck::pod_read_unaligned::<RayAnswer>)
                .collect();
            (counters, rays)
        })?;
        let stored = counters.hits.min(c.hits) as usize;
        let hits = read_mapped(device, &q.hit_readback, |bytes| {
            bytes[..stored * HIT_BYTES]
                .chunks_exact(HIT_BYTES)
                .map(bytemuck::pod_read_unaligned::<[u32; 2]>)
                .collect()
        })?;
        let run = QueryRun {
            counters,
            rays,
            hits,
        };
        self.context.check_uncaptured()?;
        Ok(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{BoxQuery, PointQuery, Ray};

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
