// The hierarchical grid's cell functions, shared by the broad phase (shaders/broad.wgsl,
// which builds the grid) and the queries (shaders/query.wgsl, which read it). Each has a
// twin of the same name in src/grid/mod.rs, but for the entries' packing (entry_index_mask and
// after), which the cpu twin's entries have no need of: they carry their cell and level.
// Every stage including this declares `params`.

const TOP_LEVEL: u32 = MAX_LEVELS - 1u;

// The finest level whose cells are at least as large as `extent`, with a hair of margin
// so that rounding never puts two touching bodies two cells apart; else the top level
// (also for an extent that is not finite).
fn level_of(extent: f32) -> u32 {
    var level = 0u;
    var size = params.base_cell;
    while !(size >= extent * 1.0001) && level < TOP_LEVEL {
        size *= 2.0;
        level++;
    }
    return level;
}

// The cell holding `point` on `level`; the top level is one cell.
fn cell_at(point: vec2<f32>, level: u32) -> vec2<i32> {
    if level == TOP_LEVEL {
        return vec2<i32>(0);
    }
    let size = ldexp(params.base_cell, i32(level));
    // Clamp first: a float beyond i32's range does not convert.
    return vec2<i32>(clamp(floor(point / size), vec2<f32>(-1e9), vec2<f32>(1e9)));
}

// Neighbouring cells of a row land in neighbouring buckets (and, through
// allocate_buckets, neighbouring entries), so a body reading a block of cells reads
// a few cache lines per row rather than one per cell. Rows and levels are a stride
// apart: around a crowded scene the host lays the rows of each level out one after
// another, so that its cells share no bucket; elsewhere the strides are large odd
// numbers that scatter them (see TableLayout in src/grid/mod.rs).
fn cell_bucket(cell: vec2<i32>, level: u32) -> u32 {
    let h = bitcast<u32>(cell.x) + bitcast<u32>(cell.y) * params.row_stride + level * params.level_step;
    return h & (params.bucket_count - 1u);
}

// The cells of `level` that can hold the centre of a body overlapping `box`: a body on
// that level reaches at most half a cell from its centre. As (first y, first x, last y, last x).
fn probe_range(box: Aabb, level: u32) -> vec4<i32> {
    let half = 0.5 * ldexp(params.base_cell, i32(level));
    let first = cell_at(box.min - vec2<f32>(half), level);
    let last = cell_at(box.max + vec2<f32>(half), level);
    return vec4<i32>(first.y, first.x, last.y, last.x);
}

// Whether a body of `layer` (not 0) waits to be found rather than searches: its layer
// bits all lie in params.waiter_layers, chosen on the host so that two waiting bodies
// never pass the filter test (see waiter_layers in src/grid/mod.rs for why and how).
fn waits(layer: u32) -> bool {
    return (layer & ~params.waiter_layers) == 0u;
}

// ---- the table: a word a bucket ----

// The hash table (`buckets`, `bucket_counters` while counted) holds a word a bucket,
// then a word a block of BUCKETS_PER_THREAD buckets. The bounds stage counts each
// bucket's bodies into its word (assign_cell); allocate_buckets turns each block's
// counts into its buckets' first entries, one after another, and stores after the buckets
// where the block's last one ends. So a bucket ends where the next one starts, or, last
// of its block, at its block's end. Why one word: the bounds stage's counting and
// scatter_cells' reading of starts land on random buckets, and at 10^6 bodies a table of
// a bucket a body fits the processor's caches half as well at two words (BENCHMARKS.md,
// "Grid memory at a million bodies"). The cpu twin keeps a word a bucket too, with the
// buckets' ranges in bucket order, so that each word is one bucket's end and the next
// one's start (cpu::broad::Grid::bucket_ends).

// The first entry of bucket b, once allocate_buckets has run.
fn bucket_start(b: u32) -> u32 {
    return buckets[b];
}

