//! [`GpuCollider`]'s frames that do not wait (`submit`, `collect`, `try_collect`); what
//! a frame in flight holds is `gpu::pending`, which knows nothing of the collider.

use std::mem::size_of;

use super::GpuCollider;
use crate::answer::collider::{sorted_pairs, Collider, FrameStats, Pair, StageTimes};
use crate::error::Error;
use crate::gpu::pending::{InFlight, PendingFrame, Work, MAX_FRAMES_IN_FLIGHT};
use crate::gpu::pipeline::FrameResult;
use crate::gpu::readback::{MapOutcome, CALLBACK_WAIT, PAIRS_AT};
use crate::gpu::sweep::HOST_TOI;
use crate::input::body::Body;

impl GpuCollider {
    /// Uploads `bodies`, records and submits their frame, and returns without waiting
    /// for the GPU; [`GpuCollider::collect`] or [`GpuCollider::try_collect`] gives its
    /// pairs, the same as [`Collider::find_pairs`] would have.
    ///
    /// At most [`MAX_FRAMES_IN_FLIGHT`] frames may be in flight; one more is refused with
    /// [`Error::InvalidUse`]. The bodies are copied, so the caller may move them at once.
    ///
    /// A frame in which a body moves ([`Body::velocity`]) gives its swept pairs, as
    /// [`Collider::find_pairs`] does; their times of impact come from
    /// [`Collider::find_swept_pairs`].
    ///
    /// ```no_run
    /// use gpu_collide::{Body, Circle, GpuCollider, GpuContext, Shape, ShapeLibrary, glam::Vec2};
    /// let gpu = GpuContext::new()?;
    /// let mut collider = GpuCollider::new(&gpu, ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))])?)?;
    /// let mut bodies = vec![Body::new(0, Vec2::ZERO), Body::new(0, Vec2::new(1.5, 0.0))];
    /// let mut last = collider.submit(&bodies)?;
    /// for _frame in 0..10 {
    ///     for body in &mut bodies {
    ///         body.position.x += 0.1; // the game moves on while the GPU works
    ///     }
    ///     let next = collider.submit(&bodies)?;
    ///     let pairs = collider.collect(last)?; // the previous frame's pairs
    ///     last = next;
    /// }
    /// let pairs = collider.collect(last)?;
    /// # Ok::<(), gpu_collide::Error>(())
    /// ```
    pub fn submit(&mut self, bodies: &[Body]) -> Result<PendingFrame, Error> {
        if self.frames.in_flight.len() >= MAX_FRAMES_IN_FLIGHT {
            return Err(Error::InvalidUse(format!(
                "{MAX_FRAMES_IN_FLIGHT} frames are in flight already: collect the oldest first"
            )));
        }
        // Expanding checks the bodies of a library with concave or compound shapes.
        let expansion = self.library().expand(bodies)?;
        if expansion.is_none() {
            self.library().check_bodies(bodies)?;
        }
        let bodies = expansion.as_ref().map_or(bodies, |e| &e.bodies[..]);
        let seq = self.frames.next_seq;
        let work = if bodies.len() < 2 {
            None
        } else {
            self.pipeline.set_owners(expansion.as_ref());
            let context = self.context().clone();
            Some(context.scoped(|| self.submit_frame(bodies))?)
        };
        self.frames.next_seq += 1;
        self.frames.in_flight.push_back(InFlight {
            seq,
            work,
            expansion,
        });
        Ok(PendingFrame {
            collider: self.frames.id,
            seq,
        })
    }

    fn submit_frame(&mut self, bodies: &[Body]) -> Result<Work, Error> {
        let count = self.pipeline.prepare(bodies)?;
        // A frame with motion sweeps, and reads back its times of impact after the pairs:
        // a pair the GPU left to the host (`super::sweep::HOST_TOI`) sends the frame
        // through the blocking path.
        let swept = crate::answer::motion::any_moving(bodies);
        if swept {
            self.pipeline.upload_velocities(bodies);
        }
        let limit = self.max_pairs().min(1 << 31);
        let pair_capacity = self.pipeline.pair_capacity();
        let tois_at = PAIRS_AT + pair_capacity as u64 * size_of::<Pair>() as u64;
        let size = tois_at + if swept { pair_capacity as u64 * 4 } else { 0 };
        let readback = match self.frames.spare.iter().position(|b| b.size() >= size) {
            Some(k) => self.frames.spare.swap_remove(k),
            None => self
                .context()
                .device
                .create_buffer(&wgpu::BufferDescriptor {
                    label: Some("frame readback"),
                    size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
        };
        let toi_target = swept.then_some((&readback, tois_at));
        let timed = self.stage_timing();
        let submission = self.pipeline.submit_run(
            count,
            (0, count),
            limit as u32,
            &readback,
            toi_target,
            timed,
        );
        let mapped = MapOutcome::default();
        readback.map_async(wgpu::MapMode::Read, .., mapped.callback());
        Ok(Work {
            readback,
            submission,
            mapped,
            bodies: bodies.to_vec(),
            pair_capacity,
            room: self.pipeline.room(),
            limit,
            swept,
            timed,
        })
    }

    /// Whether `frame`'s pairs are back from the GPU, without waiting (it polls the
    /// device once).
    pub fn is_ready(&self, frame: &PendingFrame) -> bool {
        let _ = self.context().device.poll(wgpu::PollType::Poll);
        self.frames
            .in_flight
            .iter()
            .find(|f| f.seq == frame.seq && frame.collider == self.frames.id)
            .is_some_and(|f| f.work.as_ref().is_none_or(|w| w.mapped.arrived()))
    }

    /// The pairs of `frame`, waiting for the GPU if they are not back yet. Frames may be
    /// collected in any order; a frame of another collider is refused with
    /// [`Error::InvalidUse`].
    pub fn collect(&mut self, frame: PendingFrame) -> Result<Vec<Pair>, Error> {
        let in_flight = self.take(&frame)?;
        let pairs = self.collect_parts(in_flight.work)?;
        Ok(match &in_flight.expansion {
            Some(expansion) => expansion.pairs(pairs),
            None => pairs,
        })
    }

    /// The pairs of a frame's bodies of the stages (one a part).
    fn collect_parts(&mut self, work: Option<Work>) -> Result<Vec<Pair>, Error> {
        let Some(work) = work else {
            self.keep_stats(FrameStats {
                candidates: Some(0),
                stages: None,
                runs: Some(0),
            });
            return Ok(Vec::new());
        };
        let device = &self.context().device;
        device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(work.submission.clone()),
                timeout: None,
            })
            .map_err(|e| Error::Gpu(format!("waiting for the GPU failed: {e}")))?;
        self.finish(work)
    }

