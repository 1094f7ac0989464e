//! Frames recorded into the caller's own `wgpu::CommandEncoder`: no submission and no
//! readback of gpu-collide's own. [`GpuCollider::record`] takes the positions from host
//! bodies; [`GpuCollider::record_from_buffer`] reads them (and optionally the angles)
//! from a storage buffer of the caller's, in the caller's own struct layout, so that
//! bodies simulated on the GPU never come back to the host. Either way the pairs stay
//! on the GPU, in the buffers of the [`RecordedFrame`], for the caller's own passes.
//!
//! Nothing is lost silently. Every frame writes a header beside the pairs with the true
//! count and whether the pair buffer holds all of them ([`PairsHeader`]), which the
//! caller's shaders can read at once. The collider also copies each frame's counts to a
//! small buffer of its own and maps it without waiting once a later frame has been
//! recorded (the caller has submitted the earlier one by then): a frame that overflowed
//! makes the buffers grow before the next recording, a frame that found a body it
//! could not take makes the next `record` fail naming it, and
//! [`GpuCollider::recorded_counts`] tells the caller what came back.

use std::mem::size_of;
use std::sync::{Arc, Mutex};

use super::buffers::{binding_limit, grown, Capacity};
use super::collider::{body_count, GpuCollider, Run, SourceBinding};
use super::{bins, bounds};
use crate::body::Body;
use crate::error::{Error, Location, SceneError};
use crate::packed::{Counters, PairsHeader, NO_SOURCE_ANGLE};

/// The WGSL of the buffers a [`RecordedFrame`] hands over, to paste into a shader that
/// consumes the pairs; `tests/record.rs` compiles it with a consumer.
pub const PAIRS_WGSL: &str = "\
// gpu-collide's pairs of one frame (GpuCollider::record). Bind `pairs` and `header`
// read-only; dispatch with dispatch_workgroups_indirect(header buffer, 0) and
// @workgroup_size(64): one invocation per stored pair.
struct PairsHeader {
    dispatch_x: u32,      // indirect dispatch arguments (workgroups of 64)
    dispatch_y: u32,
    dispatch_z: u32,
    count: u32,           // colliding pairs found, also any past the buffer's end
    stored: u32,          // pairs in `pairs`: min(count, capacity)
    capacity: u32,        // pairs the buffer holds
    complete: u32,        // 1 when `pairs` holds every pair of the frame
    invalid_bodies: u32,  // bodies whose position or angle could not be used
}

// The pair handled by an invocation of the indirect dispatch, or none past the end:
//   let k = pair_index(workgroup_id, num_workgroups, local_invocation_index);
//   if k >= header.stored { return; }
//   let pair = pairs[k];  // body indices i < j, in no particular order across pairs
fn pair_index(workgroup: vec3<u32>, workgroups: vec3<u32>, local: u32) -> u32 {
    return (workgroup.y * workgroups.x + workgroup.x) * 64u + local;
}
";

/// The most count buffers a collider keeps for frames whose counts have not come back;
/// past it a frame's counts are not copied (its header still tells its shaders).
const MAX_STATUS_SLOTS: usize = 8;

/// Where each body's position (two `f32`) and, optionally, angle (one `f32`, radians)
/// sit in a buffer of the caller's: body `i`'s struct starts at byte `i * stride`.
///
/// ```
/// use gpu_collide::gpu::BodyLayout;
/// // struct Particle { position: vec2<f32>, velocity: vec2<f32>, angle: f32, pad: 3 x f32 }
/// let layout = BodyLayout::new(32, 0).with_angle(16);
/// assert_eq!(layout.angle_offset, Some(16));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyLayout {
    /// Bytes from one body's struct to the next; a multiple of 4, not 0.
    pub stride: u64,
    /// Byte offset of the position within the struct; a multiple of 4.
    pub position_offset: u64,
    /// Byte offset of the angle within the struct; `None` takes each body's angle from
    /// the host bodies.
    pub angle_offset: Option<u64>,
}

impl BodyLayout {
    /// Structs of `stride` bytes with the position at byte `position_offset`, no angle.
    pub fn new(stride: u64, position_offset: u64) -> Self {
        BodyLayout {
            stride,
            position_offset,
            angle_offset: None,
        }
    }

    /// The same layout with the angle at byte `offset`.
    pub fn with_angle(self, offset: u64) -> Self {
        BodyLayout {
            angle_offset: Some(offset),
            ..self
        }
    }

    /// The bytes `bodies` structs span, or what is wrong with the layout.
    fn span(&self, bodies: u32) -> Result<u64, Error> {
        let wrong = |what: String| Err(Error::InvalidUse(format!("body layout: {what}")));
        if self.stride == 0 {
            return wrong("a stride of 0 puts every body at one place".into());
        }
        let fields = [
            ("stride", self.stride),
            ("position offset", self.position_offset),
        ]
        .into_iter()
        .chain(self.angle_offset.map(|a| ("angle offset", a)));
        for (name, value) in fields {
            if value % 4 != 0 {
                return wrong(format!("the {name} {value} is not a multiple of 4 bytes"));
            }
        }
        let position_end = self.position_offset.saturating_add(8);
        let angle_end = self.angle_offset.map_or(0, |a| a.saturating_add(4));
        if position_end > self.stride || angle_end > self.stride {
            return wrong(format!(
                "the position (bytes {}..{position_end}) and angle must lie within the \
                 stride of {} bytes",
                self.position_offset, self.stride
            ));
        }
        Ok(match bodies {
            0 => 0,
            n => (n as u64 - 1) * self.stride + position_end.max(angle_end),
        })
    }
}

