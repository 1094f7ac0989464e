// The walk of `broad` reading uniform copies of the sorted grid (`GridBinding::Uniform`
// in src/layout/shaders.rs): the words of grid_entries and of the buckets' starts, the blocks'
// ends and the bodies' box keys, each in 16-byte rows (a uniform array's stride).

@group(0) @binding(11) var<uniform> walk_entries: array<vec4<u32>, UNIFORM_ROWS>;
@group(0) @binding(12) var<uniform> walk_starts: array<vec4<u32>, UNIFORM_ROWS>;
@group(0) @binding(13) var<uniform> walk_ends: array<vec4<u32>, UNIFORM_END_ROWS>;
@group(0) @binding(14) var<uniform> walk_box_keys: array<vec4<u32>, UNIFORM_ROWS>;

fn walk_entry(k: u32) -> u32 {
    return walk_entries[k >> 2u][k & 3u];
}

fn walk_start(b: u32) -> u32 {
    return walk_starts[b >> 2u][b & 3u];
}

// Loads both words bucket_end may return and keeps one, since llvmpipe would run both
// branches anyway.
fn walk_end(b: u32) -> u32 {
    let next = min(b + 1u, UNIFORM_LAST_BUCKET);
    let block = b / BUCKETS_PER_THREAD;
    let last_of_block = (b & (BUCKETS_PER_THREAD - 1u)) == BUCKETS_PER_THREAD - 1u;
    return select(walk_starts[next >> 2u][next & 3u], walk_ends[block >> 2u][block & 3u], last_of_block);
}

fn walk_seeker_key(box: Aabb, level: u32) -> u32 {
    return box_key(box, level, SEEKER_KEY_WIDTH);
}

fn walk_may_meet(key: u32, other: u32) -> bool {
    return box_keys_may_meet(key, walk_box_keys[other >> 2u][other & 3u]);
}
