// Swept pairs (scene format 1.1): the narrow phase of a frame with motion. Composed into
// the narrow stage after narrow.wgsl, whose plans, static tests and helpers it reuses.
// CPU twin: src/cpu/sweep.rs, function for function (with one exception, in
// cell_polygon_toi).
//
// Both bodies slide without turning, so only their relative motion matters: with body
// `a` held still, `b` moves by t·w (w = v_b - v_a), and they meet at t exactly when t·w
// lies in the Minkowski difference A - B. Every time is in closed form, with no sampling:
// - two polygons: the segment t·w clipped (Cyrus-Beck) against the half-planes of A - B,
//   one per edge of A and of B;
// - a polygon and a circle: the first crossing, entering, of an edge pushed out by the
//   radius or of a disc around a vertex;
// - two circles: one disc of the summed radii;
// - a capsule and a polygon, circle or capsule: the earliest entry of an end or vertex
//   of one into an edge of the other grown by the summed radii (cpu::sweep::segments_toi);
// - a shape moving against a still bitmask: the first impact on any set cell, each cell a
//   unit square, over the cells the sweep can reach.
// A candidate that already intersects at t = 0 by the narrow phase's own test (so that a
// frame without motion would give exactly its pairs) has time 0.
//
// Bounded work (llvmpipe's 65535-iteration cap, see narrow.wgsl): a time of impact is
// planned, like a static test, as units of bounded work in chunks of at most CHUNK_BUDGET
// iterations: a half-plane of A - B (two polygons), an edge (a polygon and a circle), a
// run of at most 32 cells of one row (a shape against a bitmask). Chunks combine by
// order-free reductions, so running them apart gives the sequential answer bit for bit:
// Cyrus-Beck's range is the latest entering time and the earliest leaving time over all
// half-planes (each computed from its own half-plane alone); the other kind pairs take the
// earliest impact over their units.
//
// Kernels, after narrow_args sized one thread per candidate:
// sweep            decides each candidate whose static test and time of impact are one
//                  chunk each, and writes its verdict into `verdicts`; a longer one
//                  gets the verdict "long";
// sweep_hand_over  appends the hits with their times, and hands the long ones over in
//                  blocks of WORKGROUP_SIZE chunks (one workgroup of sweep_task a block);
//                  a test too long even for that goes to the host (HOST_TOI);
// sweep_long_args  sizes sweep_task and sweep_finish;
// sweep_task       one chunk of a long static test or time of impact;
// sweep_finish     decides each long candidate from its chunks.
// Each kernel binds at most 7 storage buffers (WebGPU's default allows 8).

@group(0) @binding(12) var<storage, read> velocities: array<vec2<f32>>;
@group(0) @binding(13) var<storage, read_write> tois: array<f32>;
@group(0) @binding(14) var<storage, read_write> swept_long_pairs: array<SweptLongPair>;

// "No impact during the frame": any time past 1.
const NO_TOI: f32 = 2.0;
// The time written for a pair whose test is too long for the GPU's task list; the host
// computes it (GpuCollider::find_swept_pairs). Mirrored by gpu::sweep::HOST_TOI.
const HOST_TOI: f32 = -1.0;
// Blocks of chunks one long test may hand over (sweep_hand_over writes one task entry per
// block, WORKGROUP_SIZE chunks each): about a million chunks, enough for any shape
// sweeping over a 2048 x 2048 mask, and a loop well within the cap.
const MAX_BLOCKS: u32 = 16384u;

// Verdicts of `sweep`, in `verdicts[candidate]`: (VERDICT_MISS, _), (VERDICT_HIT, toi bits),
// (VERDICT_LONG + static chunks, toi chunks) or (VERDICT_HOST, _).
const VERDICT_MISS: u32 = 0u;
const VERDICT_HIT: u32 = 1u;
const VERDICT_HOST: u32 = 2u;
const VERDICT_LONG: u32 = 3u;

// A time as bits; those of times in [0, 2] order as the times do, for atomicMin and
// atomicMax, once -0.0 (which a quotient like 0 / -x gives) is made 0, not the largest
// u32. Negative times (HOST_TOI) keep their bits.
fn time_bits(t: f32) -> u32 {
    return select(bitcast<u32>(t), 0u, t == 0.0);
}

