// Stage 3, narrow phase: the exact test of every candidate pair, appending those that
// collide to the counted pair buffer. CPU twin: src/cpu/narrow.rs, function for function.
//
// Each pair is tested in a frame whose origin is one of the two bodies, so that the
// coordinates stay small (a few thousand units at most) and f32 rounding stays far
// below the format's 0.01 tolerance even where world coordinates reach ±16384.
//
// Every test is planned as `units` units of bounded work (an edge of a polygon pair, a
// pixel row of a bitmask pair), grouped into chunks of at most CHUNK_BUDGET loop
// iterations. A chunk either finds a witness or not: for polygon and circle pairs a
// separating edge (so they do not collide), for pairs with a bitmask or two circles a
// point in common (so they do). A pair of one chunk is decided by its own invocation;
// a longer one is handed to narrow_task, one invocation per chunk, and decided by
// narrow_finish from whether any chunk found a witness.
//
// Why: Mesa's llvmpipe (lavapipe and GL) silently ends every loop of an invocation once
// it has run 65535 iterations in all. Measured before the split: two 128-gons 15 units
// deep were reported apart (256 axes of 256 projections each), and two 2048x2048 masks
// sharing their last pixel (2048 rows of 64 words) were reported apart, on both
// adapters, with no error. Real GPUs have no such cap, but a wave waits for its longest
// invocation, so chunks that run side by side pay there too.
//
// Convex polygons A and B are disjoint exactly when some edge of one has the whole other
// polygon strictly beyond its line: A - B is a convex polygon whose edges are edges of A
// and of B, and a point (the origin) outside a convex polygon is beyond one of its edges.
// So an edge costs one pass over the other polygon's vertices, not both polygons'.

// The frame's parameters as uploaded, and the copy every entry point that reads them
// takes first (see Params in types.wgsl for why).
@group(0) @binding(0) var<uniform> uploaded_params: Params;
var<private> params: Params;
// Binding 1, the shape library, is declared with library_u32 (src/layout/shaders.rs).
@group(0) @binding(2) var<storage, read> transforms: array<BodyTransform>;
@group(0) @binding(3) var<storage, read> infos: array<BodyInfo>;
@group(0) @binding(4) var<storage, read> candidates: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> counters: Counters;
@group(0) @binding(6) var<storage, read_write> pairs: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read_write> dispatch_args: array<DispatchArgs>;
@group(0) @binding(8) var<storage, read_write> long_pairs: array<LongPair>;
@group(0) @binding(9) var<storage, read_write> tasks: array<u32>;
@group(0) @binding(10) var<storage, read_write> verdicts: array<vec2<u32>>;
@group(0) @binding(11) var<storage, read_write> header: PairsHeader;

const FAR: f32 = 3.4e38;

// A body's rotation and its position in the pair's frame.
struct Placement {
    offset: vec2<f32>,
    rotation: vec2<f32>,
}

// ---- polygons and circles ----

fn polygon_point(p: PackedShape, place: Placement, k: u32) -> vec2<f32> {
    return place.offset + rotate(library_vertex(p.first + k).position, place.rotation);
}

fn polygon_normal(p: PackedShape, place: Placement, k: u32) -> vec2<f32> {
    return rotate(library_vertex(p.first + k).normal, place.rotation);
}

// The polygon's projection on `axis`, as (min, max).
fn polygon_interval(p: PackedShape, place: Placement, axis: vec2<f32>) -> vec2<f32> {
    var interval = vec2<f32>(FAR, -FAR);
    for (var k = 0u; k < p.count; k++) {
        let d = dot(polygon_point(p, place, k), axis);
        interval = vec2<f32>(min(interval.x, d), max(interval.y, d));
    }
    return interval;
}

// Closed intervals (min, max) with a gap between them.
fn intervals_apart(a: vec2<f32>, b: vec2<f32>) -> bool {
    return a.y < b.x || b.y < a.x;
}

// Whether polygon `q` lies strictly beyond the line of edge `k` of polygon `p`. Tries
// q's vertices from `*first` on, round the polygon, and leaves there the vertex found
// short of the line, if any: the next edge of p, turned a little further, most often
// has that vertex short of its line too, so a pair that collides reads about one vertex
// an edge instead of running until it meets one.
fn beyond_edge(p: PackedShape, pp: Placement, k: u32, q: PackedShape, pq: Placement, first: ptr<function, u32>) -> bool {
    let axis = polygon_normal(p, pp, k);
    let edge = dot(polygon_point(p, pp, k), axis);
    var v = *first;
    for (var read = 0u; read < q.count; read++) {
        if dot(polygon_point(q, pq, v), axis) <= edge {
            *first = v;
            return false;
        }
        v = select(v + 1u, 0u, v + 1u == q.count);
    }
    return true;
}

