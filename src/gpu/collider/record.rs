//! [`GpuCollider`]'s frames recorded into the caller's encoder (`record`,
//! `record_from_buffer`, `recorded_counts`); the recorded frame, its layout and status
//! buffers are `gpu::record`, which knows nothing of the collider.

use std::mem::size_of;

use super::GpuCollider;
use crate::error::{Error, Location, SceneError};
use crate::gpu::bins;
use crate::gpu::buffers::{binding_limit, grown, Capacity};
use crate::gpu::pipeline::{body_count, Run, SourceBinding};
use crate::gpu::record::{
    BodyLayout, MapFlag, Recorded, RecordedCounts, RecordedFrame, SlotState, StatusSlot,
    MAX_STATUS_SLOTS, STATUS_BYTES,
};
use crate::input::body::Body;
use crate::layout::packed::{Counters, PairsHeader, NO_SOURCE_ANGLE};

impl GpuCollider {
    /// Records one frame of `bodies` into `encoder`, which the caller submits: no
    /// submission and no readback here. The pairs stay on the GPU, in the returned
    /// [`RecordedFrame`]'s buffers, for passes the caller records after this one.
    ///
    /// Submit each recorded encoder before recording the next frame: the frame's
    /// parameters and positions go through the queue (`Queue::write_buffer`), which
    /// applies them at its next submission. Fails as [`crate::Collider::find_pairs`] does
    /// on bad bodies, and with the reason when an earlier frame's counts came back with
    /// a body that could not be read, the pair limit passed, or a buffer that cannot grow.
    ///
    /// A recorded frame is static: the bodies' velocities ([`Body::velocity`]) are not
    /// read, and the pairs are those at `t = 0`. Swept pairs, with their times of
    /// impact, come from the blocking [`crate::Collider::find_pairs`] and
    /// [`crate::Collider::find_swept_pairs`].
    ///
    /// ```no_run
    /// use gpu_collide::{wgpu, Body, Circle, GpuCollider, GpuContext, Shape, ShapeLibrary, glam::Vec2};
    /// let gpu = GpuContext::new()?;
    /// let mut collider = GpuCollider::new(&gpu, ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))])?)?;
    /// let bodies = [Body::new(0, Vec2::ZERO), Body::new(0, Vec2::new(1.5, 0.0))];
    /// let mut encoder = gpu.device.create_command_encoder(&Default::default());
    /// let frame = collider.record(&mut encoder, &bodies)?;
    /// // ... a pass of the game's own reading frame.pairs, dispatched through frame.header ...
    /// gpu.queue.submit([encoder.finish()]);
    /// # Ok::<(), gpu_collide::Error>(())
    /// ```
    pub fn record(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        bodies: &[Body],
    ) -> Result<RecordedFrame, Error> {
        self.library().check_bodies(bodies)?;
        self.refuse_parts()?;
        let context = self.context().clone();
        context.scoped(|| self.record_checked(encoder, bodies, None))
    }

    /// [`GpuCollider::record`], with each body's position (and, when `layout` says
    /// where, its angle) read on the GPU from `positions`, a buffer of the caller's with
    /// `STORAGE` usage, as `layout` describes; shape, layer and mask (and angle, when
    /// `layout` has none) are those of `bodies`, uploaded only when they change. Positions
    /// that are not finite, or a bitmask body off the whole numbers, make the frame
    /// incomplete and a later `record` fail naming the body.
    ///
    /// The grid's cell size is then chosen from the shapes' sizes alone, since the
    /// positions never reach the host. Static, as [`GpuCollider::record`] is.
    pub fn record_from_buffer(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        bodies: &[Body],
        positions: &wgpu::Buffer,
        layout: BodyLayout,
    ) -> Result<RecordedFrame, Error> {
        self.library().check_bodies(bodies)?;
        self.refuse_parts()?;
        let context = self.context().clone();
        context.scoped(|| self.record_checked(encoder, bodies, Some((positions, layout))))
    }

    /// Refuses to record frames over a library with concave or compound shapes: the
    /// recorded pairs are the GPU's, one body a part, and turning them into pairs of the
    /// caller's bodies is the host's work (`find_pairs` and `submit` do it).
    fn refuse_parts(&self) -> Result<(), Error> {
        if self.library().parts.is_some() {
            return Err(Error::Unsupported {
                backend: "gpu".to_string(),
                what: "recording frames of concave or compound shapes (use find_pairs or submit)"
                    .to_string(),
            });
        }
        Ok(())
    }

