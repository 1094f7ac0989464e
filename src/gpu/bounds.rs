//! Stage 1 on the GPU, bounds: host side of `shaders/bounds.wgsl`, the world box of
//! every body and its cell in the grid (the counting sort's first step, which
//! [`super::broad`] finishes); for frames whose positions are in a buffer of the
//! caller's, `read_bodies` first turns them into transforms.

use super::buffers::{Buffers, Slot};
use super::{Kernel, KernelFinder, KernelNames, StageGroups, StageKernels};
use crate::layout::packed::dispatch_size;

/// The stage's kernels.
#[derive(Debug)]
pub(crate) struct Kernels {
    /// Bounds and cells, listing the bodies that search for the broad phase.
    bounds: Kernel,
    /// Reads the caller's buffer of bodies into transforms.
    read_bodies: Kernel,
    /// `bounds` for frames in which every body searches, which lists them in the order
    /// `broad` runs them.
    in_order: Kernel,
}

impl KernelNames for Kernels {
    fn find(kernels: &mut KernelFinder) -> Result<Self, String> {
        Ok(Kernels {
            bounds: kernels.find("bounds")?,
            read_bodies: kernels.find("read_bodies")?,
            in_order: kernels.find("bounds_in_order")?,
        })
    }
}

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
    (11, Slot::GroupBoxes),
];

/// One thread per body; when the bodies come from the caller's buffer, `source` is the
/// bind group of `read_bodies` over it ([`source_group`]). `every_body_searches`: no
/// body waits to be found and some look (not the queries' grid), so every body is
/// listed for the broad phase, in order (`bounds_in_order`).
pub(crate) fn dispatch(
    kernels: &StageKernels<Kernels>,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    bodies: u32,
    source: Option<&wgpu::BindGroup>,
    every_body_searches: bool,
) {
    let k = &kernels.named;
    if let Some(group) = source {
        kernels.dispatch_with(pass, group, k.read_bodies, dispatch_size(bodies));
    }
    let kernel = if every_body_searches {
        k.in_order
    } else {
        k.bounds
    };
    kernels.dispatch(pass, groups, kernel, dispatch_size(bodies));
}

/// The bind group of `read_bodies`, with `source` (the caller's buffer) at binding 5.
pub(crate) fn source_group(
    device: &wgpu::Device,
    kernels: &StageKernels<Kernels>,
    buffers: &Buffers,
    source: wgpu::BufferBinding,
) -> wgpu::BindGroup {
    kernels.bind_one(device, buffers, kernels.named.read_bodies, Some(source))
}
