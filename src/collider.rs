//! The one interface every backend implements, so tests, the benchmark and the
//! `pairs` command can run the same bodies on each and compare.

use crate::body::Body;
use crate::error::Error;

/// Two colliding bodies `[i, j]`, `i < j`, as indices into the body slice.
pub type Pair = [u32; 2];

/// Something that finds the colliding pairs of a set of bodies over its shape library.
pub trait Collider {
    /// The colliding pairs, each once as `[i, j]` with `i < j`, sorted ascending.
    ///
    /// Call it every frame with the bodies' new positions: only what changed is uploaded.
    /// Bodies that break a rule (an unknown shape, a rotated bitmask, ...) are refused
    /// with an error naming the first one, before any work is done.
    fn find_pairs(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error>;

    /// A short description of the backend (and adapter), for logs.
    fn describe(&self) -> String;

    /// What the last call to [`Collider::find_pairs`] did, as far as the backend knows.
    fn last_frame(&self) -> FrameStats {
        FrameStats::default()
    }
}

/// Statistics of one frame, for benchmarks and logs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FrameStats {
    /// Candidate pairs the broad phase handed to the narrow phase.
    pub candidates: Option<u64>,
    /// Time per stage, where the backend can measure it (GPU timestamp queries).
    pub stages: Option<StageTimes>,
}

/// Milliseconds spent per stage of one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StageTimes {
    /// Writing the frame's transforms (and changed body infos), measured on the host.
    pub upload: f64,
    /// World bounds (and, for the grid, cell assignment).
    pub bounds: f64,
    /// Candidate pairs.
    pub broad: f64,
    /// Exact tests.
    pub narrow: f64,
    /// The rest of the frame as the host sees it: submitting, copying and mapping the
    /// results back, and waiting (measured on the host, unlike the three GPU stages).
    pub readback: f64,
}

/// Pairs sorted ascending, as the format prints them.
pub fn sorted_pairs(mut pairs: Vec<Pair>) -> Vec<Pair> {
    pairs.sort_unstable();
    pairs
}
