//! Swept pairs on the GPU (scene format 1.1): host side of `shaders/sweep.wgsl`.
//!
//! A frame with motion runs the same three stages as any other, with two differences,
//! both paid only by such frames: the bodies' displacements are uploaded to a buffer of
//! their own, which the bounds kernel reads (`Params::swept`) to make each body's box
//! cover its whole motion, so that the broad phase finds the swept candidates unchanged;
//! and the narrow phase runs the swept kernels, which give each pair's exact time of
//! impact in a buffer parallel to the pairs (counted and grown like them). A frame
//! without motion uploads, dispatches and reads back exactly what it did before.
//!
//! One rare case goes to the host: a test whose chunks would not fit the task list's
//! bound (`MAX_BLOCKS` in `shaders/sweep.wgsl`, about a million chunks: a 256-gon
//! sweeping across most of an 8192 x 8192 mask) comes back with [`HOST_TOI`], and the
//! host computes it with the CPU twin ([`crate::cpu::sweep::time_of_impact`]), which
//! has no loop cap to respect.

use std::mem::size_of;

use super::collider::GpuCollider;
use super::readback::read_mapped;
use crate::body::Body;
use crate::cpu::sweep::time_of_impact;
use crate::error::Error;
use crate::motion::SweptPair;

/// The time the GPU writes for a pair whose test it hands to the host (`HOST_TOI` in
/// `shaders/sweep.wgsl`).
pub(crate) const HOST_TOI: f32 = -1.0;

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
