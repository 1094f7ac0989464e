//! Stage 2, broad phase: candidate pairs through a hierarchical grid. Twin of
//! `shaders/broad.wgsl`, function for function; the design and its reasons are
//! described at the top of that file.
//!
//! [`Grid::build`] is the counting sort (`assign_cell`, which the GPU runs in its bounds
//! kernel, then `allocate_buckets` and `scatter_cells`), in shards of the table rather
//! than with atomics;
//! [`Grid::candidates_of`] is one thread of the `broad` kernel, and the fast CPU path runs
//! it for the bodies that may search ([`Grid::listed_seekers`]) in parallel.

use std::sync::atomic::{AtomicU64, Ordering};

use glam::{IVec2, Vec2};
use rayon::prelude::*;

use crate::cpu::stretches::split_at_starts;
use crate::answer::collider::Pair;
use crate::layout::geometry::{filters_agree, same_owner};
use crate::grid::{
    cell_at, cell_bucket, level_of, look_levels, lowest_reach, probe_down, probed_cells,
    reports_seeker, search_levels, waiter_looks, waits, GridParams, SearchLevels,
};
use crate::layout::packed::{
    Aabb, BodyInfo, GridInfo, BUCKETS_PER_THREAD, MAX_LEVELS, NO_BUCKET, NO_LEVEL,
};

/// Where a body sits in the grid and whom it may meet: the GPU's `BodyCell` without the
/// shape kind, which only the GPU's bins need. 24 bytes rather than 32: the walk reads
/// one for every entry it meets, and with the GPU's record the crowded circles 2·10^4
/// took 2-4% longer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BodyPlace {
    /// The cell holding the centre of the body's box, at its level.
    pub cell: [i32; 2],
    /// The body's level, or [`NO_LEVEL`] for a body left out of the grid.
    pub level: u32,
    /// The body's layer bits.
    pub layer: u32,
    /// The body's mask bits.
    pub mask: u32,
    /// The body's [`BodyInfo::owner`].
    pub owner: u32,
}

/// The cell and level of one body, or level [`NO_LEVEL`] for a body that accepts or
/// offers nothing, or an empty bitmask.
fn place(params: &GridParams, body: &BodyInfo, b: &Aabb) -> BodyPlace {
    let (min, max) = (Vec2::from(b.min), Vec2::from(b.max));
    if body.layer == 0 || body.mask == 0 || !min.cmple(max).all() {
        return BodyPlace {
            level: NO_LEVEL,
            ..BodyPlace::default()
        };
    }
    let extent = (max - min).max_element();
    let level = level_of(params, extent);
    let cell = cell_at(params, (min + max) * 0.5, level);
    BodyPlace {
        cell: cell.to_array(),
        level,
        layer: body.layer,
        mask: body.mask,
        owner: body.owner,
    }
}

/// The bucket of a body placed at `c`, or [`NO_BUCKET`] for one left out. (The GPU
/// counts each body's rank in its bucket too; the twin places a bucket's bodies in index
/// order, see [`Grid::rebuild`], and has no lanes to keep in step.)
fn bucket_of(params: &GridParams, c: &BodyPlace) -> u32 {
    if c.level == NO_LEVEL {
        NO_BUCKET
    } else {
        cell_bucket(params, IVec2::from(c.cell), c.level)
    }
}

/// Adds a placed body to what its level holds: its layer, and for a seeker (a body that
/// does not wait) its count and the cells it would read on the finer levels. As the
/// per-level atomics of `assign_cell`. Whether the body is a seeker.
fn add_to_level(
    info: &mut GridInfo,
    params: &GridParams,
    placed: &BodyPlace,
    body: &BodyInfo,
    b: &Aabb,
) -> bool {
    if placed.level == NO_LEVEL {
        return false;
    }
    let level = placed.level as usize;
    info.level_layers[level] |= body.layer;
    info.occupied_levels |= 1 << placed.level;
    // Waiting bodies never reach down, and the choice of which side looks between two
    // levels is for the seekers.
    if waits(params, body.layer) {
        info.level_waiters[level] |= body.layer;
        return false;
    }
    info.level_bodies[level] += 1;
    let reached = &mut info.reached_cells[level * MAX_LEVELS as usize..][..MAX_LEVELS as usize];
    let (min, max) = (Vec2::from(b.min), Vec2::from(b.max));
    let floor = lowest_reach(params, min, max, placed.level, |fine, cells| {
        reached[fine as usize] = reached[fine as usize].wrapping_add(cells);
    });
    info.reach_floor[level] = info.reach_floor[level].max(floor);
    true
}

