// Contacts (scene format 1.1): for every pair the narrow phase stored, how deep the two
// bodies overlap and which way to part them, or for a pair with a bitmask how many cells
// they share. CPU twin: src/cpu/contact.rs, function for function. Composed after
// narrow.wgsl, whose placements, polygon and bitmask helpers and PAIR_* kinds it uses.
//
// The contacts are a list parallel to the pair buffer: contact p is pair p's. Each pair's
// work is planned as narrow.wgsl plans a test, in units of bounded work (an axis of a
// polygon pair, a cell row of a pair with a bitmask) grouped into chunks of at most
// CHUNK_BUDGET loop iterations, because llvmpipe silently ends an invocation's loops past
// 65535 iterations in all (two 255-gons are 510 axes of 256 projections each; two
// 2048x2048 masks are 2048 rows of 64 words). A pair of one chunk is done by its own
// invocation of contact_plan; a longer one is handed to contact_task, one invocation per
// chunk: an area chunk adds its cells to the pair's area atomically, a depth chunk keeps
// its least overlap in its task, and contact_finish picks the least of the pair's chunks
// (the first of equal ones, as the CPU's one pass over the axes in order does).
//
// contact_args   sizes contact_plan from the stored pair count;
// contact_plan   one invocation per pair: done here, or handed to contact_task;
// contact_task_args sizes contact_task and contact_finish;
// contact_task   one chunk of a long pair;
// contact_finish the depth and normal of each long pair from its chunks.

// One pair's contact. `normal` and `depth` for two polygons or circles (the host keeps
// the depth at least 0), `area` for a pair with a bitmask. Mirrors `GpuContact` in
// src/gpu/contact.rs.
struct ContactOut {
    normal: vec2<f32>,
    depth: f32,
    area: atomic<u32>,
}

