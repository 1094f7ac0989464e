// Stage 2, broad phase: candidate pairs whose filters agree and whose boxes overlap,
// found through a hierarchical grid. CPU twin: src/cpu/broad.rs, function for function.
//
// Why this design (see also src/cpu/broad.rs):
// - Work linear in bodies + pairs: every body goes into exactly one cell, at the finest
//   level whose cells (base_cell · 2^level) are at least as large as its box, so large
//   bodies neither blow up the cells nor get copied into many of them.
// - A body on a level reaches at most half a cell from its centre, so the bodies that
//   may overlap a box sit in the few cells under the box grown by half a cell. So two
//   overlapping bodies of one level each have the other's cell in that range, and on its
//   own level a body reads only its own cell and the cells after it, row by row: a pair
//   in two cells is reported by the body in the earlier cell, a pair in one cell by its
//   lower index. That halves the reading on crowded levels (measured on the 10k
//   bitmask scene: 849k entries read before, 480k after; BENCHMARKS.md, "The grid
//   follows the scene"). Between two
//   levels only one side looks, chosen per pair of levels (see `reaches_down`): the
//   many fine bodies looking up at the few coarse ones, or the coarse ones reading the
//   fine cells under them, whichever touches fewer cells. So every candidate appears
//   exactly once, and 10^5 bullets need not each look for the few ships among them.
// - Bodies of layers that never pair among themselves wait to be found (waiter_layers,
//   chosen on the host from the filters): 10^5 bullets that accept only ships then read
//   nothing, and the few ships read the bullets' cells, on their own level and on the
//   finer ones they reach. A bullet looks up only at a level whose seekers cannot reach
//   down to it. This matters once bullets move: a moving bullet's box reaches the
//   ships' levels, and reading as seekers there they read ten times more (measured on
//   the swept bullet-hell at 100k: 267k cells and 279k entries, 39k and 19k waiting).
// - Cells live in a hash table of power-of-two size (laid out by the host so that a
//   crowded scene's cells share no bucket: cell_bucket in grid.wgsl), built by counting sort:
//   assign_cell (in the bounds kernel, shaders/bounds.wgsl) counts, allocate_buckets
//   turns counts into ranges, scatter_cells writes the entries grouped by bucket, so a
//   bucket's bodies are read contiguously. An entry is one word, the body's index with
//   its row's tag in the bits the index leaves free (row_tag in grid.wgsl): its cell
//   and filter are read from its record (body_cells) by whoever reads the entry and finds
//   the tag of the row it reads. Entries that copied them (six words) cost scatter_cells
//   2.5 times as much at 10^6 bodies, where its writes land all over memory: measured on
//   lavapipe, 30 ms against 11 for one word (BENCHMARKS.md, "Grid memory at a million
//   bodies"), while the bodies that read entries are few, or few enough that the records
//   they read stay in cache.
// - Filters act early: each level keeps the OR of its bodies' layers, so a bullet whose
//   mask accepts nobody on a level never looks there, and bullets that never meet
//   bullets cost a few loads each.
// - Bounded work per invocation: Mesa's llvmpipe silently ends every loop once the 8
//   invocations it runs in lockstep have run 65535 iterations in all (see LLVMPIPE_LANES
//   in src/layout/packed.rs), and real GPUs stall on one long invocation. So a body walks its
//   cells and their entries in a single loop (see `broad`), and the cells it reads are
//   bounded by
//   construction (the top level is one cell for bodies too large for the others; a level
//   reads the finer ones only as far down as all its bodies stay within REACH_BUDGET
//   cells in all, measured from their boxes by lowest_reach), and the entries it reads
//   by SCAN_BUDGET: past it, a crowded cell is handed over in SCAN_CHUNK-entry pieces that
//   broad_deferred reads in parallel. Measured before this: a 3000-unit square among 300
//   circles swept 4.2 million cells in one invocation and the GPU reported none of its
//   300 pairs.
// - A concave or compound body of a few parts is one body of the grid, boxed around its
//   parts (a group: GROUP_SHIFT in src/layout/packed.rs), and a pair with a group in it
//   is handed over to cut_pairs, which pairs the parts whose boxes overlap. As bodies of
//   the grid, the pieces of a concave outline, which all meet near its centre, each
//   walked the others' crowded cells (measured on concave 10^4, lavapipe: the broad
//   stage 44-80 ms before, 27-52 after, over three seeds; the outlines' hulls take 4-5).
// - Which side looks between two levels is chosen every frame on the GPU from the bodies
//   each level really holds and the cells their boxes cover below (reaches_down), not
//   predicted from the shapes, and turned into
//   one word per level of the levels its bodies search (choose_look_levels).
//
// Measured (lavapipe, 2 cores, 100k bullet-hell bodies; BENCHMARKS.md, "The grid follows
// the scene"): a first
// version with a three-pass prefix sum and every body looking at its coarser levels
// spent ~115 ms here: the scan paid for its barriers, and 10^5 bullets each probed the
// cells around them on the ships' levels. Allocating bucket ranges with one atomic per
// 32 buckets and letting the host pick which side looks between two levels brought it
// to ~20 ms, with the same pairs. A sort-based broad phase (Morton codes, radix sort)
// would need more dispatches and barriers per frame, which software adapters pay for.

