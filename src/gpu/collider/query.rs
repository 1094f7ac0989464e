//! [`GpuCollider`]'s query batches (`query`, `set_query_slice`); the query kernels,
//! their buffers and packed types are `gpu::query`, which knows nothing of the collider.

use std::mem::size_of;
use std::num::NonZeroU32;
use std::ops::Range;

use glam::Vec2;

use super::GpuCollider;
use crate::answer::query::{QueryAnswers, QueryBatch, RayHit};
use crate::error::{Error, Location};
use crate::gpu::buffers::grown;
use crate::gpu::pipeline::body_count;
use crate::gpu::query::{
    locate, pack, QueryCapacity, QueryList, QueryPiece, QueryTask, HITS_A_QUERY, HIT_BYTES,
    PIECES_A_QUERY, TASKS_A_QUERY,
};
use crate::input::body::Body;

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
        self.pipeline.grow_bodies(count)?;
        self.pipeline.upload_query_bodies(bodies);
        // The grid's cells are sized for the queries (`choose_query_grid`); the pairs'
        // grid is put back afterwards, for frames whose infos match these.
        let query_grid = self.pipeline.query_grid_params(batch);
        let pairs_grid = self.pipeline.replace_grid(query_grid);
        let answered = self.answer(count, batch, &mut answers);
        self.pipeline.replace_grid(pairs_grid);
        answered.map(|()| answers)
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
        let room = self.pipeline.query_room();
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
        let room = self.pipeline.query_room();
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
        self.pipeline.ensure_query_buffers(wanted, room)?;
        let packed = pack(batch, range.clone());
        let run = loop {
            self.pipeline.write_queries(&packed);
            let run = self
                .pipeline
                .run_queries(bodies, queries, rays, boxes_from, *build_grid)?;
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
            let Some(cap) = self.pipeline.query_capacity() else {
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
            self.pipeline.ensure_query_buffers(
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
}
