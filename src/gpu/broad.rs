//! Stage 2 on the GPU, broad phase: host side of `shaders/broad.wgsl`: the rest of the
//! counting sort of the bodies into the grid's hash table (the bounds stage counted
//! them), then the query that emits candidates.

use super::buffers::{Buffers, Slot, WalkCopies};
use super::{BroadKernels, Kernel, KernelFinder, KernelNames, StageGroups};
use crate::layout::packed::{dispatch_size, GridInfo, ARGS_BROAD, ARGS_DEFERRED, BUCKETS_PER_THREAD};
use crate::layout::shaders::GridBinding;

/// The stage's kernels, in dispatch order.
#[derive(Debug)]
pub(crate) struct Kernels {
    allocate_buckets: Kernel,
    scatter_cells: Kernel,
    /// The walk, in either form ([`GridBinding`]).
    broad: Kernel,
    deferred_args: Kernel,
    broad_deferred: Kernel,
    cut_pairs: Kernel,
}

impl KernelNames for Kernels {
    fn find(kernels: &mut KernelFinder) -> Result<Self, String> {
        Ok(Kernels {
            allocate_buckets: kernels.find("allocate_buckets")?,
            scatter_cells: kernels.find("scatter_cells")?,
            broad: kernels.find("broad")?,
            deferred_args: kernels.find("deferred_args")?,
            broad_deferred: kernels.find("broad_deferred")?,
            cut_pairs: kernels.find("cut_pairs")?,
        })
    }
}

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
    // The uniform form's copies (GridBinding::Uniform).
    (11, Slot::WalkEntries),
    (12, Slot::WalkStarts),
    (13, Slot::WalkEnds),
    (14, Slot::WalkBoxKeys),
    (15, Slot::Infos),
    (16, Slot::GroupBoxes),
    (17, Slot::Velocities),
];

/// The counting sort's last steps, the query by the bodies of the slice (`Params::slice_start ..
/// slice_end`, or those of them the grid lists as seekers), and the crowded cells they
/// handed over, for `bodies` bodies and `buckets` buckets, in one pass: the storage form
/// of the walk ([`GridBinding`]); the uniform form records [`dispatch_grid`], the
/// copies and [`dispatch_search`] in passes of their own.
pub(crate) fn dispatch(
    kernels: &BroadKernels,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    b: &Buffers,
    bodies: u32,
    buckets: u32,
    part_groups: bool,
) {
    dispatch_grid(kernels, pass, groups, bodies, buckets);
    dispatch_search(kernels, pass, groups, b, part_groups);
}

/// The query by the bodies of the slice and the crowded cells they handed over, once the grid is
/// sorted ([`dispatch_grid`]).
pub(crate) fn dispatch_search(
    kernels: &BroadKernels,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    b: &Buffers,
    part_groups: bool,
) {
    let k = &kernels.named;
    kernels.dispatch_indirect(pass, groups, k.broad, &b.dispatch_args, ARGS_BROAD);
    kernels.dispatch(pass, groups, k.deferred_args, (1, 1));
    kernels.dispatch_indirect(
        pass,
        groups,
        k.broad_deferred,
        &b.dispatch_args,
        ARGS_DEFERRED,
    );
    // Where parts are in groups, the pairs of bodies with a group in them, which both
    // kernels above hand over, are cut into pairs of parts (`cut_pairs`).
    if part_groups {
        kernels.dispatch(pass, groups, k.deferred_args, (1, 1));
        kernels.dispatch_indirect(pass, groups, k.cut_pairs, &b.dispatch_args, ARGS_DEFERRED);
    }
}

/// Records into `walk` the uniform copies of the sorted grid that the walk reads in
/// [`GridBinding::Uniform`]: the entries and the box keys of `bodies` bodies, and the
/// starts and the blocks' ends of a table of `buckets` buckets (laid out one after the
/// other in `buckets`, see `table_words`). Both must be within the copies' sizes
/// ([`GridBinding::UNIFORM_ENTRIES`], [`GridBinding::UNIFORM_BUCKETS`]), which the
/// collider chooses the form by.
pub(crate) fn copy_for_walk(
    encoder: &mut wgpu::CommandEncoder,
    b: &Buffers,
    walk: &WalkCopies,
    bodies: u32,
    buckets: u32,
) {
    debug_assert!(
        bodies <= GridBinding::UNIFORM_ENTRIES && buckets <= GridBinding::UNIFORM_BUCKETS
    );
    let word = size_of::<u32>() as u64;
    if bodies > 0 {
        encoder.copy_buffer_to_buffer(&b.grid_entries, 0, &walk.entries, 0, bodies as u64 * word);
    }
    encoder.copy_buffer_to_buffer(&b.buckets, 0, &walk.starts, 0, buckets as u64 * word);
    let ends = (buckets / BUCKETS_PER_THREAD) as u64 * word;
    encoder.copy_buffer_to_buffer(&b.buckets, buckets as u64 * word, &walk.ends, 0, ends);
    // The box keys follow the placements (two words a body) and the seekers (one) in
    // the summary's lists (box_key_word in grid.wgsl).
    if bodies > 0 {
        let keys = size_of::<GridInfo>() as u64 + 3 * bodies as u64 * word;
        encoder.copy_buffer_to_buffer(&b.grid_info, keys, &walk.box_keys, 0, bodies as u64 * word);
    }
}

/// The counting sort's last two steps (`allocate_buckets`, `scatter_cells`), for `bodies` bodies and
/// `buckets` buckets, after the bounds stage counted the bodies into their buckets: the
/// grid the queries read (`super::query`) and the first part of [`dispatch`].
pub(crate) fn dispatch_grid(
    kernels: &BroadKernels,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    bodies: u32,
    buckets: u32,
) {
    let k = &kernels.named;
    let blocks = dispatch_size(buckets / BUCKETS_PER_THREAD);
    kernels.dispatch(pass, groups, k.allocate_buckets, blocks);
    kernels.dispatch(pass, groups, k.scatter_cells, dispatch_size(bodies));
}
