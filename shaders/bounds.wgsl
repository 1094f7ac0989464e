// Stage 1, bounds: the world AABB of every body (CPU twin: src/cpu/bounds.rs), and in
// the same kernel its cell in the broad phase's grid, counted into the hash table's
// buckets and the grid's per-level summary (the first step of the counting sort that
// shaders/broad.wgsl finishes; CPU twin: `place` and `add_to_level` in
// src/cpu/broad.rs). One kernel rather than two: on llvmpipe a kernel costs about the
// words its invocations load and store, and the box then stays in registers instead of
// being stored and loaded again with the body's filter (BENCHMARKS.md, "The bounds
// kernel").
// Before it, for frames whose positions live in a buffer of the caller's, read_bodies
// turns them into transforms (host twin: library::source_rotation).

// The frame's parameters as uploaded, and the copy every entry point that reads them
// takes first (see Params in types.wgsl for why).
@group(0) @binding(0) var<uniform> uploaded_params: Params;
var<private> params: Params;
// Binding 1, the shape library, is declared with library_u32 (src/layout/shaders.rs).
// Written only by read_bodies; the host writes it otherwise.
@group(0) @binding(2) var<storage, read_write> transforms: array<BodyTransform>;
@group(0) @binding(3) var<storage, read> infos: array<BodyInfo>;
@group(0) @binding(4) var<storage, read_write> aabbs: array<Aabb>;
// The caller's buffer of bodies, bound per frame (GpuCollider::record_from_buffer).
@group(0) @binding(5) var<storage, read> source: array<u32>;
@group(0) @binding(6) var<storage, read_write> counters: Counters;
// Each body's displacement over the frame; read only when params.swept (sweep.wgsl).
@group(0) @binding(7) var<storage, read> velocities: array<vec2<f32>>;
// The grid, as shaders/broad.wgsl declares it (the atomic views, while it is built).
@group(0) @binding(8) var<storage, read_write> body_cells: array<BodyCell>;
@group(0) @binding(9) var<storage, read_write> bucket_counters: array<atomic<u32>>;
// The plain view of the table, for grid.wgsl's functions; `bounds` does not read it.
@group(0) @binding(9) var<storage, read_write> buckets: array<u32>;
@group(0) @binding(10) var<storage, read_write> grid_info_counters: AtomicGridInfo;
// Two boxes for each of the caller's bodies whose parts are a group (GROUP_SHIFT in
// src/layout/packed.rs): the group's, around its parts however they turn and over
// their motion, worked out on the host; and its first part's own, written here.
@group(0) @binding(11) var<storage, read_write> group_boxes: array<Aabb>;

// Frames where some bodies wait (they append their few seekers to the list), and the
// queries' grid (nobody looks).
@compute @workgroup_size(WORKGROUP_SIZE)
fn bounds(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    place_bodies(workgroup, local, false);
}

// Frames where no body waits: every body is listed, each workgroup's in order of
// seeker_key. A kernel of its own, because llvmpipe runs the code of a branch its
// invocations do not take, and the keying cost bullet-hell 100k's bounds stage 0.15 ms
// as a branch on the parameters.
@compute @workgroup_size(WORKGROUP_SIZE)
fn bounds_in_order(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    place_bodies(workgroup, local, true);
}

