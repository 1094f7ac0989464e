//! Frames that do not wait: [`crate::GpuCollider::submit`] uploads the bodies, records and
//! submits a frame and returns at once; [`crate::GpuCollider::collect`] (waiting) or
//! [`crate::GpuCollider::try_collect`] (never blocking) takes its pairs later, so that a game
//! can submit frame N and use frame N-1's pairs meanwhile.
//!
//! Each frame in flight has a readback buffer of its own (reused once collected); the
//! buffers the stages work in are shared, which the queue's order makes safe. A frame
//! whose work lists overflowed their buffers (or that the blocking path would refuse)
//! is run again through the blocking path when collected, from a copy of its bodies:
//! the answer is always the blocking call's, never a short one. A frame with motion
//! gives its swept pairs, as the blocking `find_pairs` does.
//!
//! This module holds the state and the GPU side and knows nothing of the collider; the
//! collider's methods that drive it are in `src/gpu/collider/pending.rs`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use super::buffers::Room;
use super::readback::MapOutcome;
use crate::answer::parts::Expansion;
use crate::input::body::Body;

/// The most frames a collider holds in flight; [`crate::GpuCollider::submit`] refuses
/// one more.
pub const MAX_FRAMES_IN_FLIGHT: usize = 4;

/// A frame submitted with [`crate::GpuCollider::submit`], to be collected by the collider that
/// submitted it. A frame dropped without being collected keeps its place among the
/// [`MAX_FRAMES_IN_FLIGHT`] until the collider is dropped.
#[derive(Debug)]
#[must_use = "a submitted frame is collected with collect or try_collect"]
pub struct PendingFrame {
    pub(super) collider: u64,
    pub(super) seq: u64,
}

/// A frame in flight, as the collider keeps it.
#[derive(Debug)]
pub(crate) struct InFlight {
    pub(super) seq: u64,
    /// `None` for a frame of fewer than two bodies, which needs no GPU work.
    pub(super) work: Option<Work>,
    /// For a library with concave or compound shapes, how the frame's bodies were
    /// expanded into parts, to turn the pairs of parts back into pairs of bodies.
    pub(super) expansion: Option<Expansion>,
}

#[derive(Debug)]
pub(super) struct Work {
    pub(super) readback: wgpu::Buffer,
    pub(super) submission: wgpu::SubmissionIndex,
    /// Set by the map callback.
    pub(super) mapped: MapOutcome,
    /// The bodies, kept to run the frame again through the blocking path if needed.
    pub(super) bodies: Vec<Body>,
    pub(super) pair_capacity: u32,
    /// What the frame had room for, and the candidate limit it ran with.
    pub(super) room: Room,
    pub(super) limit: u64,
    /// A frame with motion: its times of impact follow the pairs in the readback.
    pub(super) swept: bool,
    /// Whether the frame's stage times were written (`Collider::set_stage_timing`).
    pub(super) timed: bool,
}

/// The frames a collider has in flight and the readback buffers it may reuse.
#[derive(Debug)]
pub(crate) struct Frames {
    pub(super) id: u64,
    pub(super) next_seq: u64,
    pub(super) in_flight: VecDeque<InFlight>,
    pub(super) spare: Vec<wgpu::Buffer>,
}

impl Default for Frames {
    fn default() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Frames {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            next_seq: 0,
            in_flight: VecDeque::new(),
            spare: Vec::new(),
        }
    }
}
