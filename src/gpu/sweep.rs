//! Swept pairs on the GPU (scene format 1.1): host side of `shaders/sweep.wgsl`.
//!
//! A frame with motion runs the same three stages as any other, with two differences,
//! both paid only by such frames: the bodies' displacements are uploaded to a buffer of
//! their own, which the bounds kernel reads (`Params::swept`) to make each body's box
//! cover its whole motion, so that the broad phase finds the swept candidates unchanged;
//! and the narrow phase runs the swept kernels, which give each pair's exact time of
//! impact in a buffer parallel to the pairs (counted and grown like them). A frame
//! without motion uploads, dispatches and reads back exactly what it did before.
//!
//! One rare case goes to the host: a test whose chunks would not fit the task list's
//! bound (`MAX_BLOCKS` in `shaders/sweep.wgsl`, about a million chunks: a 256-gon
//! sweeping across most of an 8192 x 8192 mask) comes back with [`HOST_TOI`], and the
//! host computes it with the CPU twin ([`crate::cpu::sweep::time_of_impact`]), which
//! has no loop cap to respect.
//!
//! This module holds the state and the GPU side and knows nothing of the collider; the
//! collider's methods that drive it are in `src/gpu/collider/sweep.rs`.

/// The time the GPU writes for a pair whose test it hands to the host (`HOST_TOI` in
/// `shaders/sweep.wgsl`).
pub(crate) const HOST_TOI: f32 = -1.0;
