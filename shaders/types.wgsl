// Structs shared by every stage, and the helpers that lay out their contents. Each struct mirrors the Rust struct of the
// same name in src/layout/packed.rs; the constants (WORKGROUP_SIZE, DISPATCH_WIDTH, SHAPE_*)
// are prepended from Rust so both sides use one definition.

struct PackedShape {
    bounds_min: vec2<f32>,
    bounds_max: vec2<f32>,
    kind: u32,
    first: u32,
    count: u32,
    rows: u32,
    words_per_row: u32,
    radius: f32,
    rectangle: u32,
}

struct PolygonVertex {
    position: vec2<f32>,
    normal: vec2<f32>,
}

struct BodyTransform {
    position: vec2<f32>,
    rotation: vec2<f32>,
}

struct BodyInfo {
    shape: u32,
    layer: u32,
    mask: u32,
    // The shape kind in the low byte (info_kind), the body's group code above it
    // (info_group; GROUP_SHIFT in src/layout/packed.rs says what groups are).
    kind: u32,
    // The caller's body this one is a part of, NO_OWNER for the caller's own (see
    // same_owner in geometry.wgsl).
    owner: u32,
}

struct Aabb {
    min: vec2<f32>,
    max: vec2<f32>,
}

// Each stage binds the frame's parameters as `uploaded_params` and reads them from
// `params`, a private copy that each entry point takes before anything else. Why:
// llvmpipe loads a uniform again wherever it is read, on every turn of a loop, since the
// loop's stores and atomics might for all it knows change it; a private copy is loaded
// once and stays in registers. Measured on lavapipe: the broad stage of the crowded 10k
// scenes 6-7% faster (BENCHMARKS.md, "The walk's loop"). On a GPU the copy is a few
// registers.
struct Params {
    body_count: u32,
    candidate_capacity: u32,
    pair_capacity: u32,
    bucket_count: u32,
    base_cell: f32,
    // Candidates beyond this stop the broad phase: the host refuses the frame.
    candidate_limit: u32,
    deferred_capacity: u32,
    long_pair_capacity: u32,
    task_capacity: u32,
    // Only bodies slice_start <= i < slice_end look for partners (a slice of the frame).
    slice_start: u32,
    slice_end: u32,
    // Where the polygon vertices and the bitmask words start in the library buffer (words).
    vertex_base: u32,
    word_base: u32,
    // Bodies read from a buffer of the caller's (read_bodies): its struct's stride and
    // where the position and the angle sit in it, in words (NO_SOURCE_ANGLE: no angle).
    source_stride: u32,
    source_position: u32,
    source_angle: u32,
    // Bodies whose layer bits all lie in these wait to be found (see waits in broad.wgsl).
    waiter_layers: u32,
    // 1 in a frame with motion: bounds cover each body's whole motion (sweep.wgsl).
    swept: u32,
    // How the grid's cells are laid out in its table (cell_bucket in grid.wgsl).
    row_stride: u32,
    level_step: u32,
    // Where the broad phase puts the candidates: bin b holds slots bin_starts[b] ..
    // bin_starts[b + 1] of the candidate buffer (entry PAIR_KINDS is the buffer's end),
    // entry b at bin_starts[b / 4][b % 4]. In a binned frame each kind pair has its bin,
    // laid out from the counts of an earlier frame; otherwise bin 0 is the whole buffer.
    bin_starts: array<vec4<u32>, BIN_START_ROWS>,
    // 1 when each kind pair has its own bin, 0 when every candidate goes to bin 0.
    binned: u32,
}

// Where a body sits in the grid, with the filter and shape kind that whoever reads its
// entry needs. A body placed nowhere has level NO_LEVEL. Its bucket and rank there, which
// only the counting sort reads, are in its placement (placement_word in grid.wgsl).
struct BodyCell {
    cell: vec2<i32>,
    level: u32,
    layer: u32,
    mask: u32,
    // The shape kind above PAIR_KIND_SHIFT, the owner (BodyInfo::owner) below it
    // (kind_owner): one word keeps the record, the largest of the bodies' lists, at 24
    // bytes.
    kind_owner: u32,
}

// Set in the second word of a body's placement where it holds the turns of the body's
// last walk rather than its rank in its bucket (which never comes near 2^31).
const TURNS_RECORDED: u32 = 0x80000000u;


