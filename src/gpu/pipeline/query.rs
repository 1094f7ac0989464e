//! The query kernels of [`FramePipeline`]: their buffers, made and grown here, bound
//! with the frame's buffers, and one run of them over a slice of a batch after the grid
//! is built; the kernels, buffers and packed types are `gpu::query`.

use std::mem::size_of;

use super::FramePipeline;
use crate::answer::query::QueryBatch;
use crate::error::Error;
use crate::gpu::buffers::grown;
use crate::gpu::query::{
    PackedQuery, QueryBuffers, QueryCapacity, QueryCounters, QueryParams, QueryPiece, QueryRun,
    QueryTask, RayAnswer, HIT_BYTES,
};
use crate::gpu::readback::read_mapped;
use crate::grid::GridParams;
use crate::layout::packed::{dispatch_size, ARGS_DEFERRED, ARGS_TASKS};

impl FramePipeline {
    /// The grid for `batch` over the uploaded bodies, chosen again when they or the
    /// batch's counts change.
    pub(crate) fn query_grid_params(&mut self, batch: &QueryBatch) -> GridParams {
        let (library, infos, transforms) = (&self.library, &self.uploaded_infos, &self.transforms);
        self.query_grid.params(library, infos, transforms, batch)
    }

    /// Puts `grid` in place for the next runs; gives the one it replaces.
    pub(crate) fn replace_grid(&mut self, grid: GridParams) -> GridParams {
        std::mem::replace(&mut self.grid, grid)
    }

    /// The query buffers' capacity, once they are made.
    pub(crate) fn query_capacity(&self) -> Option<QueryCapacity> {
        self.query_buffers.as_ref().map(|q| q.capacity)
    }

    /// Uploads a slice's packed queries, when the buffers are made.
    pub(crate) fn write_queries(&self, packed: &[PackedQuery]) {
        if let Some(q) = &self.query_buffers {
            let queue = &self.context.queue;
            queue.write_buffer(&q.queries, 0, bytemuck::cast_slice(packed));
        }
    }

    /// The most items each of the queries' buffers may hold: one storage binding each.
    pub(crate) fn query_room(&self) -> QueryCapacity {
        QueryCapacity {
            // The rays' answers, 16 bytes a query, fit where the queries do.
            queries: self.binding_items(size_of::<PackedQuery>().max(size_of::<RayAnswer>())),
            tasks: self.binding_items(size_of::<QueryTask>()),
            pieces: self.binding_items(size_of::<QueryPiece>()),
            hits: self.binding_items(HIT_BYTES),
        }
    }
    /// Makes the query buffers, or makes them again larger, to hold `wanted`, each
    /// within `room`; the batch's queries are to be uploaded afterwards.
    pub(crate) fn ensure_query_buffers(
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
    pub(crate) fn run_queries(
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