// The frame's parameters as uploaded, and the copy every entry point that reads them
// takes first (see Params in types.wgsl for why).
@group(0) @binding(0) var<uniform> uploaded_params: Params;
var<private> params: Params;
@group(0) @binding(2) var<storage, read> aabbs: array<Aabb>;
@group(0) @binding(3) var<storage, read_write> body_cells: array<BodyCell>;
// The per-level summary is built with atomics (assign_cell, allocate_buckets) and read
// with plain loads once built: software adapters execute even an atomic load as a
// locked operation, which a million threads then contend on. Each kernel uses only one
// of the two views of a binding. The table (a word a bucket, see bucket_start in
// grid.wgsl) is counted in the bounds stage; here allocate_buckets, a thread a block,
// turns its counts into starts with plain loads and stores.
@group(0) @binding(4) var<storage, read_write> buckets: array<u32>;
// The bodies of each bucket, one after another: each entry a body's index.
@group(0) @binding(5) var<storage, read_write> grid_entries: array<u32>;
@group(0) @binding(6) var<storage, read_write> grid_info_counters: AtomicGridInfo;
@group(0) @binding(6) var<storage, read_write> grid_info: GridInfo;
@group(0) @binding(7) var<storage, read_write> candidates: array<vec2<u32>>;
@group(0) @binding(8) var<storage, read_write> counters: Counters;
@group(0) @binding(9) var<storage, read_write> deferred: array<DeferredScan>;
@group(0) @binding(10) var<storage, read_write> dispatch_args: array<DispatchArgs>;
// For cut_pairs alone (the walk's kernels bind as many storage buffers as a device
// must allow): each body's group code (GROUP_SHIFT in src/layout/packed.rs), and two
// boxes for each of the caller's bodies, its group's and its first part's own (see
// grid_box in shaders/bounds.wgsl).
@group(0) @binding(15) var<storage, read> infos: array<BodyInfo>;
@group(0) @binding(16) var<storage, read> group_boxes: array<Aabb>;
// Each body's displacement over the frame, read only when params.swept (frame_boxes_meet).
@group(0) @binding(17) var<storage, read> velocities: array<vec2<f32>>;

// The grid's cell functions (level_of, cell_at, cell_bucket, probe_range) are in
// shaders/grid.wgsl, shared with the queries (shaders/query.wgsl).

// ---- who searches: seekers and waiting bodies (twins in src/grid/mod.rs; waits() is in
// shaders/grid.wgsl, shared with the bounds kernel) ----

// The levels a body searches, as bits: where it reports the seekers it finds, and where
// it looks for waiting bodies (reading its whole range on its own level). A seeker and a
// waiter are found by the seeker, except a waiter finer than a level's reach_floor, which
// looks up at that level's seekers; two seekers as the look_levels say. Twin of
// `search_levels`.
struct SearchLevels {
    seekers: u32,
    waiters: u32,
}

fn search_levels(layer: u32, level: u32, mask: u32) -> SearchLevels {
    var found = SearchLevels(0u, 0u);
    if waits(layer) {
        // Up at the seekers of levels that cannot reach down this far: one word for most
        // bullets, which have none.
        var up = grid_info.waiter_looks[level];
        while up != 0u {
            let other = countTrailingZeros(up);
            up &= up - 1u;
            if (grid_info.level_layers[other] & mask) != 0u {
                found.seekers |= 1u << other;
            }
        }
        return found;
    }
    var occupied = grid_info.occupied_levels;
    let looks = grid_info.look_levels[level];
    let floor = grid_info.reach_floor[level];
    while occupied != 0u {
        let other = countTrailingZeros(occupied);
        occupied &= occupied - 1u;
        if (grid_info.level_layers[other] & mask) == 0u {
            continue;
        }
        if ((looks >> other) & 1u) == 1u {
            found.seekers |= 1u << other;
        }
        if (grid_info.level_waiters[other] & mask) != 0u && (other >= level || other >= floor) {
            found.waiters |= 1u << other;
        }
    }
    return found;
}

// Whether body i reports a seeker (body `other`) found in `cell` of `level`: only on a
// level it searches for seekers, and on its own level only in its own cell (to a higher
// index) or a later one. Twin of `reports_seeker`.
fn reports_seeker(seekers: bool, i: u32, me: BodyCell, cell: vec2<i32>, level: u32, other: u32) -> bool {
    if !seekers {
        return false;
    }
    if level != me.level {
        return true;
    }
    return cell.y > me.cell.y || (cell.y == me.cell.y && (cell.x > me.cell.x || (cell.x == me.cell.x && other > i)));
}

// ---- counting sort into the hash table ----

