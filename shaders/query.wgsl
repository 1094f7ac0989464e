// Batched queries (scene format 1.1): rays, points and boxes against the frame's bodies,
// through the broad phase's grid. CPU twin: src/cpu/query.rs (its tests, function for
// function; its walk of the grid is `grid_candidates`). Host: src/gpu/query.rs.
//
// The grid is the broad phase's, built by its own kernels (bounds with assign_cell,
// allocate_buckets, scatter_cells) from the bodies' infos with every mask opened: a query
// has a mask of its own, so the grid must hold every body with a layer, whatever the
// body's own filter. Queries are one list: rays, then points, then boxes.
//
// query           one invocation per query: walks the rows of cells its reach covers,
//                 level by level (a ray: only the cells along its segment), in one
//                 loop, and hands each row's run of cells over as pieces of entries:
//                 neighbouring cells of a row have neighbouring buckets, whose entries
//                 lie together, so a run is one range of entries (split where the
//                 buckets' groups end, see allocate_buckets). A level with more cells
//                 than the walk may pass is handed over whole, in pieces of its entries;
// query_deferred  one invocation per piece: reads its entries and appends a task
//                 (query, body) for every body on the run's cells it sees whose box its
//                 reach meets;
// query_args      sizes the indirect dispatches below from the counters;
// query_test      one invocation per task: the exact test. A point or box that meets
//                 its body appends (query, body) to the hits; a ray keeps its first hit
//                 as an atomic maximum of !bits(t) (t >= 0, so bits order like values);
// query_pick      one per task: among a ray's tasks that hit at that t, the lowest body;
// query_normal    one per task: the winner writes its normal.
//
// Bounded work per invocation (Mesa's llvmpipe silently ends every loop once the 8
// invocations it runs in lockstep have run 65535 iterations in all, see LLVMPIPE_LANES
// in src/layout/packed.rs and QUERY_LOOP_GUARD): the walk takes a turn or two a row and a turn
// a piece, and hands a level over whole when its rows would take more than
// QUERY_WALK_BUDGET turns; a piece holds as many entries as keep its reading within the
// budget, counting each entry at the most it may cost on its level (entry_cost: a
// bitmask's test planned in hundreds of chunks costs as many turns). A polygon costs
// one or two passes over its at most 256 vertices; a bitmask's test is split by rows
// into as many chunks (tasks) as keep each within QUERY_CHUNK_BUDGET words.
// QUERY_LOOP_GUARD catches a mistake in that reasoning as `unfinished`, an error on the
// host.
//
// The grid's cells are sized for the batch (`choose_query_grid` in src/grid/cell_size.rs):
// in a sparse scene a ray crosses mostly empty cells of the pairs' grid.
//
// Why the walk hands its entries over rather than reading them: on lavapipe, reading
// the entries in the walk's loop cost 28 ms for the benchmark's 10^4 rays over 100k
// bullet-hell bodies, 4.3 of it passing the cells; handed over a row at a time, the
// walk takes 5 ms and query_deferred 18 (BENCHMARKS.md, "Queries: their own grid, and
// rays that hand their rows over").
//
// No early stop along a ray: every body the segment's cells hold is tested, in
// parallel, and the first hit wins. (The cpu's walk tests as it goes and stops past its
// nearest hit. Here the walk would need the shapes, the transforms and the infos too:
// 12 storage buffers, past the 8 a device with WebGPU's default limits allows a
// stage. A ray meets about one body in the benchmark's scene, so the walk, not the
// tests, is the cost.) The points' and boxes' hits come back in no order (a bitmask's
// chunks may each report it); the host sorts and deduplicates.

// The frame's parameters as uploaded, and the copy every entry point that reads them
// takes first (see Params in types.wgsl for why).
@group(0) @binding(0) var<uniform> uploaded_params: Params;
var<private> params: Params;
// Binding 1, the shape library, is declared with library_u32 (src/layout/shaders.rs).
@group(0) @binding(2) var<storage, read> transforms: array<BodyTransform>;
@group(0) @binding(3) var<storage, read> infos: array<BodyInfo>;
@group(0) @binding(4) var<storage, read> aabbs: array<Aabb>;
@group(0) @binding(5) var<storage, read> buckets: array<u32>;
// Each entry a body's index; its cell, level, layer and kind are in its record.
@group(0) @binding(6) var<storage, read> grid_entries: array<u32>;
@group(0) @binding(7) var<storage, read> grid_info: GridInfo;
@group(0) @binding(8) var<uniform> query_params: QueryParams;
@group(0) @binding(9) var<storage, read> queries: array<PackedQuery>;
@group(0) @binding(10) var<storage, read_write> query_tasks: array<QueryTask>;
@group(0) @binding(11) var<storage, read_write> query_pieces: array<QueryPiece>;
@group(0) @binding(12) var<storage, read_write> query_counters: QueryCounters;
@group(0) @binding(13) var<storage, read_write> query_hits: array<vec2<u32>>;
@group(0) @binding(14) var<storage, read_write> ray_answers: array<RayAnswer>;
@group(0) @binding(15) var<storage, read_write> dispatch_args: array<DispatchArgs>;
@group(0) @binding(16) var<storage, read> body_cells: array<BodyCell>;