// The bounds kernels' work; `in_order`, a constant in each, keys the seekers.
fn place_bodies(workgroup: vec3<u32>, local: u32, in_order: bool) {
    let i = global_index(workgroup, local);
    var listed = Listed(0u, NOT_LISTED, false);
    if i < params.body_count {
        // The kind from the library rather than from the body's info, and once: on a
        // software adapter the library is a uniform buffer, read for 8 lanes in one
        // gather, where a storage word is loaded lane by lane. The info's kind, loaded
        // twice, cost bullet-hell 100k's bounds stage 8.4 ms against 7.5 (BENCHMARKS.md,
        // "The bounds kernel").
        let shape = infos[i].shape;
        let kind = library_kind(shape);
        let box = world_box(i, shape, kind);
        listed = assign_cell(i, grid_box(i, box), kind, in_order);
    }
    // One global atomic per level and workgroup instead of one per body.
    workgroupBarrier();
    if local < MAX_LEVELS {
        let layers = atomicLoad(&group_level_layers[local]);
        if layers != 0u {
            atomicOr(&grid_info_counters.level_layers[local], layers);
            atomicOr(&grid_info_counters.occupied_levels, 1u << local);
        }
        let waiters = atomicLoad(&group_level_waiters[local]);
        if waiters != 0u {
            atomicOr(&grid_info_counters.level_waiters[local], waiters);
        }
        let bodies = atomicLoad(&group_level_bodies[local]);
        if bodies != 0u {
            atomicAdd(&grid_info_counters.level_bodies[local], bodies);
        }
        let floor = atomicLoad(&group_reach_floor[local]);
        if floor != 0u {
            atomicMax(&grid_info_counters.reach_floor[local], floor);
        }
    }
    // The first of each key's slots in the workgroup's range of the list, worked out
    // once for the workgroup behind a second barrier: a loop a body over the keys below
    // its own cost the mixed 10k scenes' bounds stage 0.2 ms.
    if in_order {
        if local < SEEKER_KEYS {
            var start = 0u;
            for (var key = 0u; key < local; key++) {
                start += atomicLoad(&group_key_bodies[key]);
            }
            group_key_starts[local] = start;
        }
        workgroupBarrier();
    }
    if i < params.body_count {
        list_seeker(i, local, listed);
    }
}

// The world box of body i, of library shape `s` of kind `kind`: over the whole motion in
// a frame with motion.
// Body i's box in the grid, `own` its world box, kept in aabbs: its own; for a group's
// first part, the group's, which stands for the whole group in the grid (its own then
// goes beside it); for the group's other parts, which are not in the grid, an empty box.
fn grid_box(i: u32, own: Aabb) -> Aabb {
    let group = info_group(infos[i].kind);
    if group == 0u {
        aabbs[i] = own;
        return own;
    }
    if group == GROUP_FOLLOWS {
        aabbs[i] = own;
        return Aabb(vec2<f32>(1.0), vec2<f32>(0.0));
    }
    let at = 2u * min(infos[i].owner, arrayLength(&group_boxes) / 2u - 1u);
    group_boxes[at + 1u] = own;
    let box = group_boxes[at];
    aabbs[i] = box;
    return box;
}

fn world_box(i: u32, s: u32, kind: u32) -> Aabb {
    // Field by field, and only what the body's kind needs: llvmpipe loads a storage
    // buffer one word and one invocation at a time, so a bullet reading its whole
    // transform and shape record paid for words it never used.
    let position = transforms[i].position;
    let local = library_bounds(s);
    var box: Aabb;
    if kind == SHAPE_CIRCLE || kind == SHAPE_BITMASK {
        // Shapes whose box does not turn with the body.
        box = Aabb(position + local.min, position + local.max);
    } else if library_is_rectangle(s) {
        // A rectangle's vertices are the corners of its bounds: the loop's four points,
        // without reading them. The vertex loop was a third of the bounds stage on
        // bullet-hell 100k, whose bars are rectangles (1.0 of 3.6 ms).
        let rotation = transforms[i].rotation;
        let a = position + rotate(local.min, rotation);
        let b = position + rotate(vec2<f32>(local.max.x, local.min.y), rotation);
        let c = position + rotate(local.max, rotation);
        let d = position + rotate(vec2<f32>(local.min.x, local.max.y), rotation);
        box = Aabb(min(min(a, b), min(c, d)), max(max(a, b), max(c, d)));
    } else {
        // Rotated vertices give the exact box; the unrotated bounds would not.
        let rotation = transforms[i].rotation;
        let vertices = library_vertices(s);
        box = Aabb(vec2<f32>(3.4e38), vec2<f32>(-3.4e38));
        for (var k = vertices.x; k < vertices.y; k++) {
            let p = position + rotate(library_vertex(k).position, rotation);
            box = Aabb(min(box.min, p), max(box.max, p));
        }
        if kind == SHAPE_CAPSULE {
            // A capsule's ends grown by its radius.
            let radius = library_radius(s);
            box = Aabb(box.min - radius, box.max + radius);
        }
    }
    if params.swept != 0u {
        // The box over the whole motion: the boxes at t = 0 and t = 1 joined (the body
        // slides without turning, so every box between lies within). CPU twin:
        // cpu::bounds::swept_bounds.
        let v = velocities[i];
        box = Aabb(min(box.min, box.min + v), max(box.max, box.max + v));
    }
    return box;
}