/// What two sets of bodies' levels hold together ([`add_to_level`] over both).
fn merge_levels(mut a: GridInfo, b: GridInfo) -> GridInfo {
    for l in 0..MAX_LEVELS as usize {
        a.level_layers[l] |= b.level_layers[l];
        a.level_waiters[l] |= b.level_waiters[l];
        a.level_bodies[l] += b.level_bodies[l];
        a.reach_floor[l] = a.reach_floor[l].max(b.reach_floor[l]);
    }
    a.occupied_levels |= b.occupied_levels;
    for (mine, theirs) in a.reached_cells.iter_mut().zip(b.reached_cells) {
        *mine = mine.wrapping_add(theirs);
    }
    a
}

/// The first bucket of each of `shards` shards of a table of `buckets` buckets: about
/// equal, whole chunks of [`BUCKETS_PER_THREAD`], the first at 0, none empty.
fn shard_starts(buckets: u32, shards: usize) -> Vec<u32> {
    let chunks = buckets.div_ceil(BUCKETS_PER_THREAD).max(1);
    let shards = (shards as u32).clamp(1, chunks);
    (0..shards)
        .map(|s| (chunks as u64 * s as u64 / shards as u64) as u32 * BUCKETS_PER_THREAD)
        .collect()
}

/// Bodies from which [`Grid::rebuild`] sorts in one shard per thread.
const SHARDS_FROM: usize = 1 << 15;

/// Bodies a thread takes at a time in [`Grid::rebuild`]'s passes over them.
const CHUNK: usize = 4096;

/// The grid of one frame: every body in one cell, the cells in a hash table.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    /// Where each body sits.
    pub places: Vec<BodyPlace>,
    /// The hash table, a word a bucket and one more: bucket `b`'s bodies are entries
    /// `bucket_ends[b] .. bucket_ends[b + 1]` (see [`Self::bucket_entries`]). The
    /// counting sort counts bucket `b` in word `b + 1`, turns the counts into starts and
    /// moves each start past the bodies it places, so that each word ends as the end of
    /// its bucket and the start of the next. Half the memory of a count and a start a
    /// bucket, and no pass to set the starts back after the scatter; measured, a small
    /// gain (BENCHMARKS.md, "The cpu backend"). The GPU's
    /// table is a word a bucket too, in blocks (`bucket_start` in `shaders/grid.wgsl`).
    pub bucket_ends: Vec<u32>,
    /// The bodies sorted by bucket: each entry a body's index, whose cell and filter
    /// are read from its [`BodyPlace`] by whoever reads the entry, as the GPU's entries
    /// are (which carry their row's tag as well, `row_tag` in `shaders/grid.wgsl`).
    ///
    /// Why one word: the scatter writes each body's entry at a random place, and a
    /// frame's entries in one word are a sixth of the bytes that copies of the cell and
    /// filter took, so far more of them stay in the caches. Measured on 2 threads
    /// (BENCHMARKS.md, "The cpu backend"): bullet-hell 1M
    /// and 100k, where only the 1% of seekers read entries, gained more in the scatter
    /// than the seekers lost reading records; the crowded 10k scenes, where every body
    /// reads, lost a percent or two, and gained it back once the walk read the other's
    /// box before its record.
    pub entries: Vec<u32>,
    /// What each level holds, and which side looks between levels.
    pub info: GridInfo,
    /// Each body's bucket alone: what every shard of the sort reads of every body, an
    /// sixth of its [`BodyPlace`].
    body_buckets: Vec<u32>,
    /// Each shard's bodies, listed by the scatter before it places them (kept from
    /// frame to frame for their memory).
    shard_bodies: Vec<Vec<u32>>,
    /// The bodies that do not wait, in index order, where some bodies wait. (Where
    /// none wait, the gpu lists every body, each workgroup's ordered by how far its
    /// last walk went, or by level, so that the invocations it runs in lockstep walk
    /// alike; a thread here has nobody to wait for.)
    seekers: Option<Vec<u32>>,
}

impl Grid {
    /// Sorts the bodies into a new grid.
    pub fn build(params: &GridParams, infos: &[BodyInfo], aabbs: &[Aabb]) -> Grid {
        let mut grid = Grid::default();
        grid.rebuild(params, infos, aabbs);
        grid
    }

