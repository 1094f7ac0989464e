//! Stage 1 on the GPU, bounds: host side of `shaders/bounds.wgsl`.

use super::collider::Buffers;
use super::{Kernel, StageGroups, StageKernels};
use crate::packed::dispatch_size;

/// The stage's one kernel and the bindings it uses.
pub(crate) const KERNELS: &[Kernel] = &[Kernel {
    entry: "bounds",
    bindings: &[0, 1, 2, 3, 4],
}];

/// The buffer at each binding number of `shaders/bounds.wgsl`.
pub(crate) fn buffer(b: &Buffers, binding: u32) -> &wgpu::Buffer {
    match binding {
        0 => &b.params,
        1 => &b.library,
        2 => &b.transforms,
        3 => &b.infos,
        4 => &b.aabbs,
        n => unreachable!("shaders/bounds.wgsl has no binding {n}"),
    }
}

/// One thread per body.
pub(crate) fn dispatch(
    kernels: &StageKernels,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    bodies: u32,
) {
    kernels.dispatch(pass, groups, 0, dispatch_size(bodies));
}