// The end of bucket b's entries, once allocate_buckets has run.
fn bucket_end(b: u32) -> u32 {
    if (b & (BUCKETS_PER_THREAD - 1u)) == BUCKETS_PER_THREAD - 1u {
        return buckets[params.bucket_count + b / BUCKETS_PER_THREAD];
    }
    return buckets[b + 1u];
}

// ---- box keys: a body's box in one word, for the walk's first test ----

// A box key holds a box's corners on `level` in steps of a sixteenth of a cell, widened
// by a step each way, each coordinate's low 8 bits: min.x, min.y, max.x, max.y from the
// low byte up. The walk of the uniform form (GridBinding in src/layout/shaders.rs) compares
// the seeker's key with an entry's, a word gathered from a uniform copy, before loading
// the entry's box from storage, which llvmpipe loads lane by lane: that box was a fifth
// of the thin crowds' broad stage and a third of the swarm's (BENCHMARKS.md, "Uniform
// copies on software adapters").
// Twins in src/grid/mod.rs.
//
// Why the test never drops a pair whose boxes meet: a coordinate's step,
// floor(p / cell * 16), never decreases as p grows, so where other.min <= seeker.max
// their steps are in that order too, and likewise seeker.min <= other.max. The two keys
// come from two kernels (bounds, broad) whose roundings of p / cell may differ by a
// float spacing, a step at most within BOX_KEY_REACH steps of the origin (past it there
// is no key): the step each way absorbs that. On the 8 bits kept, the differences read
// right while under 128 steps, which the widths bound: a body's box is at most a cell
// wide on its level (level_of), 18 steps widened, and no key is made wider than
// BODY_KEY_WIDTH or SEEKER_KEY_WIDTH. A word that is no key (NO_BOX_KEY: the top level,
// whose bodies may be any size, a box too wide or too far out) meets everything, and so
// does a key that happens to equal it.
const NO_BOX_KEY: u32 = 0xffffffffu;
const BODY_KEY_WIDTH: i32 = 20;
const SEEKER_KEY_WIDTH: i32 = 100;
const BOX_KEY_REACH: f32 = 4194304.0;

// The index in GridInfo::lists of body i's box key, after the placements and the
// seekers; written by the bounds kernel only for at most BOX_KEY_BODIES bodies, the
// uniform copy's worth.
fn box_key_word(i: u32) -> u32 {
    return 3u * params.body_count + i;
}

// The key of `box` on `level`, or NO_BOX_KEY on the top level, or where the box spans
// more than `widest` steps or lies BOX_KEY_REACH steps or more from the origin.
fn box_key(box: Aabb, level: u32, widest: i32) -> u32 {
    if level == TOP_LEVEL {
        return NO_BOX_KEY;
    }
    let size = ldexp(params.base_cell, i32(level));
    let low = floor(box.min / size * 16.0) - 1.0;
    let high = floor(box.max / size * 16.0) + 1.0;
    // Written so that a NaN fails it.
    let reach = vec2<f32>(BOX_KEY_REACH);
    if !(all(abs(low) <= reach) && all(abs(high) <= reach)) {
        return NO_BOX_KEY;
    }
    if any(vec2<i32>(high) - vec2<i32>(low) > vec2<i32>(widest)) {
        return NO_BOX_KEY;
    }
    let l = bitcast<vec2<u32>>(vec2<i32>(low)) & vec2<u32>(0xffu);
    let h = bitcast<vec2<u32>>(vec2<i32>(high)) & vec2<u32>(0xffu);
    return l.x | (l.y << 8u) | (h.x << 16u) | (h.y << 24u);
}

// Whether boxes of keys `a` and `b` on one level may meet: false only where one lies
// wholly before the other along an axis.
fn box_keys_may_meet(a: u32, b: u32) -> bool {
    if a == NO_BOX_KEY || b == NO_BOX_KEY {
        return true;
    }
    let a_low = vec2<u32>(a & 0xffu, (a >> 8u) & 0xffu);
    let a_high = vec2<u32>((a >> 16u) & 0xffu, a >> 24u);
    let b_low = vec2<u32>(b & 0xffu, (b >> 8u) & 0xffu);
    let b_high = vec2<u32>((b >> 16u) & 0xffu, b >> 24u);
    // x - y modulo 256 under 128: x is at or after y, within half the wrap.
    let half = vec2<u32>(128u);
    return all(((a_high - b_low) & vec2<u32>(0xffu)) < half)
        && all(((b_high - a_low) & vec2<u32>(0xffu)) < half);
}

