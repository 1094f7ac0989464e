//! The data as the GPU sees it: one `#[repr(C)]` struct per WGSL struct of
//! `shaders/types.wgsl`, with the same name, and the constants both sides share.
//!
//! The CPU reference reads these same structs, so both paths start from identical bits.
//! `tests/shaders.rs` checks every size against naga's layout of the WGSL struct.

use bytemuck::{Pod, Zeroable};

use crate::input::shapes::{PairKind, ShapeKind};

/// Threads per workgroup in every kernel.
pub const WORKGROUP_SIZE: u32 = 64;

/// Workgroups along x in a 2D dispatch: a power of two under the 65535 limit,
/// so a kernel can rebuild its linear index from the workgroup id alone.
pub const DISPATCH_WIDTH: u32 = 32768;

/// Consecutive buckets one thread of `allocate_buckets` hands entries to.
pub const BUCKETS_PER_THREAD: u32 = 32;

/// 32-bit words of the GPU's hash table of `buckets` buckets: one a bucket, then one a
/// block of [`BUCKETS_PER_THREAD`] for where the block's entries end (`bucket_start` in
/// `shaders/grid.wgsl` says why).
pub fn table_words(buckets: u32) -> u32 {
    buckets + buckets / BUCKETS_PER_THREAD
}

/// The most bodies whose box keys the bounds kernel writes (`box_key` in
/// `shaders/grid.wgsl`): what the walk's uniform copy of them holds
/// (`GridBinding::UNIFORM_ENTRIES`, one uniform binding of words).
pub const BOX_KEY_BODIES: u32 = 16384;

/// Bytes of a table the kernels read from a uniform buffer on software adapters (the
/// library, `LibraryBinding::Uniform`, and the walk's copies of the grid,
/// `GridBinding::Uniform`, in [`crate::layout::shaders`]): WebGPU's default limit on a uniform
/// binding, and the most lavapipe and llvmpipe's GL driver allow.
pub const UNIFORM_TABLE_BYTES: u64 = 65536;

/// 32-bit words of such a table.
pub const UNIFORM_TABLE_WORDS: u32 = (UNIFORM_TABLE_BYTES / 4) as u32;

/// Levels of the hierarchical grid: level `l` has cells of `base_cell · 2^l`.
pub const MAX_LEVELS: u32 = 32;

/// Invocations Mesa's llvmpipe runs in lockstep (one 256-bit vector of 32-bit lanes),
/// the most the loop budgets below allow for.
///
/// llvmpipe, under both lavapipe and GL, silently ends every loop of a shader once the
/// lockstep group has run 65535 loop iterations in all (`LP_MAX_TGSI_LOOP_ITERATIONS` in
/// gallivm: one counter per group, set once, decremented at the end of every turn of
/// every loop). A turn counts once however many lanes take it, so a single loop costs
/// its longest lane's turns; but in nested loops whose lanes work at different outer
/// turns the counts add up. Measured here (`tests/loop_cap.rs`):
/// 8 lanes taking turns of 9000 iterations each in an inner loop lost 6500 of the last
/// lane's; one loop of 30000 or 60000 iterations per lane lost none. So a kernel with
/// nested data-dependent loops keeps each invocation under `65535 / LLVMPIPE_LANES`
/// iterations in all (the chunk budgets below), and the broad phase, whose bodies read
/// very different numbers of cells, walks them in one loop. An llvmpipe with wider
/// vectors (its adapter name says `512 bits`) is refused with
/// [`crate::Error::TooManyLanes`].
pub const LLVMPIPE_LANES: u32 = 8;

/// Loop iterations one invocation may spend on one candidate's exact test (or one chunk
/// of it), counting every loop it runs: [`LLVMPIPE_LANES`] of them stay at half the cap
/// of llvmpipe, where a longer test would answer wrongly, not fail. Real GPUs have no
/// such cap but stall a whole wave on one long invocation, so longer tests are split
/// into chunks of this size and run in parallel.
pub const CHUNK_BUDGET: u32 = 4096;

/// Grid entries (plus cells) one body of the broad phase reads itself; past this, it
/// hands the rest of a crowded cell over in [`SCAN_CHUNK`]-entry pieces to
/// `broad_deferred`, for the same reason as [`CHUNK_BUDGET`]. A piece is read twice
/// (counted, then written), so a piece costs twice its entries.
pub const SCAN_BUDGET: u32 = 4096;