// The pass's counters and the lists' capacities (written by the host before each pass).
// Mirrors `ContactCounters` in src/gpu/contact.rs.
struct ContactCounters {
    // Pairs stored in the pair buffer (contact_args), the contacts to compute.
    pairs: u32,
    // Long pairs and their chunks, counted also past their buffers' ends: the host grows
    // them and runs the pass again.
    long_pairs: atomic<u32>,
    tasks: atomic<u32>,
    long_capacity: u32,
    task_capacity: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// A pair whose contact is too long for one invocation: its chunks are tasks
// first_task .. first_task + chunks.
struct ContactLong {
    pair_index: u32,
    first_task: u32,
    chunks: u32,
    kind: u32,
}

// One chunk of a long pair, and for a depth what it found: its least overlap and the
// axis of it.
struct ContactTask {
    long_index: u32,
    depth: f32,
    normal: vec2<f32>,
}

@group(0) @binding(12) var<storage, read_write> contacts: array<ContactOut>;
@group(0) @binding(13) var<storage, read_write> contact_counters: ContactCounters;
@group(0) @binding(14) var<storage, read_write> contact_longs: array<ContactLong>;
@group(0) @binding(15) var<storage, read_write> contact_tasks: array<ContactTask>;
@group(0) @binding(16) var<storage, read_write> contact_dispatch_args: array<DispatchArgs>;

// ---- measures ----

// |v| without overflow: |v|² passes f32's range for |v| past about 1.8e19 (the CPU
// uses hypot for the same reason).
fn contact_length(v: vec2<f32>) -> f32 {
    let m = max(abs(v.x), abs(v.y));
    if m == 0.0 {
        return 0.0;
    }
    return m * length(v / m);
}

// The least move found so far: (depth, normal.x, normal.y).
struct Least {
    depth: f32,
    normal: vec2<f32>,
}

// Axes start..end of two polygons a and b placed in a's frame: a's edge normals first,
// then b's turned round. On a's axis n the move of b that leaves them touching is a's
// support (its edge's own vertex) less b's least projection, and likewise for b's.
fn polygon_axes_least(sa: PackedShape, pa: Placement, sb: PackedShape, pb: Placement, start: u32, end: u32) -> Least {
    var best = Least(FAR, vec2<f32>(1.0, 0.0));
    for (var unit = start; unit < end; unit++) {
        let e = polygon_pair_edge(sa, pa, sb, pb, unit);
        let m = polygon_normal(e.own, e.own_at, e.k);
        let axis = select(m, -m, e.of_b);
        let depth = dot(polygon_point(e.own, e.own_at, e.k), m) - polygon_interval(e.other, e.other_at, m).x;
        if depth < best.depth {
            best = Least(depth, axis);
        }
    }
    return best;
}

// The least move of a circle (centre, radius) that leaves it touching polygon p: the
// polygon's edge normals, then the axis from its nearest vertex to the centre. Two passes
// over the vertices, within one chunk for any polygon the library takes.
fn polygon_circle_least(p: PackedShape, pp: Placement, centre: vec2<f32>, radius: f32) -> Least {
    var best = Least(FAR, vec2<f32>(1.0, 0.0));
    var nearest = polygon_point(p, pp, 0u);
    for (var k = 0u; k < p.count; k++) {
        let n = polygon_normal(p, pp, k);
        let v = polygon_point(p, pp, k);
        let depth = dot(v, n) - (dot(centre, n) - radius);
        if depth < best.depth {
            best = Least(depth, n);
        }
        if dot(v - centre, v - centre) < dot(nearest - centre, nearest - centre) {
            nearest = v;
        }
    }
    let towards = centre - nearest;
    let distance = contact_length(towards);
    let axis = towards / distance;
    if distance > 0.0 && all(abs(axis) <= vec2<f32>(1.0)) {
        let depth = polygon_interval(p, pp, axis).y - (dot(centre, axis) - radius);
        if depth < best.depth {
            best = Least(depth, axis);
        }
    }
    return best;
}

// Set cells of row `row` of mask m in columns first ..= last.
fn row_set_cells(m: PackedShape, row: i32, first: i32, last: i32) -> u32 {
    let lo = max(first, 0);
    let hi = min(last, i32(m.count) - 1);
    if row < 0 || row >= i32(m.rows) || lo > hi {
        return 0u;
    }
    var cells = 0u;
    for (var w = lo >> 5u; w <= hi >> 5u; w++) {
        let first_bit = u32(max(lo - w * 32, 0));
        let last_bit = u32(min(hi - w * 32, 31));
        let wanted = (0xffffffffu << first_bit) & (0xffffffffu >> (31u - last_bit));
        cells += countOneBits(mask_word(m, row, w) & wanted);
    }
    return cells;
}

// Set cells of row `row` that the closed span x_lo ..= x_hi (mask frame) meets: cell c
// covers [c, c + 1], as in span_hits_row.
fn span_row_cells(m: PackedShape, row: i32, x_lo: f32, x_hi: f32) -> u32 {
    let limit = f32(m.count) + 1.0; // clamp first: huge floats do not convert to i32
    let first = i32(ceil(clamp(x_lo, -1.0, limit))) - 1;
    let last = i32(floor(clamp(x_hi, -1.0, limit)));
    return row_set_cells(m, row, first, last);
}

// Row `row` of mask a against mask b, whose cell (0, 0) lies on a's cell d: the set bits
// of each word of a ANDed with the 32 cells of b under it (pygame's overlap_area).
fn bitmask_row_cells(a: PackedShape, b: PackedShape, d: vec2<i32>, row: i32) -> u32 {
    let column_first = max(0, d.x);
    let column_end = min(i32(a.count), d.x + i32(b.count));
    var cells = 0u;
    for (var w = column_first >> 5u; w <= (column_end - 1) >> 5u; w++) {
        let bits_a = mask_word(a, row, w);
        if bits_a != 0u {
            cells += countOneBits(bits_a & mask_bits(b, row - d.y, w * 32 - d.x));
        }
    }
    return cells;
}

// ---- capsules (cpu::contact::rounded_contact) ----
// A pair with a capsule is a pair of cores (a polygon, a capsule's segment, a circle's
// centre) grown by radii. The least move is the least of two candidates: every axis of
// both cores, and, when the cores are apart, the line between their nearest points.

// Cores closer than this part along an axis (cpu::contact::NEAREST_LINE_MIN).
const NEAREST_LINE_MIN: f32 = 1e-4;

// Axis k (0 to 3) of the segment e0 e1: its normal (outward, were it a polygon's edge
// from e0 to e1), that turned round, its direction, that turned round.
fn segment_axis(e0: vec2<f32>, e1: vec2<f32>, k: u32) -> vec2<f32> {
    let normal = vec2<f32>(e1.y - e0.y, e0.x - e1.x);
    let across = normal / length(normal);
    let along = (e1 - e0) / length(e1 - e0);
    let axis = select(across, along, k >= 2u);
    return select(axis, -axis, k % 2u == 1u);
}

fn keep_least(best: ptr<function, Least>, depth: f32, normal: vec2<f32>) {
    if depth < (*best).depth {
        *best = Least(depth, normal);
    }
}

// The nearest pair of points found so far, as (distance, line from a's point to b's).
struct Nearest {
    distance: f32,
    line: vec2<f32>,
}

fn keep_nearer(nearest: ptr<function, Nearest>, start: vec2<f32>, end: vec2<f32>) {
    let d = length(end - start);
    if d < (*nearest).distance {
        *nearest = Nearest(d, end - start);
    }
}

// The axes' least move, then the nearest line's when the cores are apart; two points too
// near for a line part along x.
fn with_nearest(axes: Least, nearest: Nearest, reach: f32) -> Least {
    var best = axes;
    if nearest.distance > NEAREST_LINE_MIN && reach - nearest.distance < best.depth {
        best = Least(reach - nearest.distance, nearest.line / nearest.distance);
    }
    if best.depth == FAR {
        best = Least(reach - nearest.distance, vec2<f32>(1.0, 0.0));
    }
    return best;
}

// Two segment cores a0 a1 and b0 b1 (a circle's centre twice over for a circle) grown by
// radii that add up to `reach`: the least move of b.
fn capsule_least(a0: vec2<f32>, a1: vec2<f32>, b0: vec2<f32>, b1: vec2<f32>, reach: f32) -> Least {
    var best = Least(FAR, vec2<f32>(1.0, 0.0));
    for (var k = 0u; k < 4u; k++) {
        if any(a0 != a1) {
            let axis = segment_axis(a0, a1, k);
            keep_least(&best, max(dot(a0, axis), dot(a1, axis)) + max(dot(b0, -axis), dot(b1, -axis)) + reach, axis);
        }
    }
    for (var k = 0u; k < 4u; k++) {
        if any(b0 != b1) {
            let axis = segment_axis(b0, b1, k);
            keep_least(&best, max(dot(a0, axis), dot(a1, axis)) + max(dot(b0, -axis), dot(b1, -axis)) + reach, axis);
        }
    }
    var nearest = Nearest(FAR, vec2<f32>(0.0));
    if segments_cross(a0, a1, b0, b1) {
        nearest = Nearest(0.0, vec2<f32>(0.0));
    } else {
        keep_nearer(&nearest, segment_closest(a0, a1, b0), b0);
        keep_nearer(&nearest, segment_closest(a0, a1, b1), b1);
        keep_nearer(&nearest, a0, segment_closest(b0, b1, a0));
        keep_nearer(&nearest, a1, segment_closest(b0, b1, a1));
    }
    return with_nearest(best, nearest, reach);
}

// A polygon p (placed pp) against a capsule (segment e0 e1, `radius`): the least move of
// the capsule. On the polygon's own edge normals its support is the edge's vertex, as in
// polygon_axes_least, so the whole is a few passes over the polygon: one chunk.
fn polygon_capsule_least(p: PackedShape, pp: Placement, e0: vec2<f32>, e1: vec2<f32>, radius: f32) -> Least {
    var best = Least(FAR, vec2<f32>(1.0, 0.0));
    for (var k = 0u; k < p.count; k++) {
        let n = polygon_normal(p, pp, k);
        keep_least(&best, dot(polygon_point(p, pp, k), n) + max(dot(e0, -n), dot(e1, -n)) + radius, n);
    }
    for (var k = 0u; k < 4u; k++) {
        if any(e0 != e1) {
            let axis = segment_axis(e0, e1, k);
            keep_least(&best, polygon_interval(p, pp, axis).y + max(dot(e0, -axis), dot(e1, -axis)) + radius, axis);
        }
    }
    // The cores meet when the capsule's first end is in the polygon or an edge crosses
    // its segment; otherwise their nearest points are an end and an edge's point, or a
    // vertex and the segment's.
    var holds = true;
    var crosses = false;
    for (var k = 0u; k < p.count; k++) {
        let v = polygon_point(p, pp, k);
        holds = holds && dot(e0 - v, polygon_normal(p, pp, k)) <= 0.0;
        crosses = crosses || segments_cross(v, polygon_point(p, pp, (k + 1u) % p.count), e0, e1);
    }
    var nearest = Nearest(FAR, vec2<f32>(0.0));
    if holds || crosses {
        nearest = Nearest(0.0, vec2<f32>(0.0));
    } else {
        for (var k = 0u; k < p.count; k++) {
            let v = polygon_point(p, pp, k);
            let next = polygon_point(p, pp, (k + 1u) % p.count);
            keep_nearer(&nearest, segment_closest(v, next, e0), e0);
            keep_nearer(&nearest, segment_closest(v, next, e1), e1);
        }
        for (var k = 0u; k < p.count; k++) {
            let v = polygon_point(p, pp, k);
            keep_nearer(&nearest, v, segment_closest(e0, e1, v));
        }
    }
    return with_nearest(best, nearest, radius);
}

// ---- planning ----

// Body a's offset from b in whole cells, for two masks (their positions are whole).
fn mask_offset(a: u32, b: u32) -> vec2<i32> {
    return vec2<i32>(round(transforms[b].position - transforms[a].position));
}

// A pair's contact planned in chunks, on narrow.wgsl's Plan (bodies ordered by shape
// kind, so a polygon before a circle before a bitmask; units of work from first_unit).
fn contact_plan_of(i: u32, j: u32) -> Plan {
    let kind = pair_kind_of(i, j);
    var plan = plan_for(kind, i, j);
    let sa = plan.sa;
    let sb = plan.sb;
    // The narrow plan's units are right for the pairs with a bitmask and for two circles
    // (one unit); the depths differ: every axis of two polygons is a pass over the other
    // polygon, and a polygon against a circle is one chunk of two passes.
    if kind == PAIR_POLYGON_POLYGON {
        plan.units = sa.count + sb.count;
        plan.per_chunk = max(CHUNK_BUDGET / (max(sa.count, sb.count) + 1u), 1u);
        plan.chunks = (plan.units + plan.per_chunk - 1u) / plan.per_chunk;
    } else if kind == PAIR_POLYGON_CIRCLE || kind == PAIR_CIRCLE_CIRCLE || kind == PAIR_POLYGON_CAPSULE
        || kind == PAIR_CIRCLE_CAPSULE || kind == PAIR_CAPSULE_CAPSULE {
        plan.units = 1u;
        plan.per_chunk = 1u;
        plan.chunks = 1u;
    } else if kind == PAIR_BITMASK_BITMASK {
        // narrow.wgsl truncates the positions; whole as they are, rounding is the same
        // and is what the CPU does.
        let d = mask_offset(plan.a, plan.b);
        let row_end = min(i32(sa.rows), d.y + i32(sb.rows));
        let columns = min(i32(sa.count), d.x + i32(sb.count)) - max(0, d.x);
        plan.first_unit = max(0, d.y);
        plan.units = select(0u, u32(max(row_end - plan.first_unit, 0)), columns > 0);
        plan.chunks = (plan.units + plan.per_chunk - 1u) / plan.per_chunk;
    }
    return plan;
}

// Whether the contact of this kind pair is an area.
fn is_area(kind: u32) -> bool {
    return kind == PAIR_POLYGON_BITMASK || kind == PAIR_CIRCLE_BITMASK || kind == PAIR_CAPSULE_BITMASK
        || kind == PAIR_BITMASK_BITMASK;
}

// The cells of chunk `chunk` of an area plan.
fn chunk_area(plan: Plan, chunk: u32) -> u32 {
    let first = chunk * plan.per_chunk;
    let end = min(first + plan.per_chunk, plan.units);
    // The shape in the mask's frame (b's; for two masks a's offset is mask_offset).
    let placed = placement_in_frame_of(plan.a, plan.b);
    let d = mask_offset(plan.a, plan.b);
    var cells = 0u;
    for (var unit = first; unit < end; unit++) {
        let row = plan.first_unit + i32(unit);
        if plan.pair_kind == PAIR_POLYGON_BITMASK {
            let span = polygon_span(plan.sa, placed, f32(row), f32(row + 1));
            if span.x <= span.y {
                cells += span_row_cells(plan.sb, row, span.x, span.y);
            }
        } else if plan.pair_kind == PAIR_CAPSULE_BITMASK {
            let span = capsule_span(polygon_point(plan.sa, placed, 0u), polygon_point(plan.sa, placed, 1u),
                plan.sa.radius, f32(row), f32(row + 1));
            if span.x <= span.y {
                cells += span_row_cells(plan.sb, row, span.x, span.y);
            }
        } else if plan.pair_kind == PAIR_CIRCLE_BITMASK {
            // Distance from the centre to the row's band, then the half chord there.
            let centre = placed.offset;
            let radius = plan.sa.radius;
            let dy = max(max(f32(row) - centre.y, centre.y - f32(row + 1)), 0.0);
            if dy <= radius {
                let half = sqrt((radius - dy) * (radius + dy));
                cells += span_row_cells(plan.sb, row, centre.x - half, centre.x + half);
            }
        } else {
            cells += bitmask_row_cells(plan.sa, plan.sb, d, row);
        }
    }
    return cells;
}

// The least move of chunk `chunk` of a depth plan, as a move of b away from a.
fn chunk_least(plan: Plan, chunk: u32) -> Least {
    let pa = Placement(vec2<f32>(0.0), transforms[plan.a].rotation);
    let pb = placement_in_frame_of(plan.b, plan.a);
    if plan.pair_kind == PAIR_POLYGON_POLYGON {
        let first = chunk * plan.per_chunk;
        return polygon_axes_least(plan.sa, pa, plan.sb, pb, first, min(first + plan.per_chunk, plan.units));
    }
    if plan.pair_kind == PAIR_POLYGON_CIRCLE {
        return polygon_circle_least(plan.sa, pa, pb.offset, plan.sb.radius);
    }
    if plan.pair_kind == PAIR_POLYGON_CAPSULE {
        return polygon_capsule_least(plan.sa, pa, polygon_point(plan.sb, pb, 0u), polygon_point(plan.sb, pb, 1u), plan.sb.radius);
    }
    if plan.pair_kind == PAIR_CIRCLE_CAPSULE {
        // The circle's centre is the frame's origin.
        let centre = vec2<f32>(0.0);
        return capsule_least(centre, centre, polygon_point(plan.sb, pb, 0u), polygon_point(plan.sb, pb, 1u),
            plan.sa.radius + plan.sb.radius);
    }
    if plan.pair_kind == PAIR_CAPSULE_CAPSULE {
        return capsule_least(polygon_point(plan.sa, pa, 0u), polygon_point(plan.sa, pa, 1u),
            polygon_point(plan.sb, pb, 0u), polygon_point(plan.sb, pb, 1u), plan.sa.radius + plan.sb.radius);
    }
    // Two circles; concentric ones part along x, as on the CPU.
    let distance = contact_length(pb.offset);
    var normal = vec2<f32>(1.0, 0.0);
    if distance > 0.0 && all(abs(pb.offset / distance) <= vec2<f32>(1.0)) {
        normal = pb.offset / distance;
    }
    return Least(plan.sa.radius + plan.sb.radius - distance, normal);
}

// Writes pair p's depth and normal, turned to point from body i to body j: the plan's a
// is i except for a circle (i) against a polygon (j), whose move is the polygon's.
fn write_least(p: u32, plan: Plan, least: Least) {
    let flip = plan.a != pairs[p].x;
    contacts[p].normal = select(least.normal, -least.normal, flip);
    contacts[p].depth = least.depth;
}

// ---- the kernels ----

@compute @workgroup_size(1)
fn contact_args() {
    params = uploaded_params;
    let stored = min(atomicLoad(&counters.pairs), params.pair_capacity);
    contact_counters.pairs = stored;
    contact_dispatch_args[0] = dispatch_for(stored);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn contact_plan(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let p = global_index(workgroup, local);
    if p >= contact_counters.pairs {
        return;
    }
    let pair = pairs[p];
    let plan = contact_plan_of(pair.x, pair.y);
    let area = is_area(plan.pair_kind);
    if plan.chunks <= 1u {
        if area {
            atomicStore(&contacts[p].area, select(0u, chunk_area(plan, 0u), plan.chunks == 1u));
        } else {
            write_least(p, plan, chunk_least(plan, 0u));
        }
        return;
    }
    // Count past the ends: the host grows the lists and runs the pass again.
    let long_index = atomicAdd(&contact_counters.long_pairs, 1u);
    let first_task = atomicAdd(&contact_counters.tasks, plan.chunks);
    atomicStore(&contacts[p].area, 0u);
    if long_index >= contact_counters.long_capacity {
        return;
    }
    contact_longs[long_index] = ContactLong(p, first_task, plan.chunks, plan.pair_kind);
    let end = min(first_task + plan.chunks, contact_counters.task_capacity);
    for (var t = first_task; t < end; t++) {
        contact_tasks[t].long_index = long_index;
    }
}

@compute @workgroup_size(1)
fn contact_task_args() {
    let tasks = min(atomicLoad(&contact_counters.tasks), contact_counters.task_capacity);
    let longs = min(atomicLoad(&contact_counters.long_pairs), contact_counters.long_capacity);
    contact_dispatch_args[1] = dispatch_for(tasks);
    contact_dispatch_args[2] = dispatch_for(longs);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn contact_task(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let t = global_index(workgroup, local);
    if t >= min(atomicLoad(&contact_counters.tasks), contact_counters.task_capacity) {
        return;
    }
    let long = contact_longs[contact_tasks[t].long_index];
    let pair = pairs[long.pair_index];
    let plan = contact_plan_of(pair.x, pair.y);
    let chunk = t - long.first_task;
    if is_area(plan.pair_kind) {
        let cells = chunk_area(plan, chunk);
        if cells != 0u {
            atomicAdd(&contacts[long.pair_index].area, cells);
        }
    } else {
        let least = chunk_least(plan, chunk);
        contact_tasks[t].depth = least.depth;
        contact_tasks[t].normal = least.normal;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn contact_finish(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let long_index = global_index(workgroup, local);
    if long_index >= min(atomicLoad(&contact_counters.long_pairs), contact_counters.long_capacity) {
        return;
    }
    let long = contact_longs[long_index];
    if is_area(long.kind) {
        return;
    }
    // Chunks past the task list's end did not run: the host reruns the pass then.
    let end = min(long.first_task + long.chunks, contact_counters.task_capacity);
    var best = Least(FAR, vec2<f32>(1.0, 0.0));
    for (var t = long.first_task; t < end; t++) {
        if contact_tasks[t].depth < best.depth {
            best = Least(contact_tasks[t].depth, contact_tasks[t].normal);
        }
    }
    let pair = pairs[long.pair_index];
    write_least(long.pair_index, contact_plan_of(pair.x, pair.y), best);
}