// One thread per body: its position (and angle, where the caller's struct has one) from
// the caller's buffer. A body the pipeline cannot take (a coordinate or angle that is
// not finite, a bitmask off the whole numbers or rotated) is counted and kept at the
// origin, so the frame still ends; the header says the frame is not complete, and the
// host refuses the next frame naming the body.
@compute @workgroup_size(WORKGROUP_SIZE)
fn read_bodies(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let i = global_index(workgroup, local);
    if i >= params.body_count {
        return;
    }
    let at = i * params.source_stride;
    let position = vec2<f32>(
        bitcast<f32>(source[at + params.source_position]),
        bitcast<f32>(source[at + params.source_position + 1u]),
    );
    var angle = 0.0;
    if params.source_angle != NO_SOURCE_ANGLE {
        angle = bitcast<f32>(source[at + params.source_angle]);
    }
    var valid = is_finite(position.x) && is_finite(position.y) && is_finite(angle);
    if info_kind(infos[i].kind) == SHAPE_BITMASK {
        valid = valid && all(position == floor(position)) && angle == 0.0
            && all(abs(position) <= vec2<f32>(MAX_BITMASK_COORDINATE));
    }
    if valid {
        transforms[i] = BodyTransform(position, accurate_rotation(angle));
    } else {
        atomicAdd(&counters.invalid_bodies, 1u);
        atomicMax(&counters.first_invalid, ~i);
        transforms[i] = BodyTransform(vec2<f32>(0.0), vec2<f32>(1.0, 0.0));
    }
}

// Finite: neither infinite nor NaN, judged from the exponent bits. WGSL has no isfinite,
// and a comparison does not do: GL drivers may assume no NaN (measured on llvmpipe's GL,
// where `abs(x) <= 3.4e38` held for a NaN).
fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// (cos, sin) of `angle` within a few ulps. WGSL's own sin and cos promise an absolute
// error of only 2^-11 on [-pi, pi] (and nothing outside it), which moves a vertex 1000
// units from a body's origin by half a unit: far outside the format's 0.01. Mirrored,
// operation for operation, by library::source_rotation.
fn accurate_rotation(angle: f32) -> vec2<f32> {
    // angle = k * pi/2 + r with |r| <= pi/4; pi/2 in three parts, the first short enough
    // that k times it is exact (Cody and Waite's reduction).
    let k = round(angle * 0.63661977);
    let r = ((angle - k * 1.5703125) - k * 4.8382679e-4) - k * 2.5632829e-12;
    let r2 = r * r;
    // Taylor series to r^9 and r^10: at |r| <= pi/4 their error is below 2e-9.
    let s = r + r * r2 * (-1.6666667e-1 + r2 * (8.3333333e-3 + r2 * (-1.9841270e-4 + r2 * 2.7557319e-6)));
    let c = 1.0 + r2 * (-0.5 + r2 * (4.1666667e-2 + r2 * (-1.3888889e-3 + r2 * (2.4801587e-5 - r2 * 2.7557319e-7))));
    switch (i32(k) & 3) {
        case 0: { return vec2<f32>(c, s); }
        case 1: { return vec2<f32>(-s, c); }
        case 2: { return vec2<f32>(-c, -s); }
        default: { return vec2<f32>(s, -c); }
    }
}

// ---- the body's cell: the counting sort's first step (twin: src/cpu/broad.rs) ----

// The workgroup's sums, flushed to the grid's summary once its bodies are in. WGSL zeroes
// workgroup memory before a workgroup starts (kernel_options in src/gpu/mod.rs asks for
// it explicitly), so `bounds` does not clear them: a clearing of its own needed a barrier
// before the first sum, and each barrier costs llvmpipe a switch between the
// workgroup's invocations (measured: the bounds stage of bullet-hell 100k took 3.9 ms
// with it and 3.5 without).
var<workgroup> group_level_layers: array<atomic<u32>, MAX_LEVELS>;
var<workgroup> group_level_waiters: array<atomic<u32>, MAX_LEVELS>;
var<workgroup> group_level_bodies: array<atomic<u32>, MAX_LEVELS>;
var<workgroup> group_reach_floor: array<atomic<u32>, MAX_LEVELS>;
// Bodies of the workgroup that meet no one (assign_cell places them nowhere).
var<workgroup> group_unplaced: atomic<u32>;

