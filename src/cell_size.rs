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
use crate::grid::{
    bucket_count, cell_bucket, median_extent, probed_cells, waiter_layers, GridParams,
};
use crate::library::ShapeLibrary;
use crate::packed::{BodyInfo, BodyTransform, NO_BUCKET};

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
    let waiter_layers = waiter_layers(infos);
    let stride = infos.len().div_ceil(SAMPLE).max(1);
    let sample_infos: Vec<BodyInfo> = infos.iter().step_by(stride).copied().collect();
    let sample_boxes: Vec<_> = transforms
        .iter()
        .zip(infos)
        .step_by(stride)
        .map(|(t, info)| body_bounds(library, t, info))
        .collect();
    let cost = |multiple: f32| {
        let params = GridParams {
            base_cell: multiple * median,
            bucket_count: bucket_count(sample_infos.len()),
            waiter_layers,
        };
        let (cells, entries) = reads(&params, &sample_infos, &sample_boxes);
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
    GridParams {
        base_cell: multiple * median,
        bucket_count: bucket_count(infos.len()),
        waiter_layers,
    }
}

/// Cells the query reads for these bodies with `params`, and the grid entries of those
/// cells: the reading of [`Grid::candidates_of`], counted rather than tested. Entries of
/// other cells sharing a bucket are left out: there are about as many per cell read
/// (the table has about a bucket per body) whatever the cell size, and unlike the
/// entries of the cell itself they do not grow with the crowding a sample thins out.
pub fn reads(params: &GridParams, infos: &[BodyInfo], boxes: &[crate::packed::Aabb]) -> (u64, u64) {
    let grid = Grid::build(params, infos, boxes);
    let (mut cells, mut entries) = (0u64, 0u64);
    for (me, own) in grid.body_cells.iter().zip(boxes) {
        if me.bucket == NO_BUCKET {
            continue;
        }
        let search = grid.levels_to_search(params, me);
        let mut levels = search.seekers | search.waiters;
        while levels != 0 {
            let level = levels.trailing_zeros();
            levels &= levels - 1;
            let (min, max) = (Vec2::from(own.min), Vec2::from(own.max));
            let whole = search.waiters >> level & 1 == 1;
            // At most a few thousand cells (see `sweep_reach`).
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
                let bucket = grid.buckets[cell_bucket(params, cell, level) as usize];
                let start = bucket.start as usize;
                entries += grid.entries[start..start + bucket.count as usize]
                    .iter()
                    .filter(|e| e.level == level && IVec2::from(e.cell) == cell)
                    .count() as u64;
            }
        }
    }
    (cells, entries)
}

// On the generators' scenes, so only with them.
#[cfg(all(test, feature = "generate"))]
mod tests {
    use super::*;
    use crate::cpu::bounds::bounds;
    use crate::generate::{random_scene, BulletHell, SceneKind};
    use crate::library::{body_info, body_transform};
    use crate::scene::Scene;

    /// Cells plus entries the whole scene reads with `params`.
    fn whole_reads(scene: &Scene, params: &GridParams) -> u64 {
        let library = scene.validate().expect("valid");
        let transforms: Vec<_> = scene.bodies.iter().map(body_transform).collect();
        let infos: Vec<_> = scene.bodies.iter().map(body_info).collect();
        let boxes = bounds(&library, &transforms, &infos);
        let (cells, entries) = reads(params, &infos, &boxes);
        cells + entries
    }

    /// The chosen grid's reading of the whole scene, as a fraction of the default's.
    fn chosen_over_default(scene: &Scene) -> f64 {
        let library = scene.validate().expect("valid");
        let transforms: Vec<_> = scene.bodies.iter().map(body_transform).collect();
        let infos: Vec<_> = scene.bodies.iter().map(body_info).collect();
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
}