    /// The counts of the latest recorded frame that have come back, without waiting.
    /// A frame's counts come back once a later frame has been recorded and the GPU has
    /// finished it.
    pub fn recorded_counts(&mut self) -> Result<Option<RecordedCounts>, Error> {
        let context = self.context().clone();
        context.scoped(|| {
            self.take_counts(false)?;
            Ok(self.recordings.latest)
        })
    }

    fn record_checked(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        bodies: &[Body],
        source: Option<(&wgpu::Buffer, BodyLayout)>,
    ) -> Result<RecordedFrame, Error> {
        // Frames recorded before this call have been submitted: their counts may map.
        self.take_counts(true)?;
        let count = body_count(bodies)?;
        let source = match source {
            None => {
                self.pipeline.prepare(bodies)?;
                None
            }
            Some((buffer, layout)) => {
                let span = self.check_source(buffer, &layout, count)?;
                self.pipeline.grow_bodies(count)?;
                self.pipeline.upload_infos(bodies, false);
                let group = (span > 0).then(|| {
                    let binding = wgpu::BufferBinding {
                        buffer,
                        offset: 0,
                        size: std::num::NonZeroU64::new(span.next_multiple_of(4)),
                    };
                    self.pipeline.bind_source(binding)
                });
                let words = |bytes: u64| (bytes / 4) as u32;
                group.map(|group| SourceBinding {
                    group,
                    words: [
                        words(layout.stride),
                        words(layout.position_offset),
                        layout.angle_offset.map_or(NO_SOURCE_ANGLE, words),
                    ],
                })
            }
        };
        let limit = self.max_pairs().min(1 << 31);
        let run = Run {
            bodies: count,
            slice: (0, count),
            limit: limit as u32,
            source,
            timed: false,
            publish: true,
            swept: false,
        };
        self.pipeline.encode_run(encoder, &run);
        let frame = self.recordings.next_frame;
        self.recordings.next_frame += 1;
        let recorded = Recorded { frame, limit };
        let device = &self.pipeline.context().device;
        if let Some(slot) = status_slot(&mut self.recordings.slots, device) {
            self.pipeline
                .copy_status(encoder, &slot.buffer, STATUS_BYTES);
            slot.state = SlotState::Recorded(recorded);
        }
        Ok(self.pipeline.recorded_frame(frame))
    }