    /// Sorts the bodies into the grid, reusing its memory: where each body goes and what
    /// each level holds, the count per bucket, each bucket's range, then the entries.
    ///
    /// The kernels count and scatter with atomics, so a bucket lists its bodies in any
    /// order. Here the table is cut into one shard of buckets per thread: each shard reads
    /// every body and takes those of its own buckets, in index order, so the entries come
    /// out as a sequential sort would place them (measured at 100k bullet-hell bodies on 2
    /// threads: BENCHMARKS.md, "The cpu backend").
    pub fn rebuild(&mut self, params: &GridParams, infos: &[BodyInfo], aabbs: &[Aabb]) {
        // Below some 30k bodies, handing shards to other threads costs more than it saves
        // (measured at 1k: 0.08 ms a frame in one shard, 0.11 to 0.17 in two).
        let shards = if infos.len() < SHARDS_FROM {
            1
        } else {
            rayon::current_num_threads()
        };
        self.rebuild_in_shards(params, infos, aabbs, shards);
    }

    /// [`Self::rebuild`] with the table cut into `shards` shards (the result is the same
    /// for any number).
    fn rebuild_in_shards(
        &mut self,
        params: &GridParams,
        infos: &[BodyInfo],
        aabbs: &[Aabb],
        shards: usize,
    ) {
        // assign_cell: where each body goes, and what each level holds (the kernel's
        // per-level atomics), on all cores.
        self.places.clear();
        self.places.par_extend(
            infos
                .par_iter()
                .zip(aabbs)
                .with_min_len(CHUNK)
                .map(|(body, b)| place(params, body, b)),
        );
        // In chunks: the summary is 1.3 kB, too large to pass from body to body. Where
        // some bodies wait, the seekers are listed too (see `listed_seekers`).
        let list_seekers = params.waiter_layers != 0;
        let (mut info, seekers) = self
            .places
            .par_chunks(CHUNK)
            .zip(infos.par_chunks(CHUNK))
            .zip(aabbs.par_chunks(CHUNK))
            .enumerate()
            .map(|(c, ((cells, bodies), boxes))| {
                let (mut info, mut seekers) = (GridInfo::default(), Vec::new());
                for (k, ((placed, body), b)) in cells.iter().zip(bodies).zip(boxes).enumerate() {
                    if add_to_level(&mut info, params, placed, body, b) && list_seekers {
                        seekers.push((c * CHUNK + k) as u32);
                    }
                }
                (info, seekers)
            })
            .reduce(
                || (GridInfo::default(), Vec::new()),
                |(a, mut first), (b, then)| {
                    first.extend(then);
                    (merge_levels(a, b), first)
                },
            );
        self.seekers = list_seekers.then_some(seekers);
        self.body_buckets.clear();
        self.body_buckets.par_extend(
            self.places
                .par_iter()
                .with_min_len(CHUNK)
                .map(|c| bucket_of(params, c)),
        );
        // allocate_buckets: which side looks between levels, from this frame's counts...
        info.look_levels = look_levels(&probe_down(&info), info.occupied_levels);
        info.waiter_looks = waiter_looks(&info);
        // ...the counts, shard by shard: bucket b's in word b + 1...
        self.bucket_ends.clear();
        self.bucket_ends.resize(params.bucket_count as usize + 1, 0);
        let shards = shard_starts(params.bucket_count, shards);
        let body_buckets = &self.body_buckets;
        split_at_starts(&mut self.bucket_ends[1..], shards.iter().map(|&s| s as usize))
            .into_par_iter()
            .zip(&shards)
            .for_each(|(counts, &first)| {
                // Without a branch: a shard's bodies come in no order, so a branch on
                // whether each is the shard's was mispredicted about every other time
                // (measured: this pass took 0.40 ms at 100k bodies, 0.12 like this).
                // A body of another shard adds 0 to the shard's last count.
                let last = counts.len() - 1;
                for &b in body_buckets {
                    let k = b.wrapping_sub(first) as usize;
                    counts[k.min(last)] += (k <= last) as u32;
                }
            });
        // ...then the starts, in bucket order, so each shard's entries follow the last
        // shard's...
        for word in &mut self.bucket_ends[1..] {
            let count = *word;
            *word = info.allocated;
            info.allocated += count;
        }
        // scatter_cells, shard by shard: a bucket's start serves as its cursor, and ends
        // as the bucket's end.
        self.entries.clear();
        self.entries.resize(info.allocated as usize, 0);
        let entry_starts: Vec<u32> = shards
            .iter()
            .map(|&first| self.bucket_ends[first as usize + 1])
            .collect();
        self.shard_bodies.resize_with(shards.len(), Vec::new);
        split_at_starts(&mut self.bucket_ends[1..], shards.iter().map(|&s| s as usize))
            .into_par_iter()
            .zip(split_at_starts(&mut self.entries, entry_starts.iter().map(|&s| s as usize)))
            .zip(self.shard_bodies.par_iter_mut())
            .zip(shards.par_iter().zip(&entry_starts))
            .for_each(|(((cursors, entries), mine), (&first, &base))| {
                // The shard's bodies in index order first, listed without a branch (as
                // the counts are): each body is written after the last one kept, and
                // kept by moving past it. Then they are placed (measured at 100k
                // bodies: 0.41 ms with a branch on each body, 0.22 like this).
                let last = cursors.len() - 1;
                // Grown when short, never cleared: every slot read is written first.
                if mine.len() <= entries.len() {
                    mine.resize(entries.len() + 1, 0);
                }
                let mut kept = 0;
                for (i, &b) in body_buckets.iter().enumerate() {
                    mine[kept] = i as u32;
                    kept += (b.wrapping_sub(first) as usize <= last) as usize;
                }
                for &i in &mine[..kept] {
                    let cursor =
                        &mut cursors[body_buckets[i as usize].wrapping_sub(first) as usize];
                    entries[(*cursor - base) as usize] = i;
                    *cursor += 1;
                }
            });
        self.info = info;
    }