// ---- placements: a body's bucket and rank, for the counting sort ----

// The index in GridInfo::lists of body i's placement, two words: its bucket (NO_BUCKET
// for a body placed nowhere), and its rank among the bucket's bodies with its row's tag
// above it (row_tag), which the bounds stage counts (assign_cell) and scatter_cells
// turns into the body's entry. Once `broad` has walked for the body, the second word
// holds that walk's turns with TURNS_RECORDED set instead, by which the next frame
// orders the seekers (seeker_key in shaders/bounds.wgsl). Why apart from the body's
// record: scatter_cells reads these two words of every body, 8 megabytes at 10^6
// bodies where reading them from the 32-byte records took 32; measured on lavapipe
// (BENCHMARKS.md, "Grid memory at a million bodies"), the bullet-hell 1M broad stage
// took 2 ms less.
// The placements come first, so that a body's word of turns stays where it was when
// the body count changes from one frame to the next (a game removing the bodies hit).
fn placement_word(i: u32) -> u32 {
    return 2u * i;
}

// The index in GridInfo::lists of entry k of the list of seekers, after the placements.
fn seeker_word(k: u32) -> u32 {
    return 2u * params.body_count + k;
}

// ---- grid entries: a body's index and its row's tag in one word ----

// An entry of grid_entries holds the body's index in its low bits (entry_index_mask) and,
// above them, its row's tag (row_tag). A walk reads the entries of a run of buckets, and
// other rows and levels hash to those buckets too: it skips their entries by the word it
// has already read, rather than loading each one's box and record from wherever they lie.
// Counted on the cpu twin's grid of bullet-hell 1M (a bucket a body), a ship's walk reads
// 23 entries, 18 of them from other rows; measured on lavapipe, the broad stage there
// took 16.3-16.7 ms with the tags against 18.9 without (BENCHMARKS.md, "Grid memory at a
// million bodies"). The index takes the fewest bits that hold every body index of the
// frame. The tag takes the bits above it but the top one, which it leaves clear:
// assign_cell keeps the tag above the body's rank in its placement until scatter_cells
// writes the entry, and `broad` then records the turns of the body's walk in that word
// with the top bit (TURNS_RECORDED) set. So at 10^6 bodies the tag has 11 bits, and an
// entry of another row passes with odds of 1 in 2048, to be left out by its cell like an
// entry of another cell of the row; at the most bodies a frame may hold (MAX_BODIES,
// 2^28) it has 3.
fn entry_index_mask() -> u32 {
    let bits = 32u - countLeadingZeros(max(params.body_count, 2u) - 1u);
    return (1u << bits) - 1u;
}

// The tag of row y of `level`: the top bits of a multiplicative hash, but the very top
// one, above those an index takes.
fn row_tag(y: i32, level: u32) -> u32 {
    let hash = (bitcast<u32>(y) * 0x9e3779b1u) ^ (level * 0x85ebca77u);
    return hash & ~entry_index_mask() & ~TURNS_RECORDED;
}

// Whether `entry` may be of the row whose tag is `tag`: false only for an entry of
// another row or level, true for every entry of this one. `index_mask` is
// entry_index_mask(), which the readers work out once rather than at every entry
// (measured: the crowded 10k scenes' broad stage 0.04-0.06 ms faster).
fn entry_in_row(entry: u32, tag: u32, index_mask: u32) -> bool {
    return (entry & ~index_mask) == tag;
}

// The body of `entry`; `index_mask` as for entry_in_row.
fn entry_body(entry: u32, index_mask: u32) -> u32 {
    return entry & index_mask;
}
