//! Stage 3 on the GPU, narrow phase: host side of `shaders/narrow.wgsl`. The counts
//! stay on the GPU: `narrow_args` sizes the dispatches from the bins the broad phase
//! appended to. In a crowded frame the broad phase has put each kind pair's candidates
//! in a bin of their own (`src/gpu/bins.rs`), and each bin is tested by the kernel of its
//! kind pair; a frame with few candidates keeps one list and tests it with `narrow`.
//! Then `long_args` sizes the chunks of long tests (`narrow_task`) and their verdicts
//! (`narrow_finish`) likewise, where the library may have long tests at all. A frame
//! with motion runs the swept kernels of `shaders/sweep.wgsl` instead.

use super::buffers::{Buffers, Slot};
use super::{Kernel, StageGroups, StageKernels};
pub(crate) use crate::packed::BIN_FROM_CANDIDATES;
use crate::packed::{ARGS_BINS, ARGS_LONG, ARGS_NARROW, ARGS_TASKS, PAIR_KINDS};

/// The bindings of the kernels that test candidates: `narrow` and every kind pair's.
const TEST_BINDINGS: &[u32] = &[0, 1, 2, 3, 4, 5, 6, 8, 9];

/// The stage's kernels in dispatch order, with the bindings each one uses; the kind
/// pairs' kernels are in `PAIR_*` order.
pub(crate) const KERNELS: &[Kernel] = &[
    Kernel {
        entry: "narrow_args",
        bindings: &[0, 5, 7],
    },
    Kernel {
        entry: "narrow",
        bindings: TEST_BINDINGS,
    },
    Kernel {
        entry: "narrow_polygon_polygon",
        bindings: TEST_BINDINGS,
    },
    Kernel {
        entry: "narrow_polygon_circle",
        bindings: TEST_BINDINGS,
    },
    Kernel {
        entry: "narrow_polygon_bitmask",
        bindings: TEST_BINDINGS,
    },
    Kernel {
        entry: "narrow_circle_circle",
        bindings: TEST_BINDINGS,
    },
    Kernel {
        entry: "narrow_circle_bitmask",
        bindings: TEST_BINDINGS,
    },
    Kernel {
        entry: "narrow_bitmask_bitmask",
        bindings: TEST_BINDINGS,
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
    Kernel {
        entry: "publish",
        bindings: &[0, 5, 11],
    },
    // Frames with motion (shaders/sweep.wgsl), from SWEEP_KERNELS on.
    Kernel {
        entry: "sweep",
        bindings: &[0, 1, 2, 3, 4, 5, 10, 12],
    },
    Kernel {
        entry: "sweep_hand_over",
        bindings: &[0, 4, 5, 6, 9, 10, 13, 14],
    },
    Kernel {
        entry: "sweep_long_args",
        bindings: &[0, 5, 7],
    },
    Kernel {
        entry: "sweep_task",
        bindings: &[0, 1, 2, 3, 5, 9, 12, 14],
    },
    Kernel {
        entry: "sweep_finish",
        bindings: &[0, 5, 6, 13, 14],
    },
];

/// Index in [`KERNELS`] of `sweep`, the first kernel of a frame with motion.
const SWEEP_KERNELS: usize = 12;

/// Index in [`KERNELS`] of the first kind pair's kernel.
const FIRST_BIN_KERNEL: usize = 2;

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
    kernels: &StageKernels,
    pass: &mut wgpu::ComputePass,
    groups: &StageGroups,
    b: &Buffers,
    frame: NarrowFrame,
) {
    kernels.dispatch(pass, groups, 0, (1, 1));
    if frame.swept {
        let args = &b.dispatch_args;
        kernels.dispatch_indirect(pass, groups, SWEEP_KERNELS, args, ARGS_NARROW);
        kernels.dispatch_indirect(pass, groups, SWEEP_KERNELS + 1, args, ARGS_NARROW);
        kernels.dispatch(pass, groups, SWEEP_KERNELS + 2, (1, 1));
        kernels.dispatch_indirect(pass, groups, SWEEP_KERNELS + 3, args, ARGS_TASKS);
        kernels.dispatch_indirect(pass, groups, SWEEP_KERNELS + 4, args, ARGS_LONG);
        return;
    }
    if frame.binned {
        for kind in 0..PAIR_KINDS {
            let kernel = FIRST_BIN_KERNEL + kind as usize;
            kernels.dispatch_indirect(pass, groups, kernel, &b.dispatch_args, ARGS_BINS + kind);
        }
    } else {
        kernels.dispatch_indirect(pass, groups, 1, &b.dispatch_args, ARGS_NARROW);
    }
    let next = FIRST_BIN_KERNEL + PAIR_KINDS as usize;
    if frame.long_tests {
        kernels.dispatch(pass, groups, next, (1, 1));
        kernels.dispatch_indirect(pass, groups, next + 1, &b.dispatch_args, ARGS_TASKS);
        kernels.dispatch_indirect(pass, groups, next + 2, &b.dispatch_args, ARGS_LONG);
    }
    if frame.publish {
        kernels.dispatch(pass, groups, next + 3, (1, 1));
    }
}