// Where body i goes in the list of seekers, when none wait: `rank` among the
// workgroup's bodies of order key `key` (seeker_key), or among those placed nowhere with
// `unplaced` (they are listed too, and find nothing).
struct Listed {
    key: u32,
    rank: u32,
    unplaced: bool,
}

// The workgroup's seekers of each order key, and where each key's start in the
// workgroup's range of the list.
var<workgroup> group_key_bodies: array<atomic<u32>, SEEKER_KEYS>;
var<workgroup> group_key_starts: array<u32, SEEKER_KEYS>;

// Order keys: 16 for the turns a body's walk took in the last frame, in half-octaves
// (seeker_key), then 16 for levels, for bodies whose last walk is not known.
const SEEKER_KEYS: u32 = 32u;
const TURN_KEYS: u32 = 16u;

// The key by which list_seeker orders the seekers of a workgroup, so that the 8
// invocations llvmpipe runs in lockstep (and a real GPU's wave) walk about as far as
// each other: a walk costs its group the longest of them. `walked` is the body's
// record's `rank` word before this frame overwrites it: where the last frame's `broad`
// walked the body, it left the turns there with TURNS_RECORDED set. Keys by those
// turns, in half-octaves (4 or fewer share the first key), or by level where the last
// walk is unknown (the first frame, or a frame after the query grid).
// Measured on the cpu twin's grid (lanes in lockstep over groups of 8): the crowded
// mixed 10k scene (seed 12) walks 295k lane turns ordered by level, 251k by this
// frame's own turns in half-octaves; the bitmask scene 547k and 451k.
fn seeker_key(walked: u32, level: u32) -> u32 {
    if (walked & TURNS_RECORDED) == 0u {
        return TURN_KEYS + min(level, SEEKER_KEYS - TURN_KEYS - 1u);
    }
    let turns = max(walked & ~TURNS_RECORDED, 4u);
    // Twice the floor of log2, plus one in the upper half of the octave.
    let octave = 31u - countLeadingZeros(turns);
    let half = 2u * octave + ((turns >> (octave - 1u)) & 1u);
    return min(half - 4u, TURN_KEYS - 1u);
}

// Lists body i as a seeker (see assign_cell), once the workgroup's counts are in.
// Where no body waits, every body is a seeker and the list is every body, each
// workgroup's in the workgroup's own range (WORKGROUP_SIZE entries from its first
// body), key after key (seeker_key): the workgroup's bodies of lower keys, then those
// of i's key before it; bodies placed nowhere fill the range from its end. No global
// atomic: one a body would queue a million bodies on one counter. The keys' starts
// cost `bounds_in_order` a second barrier, which `bounds` (bullet-hell frames, where one
// more barrier cost 100k bodies 1.5 ms) does not pay. Where some bodies wait, the few
// seekers are appended, one global atomic each.
fn list_seeker(i: u32, local: u32, listed: Listed) {
    // Nobody looks in the queries' grid (encode_grid): listing its 10^5 bodies cost a
    // batch 3 ms.
    if params.slice_start == params.slice_end {
        return;
    }
    if params.waiter_layers != 0u {
        if !listed.unplaced && listed.rank != NOT_LISTED {
            grid_info_counters.lists[seeker_word(atomicAdd(&grid_info_counters.seeker_count, 1u))] = i;
        }
        return;
    }
    let first = i - local;
    if listed.unplaced {
        let bodies = min(WORKGROUP_SIZE, params.body_count - first);
        grid_info_counters.lists[seeker_word(first + bodies - 1u - listed.rank)] = i;
        return;
    }
    grid_info_counters.lists[seeker_word(first + group_key_starts[listed.key] + listed.rank)] = i;
}

const NOT_LISTED: u32 = 0xffffffffu;

// The cells of `level` in probe_range of `box`, as a float. Twin of `probe_cells`.
fn probe_cells(box: Aabb, level: u32) -> f32 {
    let range = probe_range(box, level);
    return f32(range.z - range.x + 1) * f32(range.w - range.y + 1);
}