// Edge `unit` of a pair of polygons a (placed `pa`) and b (`pb`), a's edges first: edge
// `k` of polygon `own`, with `other` the polygon it is tested against. The roles are
// chosen by assignment and the edge then tested once, because llvmpipe runs both sides
// of a branch: a test written under each side cost two passes over the vertices a turn
// (measured: the crowded mixed scenes' narrow stage took 8% less this way).
struct PolygonEdge {
    own: PackedShape,
    own_at: Placement,
    other: PackedShape,
    other_at: Placement,
    k: u32,
    of_b: bool,
}

fn polygon_pair_edge(sa: PackedShape, pa: Placement, sb: PackedShape, pb: Placement, unit: u32) -> PolygonEdge {
    var e = PolygonEdge(sa, pa, sb, pb, unit, false);
    if unit >= sa.count {
        e = PolygonEdge(sb, pb, sa, pa, unit - sa.count, true);
    }
    return e;
}

// Separating axis test of a circle against a polygon: the polygon's edges, then the axis
// from the circle's centre to the nearest vertex, without which a circle diagonally off
// a corner would be reported as a hit. True when they are apart.
fn circle_polygon_apart(centre: vec2<f32>, radius: f32, p: PackedShape, pp: Placement) -> bool {
    var nearest = polygon_point(p, pp, 0u);
    for (var k = 0u; k < p.count; k++) {
        let axis = polygon_normal(p, pp, k);
        let v = polygon_point(p, pp, k);
        if dot(centre, axis) - radius > dot(v, axis) {
            return true;
        }
        if dot(v - centre, v - centre) < dot(nearest - centre, nearest - centre) {
            nearest = v;
        }
    }
    let towards = centre - nearest;
    let distance = length(towards);
    if distance == 0.0 {
        return false; // the centre is on a vertex
    }
    let axis = towards / distance;
    let c = dot(centre, axis);
    return intervals_apart(polygon_interval(p, pp, axis), vec2<f32>(c - radius, c + radius));
}

fn circle_circle(offset: vec2<f32>, radius_a: f32, radius_b: f32) -> bool {
    let reach = radius_a + radius_b;
    return dot(offset, offset) <= reach * reach;
}

// ---- bitmasks ----

// Word `w` of row `row` of mask `m`, or 0 outside the mask.
fn mask_word(m: PackedShape, row: i32, w: i32) -> u32 {
    if row < 0 || row >= i32(m.rows) || w < 0 || w >= i32(m.words_per_row) {
        return 0u;
    }
    return library_word(m.first + u32(row) * m.words_per_row + u32(w));
}

// Pixels `start .. start + 32` of row `row` as one word (bit k is column start + k);
// pixels outside the mask read as clear.
fn mask_bits(m: PackedShape, row: i32, start: i32) -> u32 {
    let w = start >> 5u;
    let shift = u32(start & 31);
    let low = mask_word(m, row, w) >> shift;
    // A shift by 32 is not defined in WGSL: an aligned start needs no high part.
    let high = select(mask_word(m, row, w + 1) << (32u - shift), 0u, shift == 0u);
    return low | high;
}

// Whether a set pixel of row `row` lies in columns `first ..= last`.
fn row_has_set_pixel(m: PackedShape, row: i32, first: i32, last: i32) -> bool {
    let lo = max(first, 0);
    let hi = min(last, i32(m.count) - 1);
    if row < 0 || row >= i32(m.rows) || lo > hi {
        return false;
    }
    for (var w = lo >> 5u; w <= hi >> 5u; w++) {
        let first_bit = u32(max(lo - w * 32, 0));
        let last_bit = u32(min(hi - w * 32, 31));
        let wanted = (0xffffffffu << first_bit) & (0xffffffffu >> (31u - last_bit));
        if (mask_word(m, row, w) & wanted) != 0u {
            return true;
        }
    }
    return false;
}