// Whether the bodies of level `coarse` read the cells of the finer level `fine` rather
// than its bodies look up: allowed where every body of `coarse` stays within REACH_BUDGET
// (never from the top), and chosen when the cells its bodies' boxes cover there are fewer
// than the ~4 coarse cells each fine body would read. Twin of `reaches_down` in src/grid/mod.rs.
fn reaches_down(coarse: u32, fine: u32) -> bool {
    if coarse >= TOP_LEVEL || fine >= coarse || fine < atomicLoad(&grid_info_counters.reach_floor[coarse]) {
        return false;
    }
    let down = atomicLoad(&grid_info_counters.reached_cells[coarse * MAX_LEVELS + fine]);
    let up = atomicLoad(&grid_info_counters.level_bodies[fine]);
    // Compared in floats: up * 4 may pass 2^32.
    return f32(down) < f32(up) * 4.0;
}

// Entry `own` of look_levels: the occupied levels that bodies on level `own` search. On
// its own level a body always looks (at its own cell and those after it); between two
// levels exactly one side does. Twin of `look_levels` in src/grid/mod.rs.
fn choose_look_levels(own: u32) -> u32 {
    let occupied = atomicLoad(&grid_info_counters.occupied_levels);
    var bits = 0u;
    for (var other = 0u; other < MAX_LEVELS; other++) {
        let looks = other == own || (other < own && reaches_down(own, other))
            || (other > own && !reaches_down(other, own));
        if looks && ((occupied >> other) & 1u) == 1u {
            bits |= 1u << other;
        }
    }
    return bits;
}

// Entry `own` of waiter_looks: the occupied levels above `own` whose seekers cannot all
// reach down to it, where its waiting bodies look up. Twin of `waiter_looks` in src/grid/mod.rs.
fn choose_waiter_looks(own: u32) -> u32 {
    let occupied = atomicLoad(&grid_info_counters.occupied_levels);
    var bits = 0u;
    for (var other = own + 1u; other < MAX_LEVELS; other++) {
        if ((occupied >> other) & 1u) == 1u && own < atomicLoad(&grid_info_counters.reach_floor[other]) {
            bits |= 1u << other;
        }
    }
    return bits;
}

