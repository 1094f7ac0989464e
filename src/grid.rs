//! The hierarchical grid's parameters, chosen on the host from the scene and shared by
//! the GPU broad phase (`shaders/broad.wgsl`) and its CPU twin ([`crate::cpu::broad`]).

use crate::cpu::broad::level_of;
use crate::library::ShapeLibrary;
use crate::packed::{BodyInfo, MAX_LEVELS};

/// How the grid is laid out for a scene.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridParams {
    /// Side of the finest cells; level `l` has cells of `base_cell · 2^l`.
    pub base_cell: f32,
    /// Buckets of the hash table: a power of two, at least as many as the bodies, so that
    /// few cells share a bucket while the table stays small enough to cache well.
    pub bucket_count: u32,
    /// Which side looks between two levels: bit `f` of entry `c` set means the bodies on
    /// level `c` sweep the cells of the finer level `f` under them; clear means each body
    /// on `f` looks at the level-`c` cells around it. Either finds every pair once; the
    /// host picks the one that touches fewer cells, from how many bodies each level holds.
    pub probe_down: [u32; MAX_LEVELS as usize],
}

impl GridParams {
    /// Parameters for these bodies.
    pub fn for_bodies(library: &ShapeLibrary, infos: &[BodyInfo]) -> Self {
        // Body sizes by shape, weighted by how many bodies use each shape.
        let mut uses = vec![0usize; library.len()];
        for info in infos {
            if let Some(n) = uses.get_mut(info.shape as usize) {
                *n += 1;
            }
        }
        // Cells twice the median body: most bodies then sit on level 0 (a body exactly
        // as large as a cell would be pushed up a level by the rounding margin), and a
        // coarse body sweeping level 0 covers a quarter of the cells it would otherwise.
        let base_cell = 2.0 * median_extent(library, &uses);
        let bucket_count = bucket_count(infos.len());
        let mut params = GridParams {
            base_cell,
            bucket_count,
            probe_down: [0; MAX_LEVELS as usize],
        };
        // Bodies per level, from sizes that hold whatever the rotation.
        let mut per_level = [0f64; MAX_LEVELS as usize];
        for (shape, n) in uses.iter().enumerate() {
            let extent = library.extents[shape];
            if *n > 0 && extent > 0.0 {
                per_level[level_of(&params, extent) as usize] += *n as f64;
            }
        }
        for coarse in 1..MAX_LEVELS as usize {
            for fine in 0..coarse {
                // A coarse body covers about (2^(c-f) + 2)^2 fine cells; a fine body about 4 coarse ones.
                let ratio = 2f64.powi((coarse - fine) as i32) + 2.0;
                let down = per_level[coarse] * ratio * ratio;
                let up = per_level[fine] * 4.0;
                if down < up {
                    params.probe_down[coarse] |= 1 << fine;
                }
            }
        }
        params
    }
}

/// Buckets of the hash table for `bodies` bodies: see [`GridParams::bucket_count`].
pub fn bucket_count(bodies: usize) -> u32 {
    (bodies as u64).next_power_of_two().clamp(1024, 1 << 31) as u32
}

/// The median size of the bodies, by shape use.
fn median_extent(library: &ShapeLibrary, uses: &[usize]) -> f32 {
    let mut sizes: Vec<(f32, usize)> = library
        .extents
        .iter()
        .copied()
        .zip(uses.iter().copied())
        .filter(|&(extent, n)| n > 0 && extent > 0.0 && extent.is_finite())
        .collect();
    sizes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = sizes.iter().map(|s| s.1).sum::<usize>().div_ceil(2);
    let mut seen = 0;
    for (extent, n) in sizes {
        seen += n;
        if seen >= half {
            return extent;
        }
    }
    1.0
}
