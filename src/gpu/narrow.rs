//! Stage 3 on the GPU, narrow phase: host side of `shaders/narrow.wgsl`. The counts
//! stay on the GPU: `narrow_args` turns the candidate count into the workgroup counts of
//! an indirect dispatch of `narrow`, and `long_args` sizes the chunks of long tests
//! (`narrow_task`) and their verdicts (`narrow_finish`) likewise.

use super::collider::Buffers;
use super::{Kernel, StageGroups, StageKernels};
use crate::packed::{ARGS_LONG, ARGS_NARROW, ARGS_TASKS};

/// The stage's kernels in dispatch order, with the bindings each one uses.
pub(crate) const KERNELS: &[Kernel] = &[
    Kernel {
        entry: "narrow_args",
        bindings: &[0, 5, 7],
    },
    Kernel {
        entry: "narrow",
        bindings: &[0, 1, 2, 3, 4, 5, 6, 8, 9],
    },
    Kernel {
        entry: "long_args",
        bindings: &[0, 5, 7],
    },
    Kernel {
        entry: "narrow_task",
        bindings: &[0, 1, 2, 3, 5, 8, 9],
    },
    Kernel {
        entry: "narrow_finish",
        bindings: &[0, 1, 2, 3, 5, 6, 8],
    },
];

/// The buffer at each binding number of `shaders/narrow.wgsl`.
pub(crate) fn buffer(b: &Buffers, binding: u32) -> &wgpu::Buffer {
    match binding {
        0 => &b.params,
        1 => &b.library,
        2 => &b.transforms,
        3 => &b.infos,
        4 => &b.candidates,
        5 => &b.counters,
        6 => &b.pairs,
        7 => &b.dispatch_args,
        8 => &b.long_pairs,
        9 => &b.tasks,
        n => unreachable!("shaders/narrow.wgsl has no binding {n}"),
    }
}

/// One thread per candidate, then one per chunk of a long test, then one per long
/// test, each sized on the GPU.
pub(crate) fn dispatch(
    kernels: &StageKernels,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    b: &Buffers,
) {
    kernels.dispatch(pass, groups, 0, (1, 1));
    kernels.dispatch_indirect(pass, groups, 1, &b.dispatch_args, ARGS_NARROW);
    kernels.dispatch(pass, groups, 2, (1, 1));
    kernels.dispatch_indirect(pass, groups, 3, &b.dispatch_args, ARGS_TASKS);
    kernels.dispatch_indirect(pass, groups, 4, &b.dispatch_args, ARGS_LONG);
}
