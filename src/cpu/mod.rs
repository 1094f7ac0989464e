//! The CPU paths. Each stage module is the twin of the WGSL file of the same name in
//! `shaders/`, with the same functions in the same loop shape, so the two can be read
//! side by side.
//!
//! - [`ReferenceCollider`]: the readable reference (every pair of boxes, one thread),
//!   the oracle of the tests.
//! - [`CpuCollider`]: the cpu backend, the same stages as the GPU (grid broad phase)
//!   run on every core, checked against the reference.

pub mod bounds;
pub mod broad;
pub mod narrow;
pub mod reference;

pub use reference::ReferenceCollider;

use rayon::prelude::*;

use crate::body::Body;
use crate::collider::{Collider, FrameStats, Pair};
use crate::error::Error;
use crate::grid::GridParams;
use crate::library::{body_info, body_transform, ShapeLibrary};
use crate::packed::{BodyInfo, BodyTransform};

/// Bodies per parallel task: small enough to balance two to dozens of cores, large
/// enough that scheduling costs nothing next to the work.
const CHUNK: usize = 1024;

/// The cpu backend: the GPU's stages, on all cores.
///
/// ```
/// use gpu_collide::{Body, Circle, Collider, CpuCollider, Shape, ShapeLibrary, glam::Vec2};
/// let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))]).unwrap();
/// let mut collider = CpuCollider::new(library);
/// let bodies = [Body::new(0, Vec2::ZERO), Body::new(0, Vec2::new(1.5, 0.0)), Body::new(0, Vec2::new(9.0, 0.0))];
/// assert_eq!(collider.find_pairs(&bodies).unwrap(), vec![[0, 1]]);
/// ```
#[derive(Debug, Clone)]
pub struct CpuCollider {
    library: ShapeLibrary,
    /// The grid's parameters and the body infos they were chosen for.
    grid: Option<(GridParams, Vec<BodyInfo>)>,
    last: FrameStats,
}

impl CpuCollider {
    /// A collider over this shape library.
    pub fn new(library: ShapeLibrary) -> Self {
        CpuCollider {
            library,
            grid: None,
            last: FrameStats::default(),
        }
    }

    /// The shape library.
    pub fn library(&self) -> &ShapeLibrary {
        &self.library
    }

    /// The grid parameters for these infos, chosen again only when the infos change.
    fn grid_params(&mut self, infos: &[BodyInfo]) -> GridParams {
        match &self.grid {
            Some((params, seen)) if seen.as_slice() == infos => *params,
            _ => {
                let params = GridParams::for_bodies(&self.library, infos);
                self.grid = Some((params, infos.to_vec()));
                params
            }
        }
    }
}

impl Collider for CpuCollider {
    fn find_pairs(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
        self.library.check_bodies(bodies)?;
        let transforms: Vec<BodyTransform> = bodies.par_iter().map(body_transform).collect();
        let infos: Vec<BodyInfo> = bodies.par_iter().map(body_info).collect();
        let params = self.grid_params(&infos);
        let library = &self.library;
        let aabbs: Vec<_> = transforms
            .par_iter()
            .zip(&infos)
            .with_min_len(CHUNK)
            .map(|(t, info)| bounds::body_bounds(library, t, info))
            .collect();
        let grid = broad::Grid::build(&params, &infos, &aabbs);
        let candidates: Vec<Pair> = (0..bodies.len())
            .into_par_iter()
            .with_min_len(CHUNK)
            .fold(Vec::new, |mut found, i| {
                grid.candidates_of(&params, i, &infos, &aabbs, &mut found);
                found
            })
            .flatten_iter()
            .collect();
        let mut pairs: Vec<Pair> = candidates
            .par_iter()
            .with_min_len(CHUNK)
            .copied()
            .filter(|&[i, j]| {
                narrow::bodies_collide(library, &transforms, &infos, i as usize, j as usize)
            })
            .collect();
        pairs.par_sort_unstable();
        self.last = FrameStats {
            candidates: Some(candidates.len() as u64),
            stages: None,
        };
        Ok(pairs)
    }

    fn describe(&self) -> String {
        format!("cpu ({} threads)", rayon::current_num_threads())
    }

    fn last_frame(&self) -> FrameStats {
        self.last
    }
}