// The finest level a body on `level` with `box` may reach down to within REACH_BUDGET
// cells in all, adding the cells of each such level to the frame's sums. Straight to
// the global sums: most bodies sit on level 0 and add nothing, and a workgroup copy of
// the 1024 sums cost bullet-hell 100k 9 ms to clear and flush. Twin of `lowest_reach` in
// src/grid/mod.rs.
fn lowest_reach(box: Aabb, level: u32) -> u32 {
    var floor = level;
    if level == TOP_LEVEL {
        return floor;
    }
    var total = 0.0;
    while floor > 0u {
        let cells = probe_cells(box, floor - 1u);
        total += cells;
        if total > f32(REACH_BUDGET) {
            break;
        }
        floor--;
        atomicAdd(&grid_info_counters.reached_cells[level * MAX_LEVELS + floor], u32(cells));
    }
    return floor;
}

// Puts body i, of shape kind `kind`, with world box `box` in its cell: counted into the
// cell's bucket (its rank there) and into its workgroup's copy of the level summary, its
// box key written (box_key in grid.wgsl). A body that does not wait
// is a seeker, to be listed (by `bounds`) with the workgroup's others of its key
// (seeker_key): `broad` runs over that list, so the 8 invocations llvmpipe runs in
// lockstep mostly walked about as far as each other last frame (a walk costs its
// group the longest of the 8; in body order the crowded 10k scenes' groups ran 2.5
// times the turns their bodies needed, grouped by level 1.6 times, by their turns in
// half-octaves 1.3 times). Where every body waits but a few, only those few are read
// (the bullets of a bullet-hell frame).
// Twin of `place` and `add_to_level` in src/cpu/broad.rs.
fn assign_cell(i: u32, box: Aabb, kind: u32, in_order: bool) -> Listed {
    var listed = Listed(0u, NOT_LISTED, false);
    let layer = infos[i].layer;
    let mask = infos[i].mask;
    // A part of a group that is not in the grid keeps its kind, for the pairs of parts.
    var placed = BodyCell(vec2<i32>(0), NO_LEVEL, 0u, 0u, kind_owner(kind, infos[i].owner));
    var bucket = NO_BUCKET;
    var ranked = 0u;
    let placement = placement_word(i);
    // A body that accepts or offers nothing, or an empty bitmask, meets no one.
    if layer != 0u && mask != 0u && all(box.min <= box.max) {
        let extent = max(box.max.x - box.min.x, box.max.y - box.min.y);
        let level = level_of(extent);
        let cell = cell_at((box.min + box.max) * 0.5, level);
        bucket = cell_bucket(cell, level);
        let rank = atomicAdd(&bucket_counters[bucket], 1u);
        // The workgroup's bodies mostly share a few layers: a load finds the bits set
        // already, and a locked read-modify-write a body costs more than the load.
        if (atomicLoad(&group_level_layers[level]) & layer) != layer {
            atomicOr(&group_level_layers[level], layer);
        }
        // Waiting bodies never reach down, and which side looks between two levels is
        // chosen for the seekers.
        if waits(layer) {
            if (atomicLoad(&group_level_waiters[level]) & layer) != layer {
                atomicOr(&group_level_waiters[level], layer);
            }
        } else {
            atomicAdd(&group_level_bodies[level], 1u);
            listed = Listed(0u, 0u, false);
            if in_order {
                let key = seeker_key(grid_info_counters.lists[placement + 1u], level);
                listed = Listed(key, atomicAdd(&group_key_bodies[key], 1u), false);
            }
            atomicMax(&group_reach_floor[level], lowest_reach(box, level));
        }
        // The row's tag above the rank, for scatter_cells to keep in the body's entry
        // (entry_index_mask in grid.wgsl).
        ranked = rank | row_tag(cell.y, level);
        // For the walk's first test, in the uniform form only, whose copy of the keys
        // holds BOX_KEY_BODIES.
        if params.body_count <= BOX_KEY_BODIES {
            grid_info_counters.lists[box_key_word(i)] = box_key(box, level, BODY_KEY_WIDTH);
        }
        placed = BodyCell(cell, level, layer, mask, kind_owner(kind, infos[i].owner));
        if info_group(infos[i].kind) != 0u {
            placed.kind_owner |= GROUP_FLAG;
        }
    } else {
        listed = Listed(0u, atomicAdd(&group_unplaced, 1u), true);
    }
    body_cells[i] = placed;
    grid_info_counters.lists[placement] = bucket;
    grid_info_counters.lists[placement + 1u] = ranked;
    return listed;
}