// ---- closed forms (cpu::sweep) ----

// Clips the range (enter, exit) of t against the half-plane n·x <= h along t·w; the
// range is empty once enter > exit, and stays empty.
fn clip(range: vec2<f32>, n: vec2<f32>, h: f32, w: vec2<f32>) -> vec2<f32> {
    let speed = dot(n, w);
    if speed == 0.0 {
        // Parallel to the line: inside for all t or for none.
        return select(vec2<f32>(NO_TOI, 0.0), range, h >= 0.0);
    }
    let t = h / speed;
    if speed > 0.0 {
        return vec2<f32>(range.x, min(range.y, t));
    }
    return vec2<f32>(max(range.x, t), range.y);
}

// When a disc of `radius` centred at `centre` and moving by t·w first covers the origin
// (types.wgsl's disc_entry); NO_TOI when not within [0, 1].
fn disc_toi(centre: vec2<f32>, radius: f32, w: vec2<f32>) -> f32 {
    let entry = disc_entry(centre, radius, w);
    return select(NO_TOI, entry.t, entry.hit);
}

// One edge of cpu::sweep::circle_polygon_toi: when a circle (`centre`, `radius`) moving
// by t·w first crosses, entering, the edge from `v` to `next` (outward `normal`) pushed
// out by the radius, or the disc of the radius around `v`; NO_TOI when neither in [0, 1].
fn circle_edge_toi(v: vec2<f32>, next: vec2<f32>, normal: vec2<f32>, centre: vec2<f32>, radius: f32, w: vec2<f32>) -> f32 {
    var best = NO_TOI;
    let speed = dot(normal, w);
    if speed < 0.0 {
        let t = (dot(v, normal) + radius - dot(centre, normal)) / speed;
        let edge = next - v;
        let along = dot(centre + t * w - v, edge);
        if along >= 0.0 && along <= dot(edge, edge) && t >= 0.0 && t <= 1.0 {
            best = t;
        }
    }
    let d = disc_toi(centre - v, radius, w);
    if d >= 0.0 && d <= 1.0 {
        best = min(best, d);
    }
    return best;
}

// Half-plane `k` of A - B for polygons a (placed `pa`) and b (placed `pb`): a's edges
// first (normal n, offset max(a·n) - min(b·n)), then b's turned round (normal -m, offset
// max(b·m) - min(a·m)). Costs a pass over each polygon.
fn polygon_half_plane(range: vec2<f32>, sa: PackedShape, pa: Placement, sb: PackedShape, pb: Placement, k: u32, w: vec2<f32>) -> vec2<f32> {
    let e = polygon_pair_edge(sa, pa, sb, pb, k);
    let m = polygon_normal(e.own, e.own_at, e.k);
    let h = polygon_interval(e.own, e.own_at, m).y - polygon_interval(e.other, e.other_at, m).x;
    return clip(range, select(m, -m, e.of_b), h, w);
}

// The corners of a unit cell whose lower corner is `lo`, counter-clockwise from it
// (cpu::placed::cell_points), and the outward normal of the side from corner k.
fn cell_corner(lo: vec2<f32>, hi: vec2<f32>, k: u32) -> vec2<f32> {
    switch k {
        case 0u: { return lo; }
        case 1u: { return vec2<f32>(hi.x, lo.y); }
        case 2u: { return hi; }
        default: { return vec2<f32>(lo.x, hi.y); }
    }
}

fn cell_normal(k: u32) -> vec2<f32> {
    switch k {
        case 0u: { return vec2<f32>(0.0, -1.0); }
        case 1u: { return vec2<f32>(1.0, 0.0); }
        case 2u: { return vec2<f32>(0.0, 1.0); }
        default: { return vec2<f32>(-1.0, 0.0); }
    }
}

