//! Contacts on the GPU (scene format 1.1): host side of `shaders/contact.wgsl`.
//!
//! A contact frame is a plain frame (bounds, broad, narrow, grown and run again as
//! `find_pairs` runs it) with one more pass recorded after the narrow phase, in the same
//! submission: for every pair the narrow phase stored, its contact, into a list parallel
//! to the pair buffer, sized on the GPU from the pair count (`contact_args`) as the
//! narrow phase sizes its own. The pairs never leave the GPU in between; pairs and
//! contacts are read back after the one submission and sorted together. A contact that is
//! too long for one invocation (llvmpipe's loop cap, see the shader) runs as chunks in a
//! task list; when that list overflows, the pass alone runs again over the same pairs,
//! with longer lists.
//!
//! Nothing of this is built before the first call to `find_contacts`: a collider that
//! only finds pairs compiles, allocates and dispatches nothing more than before.
//!
//! This module holds the state and the GPU side and knows nothing of the collider; the
//! collider's methods that drive it are in `src/gpu/collider/contact.rs`.

use std::mem::size_of;

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};

use super::buffers::Slot;
use super::{ContactKernels, Kernel, KernelFinder, KernelNames, StageGroups};

/// One pair's contact as the shader writes it (`ContactOut`): `normal` and `depth` for
/// two polygons or circles, `area` for a pair with a bitmask.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuContact {
    /// Unit direction from body `i` towards body `j`.
    pub normal: [f32; 2],
    /// The overlap along `normal`, as measured (possibly below 0 or not finite).
    pub depth: f32,
    /// Cells the pair shares.
    pub area: u32,
}

/// The pass's counters and its lists' capacities (`ContactCounters`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct ContactCounters {
    /// Pairs stored in the pair buffer, written by `contact_args`.
    pub pairs: u32,
    /// Pairs handed over to chunks, also those past the list's end.
    pub long_pairs: u32,
    /// Their chunks, also those past the task list's end.
    pub tasks: u32,
    /// Long pairs the list holds.
    pub long_capacity: u32,
    /// Chunks the task list holds.
    pub task_capacity: u32,
    /// Padding to 16-byte alignment.
    pub pad: [u32; 3],
}

/// A long pair (`ContactLong`): 4 words.
pub(super) const LONG_BYTES: u64 = 16;
/// A chunk of a long pair (`ContactTask`): 4 words.
pub(super) const TASK_BYTES: u64 = 16;

/// Where the pass's own buffers sit, after the narrow stage's bindings 0 to 11.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactSlot {
    /// A buffer of the frame, as the narrow stage binds it.
    Frame(Slot),
    /// The contacts, parallel to the pairs.
    Contacts,
    /// [`ContactCounters`].
    Counters,
    /// Long pairs.
    Longs,
    /// Their chunks.
    Tasks,
    /// Indirect dispatch sizes of `contact_plan`, `contact_task` and `contact_finish`.
    Args,
}

impl ContactSlot {
    #[cfg(feature = "internals")]
    /// The names a WGSL variable bound to this buffer may have.
    pub fn wgsl_names(self) -> &'static [&'static str] {
        match self {
            ContactSlot::Frame(slot) => slot.wgsl_names(),
            ContactSlot::Contacts => &["contacts"],
            ContactSlot::Counters => &["contact_counters"],
            ContactSlot::Longs => &["contact_longs"],
            ContactSlot::Tasks => &["contact_tasks"],
            ContactSlot::Args => &["contact_dispatch_args"],
        }
    }
}

/// The buffer at each binding number the pass's kernels use.
pub const BINDINGS: &[(u32, ContactSlot)] = &[
    (0, ContactSlot::Frame(Slot::Params)),
    (1, ContactSlot::Frame(Slot::Library)),
    (2, ContactSlot::Frame(Slot::Transforms)),
    (3, ContactSlot::Frame(Slot::Infos)),
    (5, ContactSlot::Frame(Slot::Counters)),
    (6, ContactSlot::Frame(Slot::Pairs)),
    (12, ContactSlot::Contacts),
    (13, ContactSlot::Counters),
    (14, ContactSlot::Longs),
    (15, ContactSlot::Tasks),
    (16, ContactSlot::Args),
];

/// The pass's kernels, in dispatch order.
#[derive(Debug)]
pub(crate) struct Kernels {
    pub(super) args: Kernel,
    pub(super) plan: Kernel,
    pub(super) task_args: Kernel,
    pub(super) task: Kernel,
    pub(super) finish: Kernel,
}

impl KernelNames for Kernels {
    fn find(kernels: &mut KernelFinder) -> Result<Self, String> {
        Ok(Kernels {
            args: kernels.find("contact_args")?,
            plan: kernels.find("contact_plan")?,
            task_args: kernels.find("contact_task_args")?,
            task: kernels.find("contact_task")?,
            finish: kernels.find("contact_finish")?,
        })
    }
}

/// Slots of the pass's indirect arguments.
pub(super) const ARGS_PLAN: u32 = 0;
pub(super) const ARGS_TASK: u32 = 1;
pub(super) const ARGS_FINISH: u32 = 2;

/// What `find_contacts` keeps between frames: the compiled kernels, and once a frame
/// has run, the buffers and bind groups.
#[derive(Debug, Default)]
pub(crate) struct ContactState {
    pub(super) pipelines: Option<Arc<ContactKernels>>,
    pub(super) pass: Option<ContactPass>,
}

/// The pass's buffers, sized for a pair capacity, and its bind groups over them and the
/// frame's buffers.
#[derive(Debug)]
pub(super) struct ContactPass {
    pub(super) contacts: wgpu::Buffer,
    pub(super) counters: wgpu::Buffer,
    pub(super) args: wgpu::Buffer,
    /// The long pairs and their chunks, held here as well as by the groups.
    pub(super) _lists: [wgpu::Buffer; 2],
    /// Counters then contacts, mapped after the submission.
    pub(super) readback: wgpu::Buffer,
    /// Contacts the buffers hold (the frame's pair capacity), long pairs and chunks.
    pub(super) capacity: (u32, u32, u32),
    /// The frame's pair buffer the groups bind: new frame buffers mean new groups.
    pub(super) bound_pairs: wgpu::Buffer,
    pub(super) groups: StageGroups,
}

/// The counters and the first `stored` contacts of the pass's readback.
pub(super) fn read_contacts(bytes: &[u8], stored: usize) -> (ContactCounters, Vec<GpuContact>) {
    let at = size_of::<ContactCounters>();
    let counters: ContactCounters = bytemuck::pod_read_unaligned(&bytes[..at]);
    let contacts = bytes[at..]
        .chunks_exact(size_of::<GpuContact>())
        .take(stored)
        .map(bytemuck::pod_read_unaligned::<GpuContact>)
        .collect();
    (counters, contacts)
}

/// A measured overlap as a depth, as the cpu backend gives it: at least 0 (touching),
/// and finite even when the arithmetic overflowed far past the format's range.
pub(super) fn depth_of(overlap: f32) -> f32 {
    if overlap.is_nan() || overlap < 0.0 {
        0.0
    } else {
        overlap.min(f32::MAX)
    }
}