/// The GPU buffers of one recorded frame, for the caller's passes after it in the same
/// encoder; their layout is [`PAIRS_WGSL`]. The buffers stay the collider's: bind them
/// afresh from each frame's `RecordedFrame`, since they are replaced when they grow.
#[derive(Debug, Clone)]
pub struct RecordedFrame {
    /// The frame's number among this collider's recorded frames, from 0.
    pub frame: u64,
    /// `array<vec2<u32>>`: the colliding pairs `[i, j]`, `i < j`, unordered; the first
    /// `header.stored` entries are this frame's.
    pub pairs: wgpu::Buffer,
    /// `PairsHeader` (32 bytes): counts, completeness, and at offset 0 the indirect
    /// dispatch arguments of one invocation per stored pair (usage `INDIRECT`).
    pub header: wgpu::Buffer,
    /// Pairs the pair buffer holds.
    pub pair_capacity: u32,
}

/// What came back, without waiting, of a recorded frame's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordedCounts {
    /// The frame's number ([`RecordedFrame::frame`]).
    pub frame: u64,
    /// Colliding pairs it found, also those past the pair buffer's end.
    pub pairs: u32,
    /// Its candidate pairs (box overlaps whose filters agree).
    pub candidates: u32,
    /// Whether it tested every candidate and its pair buffer held all its pairs. When
    /// not, the buffers have grown or the kind pairs' bins been laid out again from its
    /// counts since (or the next `record` fails, naming why), so a later frame has room.
    pub complete: bool,
}

/// The recorded frames' count buffers, and what came back of them.
#[derive(Debug, Default)]
pub(crate) struct Recordings {
    next_frame: u64,
    slots: Vec<StatusSlot>,
    latest: Option<RecordedCounts>,
}

#[derive(Debug)]
struct StatusSlot {
    buffer: wgpu::Buffer,
    state: SlotState,
}

#[derive(Debug)]
enum SlotState {
    Free,
    /// Copied into in frame `frame`'s commands, maybe not yet submitted.
    Recorded(Recorded),
    /// Submitted (a later frame was recorded since) and being mapped.
    Mapping(Recorded, MapFlag),
}

type MapFlag = Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>;

/// What a frame ran with, to judge its counts by.
#[derive(Debug, Clone, Copy)]
struct Recorded {
    frame: u64,
    limit: u64,
}

/// Bytes of a count buffer: the counters, then the header.
const STATUS_BYTES: u64 = (size_of::<Counters>() + size_of::<PairsHeader>()) as u64;

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
        let context = self.context().clone();
        context.scoped(|| self.record_checked(encoder, bodies, Some((positions, layout))))
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
                self.prepare(bodies)?;
                None
            }
            Some((buffer, layout)) => {
                let span = self.check_source(buffer, &layout, count)?;
                self.grow_bodies(count)?;
                self.upload_infos(bodies, false);
                let group = (span > 0).then(|| {
                    let binding = wgpu::BufferBinding {
                        buffer,
                        offset: 0,
                        size: std::num::NonZeroU64::new(span.next_multiple_of(4)),
                    };
                    bounds::source_group(
                        &self.context().device,
                        &self.pipelines.bounds,
                        &self.buffers,
                        binding,
                    )
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
        self.encode_run(encoder, &run);
        let frame = self.recordings.next_frame;
        self.recordings.next_frame += 1;
        let recorded = Recorded { frame, limit };
        let (counters, header) = (self.buffers.counters.clone(), self.buffers.header.clone());
        if let Some(slot) = self.status_slot() {
            let at = size_of::<Counters>() as u64;
            encoder.copy_buffer_to_buffer(&counters, 0, &slot.buffer, 0, at);
            encoder.copy_buffer_to_buffer(&header, 0, &slot.buffer, at, STATUS_BYTES - at);
            slot.state = SlotState::Recorded(recorded);
        }
        Ok(RecordedFrame {
            frame,
            pairs: self.buffers.pairs.clone(),
            header: self.buffers.header.clone(),
            pair_capacity: self.capacity.pairs,
        })
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

    /// A free count buffer, made if none is and fewer than [`MAX_STATUS_SLOTS`] exist.
    fn status_slot(&mut self) -> Option<&mut StatusSlot> {
        let slots = &mut self.recordings.slots;
        let free = slots
            .iter()
            .position(|s| matches!(s.state, SlotState::Free));
        let index = match free {
            Some(index) => index,
            None if slots.len() < MAX_STATUS_SLOTS => {
                let buffer = self.context.device.create_buffer(&wgpu::BufferDescriptor {
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
        self.context
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
            self.note_kind_counts(c, false);
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
        let now = self.capacity;
        // Bins that did not hold their candidates are laid out again from the counts
        // just kept; a buffer with little spare for them grows.
        let overflowed = c.candidates > now.candidates
            || (c.overflowed_bins != 0 && bins::candidate_room(c) > now.candidates)
            || c.pairs > now.pairs
            || c.deferred > now.deferred
            || c.long_pairs > now.long_pairs
            || c.tasks > now.tasks;
        if overflowed {
            self.grow(Capacity {
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