struct GridInfo {
    level_layers: array<u32, MAX_LEVELS>,
    // OR of the layers of the level's waiting bodies (waits); level_bodies counts the others.
    level_waiters: array<u32, MAX_LEVELS>,
    level_bodies: array<u32, MAX_LEVELS>,
    // Entry l: the occupied levels that bodies on level l search, as bits.
    look_levels: array<u32, MAX_LEVELS>,
    // Entry l: the occupied levels above l whose seekers cannot all reach down to l.
    waiter_looks: array<u32, MAX_LEVELS>,
    occupied_levels: u32,
    allocated: u32,
    // Entry c: the finest level every seeker of level c may reach down to (lowest_reach).
    reach_floor: array<u32, MAX_LEVELS>,
    // Entry c * MAX_LEVELS + f: cells the seekers of level c would read on level f.
    reached_cells: array<u32, MAX_LEVELS * MAX_LEVELS>,
    // Bodies in `seekers` (listed by the bounds kernel; every body where none wait,
    // set by size_broad in allocate_buckets).
    seeker_count: u32,
    // 1 when only the listed seekers search, so broad runs over them alone (size_broad).
    seekers_only: u32,
    // Two lists: a placement a body (placement_word in grid.wgsl), then the seekers, the
    // bodies that do not wait: each workgroup's of the bounds kernel together, key by
    // key (list_seeker, seeker_word).
    lists: array<u32>,
}

// `GridInfo` while it is being built: the same layout with atomic fields.
struct AtomicGridInfo {
    level_layers: array<atomic<u32>, MAX_LEVELS>,
    level_waiters: array<atomic<u32>, MAX_LEVELS>,
    level_bodies: array<atomic<u32>, MAX_LEVELS>,
    look_levels: array<atomic<u32>, MAX_LEVELS>,
    waiter_looks: array<atomic<u32>, MAX_LEVELS>,
    occupied_levels: atomic<u32>,
    allocated: atomic<u32>,
    reach_floor: array<atomic<u32>, MAX_LEVELS>,
    reached_cells: array<atomic<u32>, MAX_LEVELS * MAX_LEVELS>,
    seeker_count: atomic<u32>,
    seekers_only: u32,
    lists: array<u32>,
}

// The append counters; each counts every item, also those past its buffer's end.
struct Counters {
    candidates: atomic<u32>,
    pairs: atomic<u32>,
    deferred: atomic<u32>,
    long_pairs: atomic<u32>,
    tasks: atomic<u32>,
    // Invocations that met the loop guard: a bug if ever non-zero, reported as an error.
    unfinished: atomic<u32>,
    // Candidates appended to each bin by the broad phase (bin_of), also those past the
    // bin's end; `candidates` is their sum, set by narrow_args.
    bin_counts: array<atomic<u32>, PAIR_KINDS>,
    // Candidates of each kind pair, by which the host lays out a later frame's bins:
    // the bins' counts in a binned frame, counted by `narrow` otherwise.
    kind_counts: array<atomic<u32>, PAIR_KINDS>,
    // Bits of the bins whose candidates did not all fit (narrow_args): the host lays the
    // bins out again from kind_counts and runs the frame again.
    overflowed_bins: atomic<u32>,
    // Bodies of the caller's buffer with a position or angle the pipeline cannot take,
    // and the first of them as !index (an atomic maximum; 0 is none).
    invalid_bodies: atomic<u32>,
    first_invalid: atomic<u32>,
}

// What a frame recorded into the caller's encoder tells the caller's shaders (publish).
struct PairsHeader {
    dispatch: DispatchArgs,
    count: u32,
    stored: u32,
    capacity: u32,
    complete: u32,
    invalid_bodies: u32,
}

// Part of a crowded cell's entries that a body handed over instead of reading it:
// `broad_deferred` reads entries first .. end of `cell` on `level` for `body`.
struct DeferredScan {
    cell: vec2<i32>,
    level: u32,
    body: u32,
    first: u32,
    end: u32,
}

// A candidate whose exact test is too long for one invocation: its chunks run as
// tasks first_task .. first_task + chunks, and any chunk that finds a witness sets it.
struct LongPair {
    pair: vec2<u32>,
    first_task: u32,
    witness: atomic<u32>,
}

// A swept candidate whose static test or time of impact runs in chunks (sweep.wgsl):
// tasks first_task .. first_task + static_chunks + toi_chunks, static chunks first.
struct SweptLongPair {
    pair: vec2<u32>,
    first_task: u32,
    static_chunks: u32,
    toi_chunks: u32,
    kind: u32,
    witness: atomic<u32>,
    // Polygon pairs: latest entering and earliest leaving time over the chunks (f32 bits).
    enter: atomic<u32>,
    exit: atomic<u32>,
    // Other kind pairs: the earliest impact over the chunks (f32 bits).
    first: atomic<u32>,
}

