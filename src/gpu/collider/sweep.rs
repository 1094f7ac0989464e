//! [`GpuCollider`]'s swept frames (scene format 1.1); how they run on the GPU is told
//! in `gpu::sweep`.

use std::mem::size_of;

use super::GpuCollider;
use crate::body::Body;
use crate::cpu::sweep::time_of_impact;
use crate::error::Error;
use crate::gpu::readback::read_mapped;
use crate::gpu::sweep::HOST_TOI;
use crate::motion::SweptPair;

impl GpuCollider {
    /// Uploads each body's displacement over the frame, for a frame with motion.
    pub(crate) fn upload_velocities(&mut self, bodies: &[Body]) {
        let velocities: Vec<[f32; 2]> = bodies.iter().map(|b| b.velocity.to_array()).collect();
        self.context.queue.write_buffer(
            &self.buffers.velocities,
            0,
            bytemuck::cast_slice(&velocities),
        );
    }

    /// Uploads the bodies again after the buffers grew (new buffers hold nothing), and
    /// their displacements in a frame with motion.
    pub(crate) fn reupload(&mut self, bodies: &[Body], swept: bool) {
        self.upload_bodies(bodies);
        if swept {
            self.upload_velocities(bodies);
        }
    }

    /// The first `stored` times of impact, copied to the readback by a swept run.
    pub(crate) fn read_tois(&self, stored: usize) -> Result<Vec<f32>, Error> {
        let b = &self.buffers;
        read_mapped(&self.context.device, &b.toi_readback, |bytes| {
            bytes[..stored * size_of::<f32>()]
                .chunks_exact(size_of::<f32>())
                .map(bytemuck::pod_read_unaligned::<f32>)
                .collect()
        })
    }

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
                let (transforms, infos) = self.frame_bodies();
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