// Whether the closed span `x_lo ..= x_hi` (mask frame) meets a set pixel of row `row`.
// Pixel c covers [c, c + 1], so it meets the span when c <= x_hi and c + 1 >= x_lo.
fn span_hits_row(m: PackedShape, row: i32, x_lo: f32, x_hi: f32) -> bool {
    let limit = f32(m.count) + 1.0; // clamp first: huge floats do not convert to i32
    let first = i32(ceil(clamp(x_lo, -1.0, limit))) - 1;
    let last = i32(floor(clamp(x_hi, -1.0, limit)));
    return row_has_set_pixel(m, row, first, last);
}

// Rows of mask `m` whose band [r, r + 1] meets `y_lo ..= y_hi`, as (first, last).
fn rows_between(m: PackedShape, y_lo: f32, y_hi: f32) -> vec2<i32> {
    let limit = f32(m.rows) + 1.0;
    let first = max(i32(ceil(clamp(y_lo, -1.0, limit))) - 1, 0);
    let last = min(i32(floor(clamp(y_hi, -1.0, limit))), i32(m.rows) - 1);
    return vec2<i32>(first, last);
}

// The x extent of the polygon inside the strip y0 <= y <= y1, as (min, max); min > max when empty.
// A convex polygon cut by a strip is convex, so the pixels of that row it meets are exactly
// those whose x range meets this extent: the test is exact, row by row, word by word.
// Each edge runs from the vertex before to the vertex at hand, carried over from the turn
// before, so a row loads each vertex once (a polygon's row took two loads a vertex).
fn polygon_span(p: PackedShape, pp: Placement, y0: f32, y1: f32) -> vec2<f32> {
    var span = vec2<f32>(FAR, -FAR);
    var a = polygon_point(p, pp, p.count - 1u);
    for (var k = 0u; k < p.count; k++) {
        let b = polygon_point(p, pp, k);
        if a.y >= y0 && a.y <= y1 {
            span = vec2<f32>(min(span.x, a.x), max(span.y, a.x));
        }
        for (var side = 0u; side < 2u; side++) {
            let y = select(y0, y1, side == 1u);
            if (a.y < y) != (b.y < y) {
                let x = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y);
                span = vec2<f32>(min(span.x, x), max(span.y, x));
            }
        }
        a = b;
    }
    return span;
}

// The y extent of the polygon, as (min, max).
fn polygon_y_range(p: PackedShape, pp: Placement) -> vec2<f32> {
    var y_range = vec2<f32>(FAR, -FAR);
    for (var k = 0u; k < p.count; k++) {
        let y = polygon_point(p, pp, k).y;
        y_range = vec2<f32>(min(y_range.x, y), max(y_range.y, y));
    }
    return y_range;
}

// Row `row` of mask `m` against a polygon placed in the mask's frame.
fn polygon_row_hits(p: PackedShape, pp: Placement, m: PackedShape, row: i32) -> bool {
    let span = polygon_span(p, pp, f32(row), f32(row + 1));
    return span.x <= span.y && span_hits_row(m, row, span.x, span.y);
}

// Row `row` of mask `m` against a circle (centre in the mask's frame).
fn circle_row_hits(centre: vec2<f32>, radius: f32, m: PackedShape, row: i32) -> bool {
    // Distance from the centre to the row's band, then the half chord there.
    let dy = max(max(f32(row) - centre.y, centre.y - f32(row + 1)), 0.0);
    if dy > radius {
        return false;
    }
    let half = sqrt((radius - dy) * (radius + dy));
    return span_hits_row(m, row, centre.x - half, centre.x + half);
}

// ---- capsules ----
// A capsule's ends are stored as a polygon's first two vertices (polygon_point reads
// them), its radius as a circle's.

// Unit `unit` of a polygon against a capsule (segment e0 e1, `radius`): for an edge of
// the polygon, whether the segment comes within the radius of it; for the last unit,
// whether the segment's first end is inside the polygon (a segment all inside comes near
// no edge). They meet exactly when some unit says so. Twin of polygon_capsule_unit.
fn polygon_capsule_unit(p: PackedShape, pp: Placement, e0: vec2<f32>, e1: vec2<f32>, radius: f32, unit: u32) -> bool {
    if unit < p.count {
        let next = select(unit + 1u, 0u, unit + 1u == p.count);
        return segments_distance(polygon_point(p, pp, unit), polygon_point(p, pp, next), e0, e1) <= radius;
    }
    for (var k = 0u; k < p.count; k++) {
        let axis = polygon_normal(p, pp, k);
        if dot(e0, axis) > dot(polygon_point(p, pp, k), axis) {
            return false;
        }
    }
    return true;
}

