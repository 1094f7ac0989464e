//! Stage 1 on the GPU, bounds: host side of `shaders/bounds.wgsl`.

use super::collider::Buffers;
use super::{bind_group, compute_pipeline, shader_module};
use crate::packed::dispatch_size;
use crate::shaders::Stage;

/// The bounds pipeline.
#[derive(Debug)]
pub struct Bounds {
    pipeline: wgpu::ComputePipeline,
}

impl Bounds {
    /// Compiles the stage.
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let module = shader_module(device, Stage::Bounds);
        Bounds {
            pipeline: compute_pipeline(device, &module, "bounds"),
        }
    }

    /// Binds the buffers the stage reads and writes, at the shader's binding numbers.
    pub(crate) fn bind(&self, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        bind_group(
            device,
            &self.pipeline,
            &[
                (0, &b.params),
                (1, &b.shapes),
                (2, &b.polygon_vertices),
                (3, &b.transforms),
                (4, &b.infos),
                (5, &b.aabbs),
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