// The cell's projection on `axis`, as (min, max).
fn cell_interval(lo: vec2<f32>, hi: vec2<f32>, axis: vec2<f32>) -> vec2<f32> {
    let d0 = dot(lo, axis);
    let d1 = dot(vec2<f32>(hi.x, lo.y), axis);
    let d2 = dot(hi, axis);
    let d3 = dot(vec2<f32>(lo.x, hi.y), axis);
    return vec2<f32>(min(min(d0, d1), min(d2, d3)), max(max(d0, d1), max(d2, d3)));
}

// cpu::sweep::polygon_polygon_toi with a still cell (`lo`, `hi`) as A and polygon `p`
// (placed `pp`, box `p_lo ..= p_hi`) moving by t·w as B. The one departure from the CPU:
// the support of p along its own edge normal is that edge's first vertex projected,
// where the CPU takes the largest projection of all vertices. The two are equal but for
// rounding (a few ulps), and the shortcut makes a cell cost one pass over p, not one per
// edge of p: a 256-gon sweeping over a mask would otherwise spend 65k iterations a cell.
// p's interval along the cell's normals (the axes) is exactly its box.
fn cell_polygon_toi(lo: vec2<f32>, hi: vec2<f32>, p: PackedShape, pp: Placement, p_lo: vec2<f32>, p_hi: vec2<f32>, w: vec2<f32>) -> f32 {
    var range = vec2<f32>(0.0, 1.0);
    // The cell's sides: normals (0, -1), (1, 0), (0, 1), (-1, 0).
    range = clip(range, cell_normal(0u), cell_interval(lo, hi, cell_normal(0u)).y + p_hi.y, w);
    range = clip(range, cell_normal(1u), cell_interval(lo, hi, cell_normal(1u)).y - p_lo.x, w);
    range = clip(range, cell_normal(2u), cell_interval(lo, hi, cell_normal(2u)).y - p_lo.y, w);
    range = clip(range, cell_normal(3u), cell_interval(lo, hi, cell_normal(3u)).y + p_hi.x, w);
    if range.x > range.y {
        return NO_TOI;
    }
    for (var k = 0u; k < p.count; k++) {
        let m = polygon_normal(p, pp, k);
        let h = dot(polygon_point(p, pp, k), m) - cell_interval(lo, hi, m).x;
        range = clip(range, -m, h, w);
        if range.x > range.y {
            return NO_TOI;
        }
    }
    return range.x;
}

// cpu::sweep::circle_polygon_toi with a still cell (`lo`, `hi`) as the polygon.
fn cell_circle_toi(lo: vec2<f32>, hi: vec2<f32>, centre: vec2<f32>, radius: f32, w: vec2<f32>) -> f32 {
    var best = NO_TOI;
    for (var k = 0u; k < 4u; k++) {
        let t = circle_edge_toi(cell_corner(lo, hi, k), cell_corner(lo, hi, (k + 1u) % 4u), cell_normal(k), centre, radius, w);
        best = min(best, t);
    }
    return best;
}

// ---- capsules (cpu::sweep::segments_toi) ----

// The earliest of a moving point's entries into a capsule, as a time (NO_TOI for none).
fn entry_toi(start: vec2<f32>, delta: vec2<f32>, a: vec2<f32>, b: vec2<f32>, radius: f32) -> f32 {
    let entry = capsule_entry(start, delta, a, b, radius);
    return select(NO_TOI, entry.t, entry.hit);
}

// One edge `v next` of an outline against a capsule (ends e0 e1) moving by t·w, their
// radii adding up to `reach`: the capsule's ends entering the edge grown by `reach`, and
// the edge's first vertex (moving by -w against the capsule) entering the capsule's
// segment grown by `reach`. Over every edge of a polygon (or the four sides of a cell),
// these are the segments of the Minkowski difference of the two cores; a unit of
// segments_toi.
fn edge_capsule_toi(v: vec2<f32>, next: vec2<f32>, e0: vec2<f32>, e1: vec2<f32>, reach: f32, w: vec2<f32>) -> f32 {
    return min(min(entry_toi(e0, w, v, next, reach), entry_toi(e1, w, v, next, reach)),
        entry_toi(v, -w, e0, e1, reach));
}

