//! The answer every backend gives: a pair of body indices. It names nothing else of the
//! crate, so the modules that build, sort or extend pairs (`collider`, `contact`,
//! `motion`, `pair_sort`) can all use it without leaning on one another.

/// Two colliding bodies `[i, j]`, `i < j`, as indices into the body slice.
pub type Pair = [u32; 2];