// The x extent of the quadrilateral q0 q1 q2 q3 inside the strip y0 <= y <= y1, as
// polygon_span computes a polygon's; min > max when empty.
fn quad_span(q0: vec2<f32>, q1: vec2<f32>, q2: vec2<f32>, q3: vec2<f32>, y0: f32, y1: f32) -> vec2<f32> {
    var corners = array<vec2<f32>, 4>(q0, q1, q2, q3);
    var span = vec2<f32>(FAR, -FAR);
    var a = q3;
    for (var k = 0u; k < 4u; k++) {
        let b = corners[k];
        if a.y >= y0 && a.y <= y1 {
            span = vec2<f32>(min(span.x, a.x), max(span.y, a.x));
        }
        for (var side = 0u; side < 2u; side++) {
            let y = select(y0, y1, side == 1u);
            if (a.y < y) != (b.y < y) {
                let x = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y);
                span = vec2<f32>(min(span.x, x), max(span.y, x));
            }
        }
        a = b;
    }
    return span;
}

// The x extent of the closed disc inside the strip y0 <= y <= y1; min > max when empty.
fn disc_span(centre: vec2<f32>, radius: f32, y0: f32, y1: f32) -> vec2<f32> {
    let dy = max(max(y0 - centre.y, centre.y - y1), 0.0);
    if dy > radius {
        return vec2<f32>(FAR, -FAR);
    }
    let half = sqrt((radius - dy) * (radius + dy));
    return vec2<f32>(centre.x - half, centre.x + half);
}

// The x extent of a capsule inside the strip y0 <= y <= y1: the union of those of the
// rectangle its segment sweeps along its normal and of its end discs, which make it up
// (its part in the strip is convex, so the union is one extent). Twin of
// placed::capsule_span.
fn capsule_span(e0: vec2<f32>, e1: vec2<f32>, radius: f32, y0: f32, y1: f32) -> vec2<f32> {
    let along = e1 - e0;
    let span_length = length(along);
    var side = vec2<f32>(0.0);
    if span_length > 0.0 {
        side = vec2<f32>(-along.y, along.x) * (radius / span_length);
    }
    let quad = quad_span(e0 + side, e1 + side, e1 - side, e0 - side, y0, y1);
    let d0 = disc_span(e0, radius, y0, y1);
    let d1 = disc_span(e1, radius, y0, y1);
    return vec2<f32>(min(quad.x, min(d0.x, d1.x)), max(quad.y, max(d0.y, d1.y)));
}

// Row `row` of mask `m` against a capsule placed in the mask's frame.
fn capsule_row_hits(e0: vec2<f32>, e1: vec2<f32>, radius: f32, m: PackedShape, row: i32) -> bool {
    let span = capsule_span(e0, e1, radius, f32(row), f32(row + 1));
    return span.x <= span.y && span_hits_row(m, row, span.x, span.y);
}

// Row `row` of mask `a` against mask `b`, whose origin is `d` in a's pixels: a word of
// `a` against the 32 pixels of `b` under it, for the columns both cover.
fn bitmask_row_hits(a: PackedShape, b: PackedShape, d: vec2<i32>, row: i32) -> bool {
    let column_first = max(0, d.x);
    let column_end = min(i32(a.count), d.x + i32(b.count));
    for (var w = column_first >> 5u; w <= (column_end - 1) >> 5u; w++) {
        let bits_a = mask_word(a, row, w);
        if bits_a != 0u && (bits_a & mask_bits(b, row - d.y, w * 32 - d.x)) != 0u {
            return true;
        }
    }
    return false;
}

// ---- planning a test in chunks ----

// One candidate's test: bodies `a` and `b` ordered by shape kind (polygon < circle <
// capsule < bitmask) so each kind pair has one case; `units` units of work starting at
// `first_unit` (the first pixel row, for pairs with a bitmask), `per_chunk` to a chunk.
struct Plan {
    a: u32,
    b: u32,
    sa: PackedShape,
    sb: PackedShape,
    pair_kind: u32,
    first_unit: i32,
    units: u32,
    per_chunk: u32,
    chunks: u32,
}

fn placement_in_frame_of(body: u32, origin: u32) -> Placement {
    return Placement(transforms[body].position - transforms[origin].position, transforms[body].rotation);
}

// The kind pair (PAIR_*) of bodies i and j, from their shapes' kinds.
fn pair_kind_of(i: u32, j: u32) -> u32 {
    return pair_kind(library_kind(infos[i].shape), library_kind(infos[j].shape));
}

