// Stage 3, narrow phase: the exact test of every candidate pair, appending those that
// collide to the counted pair buffer. CPU twin: src/cpu/narrow.rs, function for function.
//
// Each pair is tested in a frame whose origin is one of the two bodies, so that the
// coordinates stay small (a few thousand units at most) and f32 rounding stays far
// below the format's 0.01 tolerance even where world coordinates reach ±16384.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> shapes: array<PackedShape>;
@group(0) @binding(2) var<storage, read> polygon_vertices: array<PolygonVertex>;
@group(0) @binding(3) var<storage, read> bitmask_words: array<u32>;
@group(0) @binding(4) var<storage, read> transforms: array<BodyTransform>;
@group(0) @binding(5) var<storage, read> infos: array<BodyInfo>;
@group(0) @binding(6) var<storage, read> candidates: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read_write> counters: Counters;
@group(0) @binding(8) var<storage, read_write> pairs: array<vec2<u32>>;
@group(0) @binding(9) var<storage, read_write> narrow_dispatch: DispatchArgs;

const FAR: f32 = 3.4e38;

// A body's rotation and its position in the pair's frame.
struct Placement {
    offset: vec2<f32>,
    rotation: vec2<f32>,
}

// ---- polygons and circles ----

fn polygon_point(p: PackedShape, place: Placement, k: u32) -> vec2<f32> {
    return place.offset + rotate(polygon_vertices[p.first + k].position, place.rotation);
}

