//! Choosing the grid's cell size for a scene by measuring, on a sample of its bodies,
//! what the broad phase would read with each of a few sizes.
//!
//! Why measure: the cost of the grid query is the cells and entries the bodies read, and
//! it depends on how sizes and crowding mix, not on the median size alone. Counted on
//! 10k-body scenes of this project's generators with other seeds (cells + entries read,
//! base cell as a multiple of the median body): the best multiple was 1.25 for polygons,
//! 1.5 for bitmasks, 2 for one mixed scene and bullet-hell, and a fixed multiple lost up
//! to 2x on some scene (BENCHMARKS.md, "The cell size, measured per scene"). Neighbouring
//! multiples can differ by 2x too, when they move a crowd of bodies up or down a level.
//!
//! How: every k-th body (at most [`SAMPLE`] of them) is placed in a grid of its own for
//! each candidate size, and each sampled body's search is counted as the `broad` kernel
//! would read it. The sample has fewer bodies per cell than the scene by the sampling
//! ratio, so its entries are scaled up by that ratio before they are added to the cells.
//! A few hundred microseconds of host time, spent only when the bodies' shapes or
//! filters change. Any size gives the same pairs; only the time differs.

use glam::{IVec2, Vec2};

use crate::cpu::bounds::body_bounds;
use crate::cpu::broad::Grid;
use crate::cpu::query::{reached_entries, walk_grid, Reach, Reached};
use crate::grid::{
    bucket_count, cell_bucket, level_of, median_extent, probed_cells, query_bucket_count,
    waiter_layers, GridParams, TableLayout, TOP_LEVEL,
};
use crate::answer::query::QueryBatch;
use crate::input::library::ShapeLibrary;
use crate::layout::packed::{Aabb, BodyInfo, BodyTransform, NO_LEVEL};

/// Bodies sampled to choose the cell size.
pub const SAMPLE: usize = 2048;

/// Base cells tried, as multiples of the median body.
pub const MULTIPLES: [f32; 5] = [1.0, 1.25, 1.5, 2.0, 3.0];

/// The multiple kept unless another reads clearly less: twice the median body puts most
/// bodies on level 0 (see [`GridParams::for_bodies`]).
pub const DEFAULT_MULTIPLE: f32 = 2.0;

/// How much less another multiple must read, by the sample, to be chosen over
/// [`DEFAULT_MULTIPLE`]: the sample holds few of a scene's rare large bodies, and on
/// bullet-hell 100k its estimates were off by up to 3x at multiples other than 2.
pub const CLEAR_GAIN: f64 = 0.85;

/// The grid for these bodies: the base cell among [`MULTIPLES`] of the median body that
/// reads the least on a sample of the bodies where they are now.
pub fn choose_grid(
    library: &ShapeLibrary,
    infos: &[BodyInfo],
    transforms: &[BodyTransform],
) -> GridParams {
    let median = median_extent(library, infos);
    let (stride, sample_infos, sample_boxes) = sample_bodies(library, infos, transforms);
    choose_multiple(median, infos, stride, &sample_infos, &sample_boxes)
}

/// [`choose_grid`] for bodies known by their boxes alone (the caller's bodies around
/// their parts' boxes): the median body is the median of the sampled boxes' larger sides.
pub fn choose_grid_of_boxes(infos: &[BodyInfo], boxes: &[Aabb]) -> GridParams {
    let stride = infos.len().div_ceil(SAMPLE).max(1);
    let sample_infos: Vec<BodyInfo> = infos.iter().step_by(stride).copied().collect();
    let sample_boxes: Vec<Aabb> = boxes.iter().step_by(stride).copied().collect();
    let mut sides: Vec<f32> = sample_boxes
        .iter()
        .map(|b| (b.max[0] - b.min[0]).max(b.max[1] - b.min[1]))
        .filter(|side| *side > 0.0 && side.is_finite())
        .collect();
    sides.sort_by(f32::total_cmp);
    // As `median_extent` when no body has a size: any cell finds the same pairs.
    let median = sides.get(sides.len() / 2).copied().unwrap_or(1.0);
    choose_multiple(median, infos, stride, &sample_infos, &sample_boxes)
}

