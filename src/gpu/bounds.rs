//! Stage 1 on the GPU, bounds: host side of `shaders/bounds.wgsl`, the world box of
//! every body and its cell in the grid (the counting sort's first step, which
//! [`super::broad`] finishes); for frames whose positions are in a buffer of the
//! caller's, `read_bodies` first turns them into transforms.

use super::buffers::{Buffers, Slot};
use super::{Kernel, StageGroups, StageKernels};
use crate::packed::dispatch_size;

/// The stage's kernels and the bindings they use.
pub(crate) const KERNELS: &[Kernel] = &[
    Kernel {
        entry: "bounds",
        bindings: &[0, 1, 2, 3, 4, 7, 8, 9, 10],
    },
    Kernel {
        entry: READ_BODIES,
        bindings: &[0, 2, 3, 5, 6],
    },
    Kernel {
        entry: "bounds_in_order",
        bindings: &[0, 1, 2, 3, 4, 7, 8, 9, 10],
    },
];

/// Index in [`KERNELS`] of `bounds_in_order`: the kernel of frames in which every body
/// searches, which lists them in the order `broad` runs them.
const BOUNDS_IN_ORDER: usize = 2;

/// The kernel that reads the caller's buffer of bodies; index 1 of [`KERNELS`].
const READ_BODIES: &str = "read_bodies";

/// The buffer at each binding number of `shaders/bounds.wgsl`.
pub(crate) const BINDINGS: &[(u32, Slot)] = &[
    (0, Slot::Params),
    (1, Slot::Library),
    (2, Slot::Transforms),
    (3, Slot::Infos),
    (4, Slot::Aabbs),
    (5, Slot::Source),
    (6, Slot::Counters),
    (7, Slot::Velocities),
    (8, Slot::BodyCells),
    (9, Slot::Buckets),
    (10, Slot::GridInfo),
];

/// One thread per body; when the bodies come from the caller's buffer, `source` is the
/// bind group of `read_bodies` over it ([`source_group`]). `every_body_searches`: no
/// body waits to be found and some look (not the queries' grid), so every body is
/// listed for the broad phase, in order (`bounds_in_order`).
pub(crate) fn dispatch(
    kernels: &StageKernels,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    bodies: u32,
    source: Option<&wgpu::BindGroup>,
    every_body_searches: bool,
) {
    if let Some(group) = source {
        kernels.dispatch_with(pass, group, 1, dispatch_size(bodies));
    }
    let kernel = if every_body_searches {
        BOUNDS_IN_ORDER
    } else {
        0
    };
    kernels.dispatch(pass, groups, kernel, dispatch_size(bodies));
}

/// The bind group of `read_bodies`, with `source` (the caller's buffer) at binding 5.
pub(crate) fn source_group(
    device: &wgpu::Device,
    kernels: &StageKernels,
    buffers: &Buffers,
    source: wgpu::BufferBinding,
) -> wgpu::BindGroup {
    kernels.bind_one(device, buffers, 1, Some(source))
}
