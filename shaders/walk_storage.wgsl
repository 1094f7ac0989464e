// The walk of `broad` reading the grid from its storage buffers
// (`GridBinding::Storage` in src/layout/shaders.rs). No keys to test: every entry's box is
// loaded.

fn walk_entry(k: u32) -> u32 {
    return grid_entries[k];
}

fn walk_start(b: u32) -> u32 {
    return bucket_start(b);
}

fn walk_end(b: u32) -> u32 {
    return bucket_end(b);
}

fn walk_seeker_key(box: Aabb, level: u32) -> u32 {
    return NO_BOX_KEY;
}

fn walk_may_meet(key: u32, other: u32) -> bool {
    return true;
}
