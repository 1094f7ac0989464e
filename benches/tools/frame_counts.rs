//! What one frame of the GPU pipeline reads, writes and counts, for the cost model in
//! BENCHMARKS.md ("A cost model for real GPUs"): the grid is built and queried with the
//! CPU twin, which reads exactly what the kernels read, and each access is tallied by the
//! size of the record the kernel loads (`src/layout/packed.rs`).
//!
//! ```text
//! cargo bench --bench frame_counts -- 100000 1000000
//! ```

use std::mem::size_of;

use gpu_collide::cpu::bounds::bounds;
use gpu_collide::cpu::broad::Grid;
use gpu_collide::cpu::narrow::bodies_collide;
use gpu_collide::generate::BulletHell;
use gpu_collide::glam::{IVec2, Vec2};
use gpu_collide::grid::{cell_bucket, probed_cells, reports_seeker, waits, GridParams};
use gpu_collide::layout::bodies::{body_info, body_transform};
use gpu_collide::layout::packed::{
    Aabb, BodyCell, BodyInfo, BodyTransform, BUCKETS_PER_THREAD, NO_LEVEL,
};

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .filter(|a| a != "--bench")
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![100_000, 1_000_000]
    } else {
        sizes
    };
    for n in sizes {
        count(n);
    }
}

fn count(n: usize) {
    let scene = BulletHell::new(n, 4).scene;
    let library = scene.validate().expect("valid scene");
    let transforms: Vec<_> = scene.bodies.iter().map(body_transform).collect();
    let infos: Vec<_> = scene.bodies.iter().map(body_info).collect();
    let aabbs = bounds(&library, &transforms, &infos);
    let params = GridParams::for_bodies(&library, &infos);
    let grid = Grid::build(&params, &infos, &aabbs);

    let (transform, info, aabb, cell, bucket, entry) = (
        size_of::<BodyTransform>() as u64,
        size_of::<BodyInfo>() as u64,
        size_of::<Aabb>() as u64,
        size_of::<BodyCell>() as u64,
        // The GPU's table keeps a word a bucket (`table_words`).
        size_of::<u32>() as u64,
        // A GPU grid entry is the body's index; its record is read where it is needed.
        size_of::<u32>() as u64,
    );
    let bodies = n as u64;
    let buckets = params.bucket_count as u64;
    let placed = grid.places.iter().filter(|c| c.level != NO_LEVEL).count() as u64;

    // The query, tallied as the `broad` kernel reads: four words of the record of each
    // body it visits (the listed seekers where only they search, every body otherwise);
    // for those with a level to search, the rest of the record and the box, then a
    // bucket per cell, an entry per slot and the other body's box; for a box reached,
    // the other's level, cell and layer; its mask when it is to be reported, and its
    // kind for a candidate.
    // Where no body waits, the gpu lists every body (level by level, see `list_seeker`
    // in shaders/bounds.wgsl), while the cpu twin passes over them all without a list.
    let listed = match grid.listed_seekers() {
        Some(seekers) => seekers.len() as u64,
        None if params.waiter_layers == 0 => bodies,
        None => 0,
    };
    let visited = if listed == 0 { bodies } else { listed };
    let (mut searching, mut cells, mut entries, mut reached) = (0u64, 0u64, 0u64, 0u64);
    let (mut reports, mut in_row) = (0u64, 0u64);
    let mut candidates = Vec::new();
    for (i, me) in grid.places.iter().enumerate() {
        if me.level == NO_LEVEL {
            continue;
        }
        let search = grid.levels_to_search(&params, me);
        let mut levels = search.seekers | search.waiters;
        if levels == 0 {
            continue;
        }
        searching += 1;
        let own = &aabbs[i];
        while levels != 0 {
            let level = levels.trailing_zeros();
            levels &= levels - 1;
            // The cells the kernel reads: on its own level, its own cell and those after
            // it, unless it looks for waiting bodies there.
            let mine = IVec2::from(me.cell);
            let seekers = search.seekers >> level & 1 == 1;
            let whole = search.waiters >> level & 1 == 1;
            let (min, max) = (Vec2::from(own.min), Vec2::from(own.max));
            for c in probed_cells(&params, mine, me.level, min, max, level, whole) {
                cells += 1;
                for &j in grid.bucket_entries(cell_bucket(&params, c, level)) {
                    let other = &grid.places[j as usize];
                    entries += 1;
                    // An entry of another row is known by its tag (`row_tag`), unread.
                    if other.level != level || other.cell[1] != c.y {
                        continue;
                    }
                    in_row += 1;
                    if !own.overlaps(&aabbs[j as usize]) {
                        continue;
                    }
                    reached += 1;
                    if other.level != level || IVec2::from(other.cell) != c {
                        continue;
                    }
                    let reported = if waits(&params, other.layer) {
                        whole
                    } else {
                        reports_seeker(seekers, mine, me.level, i as u32, c, level, j)
                    };
                    if !reported {
                        continue;
                    }
                    reports += 1;
                    if me.layer & other.mask != 0 && other.layer & me.mask != 0 {
                        candidates.push([i as u32, j]);
                    }
                }
            }
        }
    }
    let c = candidates.len() as u64;
    let pairs = candidates
        .iter()
        .filter(|&&[i, j]| bodies_collide(&library, &transforms, &infos, i as usize, j as usize))
        .count() as u64;

    let stages = [
        ("upload (host to GPU)", transform * bodies, 0),
        (
            "bounds, with assign_cell",
            // The record, and the placement (bucket, rank) beside it.
            (transform + info + aabb + cell + 8) * bodies + 4 * listed,
            placed, // one bucket counter each
        ),
        (
            "allocate_buckets",
            // Each count read and overwritten by its start, and each block's end.
            2 * bucket * buckets + 4 * (buckets / BUCKETS_PER_THREAD as u64),
            buckets / BUCKETS_PER_THREAD as u64,
        ),
        // Each placement (two words), its bucket's start, the entry.
        ("scatter_cells", (8 + 4 + entry) * placed, 0),
        (
            "broad (query)",
            4 * listed
                + 16 * visited
                + (cell - 12 + aabb) * searching
                + 2 * bucket * cells
                + entry * entries
                + aabb * in_row
                + 16 * reached
                + 4 * reports
                + (4 + 8) * c,
            c,
        ),
        (
            "narrow",
            (8 + 2 * (info + transform)) * c + 8 * pairs,
            pairs,
        ),
        ("readback (GPU to host)", 32 + 8 * pairs, 0),
    ];
    println!("bullet-hell, {n} bodies (seed 4):");
    println!(
        "  placed {placed}, searching {searching}, cells read {cells}, entries read {entries} ({in_row} of the rows read), \
         boxes reached {reached}, candidates {c}, pairs {pairs}, buckets {buckets}"
    );
    let mut total = 0;
    for (stage, bytes, atomics) in stages {
        total += bytes;
        println!(
            "  {stage:<24} {:>9.2} MB  {:>6.1} B/body  {atomics:>9} global atomics",
            bytes as f64 / 1e6,
            bytes as f64 / bodies as f64
        );
    }
    println!("  {:<24} {:>9.2} MB", "all", total as f64 / 1e6);
}