// Plans the test of bodies i and j (costs at most one pass over a polygon's vertices).
fn plan_of(i: u32, j: u32) -> Plan {
    return plan_for(pair_kind_of(i, j), i, j);
}

// plan_of for a pair known to be of kind pair `kind`. Each narrow kernel passes its own
// constant, so once the shader compiler inlines this, a kernel keeps only its kind's
// branch: a branch that differs between invocations costs every invocation of the
// group on a GPU, and on llvmpipe even a branch no invocation takes is run, masked.
fn plan_for(kind: u32, i: u32, j: u32) -> Plan {
    // Each shape index loaded once: a storage word costs llvmpipe a loop over its lanes.
    let shape_i = infos[i].shape;
    let shape_j = infos[j].shape;
    let swap = library_kind(shape_j) < library_kind(shape_i);
    let a = select(i, j, swap);
    let b = select(j, i, swap);
    let sa = library_shape(select(shape_i, shape_j, swap));
    let sb = library_shape(select(shape_j, shape_i, swap));
    var plan = Plan(a, b, sa, sb, kind, 0, 1u, 1u, 1u);
    // Loop iterations per unit, and before the first.
    var unit_cost = 1u;
    var fixed_cost = 0u;
    if kind == PAIR_POLYGON_POLYGON {
        plan.units = sa.count + sb.count;
        unit_cost = max(sa.count, sb.count) + 1u;
    } else if kind == PAIR_POLYGON_CIRCLE {
        // One chunk: an edge and a vertex per iteration, never near the budget.
    } else if kind == PAIR_POLYGON_BITMASK {
        let y_range = polygon_y_range(sa, placement_in_frame_of(a, b));
        let rows = rows_between(sb, y_range.x, y_range.y);
        plan.first_unit = rows.x;
        plan.units = u32(max(rows.y - rows.x + 1, 0));
        // polygon_span runs 3 iterations a vertex (its loop over the two strip sides).
        unit_cost = 3u * sa.count + sb.words_per_row + 2u;
        fixed_cost = sa.count;
    } else if kind == PAIR_CIRCLE_CIRCLE || kind == PAIR_CIRCLE_CAPSULE || kind == PAIR_CAPSULE_CAPSULE {
        // One chunk of one step.
    } else if kind == PAIR_POLYGON_CAPSULE {
        // The polygon's edges, then whether the capsule's first end is inside it (a loop
        // over its edges, in whichever chunk meets that unit).
        plan.units = sa.count + 1u;
        fixed_cost = sa.count;
    } else if kind == PAIR_CAPSULE_BITMASK {
        let pa = placement_in_frame_of(a, b);
        let e0 = polygon_point(sa, pa, 0u);
        let e1 = polygon_point(sa, pa, 1u);
        let rows = rows_between(sb, min(e0.y, e1.y) - sa.radius, max(e0.y, e1.y) + sa.radius);
        plan.first_unit = rows.x;
        plan.units = u32(max(rows.y - rows.x + 1, 0));
        // capsule_span: four quad corners of 3 iterations each.
        unit_cost = 12u + sb.words_per_row + 2u;
    } else if kind == PAIR_CIRCLE_BITMASK {
        let centre = transforms[a].position - transforms[b].position;
        let rows = rows_between(sb, centre.y - sa.radius, centre.y + sa.radius);
        plan.first_unit = rows.x;
        plan.units = u32(max(rows.y - rows.x + 1, 0));
        unit_cost = sb.words_per_row + 2u;
    } else if kind == PAIR_BITMASK_BITMASK {
        let d = vec2<i32>(transforms[b].position) - vec2<i32>(transforms[a].position);
        let row_end = min(i32(sa.rows), d.y + i32(sb.rows));
        let columns = min(i32(sa.count), d.x + i32(sb.count)) - max(0, d.x);
        plan.first_unit = max(0, d.y);
        plan.units = select(0u, u32(max(row_end - plan.first_unit, 0)), columns > 0);
        unit_cost = sa.words_per_row + 2u;
    }
    plan.per_chunk = max((CHUNK_BUDGET - fixed_cost) / unit_cost, 1u);
    plan.chunks = (plan.units + plan.per_chunk - 1u) / plan.per_chunk;
    return plan;
}