    /// The bodies of bucket `bucket`, in index order.
    pub fn bucket_entries(&self, bucket: u32) -> &[u32] {
        let b = bucket as usize;
        &self.entries[self.bucket_ends[b] as usize..self.bucket_ends[b + 1] as usize]
    }

    /// The only bodies that search, when the grid can tell: where bodies wait and no
    /// level has waiting bodies that look up (`waiter_looks`), the seekers. A bullet-hell
    /// frame then reads 10^3 bodies instead of passing over 10^5 that look nowhere.
    /// `None`: any body may search.
    pub fn listed_seekers(&self) -> Option<&[u32]> {
        let waiters_look = self.info.waiter_looks.iter().any(|&levels| levels != 0);
        self.seekers.as_deref().filter(|_| !waiters_look)
    }

    /// The levels a placed body searches ([`search_levels`]). Most bullets have none.
    pub fn levels_to_search(&self, params: &GridParams, me: &BodyPlace) -> SearchLevels {
        search_levels(params, &self.info, me.layer, me.mask, me.level)
    }

    /// Appends body `i`'s candidates to `out`: one thread of the `broad` kernel (which
    /// hands crowded cells over to `broad_deferred` in pieces; here one thread reads
    /// them all). `out` is the thread's list for many bodies, begun empty.
    ///
    /// Stops early, returning false, once the frame is known to pass `limit`: once
    /// `found`, the tally shared by every thread, and what `out` holds beyond its share
    /// of it pass `limit`. Each list adds to the tally [`TALLY_STEP`] candidates at a
    /// time: an add a body cost a third of the walk on crowded scenes (circles 2·10^4),
    /// the threads trading the tally's cache line. So the tally may be short of the
    /// candidates found by less than a step a list, and the caller refuses a frame whose
    /// lists hold more than `limit` in all.
    #[allow(clippy::too_many_arguments)]
    pub fn candidates_of(
        &self,
        params: &GridParams,
        i: usize,
        aabbs: &[Aabb],
        limit: u64,
        found: &AtomicU64,
        out: &mut Vec<Pair>,
    ) -> bool {
        let me = &self.places[i];
        if me.level == NO_LEVEL {
            return true;
        }
        let search = self.levels_to_search(params, me);
        let mut levels = search.seekers | search.waiters;
        if levels == 0 {
            return true;
        }
        let (layer, own) = (me.layer, &aabbs[i]);
        let mut checked = out.len();
        while levels != 0 {
            let level = levels.trailing_zeros();
            levels &= levels - 1;
            let mine = IVec2::from(me.cell);
            let seekers = search.seekers >> level & 1 == 1;
            let whole = search.waiters >> level & 1 == 1;
            let (min, max) = (Vec2::from(own.min), Vec2::from(own.max));
            for cell in probed_cells(params, mine, me.level, min, max, level, whole) {
                for &j in self.bucket_entries(cell_bucket(params, cell, level)) {
                    // The box first, as the kernel reads it: most bodies read do not
                    // reach it, and the boxes take half the bytes of the records.
                    if !own.overlaps(&aabbs[j as usize]) {
                        continue;
                    }
                    let other = &self.places[j as usize];
                    // Other cells share the bucket when their hashes collide.
                    if other.level != level || IVec2::from(other.cell) != cell {
                        continue;
                    }
                    let reported = if waits(params, other.layer) {
                        whole
                    } else {
                        reports_seeker(seekers, mine, me.level, i as u32, cell, level, j)
                    };
                    if !reported || same_owner(me.owner, other.owner) {
                        continue;
                    }
                    if filters_agree(layer, me.mask, other.layer, other.mask) {
                        out.push([(i as u32).min(j), (i as u32).max(j)]);
                    }
                }
                // Memory stays bounded: stop once the frame is known to be refused.
                if out.len() != checked {
                    let (from, to) = (tallied(checked), tallied(out.len()));
                    checked = out.len();
                    let untallied = (checked % TALLY_STEP) as u64;
                    let known = if to > from {
                        found.fetch_add(to - from, Ordering::Relaxed) + (to - from) + untallied
                    } else {
                        checked as u64
                    };
                    if known > limit {
                        found.fetch_add(untallied, Ordering::Relaxed);
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// How many candidates of a thread's list go into the shared tally at a time (see
/// [`Grid::candidates_of`]).
pub const TALLY_STEP: usize = 4096;

/// The part of a thread's list of `n` candidates that is in the shared tally.
fn tallied(n: usize) -> u64 {
    (n - n % TALLY_STEP) as u64
}

#[cfg(feature = "internals")]
/// Candidate pairs `[i, j]`, `i < j`, each once, in no particular order.
pub fn broad(params: &GridParams, infos: &[BodyInfo], aabbs: &[Aabb]) -> Vec<Pair> {
    let grid = Grid::build(params, infos, aabbs);
    let mut candidates = Vec::new();
    let found = AtomicU64::new(0);
    for i in 0..infos.len() {
        grid.candidates_of(params, i, aabbs, u64::MAX, &found, &mut candidates);
    }
    candidates
}

/// Candidate pairs by brute force, the reference path's broad phase: `[i, j]`, `i < j`, whose filters agree, who are not parts of one body and whose boxes overlap;
/// it stops after `limit + 1` of them.
pub fn all_pairs(infos: &[BodyInfo], aabbs: &[Aabb], limit: u64) -> Vec<Pair> {
    let mut candidates = Vec::new();
    for i in 0..infos.len() {
        for j in i + 1..infos.len() {
            let (a, b) = (&infos[i], &infos[j]);
            if filters_agree(a.layer, a.mask, b.layer, b.mask)
                && !same_owner(a.owner, b.owner)
                && aabbs[i].overlaps(&aabbs[j])
            {
                if candidates.len() as u64 > limit {
                    return candidates;
                }
                candidates.push([i as u32, j as u32]);
            }
        }
    }
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::bounds::bounds;
    #[cfg(feature = "generate")]
    use crate::tools::generate::{random_scene, BulletHell, SceneKind};
    use crate::input::scene::Scene;
    use crate::layout::bodies::{body_info, body_transform};

    /// What a grid is built from for a scene's bodies: its parameters, infos and boxes.
    fn grid_inputs(scene: &Scene) -> (GridParams, Vec<BodyInfo>, Vec<Aabb>) {
        let library = scene.validate().expect("valid");
        let transforms: Vec<_> = scene.bodies.iter().map(body_transform).collect();
        let infos: Vec<_> = scene.bodies.iter().map(body_info).collect();
        let aabbs = bounds(&library, &transforms, &infos);
        (GridParams::for_bodies(&library, &infos), infos, aabbs)
    }

    /// The grid's candidates equal the all-pairs candidates, whichever side looks
    /// between levels: always the coarse, always the fine, or as the host chose.
    fn check(scene: &Scene) {
        let (params, infos, aabbs) = grid_inputs(scene);
        let mut expected = all_pairs(&infos, &aabbs, u64::MAX);
        expected.sort_unstable();
        let mut grid = Grid::build(&params, &infos, &aabbs);
        let chosen = probe_down(&grid.info);
        for probe_down in [chosen, [0; 32], [u32::MAX; 32]] {
            grid.info.look_levels = look_levels(&probe_down, grid.info.occupied_levels);
            let (mut found, count) = (Vec::new(), AtomicU64::new(0));
            for i in 0..infos.len() {
                grid.candidates_of(&params, i, &aabbs, u64::MAX, &count, &mut found);
            }
            found.sort_unstable();
            assert_eq!(found, expected, "probe_down {:?}", &probe_down[..4]);
        }
    }

    /// Every shard count sorts alike, and as the sort's definition says: each bucket's
    /// range, in bucket order, lists the bodies of that bucket in index order.
    #[test]
    #[cfg(feature = "generate")]
    fn the_sort_is_the_same_in_any_number_of_shards() {
        let scene = BulletHell::new(20_000, 5).scene;
        let (params, infos, aabbs) = grid_inputs(&scene);
        let mut one = Grid::default();
        one.rebuild_in_shards(&params, &infos, &aabbs, 1);
        // Each bucket lists its bodies in index order, the buckets one after another.
        let mut expected = vec![Vec::new(); params.bucket_count as usize];
        for (i, placed) in one.places.iter().enumerate() {
            if let Some(list) = expected.get_mut(bucket_of(&params, placed) as usize) {
                list.push(i as u32);
            }
        }
        assert_eq!(one.bucket_ends[0], 0);
        for (b, listed) in expected.iter().enumerate() {
            assert_eq!(one.bucket_entries(b as u32), listed, "bucket {b}");
        }
        assert_eq!(one.bucket_ends.len(), params.bucket_count as usize + 1);
        assert_eq!(one.bucket_ends.last(), Some(&one.info.allocated));
        assert!(one.info.allocated > 0);
        for shards in [2, 3, 7, 64, 100_000] {
            let mut grid = Grid::default();
            grid.rebuild_in_shards(&params, &infos, &aabbs, shards);
            assert_eq!(grid.bucket_ends, one.bucket_ends, "{shards} shards");
            assert_eq!(grid.entries, one.entries, "{shards} shards");
            assert_eq!(grid.info, one.info, "{shards} shards");
        }
    }

    /// Where the grid lists its seekers, the bodies left out find nothing.
    #[test]
    #[cfg(feature = "generate")]
    fn bodies_the_grid_does_not_list_as_seekers_find_nothing() {
        let mut listed = 0;
        for scene in [
            BulletHell::new(20_000, 8).scene,
            BulletHell::new(3000, 9).scene,
        ] {
            let (params, infos, aabbs) = grid_inputs(&scene);
            let grid = Grid::build(&params, &infos, &aabbs);
            let Some(slice) = grid.listed_seekers() else {
                continue;
            };
            listed += 1;
            assert!(
                slice.len() * 20 < infos.len(),
                "{} of {}",
                slice.len(),
                infos.len()
            );
            assert!(slice.windows(2).all(|w| w[0] < w[1]));
            let count = AtomicU64::new(0);
            let (mut all, mut seen) = (Vec::new(), Vec::new());
            for i in 0..infos.len() {
                grid.candidates_of(&params, i, &aabbs, u64::MAX, &count, &mut all);
            }
            for &i in slice {
                grid.candidates_of(&params, i as usize, &aabbs, u64::MAX, &count, &mut seen);
            }
            assert!(!all.is_empty());
            all.sort_unstable();
            seen.sort_unstable();
            assert_eq!(seen, all);
        }
        assert!(listed > 0, "no bullet-hell grid listed its slice");
    }

    #[test]
    #[cfg(feature = "generate")]
    fn grid_candidates_equal_all_pairs_whichever_side_looks() {
        for kind in SceneKind::ALL {
            check(&random_scene(kind, 1500, 21));
        }
        check(&BulletHell::new(5000, 22).scene);
    }

    #[test]
    fn pairs_across_cells_are_found_once_whichever_body_has_the_lower_index() {
        // Unit squares 0.9 apart overlap their eight neighbours, in cells 2 wide: most
        // pairs span two cells, and the scrambled numbering puts the lower index in the
        // earlier cell for some pairs and in the later one for others.
        let bodies: Vec<String> = (0..100)
            .map(|k| {
                let n = k * 37 % 100;
                let (x, y) = ((n % 10) as f32 * 0.9, (n / 10) as f32 * 0.9);
                format!(r#"{{"shape": 0, "x": {x}, "y": {y}}}"#)
            })
            .collect();
        let scene = Scene::from_json(&format!(
            r#"{{"shapes": [{{"polygon": [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]}}],
                "bodies": [{}]}}"#,
            bodies.join(",")
        ))
        .expect("valid");
        check(&scene);
    }

    #[test]
    fn waiting_bodies_are_found_once_on_every_level() {
        // Bullet-hell filters (bullets wait), with sizes from 0.5 to 4000 units so that
        // seekers and waiters sit on many levels, over, under and beside each other: a
        // seeker too large to reach down to the bullets' level (they look up at it), waiters
        // coarser than seekers, and bodies stacked in one cell in both index orders.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        // (layer, mask): enemy bullet, player bullet, player, enemy.
        let filters = [(4u32, 1u32), (8, 2), (1, 4), (2, 8)];
        let sizes = [0.5f64, 1.0, 2.0, 5.0, 12.0, 40.0, 150.0];
        let shapes: Vec<String> = sizes
            .iter()
            .map(|r| format!(r#"{{"circle": {r}}}"#))
            .chain(std::iter::once(
                r#"{"polygon": [[-2000, -3], [2000, -3], [2000, 3], [-2000, 3]]}"#.to_string(),
            ))
            .collect();
        let mut bodies = Vec::new();
        for k in 0..1500 {
            // Mostly bullets, small; seekers of every size.
            let (layer, mask) = filters[if k % 10 < 8 { k % 2 } else { 2 + k % 2 }];
            let shape = if layer >= 4 {
                (next() * 5.0) as usize
            } else {
                (next() * sizes.len() as f64) as usize
            };
            let (x, y) = (next() * 400.0 - 200.0, next() * 400.0 - 200.0);
            bodies.push(format!(
                r#"{{"shape": {shape}, "x": {x}, "y": {y}, "layer": {layer}, "mask": {mask}}}"#
            ));
        }
        // The long wall: a seeker (an enemy) whose box no level below can hold within
        // the reach budget, crossing the bullets.
        bodies.push(format!(
            r#"{{"shape": {}, "x": 0, "y": 10, "angle": 0.3, "layer": 2, "mask": 8}}"#,
            sizes.len()
        ));
        let scene = Scene::from_json(&format!(
            r#"{{"shapes": [{}], "bodies": [{}]}}"#,
            shapes.join(","),
            bodies.join(",")
        ))
        .expect("valid");
        let infos: Vec<_> = scene.bodies.iter().map(body_info).collect();
        assert_eq!(
            crate::grid::waiter_layers(&infos),
            4 | 8,
            "the bullets wait"
        );
        // The scene has both ways of finding a waiting body: seekers reading its level,
        // and waiting bodies looking up at a level that cannot reach down to them.
        let library = scene.validate().expect("valid");
        let transforms: Vec<_> = scene.bodies.iter().map(body_transform).collect();
        let aabbs = bounds(&library, &transforms, &infos);
        let params = GridParams::for_bodies(&library, &infos);
        let grid = Grid::build(&params, &infos, &aabbs);
        let searches: Vec<_> = grid
            .places
            .iter()
            .filter(|me| me.level != NO_LEVEL)
            .map(|me| (waits(&params, me.layer), grid.levels_to_search(&params, me)))
            .collect();
        assert!(searches.iter().any(|(w, s)| !w && s.waiters != 0));
        assert!(searches.iter().any(|(w, s)| *w && s.seekers != 0));
        check(&scene);
    }

    #[test]
    fn touching_bodies_two_levels_apart_are_found() {
        // A body exactly as large as a level-0 cell touching a much larger one, both ways round.
        let scene = Scene::from_json(
            r#"{"shapes": [{"circle": 0.5}, {"circle": 8.0}],
                "bodies": [{"shape": 0, "x": 0, "y": 0}, {"shape": 0, "x": 0.3, "y": 0.2},
                           {"shape": 1, "x": 8.5, "y": 0}, {"shape": 1, "x": -8.5, "y": 0.9}]}"#,
        )
        .expect("valid");
        check(&scene);
    }
}
