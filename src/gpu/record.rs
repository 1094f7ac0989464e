//! Frames recorded into the caller's own `wgpu::CommandEncoder`: no submission and no
//! readback of gpu-collide's own. [`crate::GpuCollider::record`] takes the positions from host
//! bodies; [`crate::GpuCollider::record_from_buffer`] reads them (and optionally the angles)
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
//! [`crate::GpuCollider::recorded_counts`] tells the caller what came back.
//!
//! This module holds the state and the GPU side and knows nothing of the collider; the
//! collider's methods that drive it are in `src/gpu/collider/record.rs`.

use std::mem::size_of;
use std::sync::{Arc, Mutex};

use crate::error::Error;
use crate::layout::packed::{Counters, PairsHeader};

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
pub(super) const MAX_STATUS_SLOTS: usize = 8;

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
    pub(super) fn span(&self, bodies: u32) -> Result<u64, Error> {
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
    pub(super) next_frame: u64,
    pub(super) slots: Vec<StatusSlot>,
    pub(super) latest: Option<RecordedCounts>,
}

#[derive(Debug)]
pub(super) struct StatusSlot {
    pub(super) buffer: wgpu::Buffer,
    pub(super) state: SlotState,
}

#[derive(Debug)]
pub(super) enum SlotState {
    Free,
    /// Copied into in frame `frame`'s commands, maybe not yet submitted.
    Recorded(Recorded),
    /// Submitted (a later frame was recorded since) and being mapped.
    Mapping(Recorded, MapFlag),
}

pub(super) type MapFlag = Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>;

/// What a frame ran with, to judge its counts by.
#[derive(Debug, Clone, Copy)]
pub(super) struct Recorded {
    pub(super) frame: u64,
    pub(super) limit: u64,
}

/// Bytes of a count buffer: the counters, then the header.
pub(super) const STATUS_BYTES: u64 = (size_of::<Counters>() + size_of::<PairsHeader>()) as u64;