// The row offset that unit `unit` of `units` rows tests: the middle row first, then
// outwards (middle, one below, one above, ...), so every row is tested once. Why: a
// pair that collides usually shares its middle rows, while its first row is the edge
// of a blob or the tip of a polygon; and since a loop runs until the last invocation of
// its group is done, the group's colliding pairs should stop at once.
fn row_of_unit(unit: u32, units: u32) -> u32 {
    let middle = (units - 1u) / 2u;
    return select(middle - unit / 2u, middle + (unit + 1u) / 2u, (unit & 1u) == 1u);
}

// Whether a witness means the pair collides (a shared point) rather than not (a separating edge).
fn witness_collides(plan: Plan) -> bool {
    let k = plan.pair_kind;
    return !(k == PAIR_POLYGON_POLYGON || k == PAIR_POLYGON_CIRCLE);
}

// Whether chunk `chunk` of the plan finds a witness.
fn chunk_has_witness(plan: Plan, chunk: u32) -> bool {
    let sa = plan.sa;
    let sb = plan.sb;
    let first = chunk * plan.per_chunk;
    let end = min(first + plan.per_chunk, plan.units);
    if plan.pair_kind == PAIR_POLYGON_POLYGON {
        let pa = Placement(vec2<f32>(0.0), transforms[plan.a].rotation);
        let pb = placement_in_frame_of(plan.b, plan.a);
        // Where the last edge of a (of b) found a vertex of b (of a) short of its line.
        var in_b = 0u;
        var in_a = 0u;
        for (var unit = first; unit < end; unit++) {
            let e = polygon_pair_edge(sa, pa, sb, pb, unit);
            var start = select(in_b, in_a, e.of_b);
            if beyond_edge(e.own, e.own_at, e.k, e.other, e.other_at, &start) {
                return true;
            }
            in_b = select(start, in_b, e.of_b);
            in_a = select(in_a, start, e.of_b);
        }
        return false;
    }
    if plan.pair_kind == PAIR_POLYGON_CIRCLE {
        let pa = Placement(vec2<f32>(0.0), transforms[plan.a].rotation);
        return circle_polygon_apart(placement_in_frame_of(plan.b, plan.a).offset, sb.radius, sa, pa);
    }
    if plan.pair_kind == PAIR_CIRCLE_CIRCLE {
        return circle_circle(placement_in_frame_of(plan.b, plan.a).offset, sa.radius, sb.radius);
    }
    if plan.pair_kind == PAIR_POLYGON_CAPSULE {
        let pa = Placement(vec2<f32>(0.0), transforms[plan.a].rotation);
        let pb = placement_in_frame_of(plan.b, plan.a);
        let e0 = polygon_point(sb, pb, 0u);
        let e1 = polygon_point(sb, pb, 1u);
        for (var unit = first; unit < end; unit++) {
            if polygon_capsule_unit(sa, pa, e0, e1, sb.radius, unit) {
                return true;
            }
        }
        return false;
    }
    if plan.pair_kind == PAIR_CIRCLE_CAPSULE {
        let pb = placement_in_frame_of(plan.b, plan.a);
        let e0 = polygon_point(sb, pb, 0u);
        let e1 = polygon_point(sb, pb, 1u);
        return segment_distance(e0, e1, vec2<f32>(0.0)) <= sa.radius + sb.radius;
    }
    if plan.pair_kind == PAIR_CAPSULE_CAPSULE {
        let pa = Placement(vec2<f32>(0.0), transforms[plan.a].rotation);
        let pb = placement_in_frame_of(plan.b, plan.a);
        return segments_distance(polygon_point(sa, pa, 0u), polygon_point(sa, pa, 1u),
            polygon_point(sb, pb, 0u), polygon_point(sb, pb, 1u)) <= sa.radius + sb.radius;
    }
    // Pixel rows of the mask, in the mask's frame (b's; the first mask's for two masks).
    let placed = placement_in_frame_of(plan.a, plan.b);
    let d = vec2<i32>(transforms[plan.b].position) - vec2<i32>(transforms[plan.a].position);
    for (var unit = first; unit < end; unit++) {
        let row = plan.first_unit + i32(row_of_unit(unit, plan.units));
        if plan.pair_kind == PAIR_POLYGON_BITMASK {
            if polygon_row_hits(sa, placed, sb, row) {
                return true;
            }
        } else if plan.pair_kind == PAIR_CIRCLE_BITMASK {
            if circle_row_hits(placed.offset, sa.radius, sb, row) {
                return true;
            }
        } else if plan.pair_kind == PAIR_CAPSULE_BITMASK {
            if capsule_row_hits(polygon_point(sa, placed, 0u), polygon_point(sa, placed, 1u), sa.radius, sb, row) {
                return true;
            }
        } else if plan.pair_kind == PAIR_BITMASK_BITMASK {
            if bitmask_row_hits(sa, sb, d, row) {
                return true;
            }
        }
    }
    return false;
}