/// Grid entries of one piece of a crowded cell handed over by the broad phase.
pub const SCAN_CHUNK: u32 = 1024;

/// Turns of the broad phase's walk (cells, entries read, pieces handed over) after which
/// a body stops and counts itself in `Counters::unfinished`. The budgets above keep every
/// body far below it by construction; the guard turns a mistake in that reasoning into
/// an error the host reports instead of a silently shortened loop. It is sound on
/// llvmpipe because the walk is a single loop (see [`LLVMPIPE_LANES`]).
pub const LOOP_GUARD: u32 = 32768;

/// The most cells one body reads on the levels below its own, all of them together:
/// bodies on level `c` look for bodies on a finer level `f` only when every body of `c`
/// stays within this reading every level from `c - 1` down to `f` (see
/// [`crate::grid::lowest_reach`]). Otherwise the fine bodies look up.
pub const REACH_BUDGET: u32 = 4096;

/// Slots of the indirect-dispatch argument buffer: `narrow` (or the swept kernels) over
/// the candidates of a frame that keeps them in one list, `broad_deferred` over the handed-over pieces, `narrow_task` over the
/// chunks of long tests, `narrow_finish` over the long tests, `broad` over the bodies
/// that search, then one slot per kind pair (`ARGS_BINS + kind pair`) for the narrow
/// kernel of that kind pair.
pub const ARGS_NARROW: u32 = 0;
/// See [`ARGS_NARROW`].
pub const ARGS_DEFERRED: u32 = 1;
/// See [`ARGS_NARROW`].
pub const ARGS_TASKS: u32 = 2;
/// See [`ARGS_NARROW`].
pub const ARGS_LONG: u32 = 3;
/// See [`ARGS_NARROW`].
pub const ARGS_BROAD: u32 = 4;
/// See [`ARGS_NARROW`].
pub const ARGS_BINS: u32 = 5;
/// Entries of the indirect-dispatch argument buffer.
pub const ARGS_COUNT: u32 = ARGS_BINS + PAIR_KINDS;

/// Kind pairs of the narrow phase ([`PairKind`]), each with a bin of candidates and a
/// kernel of its own (`narrow_<pair>` in `shaders/narrow.wgsl`).
pub const PAIR_KINDS: u32 = PairKind::COUNT;

/// Rows of [`Params::bin_starts`]: its [`PAIR_KINDS`] `+ 1` entries, four to a row.
pub const BIN_START_ROWS: usize = (PAIR_KINDS as usize + 1).div_ceil(4);

/// Candidates of a frame from which the GPU bins the next frame's candidates by kind pair
/// (a frame with fewer keeps one list and runs one narrow kernel for all). Measured on
/// lavapipe (BENCHMARKS.md, "The narrow phase by kind pair"): a kernel per kind pair
/// saves about 2 ms per 20k crowded candidates, and costs a dispatch for each kind pair
/// present.
pub const BIN_FROM_CANDIDATES: u32 = 4096;

/// A candidate as the GPU's broad phase stores it carries its kind pair in the top bits of
/// its second body index, so the narrow phase of a frame that keeps one list tests it
/// without reading either body's shape again; [`MAX_BODIES`] keeps those bits free.
/// It takes the fewest bits that number every kind pair: 4 bits for the 10 pairs of
/// four kinds, so 2^28 bodies.
pub const PAIR_KIND_SHIFT: u32 = (PAIR_KINDS - 1).leading_zeros();

/// The most bodies a frame may have on the GPU (see [`PAIR_KIND_SHIFT`]); far beyond
/// what a storage binding of transforms holds on any device known today.
pub const MAX_BODIES: u32 = 1 << PAIR_KIND_SHIFT;

/// 32-bit words of a [`PackedShape`] in the GPU's library buffer.
pub const SHAPE_WORDS: u32 = (std::mem::size_of::<PackedShape>() / 4) as u32;
/// 32-bit words of a [`PolygonVertex`] in the GPU's library buffer.
pub const VERTEX_WORDS: u32 = (std::mem::size_of::<PolygonVertex>() / 4) as u32;