/// The grid whose base cell, among [`MULTIPLES`] of `median`, reads the least for the
/// sample (every `stride`-th body of `infos`).
fn choose_multiple(
    median: f32,
    infos: &[BodyInfo],
    stride: usize,
    sample_infos: &[BodyInfo],
    sample_boxes: &[Aabb],
) -> GridParams {
    let waiter_layers = waiter_layers(infos);
    let cost = |multiple: f32| {
        // The count leaves out entries of other cells, so the sample's layout is moot.
        let params = GridParams {
            base_cell: multiple * median,
            bucket_count: bucket_count(sample_infos.len()),
            waiter_layers,
            layout: TableLayout::SCATTERED,
        };
        let (cells, entries) = reads(&params, sample_infos, sample_boxes);
        cells as f64 + entries as f64 * stride as f64
    };
    let default = cost(DEFAULT_MULTIPLE);
    let (best_cost, best) = MULTIPLES
        .into_iter()
        .filter(|&m| m != DEFAULT_MULTIPLE)
        .map(|m| (cost(m), m))
        .fold((f64::INFINITY, DEFAULT_MULTIPLE), |a, b| {
            if b.0 < a.0 {
                b
            } else {
                a
            }
        });
    let multiple = if best_cost < CLEAR_GAIN * default {
        best
    } else {
        DEFAULT_MULTIPLE
    };
    laid_out(
        GridParams {
            base_cell: multiple * median,
            bucket_count: bucket_count(infos.len()),
            waiter_layers,
            layout: TableLayout::SCATTERED,
        },
        sample_boxes,
    )
}

/// `params` with the table laid out around the centres of `boxes` (a sample of the
/// bodies) and the levels they sit on: see [`TableLayout`]. The top level's one cell
/// is left out of the count: it may share a bucket, where reserving a band for it
/// would leave small tables scattered.
fn laid_out(params: GridParams, boxes: &[Aabb]) -> GridParams {
    let (mut min, mut max) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    let mut levels = 1;
    for b in boxes {
        let (low, high) = (Vec2::from(b.min), Vec2::from(b.max));
        let centre = 0.5 * (low + high);
        (min, max) = (min.min(centre), max.max(centre));
        let level = level_of(&params, (high - low).max_element());
        if level < TOP_LEVEL {
            levels = levels.max(level + 1);
        }
    }
    let layout = if min.cmple(max).all() {
        TableLayout::around(min, max, params.base_cell, levels, params.bucket_count)
    } else {
        TableLayout::SCATTERED
    };
    GridParams { layout, ..params }
}

/// Every k-th body (at most [`SAMPLE`] of them): k, their infos and their boxes.
fn sample_bodies(
    library: &ShapeLibrary,
    infos: &[BodyInfo],
    transforms: &[BodyTransform],
) -> (usize, Vec<BodyInfo>, Vec<Aabb>) {
    let stride = infos.len().div_ceil(SAMPLE).max(1);
    let sample_infos = infos.iter().step_by(stride).copied().collect();
    let sample_boxes = transforms
        .iter()
        .zip(infos)
        .step_by(stride)
        .map(|(t, info)| body_bounds(library, t, info))
        .collect();
    (stride, sample_infos, sample_boxes)
}