// ---- the kernels ----

// Appends a colliding pair, counting it even when it does not fit: the host grows and reruns.
fn emit_pair(pair: vec2<u32>) {
    let slot = atomicAdd(&counters.pairs, 1u);
    if slot < params.pair_capacity {
        pairs[slot] = pair;
    }
}

// Crowded frames test each kind pair's candidates in a kernel of its own
// (narrow_polygon_polygon ... narrow_bitmask_bitmask), so that the invocations of a
// workgroup run the same code: the broad phase has appended each candidate to its kind
// pair's bin (emit_candidate in broad.wgsl), laid out by the host from an earlier
// frame's counts. Measured on lavapipe, 10k bitmasks: the narrow phase took 10.8 ms as
// one kernel branching on the kinds and 5.9 ms with the bitmask-bitmask test alone.
// Frames with few candidates keep one list and run `narrow`, one kernel for all: six
// dispatches more cost more than the divergence saves there (BENCHMARKS.md, "The narrow
// phase by kind pair").
//
// narrow_args   totals the bins, checks they held their candidates, sizes the dispatches;
// narrow_<kind> tests its bin's candidates, handing long tests to narrow_task;
// narrow        (few candidates) tests every candidate, whatever its kinds.

@compute @workgroup_size(1)
fn narrow_args() {
    params = uploaded_params;
    // The sum saturates: each bin's count stops near the limit (at most 2^31), but a few
    // of them may pass 2^32, and the host refuses the frame either way.
    var total = 0u;
    var overflowed = 0u;
    for (var bin = 0u; bin < PAIR_KINDS; bin++) {
        let count = atomicLoad(&counters.bin_counts[bin]);
        total = select(total + count, 0xffffffffu, total + count < total);
        if count > bin_capacity(bin) {
            overflowed |= 1u << bin;
        }
        if params.binned != 0u {
            atomicStore(&counters.kind_counts[bin], count);
        }
        dispatch_args[ARGS_BINS + bin] = dispatch_for(min(count, bin_capacity(bin)));
    }
    atomicStore(&counters.candidates, total);
    atomicStore(&counters.overflowed_bins, overflowed);
    dispatch_args[ARGS_NARROW] = dispatch_for(candidate_count());
}

// The candidates stored in the one list of a frame that is not binned (those past the
// buffer's end are counted, not stored: the host grows and reruns, and the kernels
// below only keep within the buffers meanwhile).
fn candidate_count() -> u32 {
    return min(atomicLoad(&counters.candidates), params.candidate_capacity);
}

// Every candidate, whatever its kind pair (frames with few candidates).
@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let index = global_index(workgroup, local);
    if index >= candidate_count() {
        return;
    }
    let stored = candidates[index];
    let candidate = unpack_candidate(stored);
    // Counted for the host, which lays out the bins of a crowded frame from them.
    atomicAdd(&counters.kind_counts[candidate_kind(stored)], 1u);
    if decide_or_hand_over(plan_for(candidate_kind(stored), candidate.x, candidate.y), candidate) {
        emit_pair(candidate);
    }
}