// Gives every bucket its range of entries: a thread sums the counts of BUCKETS_PER_THREAD
// consecutive buckets, takes that many entries from a global counter with one atomic,
// and hands them out in order. The buckets' ranges end up in no particular order, which
// nothing needs; in exchange there is no multi-pass prefix sum and no barrier across
// workgroups.
// The first MAX_LEVELS threads, all in the first workgroup, also choose the levels each
// level's bodies search; once they have, the first thread sizes the dispatch of broad
// (size_broad). Why here: a kernel of its own, one thread dispatched alone, cost every
// frame about 40 µs on lavapipe, which wakes its worker threads for each dispatch that
// has work (measured: 30 more such dispatches added 1.2-1.5 ms to bullet-hell 10k's
// 1.7 ms frame, 30 more empty indirect ones 0.1 ms; BENCHMARKS.md, "Few dispatches, and
// timestamps off by default").
@compute @workgroup_size(WORKGROUP_SIZE)
fn allocate_buckets(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let thread = global_index(workgroup, local);
    if thread < MAX_LEVELS {
        atomicStore(&grid_info_counters.look_levels[thread], choose_look_levels(thread));
        atomicStore(&grid_info_counters.waiter_looks[thread], choose_waiter_looks(thread));
    }
    // Makes the first workgroup's choices visible to its first thread (every workgroup
    // passes it: a barrier must be reached by all of a workgroup's threads).
    storageBarrier();
    if thread == 0u {
        size_broad();
    }
    let first = thread * BUCKETS_PER_THREAD;
    if first >= params.bucket_count {
        return;
    }
    var total = 0u;
    for (var b = first; b < first + BUCKETS_PER_THREAD; b++) {
        total += buckets[b];
    }
    // An empty block's counts already read as empty ranges: starts and end all 0.
    let block_end = params.bucket_count + thread;
    if total == 0u {
        buckets[block_end] = 0u;
        return;
    }
    var start = atomicAdd(&grid_info_counters.allocated, total);
    for (var b = first; b < first + BUCKETS_PER_THREAD; b++) {
        let count = buckets[b];
        buckets[b] = start;
        start += count;
    }
    buckets[block_end] = start;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn scatter_cells(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let i = global_index(workgroup, local);
    if i >= params.body_count {
        return;
    }
    // The body's placement: its rank in the bucket comes with its row's tag above it
    // (assign_cell), which the entry keeps.
    let placement = placement_word(i);
    let bucket = grid_info.lists[placement];
    if bucket == NO_BUCKET {
        return;
    }
    let ranked = grid_info.lists[placement + 1u];
    let index_mask = entry_index_mask();
    grid_entries[bucket_start(bucket) + (ranked & index_mask)] = i | (ranked & ~index_mask);
}

// ---- the query ----

// The walk in `broad` reads the table and the entries through walk_start, walk_end and
// walk_entry: the storage buffers' words, or on a software adapter their uniform copies
// (composed after this file, in one of the two forms of GridBinding in src/layout/shaders.rs,
// which says why). In the uniform form it also tests an entry's box key (box_key in
// grid.wgsl) before loading its box (walk_seeker_key, walk_may_meet); in the storage
// form every entry passes that test.

// Hands entries first .. end of `cell` on `level` over to broad_deferred, for body `body`;
// or with level PAIR_PIECE, the pair of bodies `body` and `first` of which one at least
// is a group, to be cut into pairs of parts (cut_pair).
fn defer_scan(piece: DeferredScan) {
    let slot = atomicAdd(&counters.deferred, 1u);
    if slot < params.deferred_capacity {
        deferred[slot] = piece;
    }
}

// Whether body `other`, read from a bucket of cells cell.x ..= last_x of row cell.y on
// `level`, is a candidate of body i, which searches that level for seekers and for
// waiting bodies as `search` says.
// Reads the other's box first, then its record field by field, as far as it needs to:
// most bodies a body reads do not reach its box (nine in ten on the crowded 10k
// scenes, and nearly all the bodies of other cells that share a bucket). The CPU twin
// (`Grid::candidates_of`) asks the same questions, the box first too.
fn is_candidate(i: u32, me: BodyCell, box: Aabb, level: u32, cell: vec2<i32>, last_x: i32, search: SearchLevels, other: u32) -> bool {
    if !aabbs_overlap(box, aabbs[other]) {
        return false;
    }
    // Cells outside the run share its buckets when their hashes collide.
    let other_cell = body_cells[other].cell;
    if body_cells[other].level != level || other_cell.y != cell.y || other_cell.x < cell.x || other_cell.x > last_x {
        return false;
    }
    let layer = body_cells[other].layer;
    var reported: bool;
    if waits(layer) {
        reported = ((search.waiters >> level) & 1u) == 1u;
    } else {
        reported = reports_seeker(((search.seekers >> level) & 1u) == 1u, i, me, other_cell, level, other);
    }
    if !reported || same_owner(owner_of(me.kind_owner), owner_of(body_cells[other].kind_owner)) {
        return false;
    }
    return (me.layer & body_cells[other].mask) != 0u && (layer & me.mask) != 0u;
}

// ---- groups of parts ----

// DeferredScan::level of a pair of bodies to cut into pairs of parts (cut_pairs).
const PAIR_PIECE: u32 = 0xfffffffeu;

// Whether body x of the grid is a group's first part, whose box there (aabbs[x]) is the
// group's: each pair it is in is cut into pairs of parts.
fn is_group(x: u32) -> bool {
    return is_group_record(body_cells[x].kind_owner);
}

// A body of the grid as its parts: bodies first .. first + parts, where `box_at` is its
// group's pair of boxes in group_boxes.
struct Parts {
    first: u32,
    parts: u32,
    box_at: u32,
}

fn parts_of(x: u32) -> Parts {
    let group = info_group(infos[x].kind);
    if group == 0u || group == GROUP_FOLLOWS {
        return Parts(x, 1u, 0u);
    }
    let last = arrayLength(&group_boxes) / 2u - 1u;
    return Parts(x, group, 2u * min(infos[x].owner, last));
}

// The box of part p of `whole`: a group's first part's own is kept beside the group's
// box, which took its place in aabbs.
fn part_box(whole: Parts, p: u32) -> Aabb {
    if whole.parts > 1u && p == whole.first {
        return group_boxes[whole.box_at + 1u];
    }
    return aabbs[p];
}

// Appends the candidate of parts p and q (of two of the caller's bodies) to the bin of
// their kind pair, as emit_candidate does.
fn emit_part_candidate(p: u32, q: u32) -> bool {
    let kind = pair_kind(kind_of(body_cells[p].kind_owner), kind_of(body_cells[q].kind_owner));
    let bin = bin_of(kind);
    let slot = atomicAdd(&counters.bin_counts[bin], 1u);
    if slot < bin_capacity(bin) {
        candidates[bin_start(bin) + slot] = candidate_of(p, q, kind);
    }
    return slot < params.candidate_limit;
}

// How far frame_boxes_meet grows the boxes it times, at least: half the band, as the
// cpu backend's BOX_MARGIN, so that the f32 rounding of a box and of the shape in it never
// decides a pair.
const BOX_MARGIN: f32 = 0.005;
// And by this share of the coordinates and displacements it reads, for its own rounding:
// 2^-20, sixteen times f32's rounding unit (2^-24), where its few sums and its quotient
// (which WGSL allows 2.5 units in the last place) err by a few.
const BOX_SLACK: f32 = 9.5367431640625e-7;

// Whether two parts' boxes overlap at one time within the frame, given each one's box
// over the whole frame (`a`, `b`) and its displacement (`va`, `vb`). A part slides with
// its body, so parts whose boxes never overlap at one time cannot meet; their boxes over
// the frame may still overlap, and in a ship that crosses another, most pairs of parts'
// do. Conservative: the boxes are grown by BOX_MARGIN and BOX_SLACK, and an axis along
// which they move apart by no more than BOX_MARGIN is taken as still. Twin of
// `frame_boxes_meet` in src/gpu/part_groups.rs; the cpu backend's boxes_meet does this in
// f64.
fn frame_boxes_meet(a: Aabb, va: vec2<f32>, b: Aabb, vb: vec2<f32>) -> bool {
    // The boxes at t = 0: a box over the frame is the one at t = 0 stretched by the
    // displacement on its side (grid_box in shaders/bounds.wgsl).
    let zero = vec2<f32>(0.0);
    let a_min = a.min - min(va, zero);
    let a_max = a.max - max(va, zero);
    let b_min = b.min - min(vb, zero);
    let b_max = b.max - max(vb, zero);
    let grow = 2.0 * BOX_MARGIN + BOX_SLACK * (abs(a.min) + abs(a.max) + abs(b.min) + abs(b.max) + abs(va) + abs(vb));
    // `b` moved by d, relative to `a`, overlaps it along an axis where low <= d <= high,
    // both boxes grown; it is moved by t·w at time t.
    let low = a_min - b_max - grow;
    let high = a_max - b_min + grow;
    let w = vb - va;
    var enter = 0.0;
    var exit = 1.0;
    for (var axis = 0u; axis < 2u; axis++) {
        let speed = w[axis];
        if abs(speed) <= BOX_MARGIN {
            // Still, or as good as: any time will do if some move of at most |speed| does.
            if low[axis] > abs(speed) || high[axis] < -abs(speed) {
                return false;
            }
        } else {
            let ahead = speed > 0.0;
            enter = max(enter, select(high[axis], low[axis], ahead) / speed);
            exit = min(exit, select(low[axis], high[axis], ahead) / speed);
        }
    }
    return enter <= exit;
}

// Cuts candidate bodies i and `other`, one at least a group, into the pairs of their
// parts whose boxes overlap, as the cpu backend does (part_pairs in src/cpu/mod.rs): only
// the parts of i that reach the other's box are paired, and in a frame with motion only
// parts whose boxes overlap at one time (the cpu backend's earliest_part_impact): on
// 250-body flotilla scenes, 30,546 candidates became 7,464 (seed 401), and 691,138 became
// 602,217 (seed 402), where most come from ships of more parts than a group holds, which
// are in the grid part by part. At most 2·GROUP_LIMIT + GROUP_LIMIT² tests, in a
// thread of its own (cut_pairs): the walk that found the pair hands it over (defer_scan)
// rather than testing its parts in its own loop, whose budget would then have to allow
// for the largest groups at every entry; so does broad_deferred's reading of a crowded
// cell.
fn cut_pair(i: u32, other: u32) {
    let mine = parts_of(i);
    let theirs = parts_of(other);
    let their_box = aabbs[other];
    // Each body's displacement in a frame with motion: every part moves with its body.
    let swept = params.swept != 0u;
    var my_motion = vec2<f32>(0.0);
    var their_motion = vec2<f32>(0.0);
    if swept {
        my_motion = velocities[mine.first];
        their_motion = velocities[theirs.first];
    }
    // The other's parts that reach i's box, a bit each (GROUP_LIMIT is 32 at most): the
    // parts of i that reach the other's box are tested against those alone.
    let my_box = aabbs[i];
    var reaching = 0u;
    for (var q = theirs.first; q < theirs.first + theirs.parts; q++) {
        if aabbs_overlap(part_box(theirs, q), my_box) {
            reaching |= 1u << (q - theirs.first);
        }
    }
    if reaching == 0u {
        return;
    }
    for (var p = mine.first; p < mine.first + mine.parts; p++) {
        let box = part_box(mine, p);
        if !aabbs_overlap(box, their_box) {
            continue;
        }
        var left = reaching;
        while left != 0u {
            let q = theirs.first + countTrailingZeros(left);
            left &= left - 1u;
            let q_box = part_box(theirs, q);
            // In a frame with motion, only parts whose boxes overlap at one time.
            if aabbs_overlap(box, q_box) && (!swept || frame_boxes_meet(box, my_motion, q_box, their_motion))
                && !emit_part_candidate(p, q) {
                return;
            }
        }
    }
}

// Where body i's candidates go, indexed by the shape kind of the other body: their kind
// pair, and the first slot and the slots of its bin (bin_of). Worked out once a body
// rather than at each append, since the broad phase appends on any turn of its walk.
struct PartnerBins {
    kind: array<u32, SHAPE_KINDS>,
    start: array<u32, SHAPE_KINDS>,
    capacity: array<u32, SHAPE_KINDS>,
}

fn partner_bins(own_kind: u32) -> PartnerBins {
    var bins: PartnerBins;
    for (var other = 0u; other < SHAPE_KINDS; other++) {
        let kind = pair_kind(own_kind, other);
        bins.kind[other] = kind;
        bins.start[other] = bin_start(bin_of(kind));
        bins.capacity[other] = bin_capacity(bin_of(kind));
    }
    return bins;
}

// The candidate of bodies i and `other`, of kind pair `kind`, as stored: lower index
// first, with its kind pair for the narrow phase (pack_candidate).
fn candidate_of(i: u32, other: u32, kind: u32) -> vec2<u32> {
    return pack_candidate(vec2<u32>(min(i, other), max(i, other)), kind);
}

// Appends the candidate of bodies i and `other` to the bin of its kind pair, counting it
// even when it does not fit: the host lays the bins out again, or grows the buffer, and
// reruns. Binning here, rather than in a pass of its own over the candidates, spares
// the narrow stage two dispatches and a read and write of every candidate (measured on
// the crowded 10k scenes: the narrow stage 0.35-0.55 ms faster, the broad stage
// 0.15-0.3 ms slower; BENCHMARKS.md, "The narrow phase by kind pair"). False once the
// bin's count
// has passed the limit: the frame will be refused, so the invocation stops (and no
// counter can wrap around).
fn emit_candidate(i: u32, bins: ptr<function, PartnerBins>, other: u32) -> bool {
    let other_kind = kind_of(body_cells[other].kind_owner);
    let kind = (*bins).kind[other_kind];
    let slot = atomicAdd(&counters.bin_counts[bin_of(kind)], 1u);
    if slot < (*bins).capacity[other_kind] {
        candidates[(*bins).start[other_kind] + slot] = candidate_of(i, other, kind);
    }
    return slot < params.candidate_limit;
}

// Whether some bin's count has passed the limit: the frame will be refused.
fn past_candidate_limit() -> bool {
    for (var bin = 0u; bin < PAIR_KINDS; bin++) {
        if atomicLoad(&counters.bin_counts[bin]) >= params.candidate_limit {
            return true;
        }
    }
    return false;
}

// Body i reads entries first .. end of a piece of a crowded cell (handed over by
// `broad`), where most entries are candidates: they are counted by partner kind first
// and their slots taken with one atomic per bin, since a pile of bodies on one point
// would otherwise queue every thread on one counter. Reads the entries twice.
fn scan_piece(i: u32, me: BodyCell, box: Aabb, level: u32, cell: vec2<i32>, search: SearchLevels, first: u32, end: u32) {
    var bins = partner_bins(kind_of(me.kind_owner));
    let tag = row_tag(cell.y, level);
    let index_mask = entry_index_mask();
    var found: array<u32, SHAPE_KINDS>;
    let grouped = is_group(i);
    for (var k = first; k < end; k++) {
        let entry = grid_entries[k];
        let other = entry_body(entry, index_mask);
        if entry_in_row(entry, tag, index_mask) && is_candidate(i, me, box, level, cell, cell.x, search, other) {
            if grouped || is_group(other) {
                defer_scan(DeferredScan(vec2<i32>(0), PAIR_PIECE, i, other, 0u));
            } else {
                found[kind_of(body_cells[other].kind_owner)]++;
            }
        }
    }
    // Partners of two shape kinds share a bin in a frame that is not binned.
    var slots: array<u32, SHAPE_KINDS>;
    for (var other_kind = 0u; other_kind < SHAPE_KINDS; other_kind++) {
        if found[other_kind] != 0u {
            slots[other_kind] = atomicAdd(&counters.bin_counts[bin_of(bins.kind[other_kind])], found[other_kind]);
        }
    }
    for (var k = first; k < end; k++) {
        let entry = grid_entries[k];
        let other = entry_body(entry, index_mask);
        if entry_in_row(entry, tag, index_mask) && is_candidate(i, me, box, level, cell, cell.x, search, other)
            && !grouped && !is_group(other) {
            let other_kind = kind_of(body_cells[other].kind_owner);
            let slot = slots[other_kind];
            if slot < bins.capacity[other_kind] {
                candidates[bins.start[other_kind] + slot] = candidate_of(i, other, bins.kind[other_kind]);
            }
            slots[other_kind]++;
        }
    }
}

// Where a body's walk over the cells it reads stands: the levels still to visit, the
// level and range it reads, the run of cells it is at (cell.x ..= last_x of row cell.y,
// see run_end), and the entries of that run still to read (or, `handing`, to hand over
// in SCAN_CHUNK-entry pieces).
struct Walk {
    levels: u32,
    level: u32,
    range: vec4<i32>,
    cell: vec2<i32>,
    last_x: i32,
    next: u32,
    end: u32,
    handing: bool,
    // row_tag of the run's row.
    tag: u32,
    // The body's box key on `level` (walk_seeker_key), for walk_may_meet.
    key: u32,
}

// Moves the walk to its next run of cells: along the row, then down the range, then to
// the next level; false when there is none. On its own level a body reads only its own
// cell and those after it (row by row): of two seekers in different cells, the one in
// the earlier cell reports. Looking for waiting bodies there, it reads the whole range.
fn advance(walk: ptr<function, Walk>, me: BodyCell, box: Aabb, search: SearchLevels) -> bool {
    if (*walk).last_x < (*walk).range.w {
        (*walk).cell.x = (*walk).last_x + 1;
        return true;
    }
    if (*walk).cell.y < (*walk).range.z {
        (*walk).cell.y++;
        (*walk).cell.x = (*walk).range.y;
        return true;
    }
    if (*walk).levels == 0u {
        return false;
    }
    let level = countTrailingZeros((*walk).levels);
    (*walk).levels &= (*walk).levels - 1u;
    let range = probe_range(box, level);
    let own = level == me.level && ((search.waiters >> level) & 1u) == 0u;
    let y = select(range.x, max(range.x, me.cell.y), own);
    let x = select(range.y, max(range.y, me.cell.x), own && y == me.cell.y);
    (*walk).level = level;
    (*walk).key = walk_seeker_key(box, level);
    (*walk).range = range;
    (*walk).cell = vec2<i32>(x, y);
    return true;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn broad(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    // Over the grid's list of seekers where only they search (the bullets of a
    // bullet-hell frame are then never visited; a workgroup's seekers are listed by
    // how far they walked last frame, see seeker_key), over the bodies in their own
    // order otherwise: taking
    // them in grid order (so that a workgroup's invocations read the same buckets)
    // saved 6% on the crowded 10k scenes but cost 10-40% on bullet-hell.
    let thread = global_index(workgroup, local);
    var i = thread + params.slice_start;
    if grid_info.seekers_only != 0u {
        if thread >= grid_info.seeker_count {
            return;
        }
        i = grid_info.lists[seeker_word(thread)];
        if i < params.slice_start {
            return;
        }
    }
    if i >= params.slice_end {
        return;
    }
    // The levels to look at, holding somebody this body accepts and is to find. Most
    // bullets have none, and stop here having read four words of their record: read
    // field by field, since llvmpipe loads a storage buffer one word and one invocation
    // at a time, and would load the whole record first otherwise.
    let placement = placement_word(i);
    if grid_info.lists[placement] == NO_BUCKET {
        return;
    }
    let search = search_levels(body_cells[i].layer, body_cells[i].level, body_cells[i].mask);
    let levels = search.seekers | search.waiters;
    if levels == 0u {
        grid_info.lists[placement + 1u] = TURNS_RECORDED;
        return;
    }
    let me = body_cells[i];
    let box = aabbs[i];
    var bins = partner_bins(kind_of(me.kind_owner));
    let grouped = is_group(i);
    // One loop, each turn moving to the next cell if this one is done, then reading one
    // entry or handing over one piece, rather than loops over levels, rows, cells and
    // entries: llvmpipe counts its cap over the 8 invocations that run in lockstep, so
    // nested loops in which they read different cells add their counts up (measured: 8
    // invocations of 9000 iterations each, taking turns in an inner loop, lost 6500 of
    // the last one's), while a single loop costs the longest invocation's turns.
    // `steps` counts cells, entries read and pieces (at least the turns) and decides
    // what is handed over, as in the CPU twin; the grid's budgets keep it far below
    // LOOP_GUARD.
    var walk = Walk(levels, 0u, vec4<i32>(0), vec2<i32>(0), 0, 0u, 0u, false, 0u, NO_BOX_KEY);
    var steps = 0u;
    // Counted after the loop: an atomic in it is paid on every turn, since llvmpipe
    // walks a masked atomic's lanes one by one, taken or not (measured: 5% of the broad
    // stage on the crowded 10k scenes).
    var unfinished = false;
    let index_mask = entry_index_mask();
    loop {
        // A turn that moves to the next cell reads its first entry too: a body reading
        // sparse cells takes one turn a cell (measured: the crowded 10k scenes' broad
        // phase took 3 ms more with a turn for the move alone; BENCHMARKS.md, "The walk's
        // loop").
        if walk.next >= walk.end {
            if !advance(&walk, me, box, search) {
                break;
            }
            steps++;
            let first_bucket = cell_bucket(walk.cell, walk.level);
            walk.last_x = run_end(walk.cell, first_bucket, walk.range.w);
            walk.tag = row_tag(walk.cell.y, walk.level);
            walk.next = walk_start(first_bucket);
            walk.end = walk_end(first_bucket + u32(walk.last_x - walk.cell.x));
            // Entries past SCAN_BUDGET are handed over, not read, a cell at a time (a
            // piece names one cell): a run that would pass it is cut to its first cell.
            if steps + walk.end - walk.next > SCAN_BUDGET && walk.last_x > walk.cell.x {
                walk.last_x = walk.cell.x;
                walk.end = walk_end(first_bucket);
            }
            let count = walk.end - walk.next;
            walk.handing = steps + count > SCAN_BUDGET;
            if walk.handing {
                steps += (count + SCAN_CHUNK - 1u) / SCAN_CHUNK;
            } else {
                steps += count;
            }
            if steps > LOOP_GUARD {
                unfinished = true;
                break;
            }
        }
        if walk.next < walk.end {
            if walk.handing {
                let piece_end = min(walk.next + SCAN_CHUNK, walk.end);
                defer_scan(DeferredScan(walk.cell, walk.level, i, walk.next, piece_end));
                walk.next = piece_end;
            } else {
                let entry = walk_entry(walk.next);
                let other = entry_body(entry, index_mask);
                if entry_in_row(entry, walk.tag, index_mask) && walk_may_meet(walk.key, other)
                    && is_candidate(i, me, box, walk.level, walk.cell, walk.last_x, search, other) {
                    if grouped || is_group(other) {
                        defer_scan(DeferredScan(vec2<i32>(0), PAIR_PIECE, i, other, 0u));
                    } else if !emit_candidate(i, &bins, other) {
                        return;
                    }
                }
                walk.next++;
            }
        }
    }
    if unfinished {
        atomicAdd(&counters.unfinished, 1u);
    }
    // For the next frame's order of the seekers (seeker_key in bounds.wgsl); the
    // entries are placed, so the bucket rank this replaces is not read again.
    grid_info.lists[placement + 1u] = steps | TURNS_RECORDED;
}

// Sizes the dispatch of broad: the listed seekers alone when every body that searches
// is one of them (no body waits, or no waiting body looks up at a level whose seekers
// cannot reach down to it: waiter_looks), every body of the slice otherwise. Run by the first
// thread of allocate_buckets, once the levels' looks are chosen. Twin of
// `Grid::listed_seekers` in src/cpu/broad.rs.
fn size_broad() {
    var waiters_look = 0u;
    for (var level = 0u; level < MAX_LEVELS; level++) {
        waiters_look |= atomicLoad(&grid_info_counters.waiter_looks[level]);
    }
    // Where no body waits, every body is listed, without a count (list_seeker in
    // shaders/bounds.wgsl).
    if params.waiter_layers == 0u {
        atomicStore(&grid_info_counters.seeker_count, params.body_count);
    }
    let seekers_only = params.waiter_layers == 0u || waiters_look == 0u;
    grid_info_counters.seekers_only = select(0u, 1u, seekers_only);
    let seekers = atomicLoad(&grid_info_counters.seeker_count);
    dispatch_args[ARGS_BROAD] = dispatch_for(select(params.slice_end - params.slice_start, seekers, seekers_only));
}

// Sizes the dispatch of broad_deferred from the pieces handed over.
@compute @workgroup_size(1)
fn deferred_args() {
    params = uploaded_params;
    dispatch_args[ARGS_DEFERRED] = dispatch_for(min(atomicLoad(&counters.deferred), params.deferred_capacity));
}

// The last cell of the run of cells from `cell` (whose bucket is `bucket`) along its
// row that a walk reads as one range of entries: the row's cells up to `last_x` whose
// buckets lie in the same block of BUCKETS_PER_THREAD as the first one's. A cell's
// bucket is the next cell's less one (cell_bucket), and allocate_buckets gives a
// block's buckets their entries one after another, so the run's entries run from its
// first bucket's start to its last bucket's end. Why: a cell a turn cost a body one turn for every empty cell it read; a run costs
// one. Counted on the cpu twin's grid: the crowded mixed 10k scene's walks take 122k
// turns rather than 135k, bullet-hell 100k's 18k rather than 28k (the ships' walks over
// the bullets' sparse cells). The entries are those of the run's cells, in the order a
// cell at a time reads them (the CPU twin's way); a cell elsewhere on the row whose
// bucket is one of the run's would be a table's width away, beyond any range the walk
// budget lets a body read, and is left out by its cell like any other.
fn run_end(cell: vec2<i32>, bucket: u32, last_x: i32) -> i32 {
    let in_block = BUCKETS_PER_THREAD - 1u - (bucket & (BUCKETS_PER_THREAD - 1u));
    return min(last_x, cell.x + i32(in_block));
}

// The piece handed over that thread (workgroup, local) of broad_deferred or cut_pairs
// reads; level NO_LEVEL past the pieces stored, and once the frame is known to be
// refused, when the rest need not be read.
fn handed_piece(workgroup: vec3<u32>, local: u32) -> DeferredScan {
    let t = global_index(workgroup, local);
    if t >= min(atomicLoad(&counters.deferred), params.deferred_capacity) || past_candidate_limit() {
        return DeferredScan(vec2<i32>(0), NO_LEVEL, 0u, 0u, 0u);
    }
    return deferred[t];
}

// One piece of a crowded cell, read for the body that handed it over.
@compute @workgroup_size(WORKGROUP_SIZE)
fn broad_deferred(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let piece = handed_piece(workgroup, local);
    if piece.level == NO_LEVEL || piece.level == PAIR_PIECE {
        return;
    }
    let i = piece.body;
    let me = body_cells[i];
    scan_piece(i, me, aabbs[i], piece.level, piece.cell, search_levels(me.layer, me.level, me.mask), piece.first, piece.end);
}

// The pairs of bodies handed over to be cut into pairs of parts (cut_pair), among the
// pieces broad and broad_deferred handed over, once deferred_args has sized the dispatch
// for all of them again. Run only where the frame's parts are in groups.
@compute @workgroup_size(WORKGROUP_SIZE)
fn cut_pairs(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let piece = handed_piece(workgroup, local);
    if piece.level == PAIR_PIECE {
        cut_pair(piece.body, piece.first);
    }
}
