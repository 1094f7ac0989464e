//! Stage 3 on the GPU, narrow phase: host side of `shaders/narrow.wgsl`. The candidate
//! count stays on the GPU: `narrow_args` turns it into the workgroup counts of an
//! indirect dispatch of `narrow`.

use super::collider::Buffers;
use super::{Kernel, StageGroups, StageKernels};

/// The stage's kernels in dispatch order, with the bindings each one uses.
pub(crate) const KERNELS: &[Kernel] = &[
    Kernel {
        entry: "narrow_args",
        bindings: &[0, 7, 9],
    },
    Kernel {
        entry: "narrow",
        bindings: &[0, 1, 2, 3, 4, 5, 6, 7, 8],
    },
];

/// The buffer at each binding number of `shaders/narrow.wgsl`.
pub(crate) fn buffer(b: &Buffers, binding: u32) -> &wgpu::Buffer {
    match binding {
        0 => &b.params,
        1 => &b.shapes,
        2 => &b.polygon_vertices,
        3 => &b.bitmask_words,
        4 => &b.transforms,
        5 => &b.infos,
        6 => &b.candidates,
        7 => &b.counters,
        8 => &b.pairs,
        _ => &b.narrow_dispatch,
    }
}

/// One thread per candidate, sized on the GPU.
pub(crate) fn dispatch(
    kernels: &StageKernels,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    b: &Buffers,
) {
    kernels.dispatch(pass, groups, 0, (1, 1));
    kernels.dispatch_indirect(pass, groups, 1, &b.narrow_dispatch);
}