// The workgroup's linear index in a dispatch laid out by `workgroup_grid` on the host.
fn workgroup_index(workgroup: vec3<u32>) -> u32 {
    return workgroup.y * DISPATCH_WIDTH + workgroup.x;
}

// The thread's linear index in a dispatch laid out by `dispatch_size` on the host.
fn global_index(workgroup: vec3<u32>, local: u32) -> u32 {
    return workgroup_index(workgroup) * WORKGROUP_SIZE + local;
}

// The kind pair (PAIR_*) of two shapes of kinds `a` and `b` (SHAPE_*), numbered as
// `PairKind::index`: the pairs of lower kind `low` start after those of every kind below
// it, at low·(2·SHAPE_KINDS + 1 − low)/2, in the order of their higher kind.
fn pair_kind(a: u32, b: u32) -> u32 {
    let low = min(a, b);
    let high = max(a, b);
    return low * (2u * SHAPE_KINDS + 1u - low) / 2u + high - low;
}

// A candidate as stored: its kind pair in the top bits of the second index (bodies are
// fewer than 2^PAIR_KIND_SHIFT).
fn pack_candidate(pair: vec2<u32>, kind: u32) -> vec2<u32> {
    return vec2<u32>(pair.x, pair.y | (kind << PAIR_KIND_SHIFT));
}

fn unpack_candidate(stored: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(stored.x, stored.y & ((1u << PAIR_KIND_SHIFT) - 1u));
}

fn candidate_kind(stored: vec2<u32>) -> u32 {
    return stored.y >> PAIR_KIND_SHIFT;
}

// A grid record's word of its body's shape kind and owner (BodyCell::kind_owner), the
// kind above the bits any body index or owner (fewer than MAX_BODIES) takes. An owner
// past them, which the host never sends, would read as NO_OWNER: every pair kept.
fn kind_owner(kind: u32, owner: u32) -> u32 {
    return min(owner, NO_OWNER) | (kind << PAIR_KIND_SHIFT);
}

fn info_kind(kind: u32) -> u32 {
    return kind & ((1u << GROUP_SHIFT) - 1u);
}

// 0 for a body that walks alone, the part count for a group's first part, GROUP_FOLLOWS
// for its others.
fn info_group(kind: u32) -> u32 {
    return kind >> GROUP_SHIFT;
}

// Set in the grid record (BodyCell::kind_owner) of a group's first part, which stands
// for its group in the grid (GROUP_SHIFT in src/layout/packed.rs), above the kind.
const GROUP_FLAG: u32 = 0x80000000u;

fn kind_of(kind_owner: u32) -> u32 {
    return (kind_owner & ~GROUP_FLAG) >> PAIR_KIND_SHIFT;
}

fn is_group_record(kind_owner: u32) -> bool {
    return (kind_owner & GROUP_FLAG) != 0u;
}

fn owner_of(kind_owner: u32) -> u32 {
    return kind_owner & ((1u << PAIR_KIND_SHIFT) - 1u);
}

// The bin the broad phase appends a candidate of kind pair `kind` to (see
// Params::bin_starts): its kind pair's in a binned frame, the one list otherwise.
fn bin_of(kind: u32) -> u32 {
    return kind * params.binned;
}

// Entry `b` of Params::bin_starts: the first slot of bin `b`, or for b = PAIR_KINDS the
// buffer's end.
fn bin_start(b: u32) -> u32 {
    return params.bin_starts[b >> 2u][b & 3u];
}

// Slots of bin `bin`.
fn bin_capacity(bin: u32) -> u32 {
    return bin_start(bin + 1u) - bin_start(bin);
}

// Workgroup counts of an indirect dispatch. Mirrors `DispatchArgs` in src/layout/packed.rs.
struct DispatchArgs {
    x: u32,
    y: u32,
    z: u32,
}

// The indirect dispatch that runs one thread per item of a list of `count` items.
fn dispatch_for(count: u32) -> DispatchArgs {
    let groups = (count + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    return DispatchArgs(min(groups, DISPATCH_WIDTH), (groups + DISPATCH_WIDTH - 1u) / DISPATCH_WIDTH, 1u);
}