/// Cells the query reads for these bodies with `params`, and the grid entries of those
/// cells: the reading of [`Grid::candidates_of`], counted rather than tested. Entries of
/// other cells sharing a bucket are left out: there are about as many per cell read
/// (the table has about a bucket per body) whatever the cell size, and unlike the
/// entries of the cell itself they do not grow with the crowding a sample thins out.
pub fn reads(params: &GridParams, infos: &[BodyInfo], boxes: &[Aabb]) -> (u64, u64) {
    let grid = Grid::build(params, infos, boxes);
    let (mut cells, mut entries) = (0u64, 0u64);
    for (me, own) in grid.places.iter().zip(boxes) {
        if me.level == NO_LEVEL {
            continue;
        }
        let search = grid.levels_to_search(params, me);
        let mut levels = search.seekers | search.waiters;
        while levels != 0 {
            let level = levels.trailing_zeros();
            levels &= levels - 1;
            let (min, max) = (Vec2::from(own.min), Vec2::from(own.max));
            let whole = search.waiters >> level & 1 == 1;
            // At most a few thousand cells (see `lowest_reach`).
            for cell in probed_cells(
                params,
                IVec2::from(me.cell),
                me.level,
                min,
                max,
                level,
                whole,
            ) {
                cells += 1;
                entries += grid
                    .bucket_entries(cell_bucket(params, cell, level))
                    .iter()
                    .map(|&j| &grid.places[j as usize])
                    .filter(|e| e.level == level && IVec2::from(e.cell) == cell)
                    .count() as u64;
            }
        }
    }
    (cells, entries)
}

/// Queries sampled to choose the query grid's cell size.
pub const QUERY_SAMPLE: usize = 256;

/// Base cells tried for a batch of queries, as multiples of the median body: a query
/// has no body of its own to be near, so in a sparse scene it walks mostly empty cells
/// unless they are coarser than the pairs' (see [`choose_query_grid`]).
pub const QUERY_MULTIPLES: [f32; 5] = [1.0, 2.0, 4.0, 8.0, 16.0];

/// What reading an entry costs the query walk against passing a cell. Set when the gpu's
/// walk read the entries itself, a turn of its loop for each: the count then picked the
/// multiple that was fastest on lavapipe (see [`choose_query_grid`]); with 0.5 it picked
/// the next one up. The walk now hands a row's cells over in one piece, so a cell costs
/// less, and the same pick still wins: on the benchmark's rays, walk and deferred reading
/// took 4.9 + 17.7 ms at 4 times the median body against 9.2 + 24.2 at 2 times and 2.4 +
/// 19.1 at 8 times, where the tests took 10 ms against 2 (BENCHMARKS.md, "Queries: their
/// own grid, and rays that hand their rows over").
pub const QUERY_ENTRY_WEIGHT: f64 = 1.0;

/// The grid for a batch of queries: every body in it (its mask opened, none waiting,
/// see `Collider::query`), with the base cell among [`QUERY_MULTIPLES`] of the median
/// body that reads the least, counted on a sample of the bodies and of the queries.
///
/// Why not the pairs' grid: a body looks only around itself, where the grid is made fine
/// enough that most cells hold a body; a ray 20 to 200 units long crosses every cell
/// along it on every level, and in a sparse scene most of them are empty. On the
/// bullet-hell scene at 100k (a body per 25 x 25 units, bodies 3 to 48 across), 10^4 rays
/// took 67-69 ms a batch on lavapipe with the pairs' cell (twice the median body), 56-59
/// with 4 times, 70-77 with 8 and 97-143 with 16, where cells hold many bodies each; the
/// count picks 4 (BENCHMARKS.md, "Queries: their own grid, and rays that hand their rows
/// over"). Any size gives the same answers.
pub fn choose_query_grid(
    library: &ShapeLibrary,
    infos: &[BodyInfo],
    transforms: &[BodyTransform],
    batch: &QueryBatch,
) -> GridParams {
    let median = median_extent(library, infos);
    let (stride, sample_infos, sample_boxes) = sample_bodies(library, infos, transforms);
    let queries = sample_queries(batch);
    let cost = |multiple: f32| {
        let params = query_params(multiple * median, sample_infos.len());
        let (cells, entries) = query_reads(&params, &sample_infos, &sample_boxes, &queries);
        cells as f64 + QUERY_ENTRY_WEIGHT * entries as f64 * stride as f64
    };
    let (_, multiple) = QUERY_MULTIPLES.into_iter().map(|m| (cost(m), m)).fold(
        (f64::INFINITY, DEFAULT_MULTIPLE),
        |a, b| if b.0 < a.0 { b } else { a },
    );
    laid_out(query_params(multiple * median, infos.len()), &sample_boxes)
}