// cpu::sweep::polygon_capsule_toi with a still cell (`lo`, `hi`) as the polygon.
fn cell_capsule_toi(lo: vec2<f32>, hi: vec2<f32>, e0: vec2<f32>, e1: vec2<f32>, radius: f32, w: vec2<f32>) -> f32 {
    var best = NO_TOI;
    for (var k = 0u; k < 4u; k++) {
        best = min(best, edge_capsule_toi(cell_corner(lo, hi, k), cell_corner(lo, hi, (k + 1u) % 4u), e0, e1, radius, w));
    }
    return best;
}

// The cells (first, last) along one axis that the closed interval lo ..= hi meets (cell
// k is [k, k + 1]), clamped first so that a far interval converts safely
// (cpu::placed::cells_between).
fn cells_between(lo: f32, hi: f32, limit: u32) -> vec2<i32> {
    let end = f32(limit) + 1.0;
    return vec2<i32>(i32(ceil(clamp(lo, -1.0, end))) - 1, i32(floor(clamp(hi, -1.0, end))));
}

// ---- planning a time of impact in chunks ----

// The time of impact of a candidate whose static test is `Plan` (same a, b and kind
// pair): `units` units of work, `per_chunk` to a chunk. For a shape against a bitmask,
// in the shape's frame: the mask's cell (0, 0) starts at `origin`, the shape's box in
// the mask's cells is `lo ..= hi` (and its own box `shape_lo ..= shape_hi`), and a unit
// is a run of `run_cells` cells of row `first_row + u / runs`, from column
// `first_column + (u % runs) · run_cells`, up to `last_column`.
struct SweepPlan {
    // The relative motion: of b against a, or of the shape against the mask.
    w: vec2<f32>,
    origin: vec2<f32>,
    lo: vec2<f32>,
    hi: vec2<f32>,
    shape_lo: vec2<f32>,
    shape_hi: vec2<f32>,
    first_row: i32,
    first_column: i32,
    last_column: i32,
    runs: u32,
    run_cells: u32,
    units: u32,
    per_chunk: u32,
    chunks: u32,
}

// Plans the time of impact of `plan`'s pair (costs at most one pass over a polygon).
fn sweep_plan_of(plan: Plan) -> SweepPlan {
    let w = velocities[plan.b] - velocities[plan.a];
    let zero = vec2<f32>(0.0);
    var s = SweepPlan(w, zero, zero, zero, zero, zero, 0, 0, -1, 1u, 1u, 0u, 1u, 0u);
    if all(w == zero) {
        return s; // apart at t = 0 and at every other time: no units
    }
    let sa = plan.sa;
    let sb = plan.sb;
    var unit_cost = 1u;
    var fixed_cost = 0u;
    let kind = plan.pair_kind;
    if kind == PAIR_POLYGON_POLYGON {
        s.units = sa.count + sb.count;
        unit_cost = sa.count + sb.count + 1u;
    } else if kind == PAIR_POLYGON_CIRCLE {
        s.units = sa.count;
        unit_cost = 2u;
    } else if kind == PAIR_CIRCLE_CIRCLE || kind == PAIR_CIRCLE_CAPSULE || kind == PAIR_CAPSULE_CAPSULE {
        s.units = 1u;
    } else if kind == PAIR_POLYGON_CAPSULE {
        // An edge of the polygon a unit (edge_capsule_toi).
        s.units = sa.count;
        unit_cost = 2u;
    } else if kind == PAIR_POLYGON_BITMASK || kind == PAIR_CIRCLE_BITMASK || kind == PAIR_CAPSULE_BITMASK {
        // The bitmask stays still and the shape moves by -w against it.
        s.w = -w;
        s.origin = transforms[plan.b].position - transforms[plan.a].position;
        var cell_cost = 6u;
        if kind == PAIR_POLYGON_BITMASK {
            let pa = Placement(zero, transforms[plan.a].rotation);
            s.shape_lo = vec2<f32>(FAR);
            s.shape_hi = vec2<f32>(-FAR);
            for (var k = 0u; k < sa.count; k++) {
                let p = polygon_point(sa, pa, k);
                s.shape_lo = min(s.shape_lo, p);
                s.shape_hi = max(s.shape_hi, p);
            }
            fixed_cost = sa.count;
            cell_cost = sa.count + 2u;
        } else if kind == PAIR_CAPSULE_BITMASK {
            let pa = Placement(zero, transforms[plan.a].rotation);
            let e0 = polygon_point(sa, pa, 0u);
            let e1 = polygon_point(sa, pa, 1u);
            s.shape_lo = min(e0, e1) - sa.radius;
            s.shape_hi = max(e0, e1) + sa.radius;
            // cell_capsule_toi: four sides, two disc entries each.
            cell_cost = 14u;
        } else {
            s.shape_lo = zero - sa.radius;
            s.shape_hi = zero + sa.radius;
        }
        s.lo = s.shape_lo - s.origin;
        s.hi = s.shape_hi - s.origin;
        let rows = cells_between(s.lo.y + min(s.w.y, 0.0), s.hi.y + max(s.w.y, 0.0), sb.rows);
        s.first_row = max(rows.x - 1, 0);
        let last_row = min(rows.y + 1, i32(sb.rows) - 1);
        // Each row tests the columns its own times reach, padded by a cell; all of them
        // lie within the columns of the whole motion, padded likewise.
        let columns = cells_between(s.lo.x + min(s.w.x, 0.0), s.hi.x + max(s.w.x, 0.0), sb.count);
        s.first_column = max(columns.x - 1, 0);
        s.last_column = min(columns.y + 1, i32(sb.count) - 1);
        s.run_cells = clamp((CHUNK_BUDGET - fixed_cost) / cell_cost, 1u, 32u);
        let column_count = u32(max(s.last_column - s.first_column + 1, 0));
        s.runs = max((column_count + s.run_cells - 1u) / s.run_cells, 1u);
        s.units = u32(max(last_row - s.first_row + 1, 0)) * select(0u, s.runs, column_count > 0u);
        unit_cost = s.run_cells * cell_cost + 2u;
    }
    // Two bitmasks never move.
    s.per_chunk = max((CHUNK_BUDGET - fixed_cost) / unit_cost, 1u);
    s.chunks = (s.units + s.per_chunk - 1u) / s.per_chunk;
    return s;
}

