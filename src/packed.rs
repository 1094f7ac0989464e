//! The data as the GPU sees it: one `#[repr(C)]` struct per WGSL struct of
//! `shaders/types.wgsl`, with the same name, and the constants both sides share.
//!
//! The CPU reference reads these same structs, so both paths start from identical bits.
//! `tests/shaders.rs` checks every size against naga's layout of the WGSL struct.

use bytemuck::{Pod, Zeroable};

/// Threads per workgroup in every kernel.
pub const WORKGROUP_SIZE: u32 = 64;

/// Workgroups along x in a 2D dispatch: a power of two under the 65535 limit,
/// so a kernel can rebuild its linear index from the workgroup id alone.
pub const DISPATCH_WIDTH: u32 = 32768;

/// Consecutive buckets one thread of `allocate_buckets` hands entries to.
pub const BUCKETS_PER_THREAD: u32 = 32;

/// Levels of the hierarchical grid: level `l` has cells of `base_cell · 2^l`.
pub const MAX_LEVELS: u32 = 32;

/// `BodyCell::bucket` of a body left out of the grid (it can collide with nothing).
pub const NO_BUCKET: u32 = u32::MAX;

/// `PackedShape::kind` of a convex polygon.
pub const SHAPE_POLYGON: u32 = 0;
/// `PackedShape::kind` of a circle.
pub const SHAPE_CIRCLE: u32 = 1;
/// `PackedShape::kind` of a bitmask.
pub const SHAPE_BITMASK: u32 = 2;

/// The constants above as WGSL, prepended to every shader so both sides use one definition.
pub fn wgsl_constants() -> String {
    format!(
        "const WORKGROUP_SIZE: u32 = {WORKGROUP_SIZE}u;\n\
         const DISPATCH_WIDTH: u32 = {DISPATCH_WIDTH}u;\n\
         const BUCKETS_PER_THREAD: u32 = {BUCKETS_PER_THREAD}u;\n\
         const MAX_LEVELS: u32 = {MAX_LEVELS}u;\n\
         const NO_BUCKET: u32 = {NO_BUCKET}u;\n\
         const SHAPE_POLYGON: u32 = {SHAPE_POLYGON}u;\n\
         const SHAPE_CIRCLE: u32 = {SHAPE_CIRCLE}u;\n\
         const SHAPE_BITMASK: u32 = {SHAPE_BITMASK}u;\n"
    )
}

/// Workgroups `(x, y)` for `items` threads: x at most [`DISPATCH_WIDTH`], y as many rows as needed.
/// The kernels' `global_index` undoes this.
pub fn dispatch_size(items: u32) -> (u32, u32) {
    workgroup_grid(items.div_ceil(WORKGROUP_SIZE))
}

/// `groups` workgroups laid out as `(x, y)` with x at most [`DISPATCH_WIDTH`];
/// the kernels' `workgroup_index` undoes this.
pub fn workgroup_grid(groups: u32) -> (u32, u32) {
    (groups.min(DISPATCH_WIDTH), groups.div_ceil(DISPATCH_WIDTH))
}

/// One shape of the library. Mirrors WGSL `PackedShape`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct PackedShape {
    /// Local bounds of the unrotated shape (circle: ±radius; bitmask: its set cells; polygon: its vertices).
    pub bounds_min: [f32; 2],
    /// See `bounds_min`.
    pub bounds_max: [f32; 2],
    /// [`SHAPE_POLYGON`], [`SHAPE_CIRCLE`] or [`SHAPE_BITMASK`].
    pub kind: u32,
    /// Polygon: index of its first vertex in the vertex list; bitmask: of its first word.
    pub first: u32,
    /// Polygon: vertex count; bitmask: width in pixels.
    pub count: u32,
    /// Bitmask: height in pixels (rows).
    pub rows: u32,
    /// Bitmask: words per row.
    pub words_per_row: u32,
    /// Circle: radius.
    pub radius: f32,
}

/// A polygon vertex and the outward unit normal of the edge that starts at it,
/// counter-clockwise. Mirrors WGSL `PolygonVertex`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct PolygonVertex {
    /// Local position.
    pub position: [f32; 2],
    /// Outward unit normal of the edge from this vertex to the next.
    pub normal: [f32; 2],
}

/// Where a body is this frame; the only per-frame upload. Mirrors WGSL `BodyTransform`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct BodyTransform {
    /// World position.
    pub position: [f32; 2],
    /// `(cos angle, sin angle)`, computed on the host in f64: WGSL `sin`/`cos` are too coarse.
    pub rotation: [f32; 2],
}

