// Stage 2, broad phase: candidate pairs whose filters agree and whose boxes overlap,
// found through a hierarchical grid. CPU twin: src/cpu/broad.rs, function for function.
//
// Why this design (see also src/cpu/broad.rs):
// - Work linear in bodies + pairs: every body goes into exactly one cell, at the finest
//   level whose cells (base_cell · 2^level) are at least as large as its box, so large
//   bodies neither blow up the cells nor get copied into many of them.
// - Two overlapping bodies then sit in neighbouring cells of the coarser body's level:
//   each body looks at the 3 x 3 cells around it on its own level and on every coarser
//   level that holds something. A pair on one level is reported by its lower index; a
//   pair across levels only by the finer body, which is the only one that looks. So
//   every candidate appears exactly once.
// - Cells live in a hash table of power-of-two size, built by counting sort:
//   assign_cells counts, scan_* turn counts into starts, scatter_cells writes the
//   entries sorted by bucket, so a bucket's bodies are read contiguously.
// - Filters act early: each bucket and each level keeps the OR of its bodies' layers,
//   so a bullet whose mask misses every body nearby skips the cells without reading
//   a single entry, and bullets that never meet bullets cost a few loads each.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> infos: array<BodyInfo>;
@group(0) @binding(2) var<storage, read> aabbs: array<Aabb>;
@group(0) @binding(3) var<storage, read_write> body_cells: array<BodyCell>;
@group(0) @binding(4) var<storage, read_write> buckets: array<Bucket>;
@group(0) @binding(5) var<storage, read_write> grid_entries: array<GridEntry>;
@group(0) @binding(6) var<storage, read_write> grid_info: GridInfo;
@group(0) @binding(7) var<storage, read_write> candidates: array<vec2<u32>>;
@group(0) @binding(8) var<storage, read_write> counters: Counters;
@group(0) @binding(9) var<storage, read_write> block_sums: array<u32>;

// ---- cells ----

// The finest level whose cells are at least as large as `extent`, with a hair of margin
// so that rounding never puts two touching bodies two cells apart.
fn level_of(extent: f32) -> u32 {
    var level = 0u;
    var size = params.base_cell;
    while size < extent * 1.0001 && level < MAX_LEVELS - 1u {
        size *= 2.0;
        level++;
    }
    return level;
}

fn cell_at(point: vec2<f32>, level: u32) -> vec2<i32> {
    let size = ldexp(params.base_cell, i32(level));
    // Clamp first: a float beyond i32's range does not convert.
    return vec2<i32>(clamp(floor(point / size), vec2<f32>(-1e9), vec2<f32>(1e9)));
}

fn cell_bucket(cell: vec2<i32>, level: u32) -> u32 {
    var h = bitcast<u32>(cell.x) * 0x9e3779b1u + bitcast<u32>(cell.y) * 0x85ebca77u + level * 0xc2b2ae3du;
    h = (h ^ (h >> 15u)) * 0x2c1b3c6du;
    h = h ^ (h >> 12u);
    return h & (params.bucket_count - 1u);
}

// ---- counting sort into the hash table ----

var<workgroup> group_level_layers: array<atomic<u32>, MAX_LEVELS>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn assign_cells(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    if local < MAX_LEVELS {
        atomicStore(&group_level_layers[local], 0u);
    }
    workgroupBarrier();
    let i = global_index(workgroup, local);
    if i < params.body_count {
        let info = infos[i];
        let box = aabbs[i];
        var placed = BodyCell(vec2<i32>(0), 0u, NO_BUCKET, 0u, 0u);
        // A body that accepts or offers nothing, or an empty bitmask, meets no one.
        if info.layer != 0u && info.mask != 0u && all(box.min <= box.max) {
            let extent = max(box.max.x - box.min.x, box.max.y - box.min.y);
            let level = level_of(extent);
            let cell = cell_at((box.min + box.max) * 0.5, level);
            let bucket = cell_bucket(cell, level);
            let rank = atomicAdd(&buckets[bucket].count, 1u);
            atomicOr(&buckets[bucket].layers, info.layer);
            atomicOr(&group_level_layers[level], info.layer);
            placed = BodyCell(cell, level, bucket, rank, 0u);
        }
        body_cells[i] = placed;
    }
    // One global atomic per level and workgroup instead of one per body.
    workgroupBarrier();
    if local < MAX_LEVELS {
        let layers = atomicLoad(&group_level_layers[local]);
        if layers != 0u {
            atomicOr(&grid_info.level_layers[local], layers);
        }
    }
}

var<workgroup> scan_values: array<u32, SCAN_BLOCK>;