// Whether the kind pair's chunks combine as Cyrus-Beck ranges (enter, exit) rather than
// as earliest impacts.
fn clips_range(kind: u32) -> bool {
    return kind == PAIR_POLYGON_POLYGON;
}

// Unit `u` of a shape against a bitmask: the earliest impact on the set cells of its run
// (cpu::sweep::shape_bitmask_toi, one row's columns at a time).
fn bitmask_unit_toi(plan: Plan, s: SweepPlan, u: u32) -> f32 {
    let row = s.first_row + i32(u / s.runs);
    let run_first = s.first_column + i32((u % s.runs) * s.run_cells);
    // Times at which the box's rows reach this row: lo.y + t·w.y <= row + 1 and
    // hi.y + t·w.y >= row.
    var t0 = 0.0;
    var t1 = 1.0;
    if s.w.y != 0.0 {
        let enter = (f32(row) - s.hi.y) / s.w.y;
        let leave = (f32(row) + 1.0 - s.lo.y) / s.w.y;
        t0 = max(t0, min(enter, leave));
        t1 = min(t1, max(enter, leave));
    }
    if t0 > t1 {
        return NO_TOI;
    }
    let x0 = t0 * s.w.x;
    let x1 = t1 * s.w.x;
    let columns = cells_between(s.lo.x + min(x0, x1), s.hi.x + max(x0, x1), plan.sb.count);
    let first = max(max(columns.x - 1, run_first), 0);
    let last = min(min(columns.y + 1, run_first + i32(s.run_cells) - 1), min(s.last_column, i32(plan.sb.count) - 1));
    if first > last {
        return NO_TOI;
    }
    // At most 32 cells: one word of the row from `first`.
    var bits = mask_bits(plan.sb, row, first) & (0xffffffffu >> (31u - u32(last - first)));
    let pa = Placement(vec2<f32>(0.0), transforms[plan.a].rotation);
    var best = NO_TOI;
    while bits != 0u {
        let column = first + i32(firstTrailingBit(bits));
        bits &= bits - 1u;
        let lo = vec2<f32>(f32(column), f32(row)) + s.origin;
        let hi = (vec2<f32>(f32(column), f32(row)) + 1.0) + s.origin;
        var t = NO_TOI;
        if plan.pair_kind == PAIR_POLYGON_BITMASK {
            t = cell_polygon_toi(lo, hi, plan.sa, pa, s.shape_lo, s.shape_hi, s.w);
        } else if plan.pair_kind == PAIR_CAPSULE_BITMASK {
            t = cell_capsule_toi(lo, hi, polygon_point(plan.sa, pa, 0u), polygon_point(plan.sa, pa, 1u), plan.sa.radius, s.w);
        } else {
            t = cell_circle_toi(lo, hi, vec2<f32>(0.0), plan.sa.radius, s.w);
        }
        best = min(best, t);
    }
    return best;
}

