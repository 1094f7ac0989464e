//! [`GpuCollider`]'s query batches (`query`, `set_query_slice`); the query kernels,
//! their buffers and packed types are `gpu::query`, which knows nothing of the collider.

use std::mem::size_of;
use std::num::NonZeroU32;
use std::ops::Range;

use glam::Vec2;

use super::{body_count, GpuCollider};
use crate::body::Body;
use crate::error::{Error, Location};
use crate::gpu::buffers::grown;
use crate::gpu::query::{
    locate, pack, PackedQuery, QueryBuffers, QueryCapacity, QueryCounters, QueryList, QueryParams,
    QueryPiece, QueryRun, QueryTask, RayAnswer, HITS_A_QUERY, HIT_BYTES, PIECES_A_QUERY,
    TASKS_A_QUERY,
};
use crate::gpu::readback::read_mapped;
use crate::grid::GridParams;
use crate::packed::{dispatch_size, ARGS_DEFERRED, ARGS_TASKS};
use crate::query::{QueryAnswers, QueryBatch, RayHit};

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
