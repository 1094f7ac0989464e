//! Stage 2 on the GPU, broad phase: host side of `shaders/broad.wgsl`: the counting
//! sort of the bodies into the grid's hash table, then the query that emits candidates.

use super::buffers::Buffers;
use super::{Kernel, StageGroups, StageKernels};
use crate::packed::{dispatch_size, ARGS_DEFERRED, BUCKETS_PER_THREAD};

/// The stage's kernels in dispatch order, with the bindings each one uses.
pub(crate) const KERNELS: &[Kernel] = &[
    Kernel {
        entry: "assign_cells",
        bindings: &[0, 1, 2, 3, 4, 6],
    },
    Kernel {
        entry: "allocate_buckets",
        bindings: &[0, 4, 6],
    },
    Kernel {
        entry: "scatter_cells",
        bindings: &[0, 3, 4, 5],
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
        bindings: &[0, 2, 3, 5, 7, 8, 9],
    },
];

/// The buffer at each binding number of `shaders/broad.wgsl`.
pub(crate) fn buffer(b: &Buffers, binding: u32) -> Option<&wgpu::Buffer> {
    match binding {
        0 => Some(&b.params),
        1 => Some(&b.infos),
        2 => Some(&b.aabbs),
        3 => Some(&b.body_cells),
        4 => Some(&b.buckets),
        5 => Some(&b.grid_entries),
        6 => Some(&b.grid_info),
        7 => Some(&b.candidates),
        8 => Some(&b.counters),
        9 => Some(&b.deferred),
        10 => Some(&b.dispatch_args),
        n => unreachable!("shaders/broad.wgsl has no binding {n}"),
    }
}

/// The counting sort, the query by bodies `lookers.0 .. lookers.1`, and the crowded
/// cells they handed over, for `bodies` bodies and `buckets` buckets.
pub(crate) fn dispatch(
    kernels: &StageKernels,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    b: &Buffers,
    bodies: u32,
    buckets: u32,
    lookers: (u32, u32),
) {
    let per_body = dispatch_size(bodies);
    let per_bucket_run = dispatch_size(buckets / BUCKETS_PER_THREAD);
    let per_looker = dispatch_size(lookers.1 - lookers.0);
    for (k, size) in [per_body, per_bucket_run, per_body, per_looker, (1, 1)]
        .into_iter()
        .enumerate()
    {
        kernels.dispatch(pass, groups, k, size);
    }
    kernels.dispatch_indirect(pass, groups, 5, &b.dispatch_args, ARGS_DEFERRED);
}
