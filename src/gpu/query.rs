//! Batched queries on the GPU: host side of `shaders/query.wgsl` (its top comment gives
//! the kernels and why they are shaped so); CPU twin [`crate::cpu::query`].
//!
//! A batch runs in one submission: the bodies' bounds and the broad phase's grid, built
//! by its own kernels from infos with every mask opened (`upload_query_bodies`) and
//! with cells sized for the batch ([`crate::cell_size::choose_query_grid`]), then the
//! query kernels, then one readback of
//! the counters, the rays' answers and the points' and boxes' hits. Nothing is dropped:
//! when a counted list (tasks, pieces, hits) overflowed its buffer, the buffers grow to
//! the next power of two and the batch runs again.

use std::mem::size_of;

use bytemuck::{Pod, Zeroable};
use glam::Vec2;

use super::buffers::{grown, make_buffer, Slot};
use super::collider::{body_count, GpuCollider};
use super::readback::read_mapped;
use super::Kernel;
use crate::body::Body;
use crate::error::Error;
use crate::grid::GridParams;
use crate::packed::{dispatch_size, DispatchArgs, ARGS_DEFERRED, ARGS_TASKS};
use crate::query::{QueryAnswers, QueryBatch, RayHit};

/// The stage's kernels in dispatch order, with the bindings each one uses.
pub(crate) const KERNELS: &[Kernel] = &[
    Kernel {
        entry: "query",
        bindings: &[0, 5, 7, 8, 9, 11, 12],
    },
    Kernel {
        entry: "query_args",
        bindings: &[8, 12, 15],
    },
    Kernel {
        entry: "query_deferred",
        bindings: &[0, 4, 6, 8, 9, 10, 11, 12, 16],
    },
    Kernel {
        entry: "query_test",
        bindings: &[0, 1, 2, 3, 8, 9, 10, 12, 13, 14],
    },
    Kernel {
        entry: "query_pick",
        bindings: &[8, 10, 12, 14],
    },
    Kernel {
        entry: "query_normal",
        bindings: &[8, 10, 12, 14],
    },
];