/// What a body is and whom it may hit; uploaded only when it changes. Mirrors WGSL `BodyInfo`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct BodyInfo {
    /// Index into the shape library.
    pub shape: u32,
    /// The groups this body belongs to.
    pub layer: u32,
    /// The groups this body may collide with.
    pub mask: u32,
    /// Padding to 16 bytes.
    pub _pad: u32,
}

/// A world-space axis-aligned box. Mirrors WGSL `Aabb`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct Aabb {
    /// Lower corner.
    pub min: [f32; 2],
    /// Upper corner.
    pub max: [f32; 2],
}

impl Aabb {
    /// Whether the two closed boxes share a point.
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min[0] <= other.max[0]
            && other.min[0] <= self.max[0]
            && self.min[1] <= other.max[1]
            && other.min[1] <= self.max[1]
    }
}

/// Per-frame sizes. Mirrors WGSL `Params` (a uniform).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct Params {
    /// Bodies this frame.
    pub body_count: u32,
    /// Slots in the candidate buffer.
    pub candidate_capacity: u32,
    /// Slots in the pair buffer.
    pub pair_capacity: u32,
    /// Buckets of the grid's hash table (a power of two, a multiple of [`BUCKETS_PER_THREAD`]).
    pub bucket_count: u32,
    /// Side of the grid's finest cells (level 0).
    pub base_cell: f32,
    /// Padding to 32 bytes (separate fields: a uniform array would need a 16-byte stride).
    pub _pad0: u32,
    /// See `_pad0`.
    pub _pad1: u32,
    /// See `_pad0`.
    pub _pad2: u32,
    /// Bit `f` of entry `c`: bodies on level `c` look for bodies on the finer level `f`
    /// (else those on `f` look for those on `c`). See [`crate::grid::GridParams::probe_down`].
    pub probe_down: [u32; MAX_LEVELS as usize],
}

/// Where a body sits in the hierarchical grid. Mirrors WGSL `BodyCell`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct BodyCell {
    /// The cell holding the centre of the body's box, at its level.
    pub cell: [i32; 2],
    /// The finest level whose cells are at least as large as the body's box.
    pub level: u32,
    /// The hash-table bucket of `(cell, level)`, or [`NO_BUCKET`].
    pub bucket: u32,
    /// The body's place among the bodies of its bucket.
    pub rank: u32,
    /// The body's mask bits, so the query decides from this record alone whether the
    /// body has anything to look for.
    pub mask: u32,
}

/// One bucket of the grid's hash table. Mirrors WGSL `Bucket` (and `AtomicBucket`,
/// the same with an atomic count, used while counting).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Bucket {
    /// Bodies in the bucket.
    pub count: u32,
    /// Index of its first body in the sorted entries.
    pub start: u32,
}

/// A body as stored in the grid, grouped by bucket so a bucket's bodies are read
/// contiguously; its box is read from the body's own record only when the filters
/// agree, which keeps the entries small. Mirrors WGSL `GridEntry`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Pod, Zeroable)]
pub struct GridEntry {
    /// See [`BodyCell::cell`].
    pub cell: [i32; 2],
    /// See [`BodyCell::level`].
    pub level: u32,
    /// The body's index.
    pub body: u32,
    /// The body's layer bits.
    pub layer: u32,
    /// The body's mask bits.
    pub mask: u32,
}

/// What the grid holds per level. Mirrors WGSL `GridInfo` (and `AtomicGridInfo`, the
/// same with atomic fields, used while building).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GridInfo {
    /// OR of the layers of the bodies at each level; 0 for an empty level.
    pub level_layers: [u32; MAX_LEVELS as usize],
    /// Bit `l` is set when level `l` holds a body.
    pub occupied_levels: u32,
    /// Entries handed out to buckets so far (`allocate_buckets`).
    pub allocated: u32,
}

/// The append counters. Mirrors WGSL `Counters` (whose fields are atomics).
/// Each counts every item found, also those that did not fit, so the host knows how far to grow.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct Counters {
    /// Candidate pairs found by the broad phase.
    pub candidates: u32,
    /// Colliding pairs found by the narrow phase.
    pub pairs: u32,
}

/// Workgroup counts of an indirect dispatch, written by the GPU. Mirrors WGSL `DispatchArgs`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct DispatchArgs {
    /// Workgroups along x.
    pub x: u32,
    /// Workgroups along y.
    pub y: u32,
    /// Workgroups along z (always 1).
    pub z: u32,
}
