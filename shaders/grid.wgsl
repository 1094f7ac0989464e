// The hierarchical grid's cell functions, shared by the broad phase (shaders/broad.wgsl,
// which builds the grid) and the queries (shaders/query.wgsl, which read it). Each has a
// twin of the same name in src/grid.rs. Every stage including this declares `params`.

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
// allocate_buckets, neighbouring entries), so a body sweeping a block of cells reads
// a few cache lines per row rather than one per cell. Rows and levels are a stride
// apart: around a crowded scene the host lays the rows of each level out one after
// another, so that its cells share no bucket; elsewhere the strides are large odd
// numbers that scatter them (see TableLayout in src/grid.rs).
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
// never pass the filter test (see waiter_layers in src/grid.rs for why and how).
fn waits(layer: u32) -> bool {
    return (layer & ~params.waiter_layers) == 0u;
}
