//! Stage 3 on the GPU, narrow phase: host side of `shaders/narrow.wgsl`. The counts
//! stay on the GPU: `narrow_args` sizes the dispatches from the bins the broad phase
//! appended to. In a crowded frame the broad phase has put each kind pair's candidates
//! in a bin of their own (`src/gpu/bins.rs`), and each bin is tested by the kernel of its
//! kind pair; a frame with few candidates keeps one list and tests it with `narrow`.
//! Then `long_args` sizes the chunks of long tests (`narrow_task`) and their verdicts
//! (`narrow_finish`) likewise, where the library may have long tests at all. A frame
//! with motion runs the swept kernels of `shaders/sweep.wgsl` instead.

use super::buffers::{Buffers, Slot};
use super::{Kernel, KernelFinder, KernelNames, StageGroups, StageKernels};
pub(crate) use crate::layout::packed::BIN_FROM_CANDIDATES;
use crate::input::shapes::PairKind;
use crate::layout::packed::{ARGS_BINS, ARGS_LONG, ARGS_NARROW, ARGS_TASKS};

/// The entry point that tests the candidates of kind pair `pair`: `narrow_` and the
/// pair's name, lower kind first (`narrow_polygon_circle`).
pub(crate) fn pair_kernel_name(pair: PairKind) -> String {
    format!("narrow_{}", pair.name())
}

/// The stage's kernels, in dispatch order.
#[derive(Debug)]
pub(crate) struct Kernels {
    /// Sizes the dispatches that test candidates.
    args: Kernel,
    /// Tests candidates kept in one list.
    narrow: Kernel,
    /// Test each kind pair's bin of candidates, in [`PairKind::index`] order ([`pair_kernel_name`]).
    bins: Vec<Kernel>,
    long_args: Kernel,
    task: Kernel,
    finish: Kernel,
    publish: Kernel,
    // Frames with motion (shaders/sweep.wgsl).
    sweep: Kernel,
    sweep_hand_over: Kernel,
    sweep_long_args: Kernel,
    sweep_task: Kernel,
    sweep_finish: Kernel,
}

impl KernelNames for Kernels {
    fn find(kernels: &mut KernelFinder) -> Result<Self, String> {
        Ok(Kernels {
            args: kernels.find("narrow_args")?,
            narrow: kernels.find("narrow")?,
            bins: PairKind::all()
                .map(|pair| kernels.find(&pair_kernel_name(pair)))
                .collect::<Result<_, _>>()?,
            long_args: kernels.find("long_args")?,
            task: kernels.find("narrow_task")?,
            finish: kernels.find("narrow_finish")?,
            publish: kernels.find("publish")?,
            sweep: kernels.find("sweep")?,
            sweep_hand_over: kernels.find("sweep_hand_over")?,
            sweep_long_args: kernels.find("sweep_long_args")?,
            sweep_task: kernels.find("sweep_task")?,
            sweep_finish: kernels.find("sweep_finish")?,
        })
    }
}

/// The buffer at each binding number of `shaders/narrow.wgsl`.
pub(crate) const BINDINGS: &[(u32, Slot)] = &[
    (0, Slot::Params),
    (1, Slot::Library),
    (2, Slot::Transforms),
    (3, Slot::Infos),
    (4, Slot::Candidates),
    (5, Slot::Counters),
    (6, Slot::Pairs),
    (7, Slot::DispatchArgs),
    (8, Slot::LongPairs),
    (9, Slot::Tasks),
    (10, Slot::Verdicts),
    (11, Slot::Header),
    (12, Slot::Velocities),
    (13, Slot::Tois),
    (14, Slot::SweptLongPairs),
];

/// What a frame's narrow stage runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NarrowFrame {
    /// Each kind pair's candidates in a bin of their own (a crowded frame).
    pub(crate) binned: bool,
    /// The header a caller's shaders read written last (a frame recorded into the
    /// caller's encoder).
    pub(crate) publish: bool,
    /// A frame with motion.
    pub(crate) swept: bool,
    /// Whether a pair of the library may take more than one chunk to test
    /// ([`crate::cpu::narrow::has_long_tests`]): where none can, the kernels of long
    /// tests are not dispatched, sparing `long_args`, a one-thread dispatch that cost
    /// lavapipe about 40 µs a frame.
    pub(crate) long_tests: bool,
}

/// When `binned`, one thread per candidate of each kind pair's bin; else one per
/// candidate. Then, where the library may have long tests, one per chunk of a long
/// test and one per long test. Every size is set on the GPU. With `publish`, last, the
/// header a caller's shaders read.
///
/// A frame with motion (`swept`) runs the kernels of `shaders/sweep.wgsl` instead,
/// after the same `narrow_args`: `sweep` and `sweep_hand_over` over the candidates, then
/// `sweep_task` over the blocks of chunks of long tests and `sweep_finish` over those
/// tests. It never bins (its kernels read the candidates as one list) and never
/// publishes (recorded frames are static).
pub(crate) fn dispatch(
    kernels: &StageKernels<Kernels>,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    b: &Buffers,
    frame: NarrowFrame,
) {
    let k = &kernels.named;
    let args = &b.dispatch_args;
    kernels.dispatch(pass, groups, k.args, (1, 1));
    if frame.swept {
        kernels.dispatch_indirect(pass, groups, k.sweep, args, ARGS_NARROW);
        kernels.dispatch_indirect(pass, groups, k.sweep_hand_over, args, ARGS_NARROW);
        kernels.dispatch(pass, groups, k.sweep_long_args, (1, 1));
        kernels.dispatch_indirect(pass, groups, k.sweep_task, args, ARGS_TASKS);
        kernels.dispatch_indirect(pass, groups, k.sweep_finish, args, ARGS_LONG);
        return;
    }
    if frame.binned {
        for (pair, &kernel) in (0..).zip(&k.bins) {
            kernels.dispatch_indirect(pass, groups, kernel, args, ARGS_BINS + pair);
        }
    } else {
        kernels.dispatch_indirect(pass, groups, k.narrow, args, ARGS_NARROW);
    }
    if frame.long_tests {
        kernels.dispatch(pass, groups, k.long_args, (1, 1));
        kernels.dispatch_indirect(pass, groups, k.task, args, ARGS_TASKS);
        kernels.dispatch_indirect(pass, groups, k.finish, args, ARGS_LONG);
    }
    if frame.publish {
        kernels.dispatch(pass, groups, k.publish, (1, 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_pair_names_its_kernel_by_its_shapes() {
        let names: Vec<String> = PairKind::all().map(pair_kernel_name).collect();
        assert_eq!(
            names,
            [
                "narrow_polygon_polygon",
                "narrow_polygon_circle",
                "narrow_polygon_capsule",
                "narrow_polygon_bitmask",
                "narrow_circle_circle",
                "narrow_circle_capsule",
                "narrow_circle_bitmask",
                "narrow_capsule_capsule",
                "narrow_capsule_bitmask",
                "narrow_bitmask_bitmask",
            ]
        );
    }
}