// Chunk `chunk` of the time of impact: for two polygons the range (enter, exit) its
// half-planes leave (empty when enter > exit); for the others (earliest impact, 1).
fn toi_chunk(plan: Plan, s: SweepPlan, chunk: u32) -> vec2<f32> {
    let first = chunk * s.per_chunk;
    let end = min(first + s.per_chunk, s.units);
    let sa = plan.sa;
    let sb = plan.sb;
    if plan.pair_kind == PAIR_POLYGON_POLYGON {
        let pa = Placement(vec2<f32>(0.0), transforms[plan.a].rotation);
        let pb = placement_in_frame_of(plan.b, plan.a);
        var range = vec2<f32>(0.0, 1.0);
        for (var k = first; k < end; k++) {
            range = polygon_half_plane(range, sa, pa, sb, pb, k, s.w);
            if range.x > range.y {
                break;
            }
        }
        return range;
    }
    var best = NO_TOI;
    if plan.pair_kind == PAIR_POLYGON_CIRCLE {
        let pa = Placement(vec2<f32>(0.0), transforms[plan.a].rotation);
        let centre = placement_in_frame_of(plan.b, plan.a).offset;
        for (var k = first; k < end; k++) {
            let v = polygon_point(sa, pa, k);
            let next = polygon_point(sa, pa, (k + 1u) % sa.count);
            best = min(best, circle_edge_toi(v, next, polygon_normal(sa, pa, k), centre, sb.radius, s.w));
        }
    } else if plan.pair_kind == PAIR_CIRCLE_CIRCLE {
        // The frame's origin is a's centre.
        best = disc_toi(placement_in_frame_of(plan.b, plan.a).offset, sa.radius + sb.radius, s.w);
    } else if plan.pair_kind == PAIR_POLYGON_CAPSULE {
        let pa = Placement(vec2<f32>(0.0), transforms[plan.a].rotation);
        let pb = placement_in_frame_of(plan.b, plan.a);
        let e0 = polygon_point(sb, pb, 0u);
        let e1 = polygon_point(sb, pb, 1u);
        for (var k = first; k < end; k++) {
            let v = polygon_point(sa, pa, k);
            let next = polygon_point(sa, pa, (k + 1u) % sa.count);
            best = min(best, edge_capsule_toi(v, next, e0, e1, sb.radius, s.w));
        }
    } else if plan.pair_kind == PAIR_CIRCLE_CAPSULE {
        // a's centre (the frame's origin) moving by -w into the capsule grown by its radius.
        let pb = placement_in_frame_of(plan.b, plan.a);
        best = entry_toi(vec2<f32>(0.0), -s.w, polygon_point(sb, pb, 0u), polygon_point(sb, pb, 1u), sa.radius + sb.radius);
    } else if plan.pair_kind == PAIR_CAPSULE_CAPSULE {
        let pa = Placement(vec2<f32>(0.0), transforms[plan.a].rotation);
        let pb = placement_in_frame_of(plan.b, plan.a);
        let a0 = polygon_point(sa, pa, 0u);
        let a1 = polygon_point(sa, pa, 1u);
        let b0 = polygon_point(sb, pb, 0u);
        let b1 = polygon_point(sb, pb, 1u);
        let reach = sa.radius + sb.radius;
        best = min(min(entry_toi(b0, s.w, a0, a1, reach), entry_toi(b1, s.w, a0, a1, reach)),
            min(entry_toi(a0, -s.w, b0, b1, reach), entry_toi(a1, -s.w, b0, b1, reach)));
    } else {
        for (var u = first; u < end; u++) {
            best = min(best, bitmask_unit_toi(plan, s, u));
        }
    }
    return vec2<f32>(best, 1.0);
}