/// The bucket of a body left out of the grid (it can collide with nothing): in the
/// GPU's placement of the body (`placement_word` in `shaders/grid.wgsl`), in the CPU
/// twin's list of each body's bucket.
pub const NO_BUCKET: u32 = u32::MAX;

/// [`BodyCell::level`] of a body left out of the grid.
pub const NO_LEVEL: u32 = u32::MAX;

/// [`BodyInfo::owner`] of a body that is the caller's own rather than a part of one.
/// Below [`MAX_BODIES`], so that a grid record keeps it in the bits it keeps an owner
/// in ([`BodyCell::kind_owner`]). A caller's body of this index, the last of
/// [`MAX_BODIES`] bodies of one part each, then passes for one of its own: its part
/// keeps every pair, as it would anyway.
pub const NO_OWNER: u32 = MAX_BODIES - 1;

/// Where [`BodyInfo::kind`] keeps, above the kind, the body's group code. The parts of
/// one of the caller's concave or compound bodies of 2 to [`GROUP_LIMIT`] parts are a
/// group: the GPU's grid holds the group as its first part, boxed around all the parts,
/// and leaves the others out; a pair the grid finds with a group in it is cut into the
/// pairs of parts whose boxes overlap (`cut_pair` in `shaders/broad.wgsl`). A concave
/// outline's pieces all meet near its centre: as bodies of the grid, each read the
/// others' crowded cells, and the broad phase of the concave 10^4 scene took about ten
/// times its outlines' hulls'.
///
/// The code: 0 for a body of the grid that is no group, the part count for a group's
/// first part, [`GROUP_FOLLOWS`] for its other parts.
pub const GROUP_SHIFT: u32 = 8;

/// The most parts a group has: a pair of groups is cut into pairs of parts by one
/// thread, in at most 2 · `GROUP_LIMIT` + `GROUP_LIMIT`² tests. Bodies of more parts are
/// in the grid part by part. At most 32: the kernel keeps which of a group's parts it
/// pairs as the bits of one word (`cut_pair` in `shaders/broad.wgsl`).
pub const GROUP_LIMIT: u32 = 32;
const _: () = assert!(GROUP_LIMIT <= 32);

/// The group code (see [`GROUP_SHIFT`]) of a group's parts after its first.
pub const GROUP_FOLLOWS: u32 = 255;