    /// [`GpuCollider::collect`] if `frame`'s pairs are back, else `frame` again, without
    /// waiting.
    pub fn try_collect(
        &mut self,
        frame: PendingFrame,
    ) -> Result<Result<Vec<Pair>, PendingFrame>, Error> {
        // A frame of another collider is refused at once, not once it is ready.
        self.position(&frame)?;
        if !self.is_ready(&frame) {
            return Ok(Err(frame));
        }
        self.collect(frame).map(Ok)
    }

    /// Where `frame` sits among the frames in flight.
    fn position(&self, frame: &PendingFrame) -> Result<usize, Error> {
        if frame.collider != self.frames.id {
            return Err(Error::InvalidUse(
                "the frame was submitted to another collider".into(),
            ));
        }
        // Every handle is made once and moved into collect, which ends its frame, so a
        // handle's frame is always here; an error, not a panic, if that ever failed.
        self.frames
            .in_flight
            .iter()
            .position(|f| f.seq == frame.seq)
            .ok_or_else(|| Error::InvalidUse("the frame was collected already".into()))
    }

    fn take(&mut self, frame: &PendingFrame) -> Result<InFlight, Error> {
        let k = self.position(frame)?;
        self.frames
            .in_flight
            .remove(k)
            .ok_or_else(|| Error::InvalidUse("the frame was collected already".into()))
    }

    /// Reads a frame whose GPU work is done; runs it again through the blocking path
    /// when it did not fit (or would be refused), so the answer is the blocking call's.
    fn finish(&mut self, work: Work) -> Result<Vec<Pair>, Error> {
        // The GPU is done; the callback may still be on its way from another thread.
        work.mapped.wait(CALLBACK_WAIT)?;
        let result = match work.readback.get_mapped_range(..) {
            Ok(view) => {
                let result = self
                    .pipeline
                    .frame_result(&view, work.pair_capacity, work.timed);
                let tois_at = PAIRS_AT as usize + work.pair_capacity as usize * size_of::<Pair>();
                // Read only when the pairs fit (a frame that overflowed runs again).
                let stored = result.pairs.len().min(work.pair_capacity as usize);
                let to_host = work.swept
                    && view[tois_at..][..stored * 4]
                        .chunks_exact(4)
                        .any(|t| bytemuck::pod_read_unaligned::<f32>(t) == HOST_TOI);
                Ok((result, to_host))
            }
            Err(e) => Err(Error::Gpu(format!("reading the mapped buffer failed: {e}"))),
        };
        work.readback.unmap();
        self.frames.spare.push(work.readback);
        let (
            FrameResult {
                counters: c,
                pairs,
                stage_ms,
                ..
            },
            to_host,
        ) = result?;
        self.pipeline.note_kind_counts(&c, work.swept);
        let clean = !to_host
            && c.unfinished == 0
            && c.overflowed_bins == 0
            && c.candidates as u64 <= work.limit
            && work.room.holds(&c);
        if !clean {
            let pairs = self.stage_pairs(&work.bodies, None)?;
            // The submitted run counts too.
            let stats = self.last_frame();
            self.keep_stats(FrameStats {
                runs: stats.runs.map(|runs| runs + 1),
                ..stats
            });
            return Ok(pairs);
        }
        self.keep_stats(FrameStats {
            candidates: Some(c.candidates as u64),
            stages: stage_ms.map(|[bounds, broad, narrow]| StageTimes {
                upload: 0.0,
                bounds,
                broad,
                narrow,
                readback: 0.0,
            }),
            runs: Some(1),
        });
        Ok(sorted_pairs(pairs))
    }
}