    /// Checks the caller's buffer against the layout and the device; gives the bytes the
    /// bodies span.
    fn check_source(
        &self,
        buffer: &wgpu::Buffer,
        layout: &BodyLayout,
        bodies: u32,
    ) -> Result<u64, Error> {
        let span = layout.span(bodies)?;
        if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
            return Err(Error::InvalidUse(format!(
                "the buffer of bodies has usage {:?}, without STORAGE, so no shader can read it",
                buffer.usage()
            )));
        }
        if buffer.size() < span {
            return Err(Error::InvalidUse(format!(
                "the buffer of bodies holds {} bytes, and {bodies} bodies of stride {} need {span}",
                buffer.size(),
                layout.stride
            )));
        }
        let most = binding_limit(&self.context().device);
        if span > most {
            return Err(Error::buffer_too_large(
                format!(
                    "binding the caller's buffer of {bodies} bodies (stride {})",
                    layout.stride
                ),
                span,
                most,
                "the bounds kernel reads the bodies through one binding: record fewer bodies \
                 a frame, or pack them with a smaller stride",
            ));
        }
        Ok(span)
    }

    /// Maps the count buffers of submitted frames (with `submitted`, every recorded one:
    /// the caller records a frame only after submitting the one before) and reads those
    /// mapped already, never waiting; acts on what they say.
    fn take_counts(&mut self, submitted: bool) -> Result<(), Error> {
        for slot in &mut self.recordings.slots {
            if let (true, SlotState::Recorded(recorded)) = (submitted, &slot.state) {
                let flag = MapFlag::default();
                let sink = flag.clone();
                slot.buffer
                    .map_async(wgpu::MapMode::Read, .., move |result| {
                        if let Ok(mut done) = sink.lock() {
                            *done = Some(result);
                        }
                    });
                slot.state = SlotState::Mapping(*recorded, flag);
            }
        }
        // Runs the callbacks of mappings that finished; never waits.
        self.context()
            .device
            .poll(wgpu::PollType::Poll)
            .map_err(|e| Error::Gpu(format!("polling the device failed: {e}")))?;
        let mut came_back = Vec::new();
        for slot in &mut self.recordings.slots {
            let SlotState::Mapping(recorded, flag) = &slot.state else {
                continue;
            };
            let done = flag
                .lock()
                .map_err(|_| Error::Gpu("a map callback panicked".into()))?
                .take();
            let Some(result) = done else {
                continue;
            };
            let recorded = *recorded;
            slot.state = SlotState::Free;
            result.map_err(|e| Error::Gpu(format!("mapping recorded counts failed: {e}")))?;
            let read = slot.buffer.get_mapped_range(..).map(|view| {
                let counters: Counters =
                    bytemuck::pod_read_unaligned(&view[..size_of::<Counters>()]);
                let header: PairsHeader =
                    bytemuck::pod_read_unaligned(&view[size_of::<Counters>()..]);
                (counters, header)
            });
            slot.buffer.unmap();
            let (counters, header) =
                read.map_err(|e| Error::Gpu(format!("reading recorded counts failed: {e}")))?;
            came_back.push((recorded, counters, header));
        }
        came_back.sort_by_key(|(recorded, ..)| recorded.frame);
        for (recorded, counters, header) in came_back {
            self.act_on_counts(recorded, &counters, &header)?;
        }
        Ok(())
    }

    /// Keeps what a frame's counts say and grows whatever overflowed; fails when the
    /// frame met something the next one would meet too.
    fn act_on_counts(
        &mut self,
        recorded: Recorded,
        c: &Counters,
        header: &PairsHeader,
    ) -> Result<(), Error> {
        let newest = self
            .recordings
            .latest
            .is_none_or(|l| l.frame < recorded.frame);
        if newest {
            self.recordings.latest = Some(RecordedCounts {
                frame: recorded.frame,
                pairs: c.pairs,
                candidates: c.candidates,
                complete: header.complete == 1,
            });
            self.note_candidates(c.candidates as u64);
            self.pipeline.note_kind_counts(c, false);
        }
        if c.unfinished > 0 {
            return Err(Error::Gpu(format!(
                "recorded frame {}: {} shader invocations stopped at their loop guard (a bug \
                 of gpu-collide: please report it with the scene)",
                recorded.frame, c.unfinished
            )));
        }
        if c.invalid_bodies > 0 {
            let first = !c.first_invalid;
            return Err(Error::Scene(SceneError::new(
                Location::Body(first as usize),
                "position",
                format!(
                    "recorded frame {} read a position or angle from the buffer of bodies that \
                     is not finite, or a bitmask body's that is not a whole number within \
                     the limits or has an angle ({} bodies in all)",
                    recorded.frame, c.invalid_bodies
                ),
            )));
        }
        if c.candidates as u64 > recorded.limit {
            return Err(Error::TooManyPairs {
                found: c.candidates as u64,
                limit: self.max_pairs(),
            });
        }
        // Judged against the buffers now, which an earlier frame's counts may have grown.
        let now = self.pipeline.capacity();
        // Bins that did not hold their candidates are laid out again from the counts
        // just kept; a buffer with little spare for them grows.
        let overflowed = c.candidates > now.candidates
            || (c.overflowed_bins != 0 && bins::candidate_room(c) > now.candidates)
            || c.pairs > now.pairs
            || c.deferred > now.deferred
            || c.long_pairs > now.long_pairs
            || c.tasks > now.tasks;
        if overflowed {
            self.pipeline.grow(Capacity {
                candidates: now.candidates.max(bins::candidate_room(c)),
                pairs: now.pairs.max(grown(c.pairs)),
                deferred: now.deferred.max(grown(c.deferred)),
                long_pairs: now.long_pairs.max(grown(c.long_pairs)),
                tasks: now.tasks.max(grown(c.tasks)),
                ..now
            })?;
        }
        Ok(())
    }
}

/// A free count buffer, made if none is and fewer than [`MAX_STATUS_SLOTS`] exist.
fn status_slot<'a>(
    slots: &'a mut Vec<StatusSlot>,
    device: &wgpu::Device,
) -> Option<&'a mut StatusSlot> {
    let free = slots
        .iter()
        .position(|s| matches!(s.state, SlotState::Free));
    let index = match free {
        Some(index) => index,
        None if slots.len() < MAX_STATUS_SLOTS => {
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("recorded counts"),
                size: STATUS_BYTES,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            slots.push(StatusSlot {
                buffer,
                state: SlotState::Free,
            });
            slots.len() - 1
        }
        None => return None,
    };
    slots.get_mut(index)
}