/// The constants above as WGSL, prepended to every shader so both sides use one
/// definition; with `SHAPE_KINDS` and a `SHAPE_<KIND>` for each [`ShapeKind`] (its
/// index), and a `PAIR_<LOW>_<HIGH>` for each [`PairKind`].
pub fn wgsl_constants() -> String {
    let mut kinds = format!("const SHAPE_KINDS: u32 = {}u;\n", ShapeKind::COUNT);
    for &kind in ShapeKind::ALL {
        let name = kind.name().to_uppercase();
        kinds += &format!("const SHAPE_{name}: u32 = {}u;\n", kind.index());
    }
    for pair in PairKind::all() {
        let name = pair.name().to_uppercase();
        kinds += &format!("const PAIR_{name}: u32 = {}u;\n", pair.index());
    }
    kinds
        + &format!(
            "const WORKGROUP_SIZE: u32 = {WORKGROUP_SIZE}u;\n\
         const DISPATCH_WIDTH: u32 = {DISPATCH_WIDTH}u;\n\
         const BUCKETS_PER_THREAD: u32 = {BUCKETS_PER_THREAD}u;\n\
         const MAX_LEVELS: u32 = {MAX_LEVELS}u;\n\
         const BOX_KEY_BODIES: u32 = {BOX_KEY_BODIES}u;\n\
         const UNIFORM_ROWS: u32 = {uniform_rows}u;\n\
         const UNIFORM_END_ROWS: u32 = {uniform_end_rows}u;\n\
         const UNIFORM_LAST_BUCKET: u32 = {uniform_last_bucket}u;\n\
         const NO_BUCKET: u32 = {NO_BUCKET}u;\n\
         const NO_LEVEL: u32 = {NO_LEVEL}u;\n\
         const NO_OWNER: u32 = {NO_OWNER}u;\n\
         const GROUP_SHIFT: u32 = {GROUP_SHIFT}u;\n\
         const GROUP_FOLLOWS: u32 = {GROUP_FOLLOWS}u;\n\
         const CHUNK_BUDGET: u32 = {CHUNK_BUDGET}u;\n\
         const SCAN_BUDGET: u32 = {SCAN_BUDGET}u;\n\
         const SCAN_CHUNK: u32 = {SCAN_CHUNK}u;\n\
         const LOOP_GUARD: u32 = {LOOP_GUARD}u;\n\
         const REACH_BUDGET: u32 = {REACH_BUDGET}u;\n\
         const ARGS_NARROW: u32 = {ARGS_NARROW}u;\n\
         const SHAPE_WORDS: u32 = {SHAPE_WORDS}u;\n\
         const VERTEX_WORDS: u32 = {VERTEX_WORDS}u;\n\
         const ARGS_DEFERRED: u32 = {ARGS_DEFERRED}u;\n\
         const ARGS_TASKS: u32 = {ARGS_TASKS}u;\n\
         const ARGS_LONG: u32 = {ARGS_LONG}u;\n\
         const ARGS_BROAD: u32 = {ARGS_BROAD}u;\n\
         const ARGS_BINS: u32 = {ARGS_BINS}u;\n\
         const PAIR_KINDS: u32 = {PAIR_KINDS}u;\n\
         const PAIR_KIND_SHIFT: u32 = {PAIR_KIND_SHIFT}u;\n\
         const BIN_START_ROWS: u32 = {BIN_START_ROWS}u;\n\
         const NO_SOURCE_ANGLE: u32 = {NO_SOURCE_ANGLE}u;\n\
         const MAX_BITMASK_COORDINATE: f32 = {:.1};\n",
            MAX_BITMASK_COORDINATE,
            // A uniform table's 16-byte rows (a uniform array's stride); the walk's copy of
            // the blocks' ends, a word for each block of BUCKETS_PER_THREAD buckets of a
            // table of UNIFORM_TABLE_WORDS, in rows; and the last bucket of that table.
            uniform_rows = UNIFORM_TABLE_WORDS / 4,
            uniform_end_rows = UNIFORM_TABLE_WORDS / BUCKETS_PER_THREAD / 4,
            uniform_last_bucket = UNIFORM_TABLE_WORDS - 1,
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
    /// The shape's [`ShapeKind::index`] (read it with [`PackedShape::shape_kind`]).
    pub kind: u32,
    /// Polygon: index of its first vertex in the vertex list; bitmask: of its first word.
    pub first: u32,
    /// Polygon: vertex count; bitmask: width in pixels.
    pub count: u32,
    /// Bitmask: height in pixels (rows).
    pub rows: u32,
    /// Bitmask: words per row.
    pub words_per_row: u32,
    /// Circle, capsule: radius (a polygon's is 0).
    pub radius: f32,
    /// Polygon: 1 when it is an axis-aligned rectangle, its four vertices the corners of
    /// its bounds, so that its rotated box comes from those corners without reading its
    /// vertices (`world_box` in shaders/bounds.wgsl); 0 otherwise.
    pub rectangle: u32,
    /// Pads the record to 48 bytes, the size WGSL gives `PackedShape` (its `vec2`
    /// members align it to 8).
    pub padding: u32,
}

impl PackedShape {
    /// What kind of shape this is. Every `kind` the library writes is some kind's index
    /// (`ShapeLibrary` packs only [`crate::Shape`]s, and its packed arrays are
    /// crate-private), so anything else is a bug here, never the caller's input.
    pub fn shape_kind(&self) -> ShapeKind {
        ShapeKind::from_index(self.kind).expect("a packed shape's kind is a ShapeKind index")
    }

    /// The radius of a circle about the shape's origin that holds it at every angle: the
    /// distance to its bounds' farthest corner. WGSL `shape_reach`.
    pub fn reach(&self) -> f32 {
        let [x0, y0] = self.bounds_min;
        let [x1, y1] = self.bounds_max;
        glam::Vec2::new(x0.abs().max(x1.abs()), y0.abs().max(y1.abs())).length()
    }
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
    /// The kind of the body's shape (`SHAPE_*`) in the low byte, filled in by the GPU
    /// collider's upload for `read_bodies`, which refuses a bitmask off the whole
    /// numbers; the bounds kernel takes the kind it records for the narrow phase's bins
    /// (see [`PAIR_KIND_SHIFT`]) from the library instead, a cheaper read on software
    /// adapters. Above it, from [`GROUP_SHIFT`], the body's group code. The CPU path
    /// reads kinds from the library, and [`crate::layout::bodies::body_info`] leaves
    /// it 0.
    pub kind: u32,
    /// Where the library cuts concave and compound shapes into convex parts, each a
    /// body of the stages: the caller's body this one is a part of. Two parts of one
    /// owner are never a pair, so the broad phase drops them (`same_owner`) rather than
    /// handing the narrow phase every pair of an outline's touching pieces.
    /// [`NO_OWNER`] for the caller's own body.
    pub owner: u32,
}

/// Bitmask bodies must sit on whole coordinates within this magnitude, so that their
/// positions are exact in f32 (every integer up to 2^24 is); the shaders know it too.
pub const MAX_BITMASK_COORDINATE: f32 = 16_777_216.0;

/// A world-space axis-aligned box. Mirrors WGSL `Aabb`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct Aabb {
    /// Lower corner.
    pub min: [f32; 2],
    /// Upper corner.
    pub max: [f32; 2],
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
    /// Candidates past which the broad phase stops: the host refuses the frame
    /// ([`crate::Error::TooManyPairs`]). At most 2^31, so counters never wrap.
    pub candidate_limit: u32,
    /// Slots in the buffer of crowded-cell pieces handed over by the broad phase.
    pub deferred_capacity: u32,
    /// Slots in the buffer of candidates whose exact test is split into chunks.
    pub long_pair_capacity: u32,
    /// Slots in the buffer of chunks of those tests.
    pub task_capacity: u32,
    /// Only bodies `slice_start <= i < slice_end` look for partners: a frame too
    /// large for one binding runs in slices of bodies, each pair found by one slice.
    pub slice_start: u32,
    /// See `slice_start`.
    pub slice_end: u32,
    /// Word at which the polygon vertices start in the GPU's one library buffer
    /// (`shaders/library.wgsl`).
    pub vertex_base: u32,
    /// Word at which the bitmask words start in that buffer.
    pub word_base: u32,
    /// Bodies whose positions are read from a buffer of the caller's
    /// ([`crate::GpuCollider::record_from_buffer`]): the stride of their structs, in words.
    pub source_stride: u32,
    /// The word of a struct at which the position (two f32) sits.
    pub source_position: u32,
    /// The word at which the angle (f32) sits, or [`NO_SOURCE_ANGLE`] when the angles
    /// are the host bodies'.
    pub source_angle: u32,
    /// The layer bits of the bodies that wait to be found
    /// ([`crate::grid::GridParams::waiter_layers`]).
    pub waiter_layers: u32,
    /// 1 in a frame with motion (swept pairs, `shaders/sweep.wgsl`): the bounds cover
    /// each body's whole motion, read from the velocity buffer; 0 otherwise.
    pub swept: u32,
    /// How the grid's cells are laid out in its table: see
    /// [`crate::grid::TableLayout::row_stride`].
    pub row_stride: u32,
    /// See [`crate::grid::TableLayout::level_step`].
    pub level_step: u32,
    /// Where the broad phase puts the candidates: bin `b` holds slots
    /// `bin_starts[b] .. bin_starts[b + 1]` of the candidate buffer (entry [`PAIR_KINDS`]
    /// is the buffer's end), entry `b` at `[b / 4][b % 4]` (a uniform's arrays step by 16
    /// bytes). Laid out by `gpu::bins`.
    pub bin_starts: [[u32; 4]; BIN_START_ROWS],
    /// 1 when each kind pair's candidates go to a bin of their own, 0 when every
    /// candidate goes to bin 0.
    pub binned: u32,
    /// Pads the struct to a multiple of 16 bytes, as WGSL lays out a uniform.
    pub padding: [u32; 3],
}