// Mirrors `QueryParams` in src/gpu/query.rs.
struct QueryParams {
    // Queries in all; rays are 0 .. rays, points rays .. boxes_from, boxes after.
    query_count: u32,
    rays: u32,
    boxes_from: u32,
    task_capacity: u32,
    piece_capacity: u32,
    hit_capacity: u32,
    pad0: u32,
    pad1: u32,
}

// One query. Mirrors `PackedQuery`: a ray's origin and delta, a point twice, a box's
// min and max; `kind` is QUERY_RAY, QUERY_POINT or QUERY_BOX.
struct PackedQuery {
    a: vec2<f32>,
    b: vec2<f32>,
    mask: u32,
    kind: u32,
}

// One exact test: `query` against `body`, chunk `chunk` of `chunks` (a bitmask's rows
// split; 1 otherwise). A ray's task keeps its hit as `key` (!bits(t), 0 for none) and
// its normal ((0, 0) for none). Mirrors `QueryTask`.
struct QueryTask {
    query: u32,
    body: u32,
    chunk: u32,
    chunks: u32,
    key: u32,
    pad: u32,
    normal: vec2<f32>,
}

// Entries first .. end of the buckets of a run of cells on `level` (row cell.y,
// columns cell.x ..= last), or of the whole entry list when `level` has WHOLE_LEVEL set
// (any cell), handed over by query `query`. Mirrors `QueryPiece`.
struct QueryPiece {
    cell: vec2<i32>,
    last: i32,
    level: u32,
    query: u32,
    first: u32,
    end: u32,
    pad: u32,
}

// The append counters; each counts every item, also those past its buffer's end.
struct QueryCounters {
    tasks: atomic<u32>,
    pieces: atomic<u32>,
    hits: atomic<u32>,
    unfinished: atomic<u32>,
}

// A ray's first hit: `key` the greatest !bits(t) (0: none), `body` the greatest !body
// among those hitting there, `normal` the winner's ((0, 0) for none).
struct RayAnswer {
    key: atomic<u32>,
    body: atomic<u32>,
    normal: vec2<f32>,
}

// Llvmpipe runs 8 invocations in lockstep, and its cap counts the loop iterations of
// the 8 together: a loop runs while any of them is in it. So each invocation here keeps
// within an eighth of the cap: measured, a batch whose queries each stayed within 8192
// iterations lost a bitmask's hits when three of them shared a group.
// Turns of loops one query's walk may take, and one piece's reading (counting every
// turn of every loop, a loop's final turn, which finds it done, too): a level whose
// rows would take the walk more is handed over whole (its entries, in pieces of at most
// WHOLE_LEVEL_PIECE), and a piece holds as many entries as its reading may take.
const QUERY_WALK_BUDGET: u32 = 6000u;
const WHOLE_LEVEL_PIECE: u32 = 2048u;
// Words of a bitmask one chunk of a test reads, about.
const QUERY_CHUNK_BUDGET: u32 = CHUNK_BUDGET;
// At most this many chunks a test: an 8192-row mask then has 8 rows a chunk.
const MAX_QUERY_CHUNKS: u32 = 1024u;
// Iterations past which an invocation stops and counts itself `unfinished` (an error on
// the host): 8 of them, each at most one test's planning (consider, at most
// MAX_QUERY_CHUNKS + 1 turns) past it, stay below llvmpipe's cap of 65535, so a mistake
// in the budgets above is reported rather than silently cut short.
const QUERY_LOOP_GUARD: u32 = 7000u;

const QUERY_RAY: u32 = 0u;
const QUERY_POINT: u32 = 1u;
const QUERY_BOX: u32 = 2u;
const WHOLE_LEVEL: u32 = 0x80000000u;

// ---- the walk of the grid ----

// The box a query reaches: a ray's segment's, a point's, a box.
fn reach_of(q: PackedQuery) -> Aabb {
    if q.kind == QUERY_RAY {
        let end = q.a + q.b;
        return Aabb(min(q.a, end), max(q.a, end));
    }
    return Aabb(q.a, q.b);
}

// Whether the query may meet a body with box `box`: the boxes overlap, and a ray's
// segment passes through the box (grown by a hair, so that rounding here never drops a
// body the exact test in the body's frame would find).
fn reaches(q: PackedQuery, reach: Aabb, box: Aabb) -> bool {
    if !aabbs_overlap(reach, box) {
        return false;
    }
    if q.kind != QUERY_RAY {
        return true;
    }
    let pad = 1e-5 * max(max(abs(box.min), abs(box.max)), abs(q.a)) + vec2<f32>(1e-6);
    let lo = box.min - pad;
    let hi = box.max + pad;
    var t0 = 0.0;
    var t1 = 1.0;
    for (var axis = 0u; axis < 2u; axis++) {
        let d = q.b[axis];
        if d == 0.0 {
            if q.a[axis] < lo[axis] || q.a[axis] > hi[axis] {
                return false;
            }
        } else {
            let a = (lo[axis] - q.a[axis]) / d;
            let b = (hi[axis] - q.a[axis]) / d;
            t0 = max(t0, min(a, b));
            t1 = min(t1, max(a, b));
        }
    }
    return t0 <= t1;
}