/// The query grid chosen by [`choose_query_grid`], kept while the bodies' infos and the
/// batch's counts of rays, points and boxes stay the same: choosing measures a few
/// grids on samples, about 3 ms of host time at 100k bodies, where a batch takes tens.
#[derive(Debug, Clone, Default)]
pub struct QueryGridChoice {
    chosen: Option<(GridParams, [usize; 3], Vec<BodyInfo>)>,
}

impl QueryGridChoice {
    /// The grid for this batch over these bodies (infos with their masks opened),
    /// chosen again when the infos or the batch's counts changed.
    pub fn params(
        &mut self,
        library: &ShapeLibrary,
        infos: &[BodyInfo],
        transforms: &[BodyTransform],
        batch: &QueryBatch,
    ) -> GridParams {
        let counts = [batch.rays.len(), batch.points.len(), batch.boxes.len()];
        match &self.chosen {
            Some((params, seen, seen_infos)) if *seen == counts && seen_infos == infos => *params,
            _ => {
                let params = choose_query_grid(library, infos, transforms, batch);
                self.chosen = Some((params, counts, infos.to_vec()));
                params
            }
        }
    }
}

/// A query grid for `bodies` bodies: none waits, since a query has its own mask.
fn query_params(base_cell: f32, bodies: usize) -> GridParams {
    GridParams {
        base_cell,
        bucket_count: query_bucket_count(bodies),
        waiter_layers: 0,
        layout: TableLayout::SCATTERED,
    }
}

/// Every k-th ray, point and box of the batch, at most about [`QUERY_SAMPLE`] in all.
fn sample_queries(batch: &QueryBatch) -> Vec<Reach> {
    let total = batch.rays.len() + batch.points.len() + batch.boxes.len();
    let stride = total.div_ceil(QUERY_SAMPLE).max(1);
    let rays = batch.rays.iter().step_by(stride).map(Reach::of_ray);
    let points =
        (batch.points.iter().step_by(stride)).map(|p| Reach::of_box(p.mask, p.point, p.point));
    let boxes = (batch.boxes.iter().step_by(stride)).map(|b| Reach::of_box(b.mask, b.min, b.max));
    rays.chain(points).chain(boxes).collect()
}

/// Cells the walks of `queries` read in a grid of these bodies with `params`, and the
/// entries of those cells (or of the levels read whole): the reading of
/// [`crate::cpu::query::grid_candidates`], counted rather than tested, and to the end of each ray.
pub fn query_reads(
    params: &GridParams,
    infos: &[BodyInfo],
    boxes: &[Aabb],
    queries: &[Reach],
) -> (u64, u64) {
    let grid = Grid::build(params, infos, boxes);
    let (mut cells, mut entries) = (0u64, 0u64);
    for &reach in queries {
        walk_grid(&grid, params, reach, |reached| {
            cells += u64::from(matches!(reached, Reached::Cell(..)));
            entries += reached_entries(&grid, params, reached).count() as u64;
            1.0
        });
    }
    (cells, entries)
}

// On the generators' scenes, so only with them.
#[cfg(all(test, feature = "generate"))]
mod tests {
    use super::*;
    use crate::answer::query::QueryBatch;
    use crate::cpu::bounds::bounds;
    use crate::input::scene::Scene;
    use crate::layout::bodies::{body_info, body_transform};
    use crate::tools::generate::{random_scene, BulletHell, SceneKind};

    /// The scene's library, and its bodies' infos and transforms.
    fn prepared(scene: &Scene) -> (ShapeLibrary, Vec<BodyInfo>, Vec<BodyTransform>) {
        let library = scene.validate().expect("valid");
        let infos = scene.bodies.iter().map(body_info).collect();
        let transforms = scene.bodies.iter().map(body_transform).collect();
        (library, infos, transforms)
    }