/// [`Params::source_angle`] when the caller's buffer holds no angles.
pub const NO_SOURCE_ANGLE: u32 = u32::MAX;

/// Where a body sits in the hierarchical grid. Mirrors WGSL `BodyCell`; the GPU's
/// record (the CPU twin's is [`crate::cpu::broad::BodyPlace`]).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct BodyCell {
    /// The cell holding the centre of the body's box, at its level.
    pub cell: [i32; 2],
    /// The finest level whose cells are at least as large as the body's box, or
    /// [`NO_LEVEL`] for a body left out of the grid. Its bucket follows from the cell and
    /// the level (`cell_bucket`); the GPU keeps it, with the body's rank in it, in the
    /// body's placement (`placement_word` in `shaders/grid.wgsl`), the CPU twin in a list
    /// of its own ([`crate::cpu::broad::Grid`]).
    pub level: u32,
    /// The body's layer bits, so the query need not read the body's info.
    pub layer: u32,
    /// The body's mask bits, so the query decides from this record alone whether the
    /// body has anything to look for.
    pub mask: u32,
    /// Two things in one word (`kind_owner` in `shaders/types.wgsl`): the kind of the
    /// body's shape (`SHAPE_*`) above [`PAIR_KIND_SHIFT`], which the broad phase and the
    /// query pack into each candidate for the narrow phase's bins, and its
    /// [`BodyInfo::owner`] below, so that the broad phase drops a pair of parts of one
    /// body from this record alone. One word keeps the record at 24 bytes: it is the
    /// largest of the bodies' lists, so its size sets how many bodies a device holds.
    /// The CPU twin, which tests candidates as they come, keeps a record without the
    /// kind ([`crate::cpu::broad::BodyPlace`]).
    pub kind_owner: u32,
}