/// Indices into [`KERNELS`].
const CELLS: usize = 0;
const ARGS: usize = 1;
const DEFERRED: usize = 2;
const TEST: usize = 3;
const PICK: usize = 4;
const NORMAL: usize = 5;

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
    /// Counters, the rays' answers, then the hits, for the one readback.
    readback: wgpu::Buffer,
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
            hits: make("query hits", items(c.hits, 8), U::STORAGE | U::COPY_SRC)?,
            ray_answers: make(
                "ray answers",
                items(c.queries, size_of::<RayAnswer>()),
                U::STORAGE | U::COPY_SRC | U::COPY_DST,
            )?,
            readback: make(
                "query readback",
                size_of::<QueryCounters>() as u64
                    + items(c.queries, size_of::<RayAnswer>())
                    + items(c.hits, 8),
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

/// The batch as the GPU reads it: rays, then points, then boxes.
fn pack(batch: &QueryBatch) -> Vec<PackedQuery> {
    let rays = batch.rays.iter().map(|r| PackedQuery {
        a: r.origin.to_array(),
        b: r.delta.to_array(),
        mask: r.mask,
        kind: QUERY_RAY,
    });
    let points = batch.points.iter().map(|p| PackedQuery {
        a: p.point.to_array(),
        b: p.point.to_array(),
        mask: p.mask,
        kind: QUERY_POINT,
    });
    let boxes = batch.boxes.iter().map(|b| PackedQuery {
        a: b.min.to_array(),
        b: b.max.to_array(),
        mask: b.mask,
        kind: QUERY_BOX,
    });
    rays.chain(points).chain(boxes).collect()
}

/// What one run of the query kernels found.
struct QueryRun {
    counters: QueryCounters,
    rays: Vec<RayAnswer>,
    hits: Vec<[u32; 2]>,
}

impl GpuCollider {
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
        let packed = pack(batch);
        let queries = u32::try_from(packed.len()).map_err(|_| Error::TooLarge {
            what: format!("numbering a batch of {} queries", packed.len()),
            needed: packed.len() as u64,
            limit: u32::MAX as u64,
            unit: "query indices",
            allowed: "the kernels allow",
            hint: "split the batch".into(),
        })?;
        self.grow_bodies(count)?;
        self.upload_query_bodies(bodies);
        // The grid's cells are sized for the queries (`choose_query_grid`); the pairs'
        // grid is put back afterwards, for frames whose infos match these.
        let query_grid = self.query_grid_params(batch);
        let pairs_grid = std::mem::replace(&mut self.grid, query_grid);
        let answered = self.answer(count, queries, batch, &packed, &mut answers);
        self.grid = pairs_grid;
        answered.map(|()| answers)
    }

    /// The grid for `batch` over the uploaded bodies, chosen again when they or the
    /// batch's counts change.
    fn query_grid_params(&mut self, batch: &QueryBatch) -> GridParams {
        let (library, infos, transforms) = (&self.library, &self.uploaded_infos, &self.transforms);
        self.query_grid.params(library, infos, transforms, batch)
    }

    /// Runs the batch (`packed`, `queries` of them) over the `count` uploaded bodies with
    /// the grid in place, into `answers`.
    fn answer(
        &mut self,
        count: u32,
        queries: u32,
        batch: &QueryBatch,
        packed: &[PackedQuery],
        answers: &mut QueryAnswers,
    ) -> Result<(), Error> {
        // A first guess that fits most batches at once: a few tasks a query, a piece
        // for each row of cells it passes on each level, a few hits a point or box.
        let wanted = QueryCapacity {
            queries,
            tasks: grown(queries.saturating_mul(8)),
            pieces: grown(queries.saturating_mul(16)),
            hits: grown(queries.saturating_mul(4)),
        };
        self.ensure_query_buffers(wanted)?;
        let rays = batch.rays.len() as u32;
        let boxes_from = rays + batch.points.len() as u32;
        let run = loop {
            if let Some(q) = &self.query_buffers {
                let queue = &self.context.queue;
                queue.write_buffer(&q.queries, 0, bytemuck::cast_slice(packed));
            }
            let run = self.run_queries(count, queries, rays, boxes_from)?;
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
            // Pieces lost leave the task count short: grow everything that overflowed
            // and run again.
            self.ensure_query_buffers(QueryCapacity {
                queries,
                tasks: cap.tasks.max(grown(c.tasks)),
                pieces: cap.pieces.max(grown(c.pieces)),
                hits: cap.hits.max(grown(c.hits)),
            })?;
        };
        for (k, ray) in run.rays.iter().enumerate() {
            if ray.key != 0 {
                let normal = Vec2::from(ray.normal);
                answers.rays[k] = Some(RayHit {
                    body: !ray.body,
                    t: f32::from_bits(!ray.key),
                    normal: (normal != Vec2::ZERO).then_some(normal),
                });
            }
        }
        let mut hits = run.hits;
        hits.sort_unstable();
        hits.dedup();
        let points = batch.points.len();
        for [query, body] in hits {
            let k = (query - rays) as usize;
            if k < points {
                answers.points[k].push(body);
            } else if let Some(list) = answers.boxes.get_mut(k - points) {
                list.push(body);
            }
        }
        Ok(())
    }

    /// Makes the query buffers, or makes them again larger, to hold `wanted`; the
    /// batch's queries are to be uploaded afterwards.
    fn ensure_query_buffers(&mut self, wanted: QueryCapacity) -> Result<(), Error> {
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
                queries: c.queries.max(grown(wanted.queries)),
                tasks: c.tasks.max(wanted.tasks),
                pieces: c.pieces.max(wanted.pieces),
                hits: c.hits.max(wanted.hits),
            },
            None => QueryCapacity {
                queries: grown(wanted.queries),
                ..wanted
            },
        };
        let fresh = QueryBuffers::new(&self.context.device, capacity)?;
        self.query_buffers = Some(fresh);
        Ok(())
    }

    /// Runs bounds, the grid and the query kernels once over `queries` queries (the
    /// first `rays` rays, boxes from `boxes_from`) and reads back what they found.
    fn run_queries(
        &self,
        bodies: u32,
        queries: u32,
        rays: u32,
        boxes_from: u32,
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
        let groups: Vec<wgpu::BindGroup> = (0..KERNELS.len())
            .map(|k| kernels.bind_with(device, k, |slot| b.get(slot).or_else(|| q.get(slot))))
            .collect();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("queries"),
        });
        self.encode_grid(&mut encoder, bodies);
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
            kernels.dispatch_with(&mut pass, &groups[CELLS], CELLS, dispatch_size(queries));
            kernels.dispatch_with(&mut pass, &groups[ARGS], ARGS, (1, 1));
            let indirect = |pass: &mut wgpu::ComputePass, k: usize, slot: u32| {
                pass.set_pipeline(kernels.pipeline(k));
                pass.set_bind_group(0, &groups[k], &[]);
                let offset = slot as u64 * size_of::<DispatchArgs>() as u64;
                pass.dispatch_workgroups_indirect(&b.dispatch_args, offset);
            };
            indirect(&mut pass, DEFERRED, ARGS_DEFERRED);
            kernels.dispatch_with(&mut pass, &groups[ARGS], ARGS, (1, 1));
            for k in [TEST, PICK, NORMAL] {
                indirect(&mut pass, k, ARGS_TASKS);
            }
        }
        let counter_bytes = size_of::<QueryCounters>() as u64;
        let ray_bytes = rays as u64 * size_of::<RayAnswer>() as u64;
        let hits_at = counter_bytes + c.queries.max(1) as u64 * size_of::<RayAnswer>() as u64;
        encoder.copy_buffer_to_buffer(&q.counters, 0, &q.readback, 0, counter_bytes);
        if ray_bytes > 0 {
            encoder.copy_buffer_to_buffer(&q.ray_answers, 0, &q.readback, counter_bytes, ray_bytes);
        }
        encoder.copy_buffer_to_buffer(&q.hits, 0, &q.readback, hits_at, q.hits.size());
        queue.submit([encoder.finish()]);
        let run = read_mapped(device, &q.readback, |bytes| {
            let counters: QueryCounters =
                bytemuck::pod_read_unaligned(&bytes[..counter_bytes as usize]);
            let rays = bytes[counter_bytes as usize..][..ray_bytes as usize]
                .chunks_exact(size_of::<RayAnswer>())
                .map(bytemuck::pod_read_unaligned::<RayAnswer>)
                .collect();
            let stored = counters.hits.min(c.hits) as usize;
            let hits = bytes[hits_at as usize..][..stored * 8]
                .chunks_exact(8)
                .map(bytemuck::pod_read_unaligned::<[u32; 2]>)
                .collect();
            QueryRun {
                counters,
                rays,
                hits,
            }
        })?;
        self.context.check_uncaptured()?;
        Ok(run)
    }
}
