//! Stage 2 on the GPU, broad phase: host side of `shaders/broad.wgsl`: the rest of the
//! counting sort of the bodies into the grid's hash table (the bounds stage counted
//! them), then the query that emits candidates.

use super::buffers::{Buffers, Slot};
use super::{Kernel, StageGroups, StageKernels};
use crate::packed::{dispatch_size, ARGS_BROAD, ARGS_DEFERRED, BUCKETS_PER_THREAD};

/// The stage's kernels in dispatch order, with the bindings each one uses.
pub(crate) const KERNELS: &[Kernel] = &[
    Kernel {
        entry: "allocate_buckets",
        bindings: &[0, 4, 6],
    },
    Kernel {
        entry: "scatter_cells",
        bindings: &[0, 4, 5, 6],
    },
    Kernel {
        entry: "broad_args",
        bindings: &[0, 6, 10],
    },
    Kernel {
        entry: "broad",
        bindings: &[0, 2, 3, 4, 5, 6, 7, 8, 9],
    },
    Kernel {
        entry: "deferred_args",
        bindings: &[0, 8, 10],
    },
    Kernel {
        entry: "broad_deferred",
        bindings: &[0, 2, 3, 5, 6, 7, 8, 9],
    },
];

/// The buffer at each binding number of `shaders/broad.wgsl`.
pub(crate) const BINDINGS: &[(u32, Slot)] = &[
    (0, Slot::Params),
    (2, Slot::Aabbs),
    (3, Slot::BodyCells),
    (4, Slot::Buckets),
    (5, Slot::GridEntries),
    (6, Slot::GridInfo),
    (7, Slot::Candidates),
    (8, Slot::Counters),
    (9, Slot::Deferred),
    (10, Slot::DispatchArgs),
];

/// The counting sort's last steps, the query by the lookers (`Params::first_looker ..
/// end_looker`, or those of them the grid lists as seekers), and the crowded cells they
/// handed over, for `bodies` bodies and `buckets` buckets.
pub(crate) fn dispatch(
    kernels: &StageKernels,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    b: &Buffers,
    bodies: u32,
    buckets: u32,
) {
    dispatch_grid(kernels, pass, groups, bodies, buckets);
    kernels.dispatch(pass, groups, 2, (1, 1));
    kernels.dispatch_indirect(pass, groups, 3, &b.dispatch_args, ARGS_BROAD);
    kernels.dispatch(pass, groups, 4, (1, 1));
    kernels.dispatch_indirect(pass, groups, 5, &b.dispatch_args, ARGS_DEFERRED);
}

/// The counting sort's last two steps (the first two kernels), for `bodies` bodies and
/// `buckets` buckets, after the bounds stage counted the bodies into their buckets: the
/// grid the queries read (`super::query`) and the first part of [`dispatch`].
pub(crate) fn dispatch_grid(
    kernels: &StageKernels,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    bodies: u32,
    buckets: u32,
) {
    kernels.dispatch(pass, groups, 0, dispatch_size(buckets / BUCKETS_PER_THREAD));
    kernels.dispatch(pass, groups, 1, dispatch_size(bodies));
}
