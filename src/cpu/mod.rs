//! The CPU reference path: the same stages as the GPU, in the same order, on the same
//! packed data, written to be read. It is the oracle the GPU is held to.
//!
//! Each module is the twin of the WGSL file of the same name in `shaders/`, with the
//! same functions in the same loop shape, so the two can be read side by side.

pub mod bounds;
pub mod broad;
pub mod narrow;

use crate::body::Body;
use crate::collider::{sorted_pairs, Collider, Pair};
use crate::error::Error;
use crate::library::{body_info, body_transform, ShapeLibrary};
use crate::packed::{BodyInfo, BodyTransform};

/// Finds colliding pairs on the CPU, single-threaded, with the reference stages.
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
}

impl CpuCollider {
    /// A collider over this shape library.
    pub fn new(library: ShapeLibrary) -> Self {
        CpuCollider { library }
    }

    /// The shape library.
    pub fn library(&self) -> &ShapeLibrary {
        &self.library
    }
}

impl Collider for CpuCollider {
    fn find_pairs(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
        self.library.check_bodies(bodies)?;
        let transforms: Vec<BodyTransform> = bodies.iter().map(body_transform).collect();
        let infos: Vec<BodyInfo> = bodies.iter().map(body_info).collect();
        Ok(sorted_pairs(reference_pairs(
            &self.library,
            &transforms,
            &infos,
        )))
    }

    fn describe(&self) -> String {
        "cpu (reference)".to_string()
    }
}

/// The three stages on packed data; pairs in no particular order.
pub fn reference_pairs(
    library: &ShapeLibrary,
    transforms: &[BodyTransform],
    infos: &[BodyInfo],
) -> Vec<Pair> {
    let aabbs = bounds::bounds(library, transforms, infos);
    let candidates = broad::broad(infos, &aabbs);
    narrow::narrow(library, transforms, infos, &candidates)
}