fn polygon_normal(p: PackedShape, place: Placement, k: u32) -> vec2<f32> {
    return rotate(polygon_vertices[p.first + k].normal, place.rotation);
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

// Whether some edge normal of `a` separates `a` from `b`; stops at the first one.
fn has_separating_normal(a: PackedShape, pa: Placement, b: PackedShape, pb: Placement) -> bool {
    for (var k = 0u; k < a.count; k++) {
        let axis = polygon_normal(a, pa, k);
        if intervals_apart(polygon_interval(a, pa, axis), polygon_interval(b, pb, axis)) {
            return true;
        }
    }
    return false;
}

// Separating axis test: convex polygons are disjoint exactly when an edge normal of one separates them.
fn polygon_polygon(a: PackedShape, pa: Placement, b: PackedShape, pb: Placement) -> bool {
    return !has_separating_normal(a, pa, b, pb) && !has_separating_normal(b, pb, a, pa);
}

// Separating axis test of a circle against a polygon: the polygon's edge normals plus the axis
// from the circle's centre to the nearest vertex, without which a circle diagonally off a
// corner would be reported as a hit.
fn circle_polygon(centre: vec2<f32>, radius: f32, p: PackedShape, pp: Placement) -> bool {
    var nearest = polygon_point(p, pp, 0u);
    for (var k = 0u; k < p.count; k++) {
        let axis = polygon_normal(p, pp, k);
        let c = dot(centre, axis);
        if intervals_apart(polygon_interval(p, pp, axis), vec2<f32>(c - radius, c + radius)) {
            return false;
        }
        let v = polygon_point(p, pp, k);
        if dot(v - centre, v - centre) < dot(nearest - centre, nearest - centre) {
            nearest = v;
        }
    }
    let towards = centre - nearest;
    let distance = length(towards);
    if distance == 0.0 {
        return true; // the centre is on a vertex
    }
    let axis = towards / distance;
    let c = dot(centre, axis);
    return !intervals_apart(polygon_interval(p, pp, axis), vec2<f32>(c - radius, c + radius));
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
    return bitmask_words[m.first + u32(row) * m.words_per_row + u32(w)];
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
fn polygon_span(p: PackedShape, pp: Placement, y0: f32, y1: f32) -> vec2<f32> {
    var span = vec2<f32>(FAR, -FAR);
    for (var k = 0u; k < p.count; k++) {
        let a = polygon_point(p, pp, k);
        let b = polygon_point(p, pp, (k + 1u) % p.count);
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
    }
    return span;
}

// A polygon (placed in the mask's frame) against the set pixels of mask `m`.
fn polygon_bitmask(p: PackedShape, pp: Placement, m: PackedShape) -> bool {
    var y_range = vec2<f32>(FAR, -FAR);
    for (var k = 0u; k < p.count; k++) {
        let y = polygon_point(p, pp, k).y;
        y_range = vec2<f32>(min(y_range.x, y), max(y_range.y, y));
    }
    let rows = rows_between(m, y_range.x, y_range.y);
    for (var row = rows.x; row <= rows.y; row++) {
        let span = polygon_span(p, pp, f32(row), f32(row + 1));
        if span.x <= span.y && span_hits_row(m, row, span.x, span.y) {
            return true;
        }
    }
    return false;
}

// A circle (centre in the mask's frame) against the set pixels of mask `m`, row by row.
fn circle_bitmask(centre: vec2<f32>, radius: f32, m: PackedShape) -> bool {
    let rows = rows_between(m, centre.y - radius, centre.y + radius);
    for (var row = rows.x; row <= rows.y; row++) {
        // Distance from the centre to the row's band, then the half chord there.
        let dy = max(max(f32(row) - centre.y, centre.y - f32(row + 1)), 0.0);
        if dy > radius {
            continue;
        }
        let half = sqrt((radius - dy) * (radius + dy));
        if span_hits_row(m, row, centre.x - half, centre.x + half) {
            return true;
        }
    }
    return false;
}

// Two masks at whole-number origins: a word of `a` against the 32 pixels of `b` under it.
fn bitmask_bitmask(a: PackedShape, origin_a: vec2<i32>, b: PackedShape, origin_b: vec2<i32>) -> bool {
    let d = origin_b - origin_a; // b's origin in a's pixels
    let row_end = min(i32(a.rows), d.y + i32(b.rows));
    let column_first = max(0, d.x);
    let column_end = min(i32(a.count), d.x + i32(b.count));
    if column_first >= column_end {
        return false;
    }
    for (var row = max(0, d.y); row < row_end; row++) {
        for (var w = column_first >> 5u; w <= (column_end - 1) >> 5u; w++) {
            let bits_a = mask_word(a, row, w);
            if bits_a != 0u && (bits_a & mask_bits(b, row - d.y, w * 32 - d.x)) != 0u {
                return true;
            }
        }
    }
    return false;
}

// ---- one candidate pair ----

fn bodies_collide(i: u32, j: u32) -> bool {
    // Order by shape kind (polygon < circle < bitmask) so each kind pair has one case.
    var a = i;
    var b = j;
    if shapes[infos[j].shape].kind < shapes[infos[i].shape].kind {
        a = j;
        b = i;
    }
    let sa = shapes[infos[a].shape];
    let sb = shapes[infos[b].shape];
    let ta = transforms[a];
    let tb = transforms[b];
    if sa.kind == SHAPE_POLYGON {
        let pa = Placement(vec2<f32>(0.0), ta.rotation);
        if sb.kind == SHAPE_POLYGON {
            return polygon_polygon(sa, pa, sb, Placement(tb.position - ta.position, tb.rotation));
        }
        if sb.kind == SHAPE_CIRCLE {
            return circle_polygon(tb.position - ta.position, sb.radius, sa, pa);
        }
        return polygon_bitmask(sa, Placement(ta.position - tb.position, ta.rotation), sb);
    }
    if sa.kind == SHAPE_CIRCLE {
        if sb.kind == SHAPE_CIRCLE {
            return circle_circle(tb.position - ta.position, sa.radius, sb.radius);
        }
        return circle_bitmask(ta.position - tb.position, sa.radius, sb);
    }
    return bitmask_bitmask(sa, vec2<i32>(ta.position), sb, vec2<i32>(tb.position));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let index = global_index(workgroup, local);
    if index >= min(atomicLoad(&counters.candidates), params.candidate_capacity) {
        return;
    }
    let candidate = candidates[index];
    if bodies_collide(candidate.x, candidate.y) {
        // Count every pair, store those that fit: the host grows and reruns.
        let slot = atomicAdd(&counters.pairs, 1u);
        if slot < params.pair_capacity {
            pairs[slot] = candidate;
        }
    }
}

// Sizes the narrow dispatch from the candidate count, so no thread is launched for nothing
// and the count never travels to the host and back.
@compute @workgroup_size(1)
fn narrow_args() {
    let count = min(atomicLoad(&counters.candidates), params.candidate_capacity);
    let groups = (count + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    narrow_dispatch = DispatchArgs(min(groups, DISPATCH_WIDTH), (groups + DISPATCH_WIDTH - 1u) / DISPATCH_WIDTH, 1u);
}