// How many chunks the test of `q` against a body of shape kind `kind` with box `box`
// takes: a bitmask's rows under the reach, at most QUERY_CHUNK_BUDGET words a chunk
// (a row costs the words its span covers, and a little more); one otherwise.
fn chunks_of(reach: Aabb, kind: u32, box: Aabb) -> u32 {
    if kind != SHAPE_BITMASK {
        return 1u;
    }
    let size = max(min(reach.max, box.max) - max(reach.min, box.min), vec2<f32>(0.0));
    let rows = size.y + 2.0;
    let words = size.x / 32.0 + 3.0;
    return u32(clamp(ceil(rows * words / f32(QUERY_CHUNK_BUDGET)), 1.0, f32(MAX_QUERY_CHUNKS)));
}

// Appends the tasks of query `query` against body `body`, if the query sees it and
// reaches its box; the loop turns it took.
fn consider(query: u32, q: PackedQuery, reach: Aabb, body: u32) -> u32 {
    if (body_cells[body].layer & q.mask) == 0u {
        return 0u;
    }
    let box = aabbs[body];
    if !reaches(q, reach, box) {
        return 0u;
    }
    let chunks = chunks_of(reach, kind_of(body_cells[body].kind_owner), box);
    let first = atomicAdd(&query_counters.tasks, chunks);
    for (var c = 0u; c < chunks; c++) {
        if first + c < query_params.task_capacity {
            query_tasks[first + c] = QueryTask(query, body, c, chunks, 0u, 0u, vec2<f32>(0.0));
        }
    }
    return chunks + 1u; // and the loop's final turn
}

// Reads the entries of `piece` for its query: those of its run of cells (row
// piece.cell.y, columns piece.cell.x ..= piece.last) on its level, or with WHOLE_LEVEL
// set, those anywhere on the level. The loop turns spent; stops once they pass
// QUERY_LOOP_GUARD (the caller reports it).
fn scan_piece(q: PackedQuery, reach: Aabb, piece: QueryPiece) -> u32 {
    let whole = (piece.level & WHOLE_LEVEL) != 0u;
    let own = piece.level & ~WHOLE_LEVEL;
    let tag = row_tag(piece.cell.y, own);
    let index_mask = entry_index_mask();
    var steps = 0u;
    for (var k = piece.first; k < piece.end; k++) {
        steps++;
        if steps > QUERY_LOOP_GUARD {
            break;
        }
        let entry = grid_entries[k];
        // The run's buckets hold other cells' entries too when their hashes collide: those
        // of other rows are known by the entry alone (entry_in_row).
        if !whole && !entry_in_row(entry, tag, index_mask) {
            continue;
        }
        let body = entry_body(entry, index_mask);
        let cell = body_cells[body].cell;
        let on_level = body_cells[body].level == own;
        let in_run = cell.y == piece.cell.y && cell.x >= piece.cell.x && cell.x <= piece.last;
        if on_level && (whole || in_run) {
            steps += consider(piece.query, q, reach, body);
        }
    }
    return steps + 1u; // and the loop's final turn
}

// The most loop turns reading one entry of `level` may take: its own, and consider's
// (its tasks and the loop's final turn). A body off the top level spans at most a cell
// of its level, so a bitmask's test there has at most so many chunks (chunks_of); on
// the top level, MAX_QUERY_CHUNKS. Pieces hold as many entries as keep within the
// budget at this cost (piece_size): a pile of the largest masks costs hundreds of turns
// an entry.
fn entry_cost(level: u32) -> u32 {
    if level >= TOP_LEVEL {
        return MAX_QUERY_CHUNKS + 2u;
    }
    let size = ldexp(params.base_cell, i32(level));
    let words = (size + 2.0) * (size / 32.0 + 3.0);
    return u32(clamp(ceil(words / f32(QUERY_CHUNK_BUDGET)), 1.0, f32(MAX_QUERY_CHUNKS))) + 2u;
}

// Entries a piece holds, for entries of cost `cost` each: SCAN_CHUNK, or as many as the
// budget allows.
fn piece_size(cost: u32) -> u32 {
    return clamp(QUERY_WALK_BUDGET / cost, 1u, SCAN_CHUNK);
}

// Where a query's walk over the grid stands: the levels still to visit; the level it
// reads, whether whole, its range of cells (first y, first x, last y, last x) and the
// rows of it still to read, and the size of its pieces (piece_size); the row it reads,
// the next column of it to hand over and its last; the run of columns being handed
// over and its entries not yet handed over (next .. end).
struct QueryWalk {
    levels: u32,
    level: u32,
    whole: bool,
    piece: u32,
    range: vec4<i32>,
    rows_left: i32,
    row: i32,
    column: i32,
    last: i32,
    run: vec2<i32>,
    next: u32,
    end: u32,
}