// Inclusive prefix sum of `value` over the workgroup (Hillis-Steele); every thread must call it.
fn workgroup_inclusive_scan(local: u32, value: u32) -> u32 {
    scan_values[local] = value;
    workgroupBarrier();
    for (var offset = 1u; offset < SCAN_BLOCK; offset *= 2u) {
        var sum = scan_values[local];
        if local >= offset {
            sum += scan_values[local - offset];
        }
        workgroupBarrier();
        scan_values[local] = sum;
        workgroupBarrier();
    }
    return scan_values[local];
}

// Starts of the buckets within each block of SCAN_BLOCK buckets, and each block's total.
@compute @workgroup_size(SCAN_BLOCK)
fn scan_buckets(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let block = workgroup_index(workgroup);
    let b = block * SCAN_BLOCK + local;
    var count = 0u;
    if b < params.bucket_count {
        count = atomicLoad(&buckets[b].count);
    }
    let inclusive = workgroup_inclusive_scan(local, count);
    if b < params.bucket_count {
        buckets[b].start = inclusive - count;
    }
    if local == SCAN_BLOCK - 1u {
        block_sums[block] = inclusive;
    }
}

// Exclusive prefix sum of the block totals, by one workgroup, a chunk at a time.
@compute @workgroup_size(SCAN_BLOCK)
fn scan_block_sums(@builtin(local_invocation_index) local: u32) {
    let blocks = params.bucket_count / SCAN_BLOCK;
    var carry = 0u;
    for (var chunk = 0u; chunk < blocks; chunk += SCAN_BLOCK) {
        let k = chunk + local;
        var total = 0u;
        if k < blocks {
            total = block_sums[k];
        }
        let inclusive = workgroup_inclusive_scan(local, total);
        if k < blocks {
            block_sums[k] = carry + inclusive - total;
        }
        carry += workgroupUniformLoad(&scan_values[SCAN_BLOCK - 1u]);
        workgroupBarrier(); // everyone has read the total before the next chunk overwrites it
    }
}

@compute @workgroup_size(SCAN_BLOCK)
fn add_block_sums(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let block = workgroup_index(workgroup);
    let b = block * SCAN_BLOCK + local;
    if b < params.bucket_count {
        buckets[b].start += block_sums[block];
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn scatter_cells(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = global_index(workgroup, local);
    if i >= params.body_count {
        return;
    }
    let placed = body_cells[i];
    if placed.bucket == NO_BUCKET {
        return;
    }
    let box = aabbs[i];
    let info = infos[i];
    grid_entries[buckets[placed.bucket].start + placed.rank] =
        GridEntry(box.min, box.max, placed.cell, placed.level, i, info.layer, info.mask);
}

// ---- the query ----

// Appends `pair`, counting it even when it does not fit: the host grows and reruns.
fn emit_candidate(pair: vec2<u32>) {
    let slot = atomicAdd(&counters.candidates, 1u);
    if slot < params.candidate_capacity {
        candidates[slot] = pair;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn broad(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = global_index(workgroup, local);
    if i >= params.body_count {
        return;
    }
    let me = body_cells[i];
    if me.bucket == NO_BUCKET {
        return;
    }
    let info = infos[i];
    let box = aabbs[i];
    let centre = (box.min + box.max) * 0.5;
    for (var level = me.level; level < MAX_LEVELS; level++) {
        if (atomicLoad(&grid_info.level_layers[level]) & info.mask) == 0u {
            continue; // nobody this body accepts lives on this level
        }
        let home = cell_at(centre, level);
        for (var dy = -1; dy <= 1; dy++) {
            for (var dx = -1; dx <= 1; dx++) {
                let cell = home + vec2<i32>(dx, dy);
                let b = cell_bucket(cell, level);
                let count = atomicLoad(&buckets[b].count);
                if count == 0u || (atomicLoad(&buckets[b].layers) & info.mask) == 0u {
                    continue;
                }
                let start = buckets[b].start;
                for (var k = start; k < start + count; k++) {
                    let other = grid_entries[k];
                    // Other cells share the bucket when their hashes collide.
                    if other.level != level || any(other.cell != cell) {
                        continue;
                    }
                    if level == me.level && other.body <= i {
                        continue; // the pair is the lower index's to report
                    }
                    if (info.layer & other.mask) == 0u || (other.layer & info.mask) == 0u {
                        continue;
                    }
                    if aabbs_overlap(box, Aabb(other.min, other.max)) {
                        emit_candidate(vec2<u32>(min(i, other.body), max(i, other.body)));
                    }
                }
            }
        }
    }
}