/// What the grid holds per level. Mirrors WGSL `GridInfo` (and `AtomicGridInfo`, the
/// same with atomic fields, used while building).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GridInfo {
    /// OR of the layers of the bodies at each level; 0 for an empty level.
    pub level_layers: [u32; MAX_LEVELS as usize],
    /// OR of the layers of the waiting bodies at each level ([`crate::grid::waits`]).
    pub level_waiters: [u32; MAX_LEVELS as usize],
    /// Seekers (bodies that do not wait) at each level.
    pub level_bodies: [u32; MAX_LEVELS as usize],
    /// Entry `l`: the occupied levels that bodies on level `l` search, as bits, chosen
    /// each frame from `level_bodies` ([`crate::grid::look_levels`]).
    pub look_levels: [u32; MAX_LEVELS as usize],
    /// Entry `l`: the occupied levels above `l` whose seekers cannot all reach down to
    /// `l`, as bits: where waiting bodies of level `l` look up ([`crate::grid::waiter_looks`]).
    pub waiter_looks: [u32; MAX_LEVELS as usize],
    /// Bit `l` is set when level `l` holds a body.
    pub occupied_levels: u32,
    /// Entries handed out to buckets so far (`allocate_buckets`).
    pub allocated: u32,
    /// Entry `c`: the finest level that every seeker of level `c` may reach down to within
    /// [`REACH_BUDGET`] ([`crate::grid::lowest_reach`]).
    pub reach_floor: [u32; MAX_LEVELS as usize],
    /// Entry `c * MAX_LEVELS + f`: the cells the seekers of level `c` would read on level
    /// `f`, summed over those bodies (wrapping past 2^32, which only costs speed).
    pub reached_cells: [u32; (MAX_LEVELS * MAX_LEVELS) as usize],
    /// The seekers listed: on the GPU, the bodies that do not wait are listed after this
    /// header (WGSL `GridInfo::seekers`), appended where some bodies wait; where none
    /// wait every body is, level by level within each workgroup of the bounds kernel
    /// (see `list_seeker` in `shaders/bounds.wgsl`), and `size_broad` (run by
    /// `allocate_buckets`) sets this to the body count. The cpu twin keeps its list
    /// apart (`crate::cpu::broad::Grid`) and leaves this 0.
    pub seeker_count: u32,
    /// 1 when only the listed seekers search (no body waits, or no waiting body looks
    /// up), so the broad kernel runs over them alone.
    pub seekers_only: u32,
}

impl Default for GridInfo {
    /// An empty grid's: all zero.
    fn default() -> Self {
        Self::zeroed()
    }
}