// Moves the walk to its next row (where a ray finds its columns), else to its next
// level; false when there is none. A level with more cells than the walk may pass is
// to be handed over whole (its entries, in pieces of at most WHOLE_LEVEL_PIECE).
fn advance(w: ptr<function, QueryWalk>, q: PackedQuery, reach: Aabb, steps: u32) -> bool {
    if (*w).rows_left > 0 {
        let range = (*w).range;
        (*w).rows_left--;
        let y = range.z - (*w).rows_left;
        (*w).row = y;
        (*w).column = range.y;
        (*w).last = range.w;
        if q.kind == QUERY_RAY && (*w).level != TOP_LEVEL {
            // The segment's x extent within this row's band of cells, grown by the half
            // cell a body may reach beyond its cell and a hair, so that rounding does not
            // drop a cell the segment touches (as the cpu's).
            let size = ldexp(params.base_cell, i32((*w).level));
            let pad = 0.5 * size + 1e-3 * size;
            let band_lo = f32(y) * size - pad;
            let band_hi = f32(y + 1) * size + pad;
            var t0 = 0.0;
            var t1 = 1.0;
            if q.b.y != 0.0 {
                let a = (band_lo - q.a.y) / q.b.y;
                let b = (band_hi - q.a.y) / q.b.y;
                t0 = max(t0, min(a, b));
                t1 = min(t1, max(a, b));
            }
            let xa = q.a.x + t0 * q.b.x;
            let xb = q.a.x + t1 * q.b.x;
            (*w).column = max(range.y, cell_at(vec2<f32>(min(xa, xb) - pad, 0.0), (*w).level).x);
            (*w).last = min(range.w, cell_at(vec2<f32>(max(xa, xb) + pad, 0.0), (*w).level).x);
            if t0 > t1 {
                (*w).last = (*w).column - 1; // the segment misses the band
            }
        }
        return true;
    }
    if (*w).levels == 0u {
        return false;
    }
    let level = countTrailingZeros((*w).levels);
    (*w).levels &= (*w).levels - 1u;
    (*w).level = level;
    (*w).whole = false;
    (*w).piece = piece_size(entry_cost(level));
    (*w).rows_left = 0;
    (*w).column = 0;
    (*w).last = -1;
    if (grid_info.level_layers[level] & q.mask) == 0u {
        return true; // nobody on this level is seen
    }
    let range = probe_range(reach, level);
    let span = vec2<f32>(f32(range.w - range.y + 1), f32(range.z - range.x + 1));
    // A ray passes about three cells a row and a column (see the row bands above).
    var cells = span.x * span.y;
    if q.kind == QUERY_RAY {
        cells = min(cells, 3.0 * (span.x + span.y));
    }
    // More cells than the walk may pass (a huge box, a long ray on a fine level): the
    // level's entries are handed over instead, wherever they are. A row costs a turn or
    // two (its runs), and a run ends at every BUCKETS_PER_THREAD buckets.
    if f32(steps) + 2.0 * span.y + cells / f32(BUCKETS_PER_THREAD) > f32(QUERY_WALK_BUDGET) {
        (*w).whole = true;
        (*w).piece = min(WHOLE_LEVEL_PIECE, (*w).piece);
        (*w).next = 0u;
        (*w).end = grid_info.allocated;
        return true;
    }
    (*w).range = range;
    (*w).rows_left = range.z - range.x + 1;
    return true;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn query(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let query = global_index(workgroup, local);
    if query >= query_params.query_count {
        return;
    }
    let q = queries[query];
    let reach = reach_of(q);
    // One loop, each turn moving the walk to its next row or level if its row is done,
    // starting the row's next run of cells if its run is handed over, and handing over
    // one piece of the run, rather than loops over levels, rows and pieces: llvmpipe
    // runs 8 invocations in lockstep, and nested loops in which they are at different
    // places cost the sum of their turns, a single loop the longest invocation's (as
    // the broad phase's walk, see broad.wgsl).
    var w = QueryWalk(grid_info.occupied_levels, 0u, false, 1u, vec4<i32>(0), 0, 0, 0, -1, vec2<i32>(0), 0u, 0u);
    var steps = 0u;
    loop {
        if w.next >= w.end {
            if w.column > w.last {
                if !advance(&w, q, reach, steps) {
                    break;
                }
            }
            if w.column <= w.last {
                // The row's cells up to its last or to the end of their group of buckets:
                // neighbouring cells of a row hash to neighbouring buckets (cell_bucket),
                // and allocate_buckets gives a group's buckets neighbouring entries.
                let b0 = cell_bucket(vec2<i32>(w.column, w.row), w.level);
                let room = i32(BUCKETS_PER_THREAD - 1u - b0 % BUCKETS_PER_THREAD);
                let stop = min(w.last, w.column + room);
                let b1 = b0 + u32(stop - w.column);
                w.run = vec2<i32>(w.column, stop);
                w.next = bucket_start(b0);
                w.end = bucket_end(b1);
                w.column = stop + 1;
            }
        }
        steps++;
        if w.next < w.end {
            let end = min(w.next + w.piece, w.end);
            let slot = atomicAdd(&query_counters.pieces, 1u);
            if slot < query_params.piece_capacity {
                let level = select(w.level, w.level | WHOLE_LEVEL, w.whole);
                query_pieces[slot] = QueryPiece(vec2<i32>(w.run.x, w.row), w.run.y, level, query, w.next, end, 0u);
            }
            w.next = end;
        }
        if steps > QUERY_LOOP_GUARD {
            atomicAdd(&query_counters.unfinished, 1u);
            return;
        }
    }
}


// Sizes query_deferred from the pieces and the per-task kernels from the tasks; run
// after query and again after query_deferred.
@compute @workgroup_size(1)
fn query_args() {
    dispatch_args[ARGS_DEFERRED] = dispatch_for(min(atomicLoad(&query_counters.pieces), query_params.piece_capacity));
    dispatch_args[ARGS_TASKS] = dispatch_for(min(atomicLoad(&query_counters.tasks), query_params.task_capacity));
}

// Reads the pieces handed over; the parameters for the body count, which sets how an
// entry packs its body (entry_index_mask in grid.wgsl).
@compute @workgroup_size(WORKGROUP_SIZE)
fn query_deferred(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let t = global_index(workgroup, local);
    if t >= min(atomicLoad(&query_counters.pieces), query_params.piece_capacity) {
        return;
    }
    let piece = query_pieces[t];
    let q = queries[piece.query];
    let steps = scan_piece(q, reach_of(q), piece);
    if steps > QUERY_LOOP_GUARD {
        atomicAdd(&query_counters.unfinished, 1u);
    }
}

// ---- exact tests, in the body's frame (twins in src/cpu/query.rs) ----

// A hit: `t`, and the normal of the side entered ((0, 0) for none: the ray starts in or
// on the shape); `hit` false for none.
struct Hit {
    hit: bool,
    t: f32,
    normal: vec2<f32>,
}

const NO_HIT: Hit = Hit(false, 0.0, vec2<f32>(0.0));

// Clips the segment `start + t·delta`, kept as `range` (enter, exit, normal entered by),
// against the half-plane n·x <= h; `hit` false once nothing is left. Twin of
// `clip_segment`.
fn clip_segment(range: Hit, exit: ptr<function, f32>, n: vec2<f32>, h: f32, start: vec2<f32>, delta: vec2<f32>) -> Hit {
    var out = range;
    let speed = dot(n, delta);
    let room = h - dot(n, start);
    if speed == 0.0 {
        out.hit = room >= 0.0;
        return out;
    }
    let t = room / speed;
    if speed > 0.0 {
        *exit = min(*exit, t);
    } else if t > out.t {
        out.t = t;
        out.normal = n;
    }
    out.hit = out.t <= *exit;
    return out;
}

// A ray against a polygon (vertices and normals rotated into the body's frame). Twin of
// `ray_polygon`, which says why the normal is the entered edge nearest the point of
// entry rather than the latest entered half-plane's.
fn ray_polygon(shape: PackedShape, rotation: vec2<f32>, start: vec2<f32>, delta: vec2<f32>) -> Hit {
    var range = Hit(true, 0.0, vec2<f32>(0.0));
    var exit = 1.0;
    for (var k = 0u; k < shape.count; k++) {
        let v = library_vertex(shape.first + k);
        let n = rotate(v.normal, rotation);
        range = clip_segment(range, &exit, n, dot(n, rotate(v.position, rotation)), start, delta);
        if !range.hit {
            return NO_HIT;
        }
    }
    if all(range.normal == vec2<f32>(0.0)) {
        return range; // starts in or on the polygon
    }
    let point = start + range.t * delta;
    var nearest = 3.4e38;
    for (var k = 0u; k < shape.count; k++) {
        let v = library_vertex(shape.first + k);
        let n = rotate(v.normal, rotation);
        let next = library_vertex(shape.first + select(k + 1u, 0u, k + 1u == shape.count));
        let d = segment_distance_squared(point, rotate(v.position, rotation), rotate(next.position, rotation));
        if dot(n, delta) < 0.0 && d < nearest {
            nearest = d;
            range.normal = n;
        }
    }
    return range;
}

// The squared distance from `point` to the segment from `a` to `b`. Twin of
// `segment_distance_squared`.
fn segment_distance_squared(point: vec2<f32>, a: vec2<f32>, b: vec2<f32>) -> f32 {
    let edge = b - a;
    let off = point - a;
    let length = dot(edge, edge);
    var s = 0.0;
    if length > 0.0 {
        s = clamp(dot(off, edge) / length, 0.0, 1.0);
    }
    let rest = off - s * edge;
    return dot(rest, rest);
}

// A ray against the box lo ..= hi (a bitmask's cell). As ray_polygon with the box's sides.
fn ray_box(lo: vec2<f32>, hi: vec2<f32>, start: vec2<f32>, delta: vec2<f32>) -> Hit {
    var range = Hit(true, 0.0, vec2<f32>(0.0));
    var exit = 1.0;
    let normals = array<vec2<f32>, 4>(vec2<f32>(0.0, -1.0), vec2<f32>(1.0, 0.0), vec2<f32>(0.0, 1.0), vec2<f32>(-1.0, 0.0));
    let sides = array<f32, 4>(-lo.y, hi.x, hi.y, -lo.x);
    for (var k = 0u; k < 4u; k++) {
        range = clip_segment(range, &exit, normals[k], sides[k], start, delta);
        if !range.hit {
            return NO_HIT;
        }
    }
    return range;
}

// `v` scaled to unit length, or (0, 0) when it has no direction. Twin of `unit`.
fn unit(v: vec2<f32>) -> vec2<f32> {
    let n = v / length(v);
    if all(abs(n) <= vec2<f32>(3.4e38)) {
        return n;
    }
    return vec2<f32>(0.0);
}

// A ray against a circle. Twin of `ray_circle`: the radius direction at the entry, or
// against the ray's direction for a circle too small to give one.
fn ray_circle(centre: vec2<f32>, radius: f32, start: vec2<f32>, delta: vec2<f32>) -> Hit {
    let entry = disc_entry(start - centre, radius, delta);
    if !entry.hit {
        return NO_HIT;
    }
    if entry.t == 0.0 && all(entry.point == vec2<f32>(0.0)) {
        return Hit(true, 0.0, vec2<f32>(0.0));
    }
    let normal = unit(entry.point);
    let backwards = unit(-delta / max(abs(delta.x), abs(delta.y)));
    return Hit(true, entry.t, select(normal, backwards, all(normal == vec2<f32>(0.0))));
}

// Word `w` of row `row` of mask `m`, or 0 outside the mask (as narrow.wgsl's).
fn mask_word(m: PackedShape, row: i32, w: i32) -> u32 {
    if row < 0 || row >= i32(m.rows) || w < 0 || w >= i32(m.words_per_row) {
        return 0u;
    }
    return library_word(m.first + u32(row) * m.words_per_row + u32(w));
}

// The cells (first, last) along one axis that the closed interval lo ..= hi meets (cell
// k is [k, k + 1]), clamped to -1 ..= limit. Twin of `cells_between`.
fn cells_between(lo: f32, hi: f32, limit: u32) -> vec2<i32> {
    let end = f32(limit) + 1.0;
    return vec2<i32>(i32(ceil(clamp(lo, -1.0, end))) - 1, i32(floor(clamp(hi, -1.0, end))));
}

// The bits of word `w` for columns first ..= last.
fn wanted_bits(w: i32, first: i32, last: i32) -> u32 {
    let first_bit = u32(max(first - w * 32, 0));
    let last_bit = u32(min(last - w * 32, 31));
    return (0xffffffffu << first_bit) & (0xffffffffu >> (31u - last_bit));
}

// Rows first ..= last of the mask that chunk `chunk` of `chunks` covers, as the
// step indices (first step, end step) into the rows counted in the query's order.
fn chunk_steps(count: i32, chunk: u32, chunks: u32) -> vec2<i32> {
    let per = (count + i32(chunks) - 1) / i32(chunks);
    return vec2<i32>(min(i32(chunk) * per, count), min(i32(chunk + 1u) * per, count));
}

// Chunk `chunk` of `chunks` of a ray (in the mask's frame) against mask `m`: the rows it
// crosses, in its direction, each row's first set cell along it. Twin of `ray_bitmask`.
fn ray_bitmask(m: PackedShape, start: vec2<f32>, delta: vec2<f32>, chunk: u32, chunks: u32, steps: ptr<function, u32>) -> Hit {
    let end = start + delta;
    // Rows and columns outside the set cells' bounds hold nothing.
    let lo = max(min(start, end), m.bounds_min);
    let hi = min(max(start, end), m.bounds_max);
    if any(lo > hi) {
        return NO_HIT;
    }
    let rows = cells_between(lo.y, hi.y, m.rows);
    let first_row = max(rows.x, 0);
    let last_row = min(rows.y, i32(m.rows) - 1);
    if first_row > last_row {
        return NO_HIT;
    }
    let upward = delta.y >= 0.0;
    let span = chunk_steps(last_row - first_row + 1, chunk, chunks);
    var best = NO_HIT;
    for (var step = span.x; step < span.y; step++) {
        *steps += 1u;
        let row = select(last_row - step, first_row + step, upward);
        var t0 = 0.0;
        var t1 = 1.0;
        if delta.y != 0.0 {
            let a = (f32(row) - start.y) / delta.y;
            let b = (f32(row) + 1.0 - start.y) / delta.y;
            t0 = max(t0, min(a, b));
            t1 = min(t1, max(a, b));
        }
        if t0 > t1 || (best.hit && t0 > best.t) {
            if best.hit {
                break; // later rows are met later still
            }
            continue;
        }
        let x0 = start.x + t0 * delta.x;
        let x1 = start.x + t1 * delta.x;
        let columns = cells_between(max(min(x0, x1), m.bounds_min.x), min(max(x0, x1), m.bounds_max.x), m.count);
        let first = max(columns.x, 0);
        let last = min(columns.y, i32(m.count) - 1);
        if first > last {
            continue;
        }
        // The row's set cells in the ray's direction, until one is hit.
        let leftward = delta.x < 0.0;
        let words = (last >> 5u) - (first >> 5u) + 1;
        var found = false;
        for (var k = 0; k < words && !found; k++) {
            let w = select((first >> 5u) + k, (last >> 5u) - k, leftward);
            var bits = mask_word(m, row, w) & wanted_bits(w, first, last);
            while bits != 0u {
                *steps += 1u;
                if *steps > QUERY_LOOP_GUARD {
                    return best;
                }
                var bit = countTrailingZeros(bits);
                if leftward {
                    bit = firstLeadingBit(bits);
                }
                bits &= ~(1u << bit);
                let corner = vec2<f32>(f32(w * 32 + i32(bit)), f32(row));
                let hit = ray_box(corner, corner + vec2<f32>(1.0), start, delta);
                if hit.hit {
                    if !best.hit || hit.t < best.t {
                        best = hit;
                    }
                    found = true; // the first set cell along the row is its first hit
                    break;
                }
            }
            *steps += 1u;
        }
    }
    return best;
}

// Whether the polygon meets the box lo ..= hi (in the body's frame): apart exactly when
// a side of the box or an edge of the polygon has the other wholly beyond its line
// (see narrow.wgsl), so one pass for the box's sides and one for the edges. Twin of the
// polygon case of `meets_box` (which projects on every axis both ways).
fn polygon_meets_box(shape: PackedShape, rotation: vec2<f32>, lo: vec2<f32>, hi: vec2<f32>) -> bool {
    var p_lo = vec2<f32>(3.4e38);
    var p_hi = vec2<f32>(-3.4e38);
    for (var k = 0u; k < shape.count; k++) {
        let p = rotate(library_vertex(shape.first + k).position, rotation);
        p_lo = min(p_lo, p);
        p_hi = max(p_hi, p);
    }
    if any(p_hi < lo) || any(p_lo > hi) {
        return false;
    }
    let centre = 0.5 * (lo + hi);
    let half = 0.5 * (hi - lo);
    for (var k = 0u; k < shape.count; k++) {
        let v = library_vertex(shape.first + k);
        let n = rotate(v.normal, rotation);
        // The box's lowest point along the edge's normal, beyond the edge's line.
        if dot(n, centre) - dot(abs(n), half) > dot(n, rotate(v.position, rotation)) {
            return false;
        }
    }
    return true;
}

// End `k` (0 or 1) of a capsule turned by `rotation`, in its body's frame.
fn capsule_end(shape: PackedShape, rotation: vec2<f32>, k: u32) -> vec2<f32> {
    return rotate(library_vertex(shape.first + k).position, rotation);
}

// Whether the capsule (segment e0 e1, `radius`) meets the closed box lo ..= hi: its
// first end is in the box, or its segment comes within the radius of a side of the box
// (which a segment crossing the box does). Twin of the capsule arm of Bodies::meets_box.
fn capsule_meets_box(e0: vec2<f32>, e1: vec2<f32>, radius: f32, lo: vec2<f32>, hi: vec2<f32>) -> bool {
    if all(e0 >= lo) && all(e0 <= hi) {
        return true;
    }
    var corners = array<vec2<f32>, 4>(lo, vec2<f32>(hi.x, lo.y), hi, vec2<f32>(lo.x, hi.y));
    for (var k = 0u; k < 4u; k++) {
        if segments_distance(corners[k], corners[(k + 1u) % 4u], e0, e1) <= radius {
            return true;
        }
    }
    return false;
}

// Chunk `chunk` of `chunks` of the box lo ..= hi (mask frame) against mask `m`: whether a
// set cell under it lies in the chunk's rows.
fn bitmask_meets_box(m: PackedShape, lo_in: vec2<f32>, hi_in: vec2<f32>, chunk: u32, chunks: u32, steps: ptr<function, u32>) -> bool {
    let lo = max(lo_in, m.bounds_min);
    let hi = min(hi_in, m.bounds_max);
    if any(lo > hi) {
        return false;
    }
    let rows = cells_between(lo.y, hi.y, m.rows);
    let columns = cells_between(lo.x, hi.x, m.count);
    let first_row = max(rows.x, 0);
    let last_row = min(rows.y, i32(m.rows) - 1);
    let first = max(columns.x, 0);
    let last = min(columns.y, i32(m.count) - 1);
    if first_row > last_row || first > last {
        return false;
    }
    let span = chunk_steps(last_row - first_row + 1, chunk, chunks);
    for (var step = span.x; step < span.y; step++) {
        for (var w = first >> 5u; w <= last >> 5u; w++) {
            *steps += 1u;
            if (mask_word(m, first_row + step, w) & wanted_bits(w, first, last)) != 0u {
                return true;
            }
        }
    }
    return false;
}

// Chunk `chunk` of `chunks` of ray `q` against body `body`: a hit only at a time in
// [0, 1] (not a number is none), +0 rather than -0 so that the bits order like the
// values, with a finite normal or (0, 0).
fn ray_test(q: PackedQuery, body: u32, chunk: u32, chunks: u32, steps: ptr<function, u32>) -> Hit {
    let shape = library_shape(infos[body].shape);
    let place = transforms[body];
    // The ray from its start brought near the body (geometry::entry_from_near).
    let near = approach(q.a - place.position, q.b, shape_reach(shape));
    if near < 0.0 {
        return NO_HIT;
    }
    let rest = 1.0 - near;
    let start = q.a - place.position + q.b * near;
    let delta = q.b * rest;
    var hit = NO_HIT;
    if shape.kind == SHAPE_POLYGON {
        hit = ray_polygon(shape, place.rotation, start, delta);
    } else if shape.kind == SHAPE_CIRCLE {
        hit = ray_circle(vec2<f32>(0.0), shape.radius, start, delta);
    } else if shape.kind == SHAPE_CAPSULE {
        let entry = capsule_entry(start, delta, capsule_end(shape, place.rotation, 0u),
            capsule_end(shape, place.rotation, 1u), shape.radius);
        hit = Hit(entry.hit, entry.t, entry.normal);
    } else if shape.kind == SHAPE_BITMASK {
        hit = ray_bitmask(shape, start, delta, chunk, chunks, steps);
    }
    hit.t = near + hit.t * rest;
    if !(hit.hit && hit.t >= 0.0 && hit.t <= 1.0) {
        return NO_HIT;
    }
    hit.t = select(hit.t, 0.0, hit.t <= 0.0);
    if !all(abs(hit.normal) <= vec2<f32>(3.4e38)) {
        hit.normal = vec2<f32>(0.0);
    }
    return hit;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn query_test(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    params = uploaded_params;
    let t = global_index(workgroup, local);
    if t >= min(atomicLoad(&query_counters.tasks), query_params.task_capacity) {
        return;
    }
    let task = query_tasks[t];
    let q = queries[task.query];
    let shape = library_shape(infos[task.body].shape);
    let place = transforms[task.body];
    var steps = 0u;
    if q.kind == QUERY_RAY {
        let hit = ray_test(q, task.body, task.chunk, task.chunks, &steps);
        if hit.hit {
            let key = ~bitcast<u32>(hit.t);
            query_tasks[t].key = key;
            query_tasks[t].normal = hit.normal;
            atomicMax(&ray_answers[task.query].key, key);
        }
    } else {
        let lo = q.a - place.position;
        let hi = q.b - place.position;
        var meets = false;
        if shape.kind == SHAPE_POLYGON {
            meets = polygon_meets_box(shape, place.rotation, lo, hi);
        } else if shape.kind == SHAPE_CIRCLE {
            let nearest = clamp(vec2<f32>(0.0), lo, hi);
            meets = dot(nearest, nearest) <= shape.radius * shape.radius;
        } else if shape.kind == SHAPE_CAPSULE {
            meets = capsule_meets_box(capsule_end(shape, place.rotation, 0u),
                capsule_end(shape, place.rotation, 1u), shape.radius, lo, hi);
        } else if shape.kind == SHAPE_BITMASK {
            meets = bitmask_meets_box(shape, lo, hi, task.chunk, task.chunks, &steps);
        }
        if meets {
            let slot = atomicAdd(&query_counters.hits, 1u);
            if slot < query_params.hit_capacity {
                query_hits[slot] = vec2<u32>(task.query, task.body);
            }
        }
    }
    if steps > QUERY_LOOP_GUARD {
        atomicAdd(&query_counters.unfinished, 1u);
    }
}

// Among the tasks of a ray that hit at its first time, the lowest body.
@compute @workgroup_size(WORKGROUP_SIZE)
fn query_pick(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let t = global_index(workgroup, local);
    if t >= min(atomicLoad(&query_counters.tasks), query_params.task_capacity) {
        return;
    }
    let task = query_tasks[t];
    if task.key != 0u && task.key == atomicLoad(&ray_answers[task.query].key) {
        atomicMax(&ray_answers[task.query].body, ~task.body);
    }
}

// The winning task of a ray writes its normal (two chunks of one bitmask meeting the
// ray at one corner may both: either side's normal is right there).
@compute @workgroup_size(WORKGROUP_SIZE)
fn query_normal(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let t = global_index(workgroup, local);
    if t >= min(atomicLoad(&query_counters.tasks), query_params.task_capacity) {
        return;
    }
    let task = query_tasks[t];
    if task.key != 0u && task.key == atomicLoad(&ray_answers[task.query].key)
        && ~task.body == atomicLoad(&ray_answers[task.query].body) {
        ray_answers[task.query].normal = task.normal;
    }
}