    /// A bullet-hell scene of 30k bodies, a batch of 240 queries over it, and the query
    /// grid chosen for them.
    struct SparseCase {
        scene: Scene,
        batch: QueryBatch,
        library: ShapeLibrary,
        infos: Vec<BodyInfo>,
        transforms: Vec<BodyTransform>,
        chosen: GridParams,
    }

    fn sparse_query_case(seed: u64) -> SparseCase {
        let scene = BulletHell::new(30_000, seed).scene;
        let batch = batch_over(&scene, 240, seed);
        let (library, infos, transforms) = prepared(&scene);
        let chosen = choose_query_grid(&library, &infos, &transforms, &batch);
        SparseCase {
            scene,
            batch,
            library,
            infos,
            transforms,
            chosen,
        }
    }

    /// Cells plus entries the whole scene reads with `params`.
    fn whole_reads(scene: &Scene, params: &GridParams) -> u64 {
        let (library, infos, transforms) = prepared(scene);
        let boxes = bounds(&library, &transforms, &infos);
        let (cells, entries) = reads(params, &infos, &boxes);
        cells + entries
    }

    /// The chosen grid's reading of the whole scene, as a fraction of the default's.
    fn chosen_over_default(scene: &Scene) -> f64 {
        let (library, infos, transforms) = prepared(scene);
        let chosen = choose_grid(&library, &infos, &transforms);
        let default = GridParams::for_bodies(&library, &infos);
        whole_reads(scene, &chosen) as f64 / whole_reads(scene, &default) as f64
    }

    #[test]
    fn the_chosen_cell_reads_less_on_crowded_scenes_and_never_much_more() {
        for seed in [11, 12, 13] {
            for (kind, at_most) in [
                (SceneKind::Polygons, 0.8),
                (SceneKind::Bitmasks, 0.8),
                (SceneKind::Mixed, 1.05),
                (SceneKind::Circles, 1.05),
            ] {
                let ratio = chosen_over_default(&random_scene(kind, 6000, seed));
                assert!(
                    ratio <= at_most,
                    "{kind:?} seed {seed}: {ratio:.2} of the default"
                );
            }
        }
        let ratio = chosen_over_default(&BulletHell::new(30_000, 5).scene);
        assert!(ratio <= 1.05, "bullet-hell: {ratio:.2} of the default");
    }