// The time a single chunk gives, or NO_TOI.
fn toi_of_chunk(kind: u32, range: vec2<f32>) -> f32 {
    if clips_range(kind) && range.x > range.y {
        return NO_TOI;
    }
    return range.x;
}

// ---- the kernels ----

// Appends a swept pair and its time, counting it even when it does not fit: the host
// grows and reruns.
fn emit_swept(pair: vec2<u32>, toi: f32) {
    let slot = atomicAdd(&counters.pairs, 1u);
    if slot < params.pair_capacity {
        pairs[slot] = pair;
        tois[slot] = bitcast<f32>(time_bits(toi));
    }
}

// The verdict of one candidate (see VERDICT_*): the static test first, then the time of
// impact, each decided here when it is one chunk.
fn sweep_verdict(plan: Plan) -> vec2<u32> {
    var static_chunks = plan.chunks;
    if plan.chunks <= 1u {
        let witness = plan.chunks == 1u && chunk_has_witness(plan, 0u);
        if witness == witness_collides(plan) {
            return vec2<u32>(VERDICT_HIT, bitcast<u32>(0.0));
        }
        static_chunks = 0u; // apart at t = 0
    }
    let s = sweep_plan_of(plan);
    if static_chunks == 0u && s.chunks <= 1u {
        var toi = NO_TOI;
        if s.chunks == 1u {
            toi = toi_of_chunk(plan.pair_kind, toi_chunk(plan, s, 0u));
        }
        if toi <= 1.0 {
            return vec2<u32>(VERDICT_HIT, bitcast<u32>(toi));
        }
        return vec2<u32>(VERDICT_MISS, 0u);
    }
    let blocks = (static_chunks + s.chunks + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    if blocks > MAX_BLOCKS {
        return vec2<u32>(VERDICT_HOST, 0u);
    }
    return vec2<u32>(VERDICT_LONG + static_chunks, s.chunks);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn sweep(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let index = global_index(workgroup, local);
    if index >= candidate_count() {
        return;
    }
    let stored = candidates[index];
    let candidate = unpack_candidate(stored);
    verdicts[index] = sweep_verdict(plan_for(candidate_kind(stored), candidate.x, candidate.y));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn sweep_hand_over(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let index = global_index(workgroup, local);
    if index >= candidate_count() {
        return;
    }
    let verdict = verdicts[index];
    let candidate = unpack_candidate(candidates[index]);
    if verdict.x == VERDICT_HIT {
        emit_swept(candidate, bitcast<f32>(verdict.y));
        return;
    }
    if verdict.x == VERDICT_HOST {
        emit_swept(candidate, HOST_TOI);
        return;
    }
    if verdict.x < VERDICT_LONG {
        return;
    }
    let static_chunks = verdict.x - VERDICT_LONG;
    let blocks = (static_chunks + verdict.y + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    // Count past the ends, as every append does: the host grows and reruns.
    let long_index = atomicAdd(&counters.long_pairs, 1u);
    let first_task = atomicAdd(&counters.tasks, blocks);
    if long_index >= params.long_pair_capacity {
        return;
    }
    swept_long_pairs[long_index].pair = candidate;
    swept_long_pairs[long_index].first_task = first_task;
    swept_long_pairs[long_index].static_chunks = static_chunks;
    swept_long_pairs[long_index].toi_chunks = verdict.y;
    swept_long_pairs[long_index].kind = candidate_kind(candidates[index]);
    atomicStore(&swept_long_pairs[long_index].witness, 0u);
    atomicStore(&swept_long_pairs[long_index].enter, bitcast<u32>(0.0));
    atomicStore(&swept_long_pairs[long_index].exit, bitcast<u32>(1.0));
    atomicStore(&swept_long_pairs[long_index].first, bitcast<u32>(NO_TOI));
    // At most MAX_BLOCKS iterations (sweep_verdict).
    let end = min(first_task + blocks, params.task_capacity);
    for (var t = first_task; t < end; t++) {
        tasks[t] = long_index;
    }
}

// One workgroup per block of WORKGROUP_SIZE chunks.
@compute @workgroup_size(1)
fn sweep_long_args() {
    params = uploaded_params;
    let blocks = min(atomicLoad(&counters.tasks), params.task_capacity);
    dispatch_args[ARGS_TASKS] = DispatchArgs(min(blocks, DISPATCH_WIDTH), (blocks + DISPATCH_WIDTH - 1u) / DISPATCH_WIDTH, 1u);
    dispatch_args[ARGS_LONG] = dispatch_for(min(atomicLoad(&counters.long_pairs), params.long_pair_capacity));
}

// One chunk of a long candidate: a static chunk records a witness (the chunks that
// start after one was found skip their work); a chunk of the time of impact folds its
// range or earliest impact into the candidate's by atomic maximum and minimum, which
// order times in [0, 2] as their bits do.
@compute @workgroup_size(WORKGROUP_SIZE)
fn sweep_task(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let block = workgroup_index(workgroup);
    if block >= min(atomicLoad(&counters.tasks), params.task_capacity) {
        return;
    }
    let long_index = tasks[block];
    let pair = swept_long_pairs[long_index].pair;
    let static_chunks = swept_long_pairs[long_index].static_chunks;
    let chunk = (block - swept_long_pairs[long_index].first_task) * WORKGROUP_SIZE + local;
    if chunk >= static_chunks + swept_long_pairs[long_index].toi_chunks {
        return;
    }
    let plan = plan_of(pair.x, pair.y);
    if chunk < static_chunks {
        if atomicLoad(&swept_long_pairs[long_index].witness) == 0u && chunk_has_witness(plan, chunk) {
            atomicStore(&swept_long_pairs[long_index].witness, 1u);
        }
        return;
    }
    let s = sweep_plan_of(plan);
    let range = toi_chunk(plan, s, chunk - static_chunks);
    if clips_range(plan.pair_kind) {
        if range.x > range.y {
            atomicMax(&swept_long_pairs[long_index].enter, bitcast<u32>(NO_TOI));
        } else {
            atomicMax(&swept_long_pairs[long_index].enter, time_bits(range.x));
            atomicMin(&swept_long_pairs[long_index].exit, time_bits(range.y));
        }
    } else if range.x <= 1.0 {
        atomicMin(&swept_long_pairs[long_index].first, time_bits(range.x));
    }
}

// Whether a witness of a static chunk means the pair collides (narrow.wgsl's
// witness_collides, from the kind pair alone).
fn kind_witness_collides(kind: u32) -> bool {
    return kind != PAIR_POLYGON_POLYGON && kind != PAIR_POLYGON_CIRCLE;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn sweep_finish(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let long_index = global_index(workgroup, local);
    if long_index >= min(atomicLoad(&counters.long_pairs), params.long_pair_capacity) {
        return;
    }
    let pair = swept_long_pairs[long_index].pair;
    let kind = swept_long_pairs[long_index].kind;
    let witness = atomicLoad(&swept_long_pairs[long_index].witness) != 0u;
    // static_chunks 0: sweep found the pair apart at t = 0.
    if swept_long_pairs[long_index].static_chunks > 0u && witness == kind_witness_collides(kind) {
        emit_swept(pair, 0.0);
        return;
    }
    if swept_long_pairs[long_index].toi_chunks == 0u {
        return;
    }
    var toi = bitcast<f32>(atomicLoad(&swept_long_pairs[long_index].first));
    if clips_range(kind) {
        let range = vec2<f32>(bitcast<f32>(atomicLoad(&swept_long_pairs[long_index].enter)),
            bitcast<f32>(atomicLoad(&swept_long_pairs[long_index].exit)));
        toi = toi_of_chunk(kind, range);
    }
    if toi <= 1.0 {
        emit_swept(pair, toi);
    }
}