/// The append counters. Mirrors WGSL `Counters` (whose fields are atomics).
/// Each counts every item found, also those that did not fit, so the host knows how far to grow.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Counters {
    /// Candidate pairs found by the broad phase.
    pub candidates: u32,
    /// Colliding pairs found by the narrow phase.
    pub pairs: u32,
    /// Pieces of crowded cells, and pairs with a group of parts in them, handed over
    /// by the broad phase.
    pub deferred: u32,
    /// Candidates whose exact test was split into chunks.
    pub long_pairs: u32,
    /// Chunks of those tests.
    pub tasks: u32,
    /// Invocations stopped by [`LOOP_GUARD`]; the host fails the frame if any.
    pub unfinished: u32,
    /// Candidates the broad phase appended to each bin (see [`Params::bin_starts`]),
    /// also those past the bin's end; `candidates` is their sum.
    pub bin_counts: [u32; PAIR_KINDS as usize],
    /// Candidates of each kind pair ([`PAIR_KINDS`]), whether binned or not: what the
    /// host lays out a later frame's bins from.
    pub kind_counts: [u32; PAIR_KINDS as usize],
    /// Bits of the bins whose candidates did not all fit: the frame runs again with its
    /// bins laid out from `kind_counts`.
    pub overflowed_bins: u32,
    /// Bodies whose position (or angle) read from the caller's buffer was not finite,
    /// or not a whole number for a bitmask (`read_bodies`).
    pub invalid_bodies: u32,
    /// The first of them, as `!index` (so that an atomic maximum finds it and 0 is none).
    pub first_invalid: u32,
}

/// What a frame recorded into the caller's encoder tells the caller's shaders
/// ([`crate::GpuCollider::record`]), written by `publish`. Mirrors WGSL `PairsHeader`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct PairsHeader {
    /// Indirect dispatch arguments: workgroups of [`WORKGROUP_SIZE`] covering `stored`.
    pub dispatch: [u32; 3],
    /// Colliding pairs found, also those past the pair buffer's end.
    pub count: u32,
    /// Pairs in the pair buffer: `min(count, capacity)`.
    pub stored: u32,
    /// The pair buffer's capacity.
    pub capacity: u32,
    /// 1 when the pair buffer holds every pair of the frame; 0 when a buffer overflowed
    /// (the collider grows before a later frame) or a body read from the caller's buffer
    /// was invalid.
    pub complete: u32,
    /// Bodies read from the caller's buffer whose position or angle was invalid.
    pub invalid_bodies: u32,
}

/// A piece of a crowded cell that a body handed over. Mirrors WGSL `DeferredScan`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct DeferredScan {
    /// The cell whose entries are read.
    pub cell: [i32; 2],
    /// Its level.
    pub level: u32,
    /// The body looking.
    pub body: u32,
    /// First entry to read.
    pub first: u32,
    /// One past the last entry to read.
    pub end: u32,
}

/// A candidate whose exact test runs in chunks. Mirrors WGSL `LongPair`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct LongPair {
    /// The two bodies.
    pub pair: [u32; 2],
    /// Index of its first chunk in the task list.
    pub first_task: u32,
    /// Set by any chunk that finds a witness (see `cpu::narrow::Plan`).
    pub witness: u32,
}

/// A swept candidate whose static test or time of impact runs in chunks
/// (`shaders/sweep.wgsl`): its tasks are `first_task ..` `+ static_chunks + toi_chunks`,
/// the static test's chunks first. Mirrors WGSL `SweptLongPair`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Pod, Zeroable)]
pub struct SweptLongPair {
    /// The two bodies.
    pub pair: [u32; 2],
    /// Index of its first chunk in the task list.
    pub first_task: u32,
    /// Chunks of the static test (0: already found apart at `t = 0`).
    pub static_chunks: u32,
    /// Chunks of the time of impact (0: no relative motion).
    pub toi_chunks: u32,
    /// The kind pair (`PAIR_*`).
    pub kind: u32,
    /// Set by any chunk of the static test that finds a witness.
    pub witness: u32,
    /// Polygon pairs: the latest entering time over the chunks (f32 bits; 2.0 when a
    /// chunk found the relative path outside a half-plane for good).
    pub enter: u32,
    /// Polygon pairs: the earliest leaving time over the chunks (f32 bits).
    pub exit: u32,
    /// Other kind pairs: the earliest impact over the chunks (f32 bits; 2.0: none).
    pub first: u32,
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
