//! The hierarchical grid's parameters, chosen on the host from the scene and shared by
//! the GPU broad phase (`shaders/broad.wgsl`) and its CPU twin ([`crate::cpu::broad`]).

use crate::library::ShapeLibrary;
use crate::packed::{BodyInfo, SCAN_BLOCK};

/// How the grid is laid out for a scene.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridParams {
    /// Side of the finest cells; level `l` has cells of `base_cell · 2^l`.
    pub base_cell: f32,
    /// Buckets of the hash table: a power of two, at least twice the bodies, so that
    /// few cells share a bucket.
    pub bucket_count: u32,
}

impl GridParams {
    /// Parameters for these bodies: the finest cell is the median body size, so most
    /// bodies sit on the finest levels and a cell holds a handful of them.
    pub fn for_bodies(library: &ShapeLibrary, infos: &[BodyInfo]) -> Self {
        // Body sizes by shape, weighted by how many bodies use each shape.
        let mut uses = vec![0usize; library.len()];
        for info in infos {
            if let Some(n) = uses.get_mut(info.shape as usize) {
                *n += 1;
            }
        }
        let mut sizes: Vec<(f32, usize)> = library
            .extents
            .iter()
            .copied()
            .zip(uses)
            .filter(|&(extent, n)| n > 0 && extent > 0.0 && extent.is_finite())
            .collect();
        sizes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let half = sizes.iter().map(|s| s.1).sum::<usize>().div_ceil(2);
        let mut seen = 0;
        let mut base_cell = 1.0;
        for (extent, n) in sizes {
            seen += n;
            if seen >= half {
                base_cell = extent;
                break;
            }
        }
        let bucket_count = (2 * infos.len() as u64)
            .next_power_of_two()
            .clamp(4 * SCAN_BLOCK as u64, 1 << 31) as u32;
        GridParams {
            base_cell,
            bucket_count,
        }
    }
}