// The candidates of bin `kind`: decided here when a test is one chunk, else handed to
// narrow_task. `kind` is a constant in every caller (see plan_for).
fn narrow_bin(kind: u32, workgroup: vec3<u32>, local: u32) {
    let index = global_index(workgroup, local);
    if index >= min(atomicLoad(&counters.bin_counts[kind]), bin_capacity(kind)) {
        return;
    }
    let candidate = unpack_candidate(candidates[bin_start(kind) + index]);
    if decide_or_hand_over(plan_for(kind, candidate.x, candidate.y), candidate) {
        emit_pair(candidate);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_polygon_polygon(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    narrow_bin(PAIR_POLYGON_POLYGON, workgroup, local);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_polygon_circle(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    narrow_bin(PAIR_POLYGON_CIRCLE, workgroup, local);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_polygon_bitmask(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    narrow_bin(PAIR_POLYGON_BITMASK, workgroup, local);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_polygon_capsule(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    narrow_bin(PAIR_POLYGON_CAPSULE, workgroup, local);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_circle_circle(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    narrow_bin(PAIR_CIRCLE_CIRCLE, workgroup, local);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_circle_capsule(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    narrow_bin(PAIR_CIRCLE_CAPSULE, workgroup, local);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_capsule_capsule(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    narrow_bin(PAIR_CAPSULE_CAPSULE, workgroup, local);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_capsule_bitmask(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    narrow_bin(PAIR_CAPSULE_BITMASK, workgroup, local);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_circle_bitmask(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    narrow_bin(PAIR_CIRCLE_BITMASK, workgroup, local);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_bitmask_bitmask(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    narrow_bin(PAIR_BITMASK_BITMASK, workgroup, local);
}

// Whether a candidate whose test is one chunk collides; a longer test is handed to
// narrow_task (and false returned: narrow_finish decides it).
fn decide_or_hand_over(plan: Plan, candidate: vec2<u32>) -> bool {
    if plan.chunks <= 1u {
        let witness = plan.chunks == 1u && chunk_has_witness(plan, 0u);
        return witness == witness_collides(plan);
    }
    // Count past the ends, as every append does: the host grows and reruns.
    let long_index = atomicAdd(&counters.long_pairs, 1u);
    let first_task = atomicAdd(&counters.tasks, plan.chunks);
    if long_index >= params.long_pair_capacity {
        return false;
    }
    long_pairs[long_index].pair = candidate;
    long_pairs[long_index].first_task = first_task;
    atomicStore(&long_pairs[long_index].witness, 0u);
    let end = min(first_task + plan.chunks, params.task_capacity);
    for (var t = first_task; t < end; t++) {
        tasks[t] = long_index;
    }
    return false;
}

// Sizes the dispatches of narrow_task and narrow_finish (run only where the library may
// have long tests: has_long_tests in src/cpu/narrow.rs).
@compute @workgroup_size(1)
fn long_args() {
    params = uploaded_params;
    dispatch_args[ARGS_TASKS] = dispatch_for(min(atomicLoad(&counters.tasks), params.task_capacity));
    dispatch_args[ARGS_LONG] = dispatch_for(min(atomicLoad(&counters.long_pairs), params.long_pair_capacity));
}

// One chunk of a long test; the first to find a witness records it, and the chunks
// that start afterwards skip their work.
@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_task(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let t = global_index(workgroup, local);
    if t >= min(atomicLoad(&counters.tasks), params.task_capacity) {
        return;
    }
    let long_index = tasks[t];
    if atomicLoad(&long_pairs[long_index].witness) != 0u {
        return;
    }
    let pair = long_pairs[long_index].pair;
    let plan = plan_of(pair.x, pair.y);
    if chunk_has_witness(plan, t - long_pairs[long_index].first_task) {
        atomicStore(&long_pairs[long_index].witness, 1u);
    }
}

// Decides each long test from its chunks.
@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow_finish(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let long_index = global_index(workgroup, local);
    if long_index >= min(atomicLoad(&counters.long_pairs), params.long_pair_capacity) {
        return;
    }
    let pair = long_pairs[long_index].pair;
    let witness = atomicLoad(&long_pairs[long_index].witness) != 0u;
    if witness == witness_collides(plan_of(pair.x, pair.y)) {
        emit_pair(pair);
    }
}

// One thread, last in a frame recorded into the caller's encoder: the header the
// caller's shaders read, and the indirect dispatch of one invocation per stored pair.
@compute @workgroup_size(1)
fn publish() {
    params = uploaded_params;
    let count = atomicLoad(&counters.pairs);
    let stored = min(count, params.pair_capacity);
    let invalid = atomicLoad(&counters.invalid_bodies);
    // Every list within its buffer, the broad phase not stopped at the pair limit, no
    // invocation stopped by the loop guard and every body readable: then the pair buffer
    // holds the frame's every pair.
    let complete = atomicLoad(&counters.candidates) <= min(params.candidate_capacity, params.candidate_limit)
        && atomicLoad(&counters.overflowed_bins) == 0u
        && count <= params.pair_capacity
        && atomicLoad(&counters.deferred) <= params.deferred_capacity
        && atomicLoad(&counters.long_pairs) <= params.long_pair_capacity
        && atomicLoad(&counters.tasks) <= params.task_capacity
        && atomicLoad(&counters.unfinished) == 0u
        && invalid == 0u;
    header = PairsHeader(dispatch_for(stored), count, stored, params.pair_capacity, u32(complete), invalid);
}
