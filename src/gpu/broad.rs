//! Stage 2 on the GPU, broad phase: host side of `shaders/broad.wgsl`.

use super::collider::Buffers;
use super::{bind_group, compute_pipeline, shader_module};
use crate::packed::dispatch_size;
use crate::shaders::Stage;

/// The broad-phase pipeline.
#[derive(Debug)]
pub struct Broad {
    pipeline: wgpu::ComputePipeline,
}

impl Broad {
    /// Compiles the stage.
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let module = shader_module(device, Stage::Broad);
        Broad {
            pipeline: compute_pipeline(device, &module, "broad"),
        }
    }

    /// Binds the buffers the stage reads and writes, at the shader's binding numbers.
    pub(crate) fn bind(&self, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        bind_group(
            device,
            &self.pipeline,
            &[
                (0, &b.params),
                (1, &b.infos),
                (2, &b.aabbs),
                (3, &b.candidates),
                (4, &b.counters),
            ],
        )
    }

    /// One thread per body.
    pub(crate) fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass,
        group: &wgpu::BindGroup,
        bodies: u32,
    ) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, group, &[]);
        let (x, y) = dispatch_size(bodies);
        pass.dispatch_workgroups(x, y, 1);
    }
}
