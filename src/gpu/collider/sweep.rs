//! [`GpuCollider`]'s swept frames (scene format 1.1); how they run on the GPU is told
//! in `gpu::sweep`.

use super::GpuCollider;
use crate::answer::motion::SweptPair;
use crate::cpu::sweep::time_of_impact;
use crate::error::Error;
use crate::gpu::sweep::HOST_TOI;
use crate::input::body::Body;

impl GpuCollider {
    /// The swept pairs of a frame with motion, ordered by pair; the rare pairs the GPU
    /// hands over ([`HOST_TOI`]) are decided here by the CPU twin.
    pub(crate) fn find_swept_pairs_checked(
        &mut self,
        bodies: &[Body],
    ) -> Result<Vec<SweptPair>, Error> {
        let found = self.find_all(bodies, true)?;
        let velocities: Vec<glam::Vec2> = bodies.iter().map(|b| b.velocity).collect();
        let mut swept: Vec<SweptPair> = Vec::with_capacity(found.pairs.len());
        for (&pair, &toi) in found.pairs.iter().zip(&found.tois) {
            let toi = if toi == HOST_TOI {
                let (i, j) = (pair[0] as usize, pair[1] as usize);
                let (transforms, infos) = self.pipeline.frame_bodies();
                match time_of_impact(self.library(), transforms, infos, &velocities, i, j) {
                    Some(toi) => toi,
                    None => continue,
                }
            } else {
                toi
            };
            swept.push(SweptPair { pair, toi });
        }
        swept.sort_unstable_by_key(|s| s.pair);
        Ok(swept)
    }
}