    /// Rays 20 to 200 units long from anywhere among the bodies, in any direction; points
    /// and boxes up to 50 across, a third each.
    fn batch_over(scene: &Scene, count: usize, seed: u64) -> QueryBatch {
        let (lo, hi) = scene.bodies.iter().fold(
            (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
            |(lo, hi), b| (lo.min(b.position), hi.max(b.position)),
        );
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut batch = QueryBatch::default();
        for k in 0..count {
            let at = lo + Vec2::new(next(), next()) * (hi - lo);
            let size = Vec2::new(next(), next()) * 50.0;
            match k % 3 {
                0 => batch.rays.push(crate::answer::query::Ray::new(
                    at,
                    Vec2::from_angle(next() * std::f32::consts::TAU) * (20.0 + 180.0 * next()),
                )),
                1 => batch.points.push(crate::answer::query::PointQuery::new(at)),
                _ => batch.boxes.push(crate::answer::query::BoxQuery::new(at, at + size)),
            }
        }
        batch
    }

    /// What the whole batch reads over the whole scene with `params`, weighted as the
    /// choice weighs it.
    fn whole_query_reads(scene: &Scene, batch: &QueryBatch, params: &GridParams) -> f64 {
        let (library, infos, transforms) = prepared(scene);
        let boxes = bounds(&library, &transforms, &infos);
        assert!(batch.rays.len() + batch.points.len() + batch.boxes.len() <= QUERY_SAMPLE);
        let queries = sample_queries(batch);
        let (cells, entries) = query_reads(params, &infos, &boxes, &queries);
        cells as f64 + QUERY_ENTRY_WEIGHT * entries as f64
    }

    #[test]
    fn the_query_grid_reads_less_than_the_pairs_grid_on_sparse_scenes() {
        // A body per 25 x 25 units, most of them 3 to 6 across: the pairs' cells (twice
        // the median body) are mostly empty along a ray.
        for seed in [5, 6] {
            let SparseCase {
                scene,
                batch,
                library,
                infos,
                chosen,
                ..
            } = sparse_query_case(seed);
            let pairs = GridParams::for_bodies(&library, &infos);
            assert!(chosen.base_cell > pairs.base_cell, "{chosen:?} {pairs:?}");
            let ratio = whole_query_reads(&scene, &batch, &chosen)
                / whole_query_reads(&scene, &batch, &query_params(pairs.base_cell, infos.len()));
            assert!(
                ratio <= 0.7,
                "bullet-hell seed {seed}: {ratio:.2} of the pairs' grid"
            );
        }
        // Crowded scenes: never much more than the pairs' grid.
        for (kind, seed) in [
            (SceneKind::Polygons, 11),
            (SceneKind::Bitmasks, 12),
            (SceneKind::Mixed, 13),
        ] {
            let scene = random_scene(kind, 6000, seed);
            let batch = batch_over(&scene, 240, seed);
            let (library, infos, transforms) = prepared(&scene);
            let chosen = choose_query_grid(&library, &infos, &transforms, &batch);
            let pairs = GridParams::for_bodies(&library, &infos);
            let ratio = whole_query_reads(&scene, &batch, &chosen)
                / whole_query_reads(&scene, &batch, &query_params(pairs.base_cell, infos.len()));
            assert!(
                ratio <= 1.1,
                "{kind:?} seed {seed}: {ratio:.2} of the pairs' grid"
            );
        }
    }

    #[test]
    fn a_sparse_scenes_query_grid_gives_each_cell_its_own_bucket() {
        // The rows of the bullet-hell scene's levels need more buckets than the pairs'
        // table has, fewer than the query grid's (query_bucket_count).
        for seed in [3, 4] {
            let SparseCase {
                library,
                infos,
                transforms,
                chosen,
                ..
            } = sparse_query_case(seed);
            assert_ne!(
                chosen.layout,
                TableLayout::SCATTERED,
                "seed {seed}: {chosen:?}"
            );
            let (_, _, sample_boxes) = sample_bodies(&library, &infos, &transforms);
            let pairs_table = GridParams {
                bucket_count: bucket_count(infos.len()),
                ..query_params(chosen.base_cell, infos.len())
            };
            assert_eq!(
                laid_out(pairs_table, &sample_boxes).layout,
                TableLayout::SCATTERED,
                "seed {seed}: the pairs' table would do"
            );
        }
    }

    #[test]
    fn a_query_grid_is_chosen_again_only_when_the_bodies_or_the_batch_change() {
        let scene = BulletHell::new(3000, 7).scene;
        let (library, mut infos, transforms) = prepared(&scene);
        let batch = batch_over(&scene, 90, 7);
        let mut choice = QueryGridChoice::default();
        let first = choice.params(&library, &infos, &transforms, &batch);
        assert_eq!(
            first,
            choose_query_grid(&library, &infos, &transforms, &batch)
        );
        // Only rays now: chosen again, for what rays read.
        let rays = QueryBatch {
            rays: batch.rays.clone(),
            ..QueryBatch::default()
        };
        let again = choice.params(&library, &infos, &transforms, &rays);
        assert_eq!(
            again,
            choose_query_grid(&library, &infos, &transforms, &rays)
        );
        // Other bodies: chosen again.
        infos.truncate(1000);
        let fewer = choice.params(&library, &infos, &transforms[..1000], &rays);
        assert_eq!(fewer.bucket_count, query_bucket_count(1000));
    }
}
