//! Stage 3 on the GPU, narrow phase: host side of `shaders/narrow.wgsl`. The candidate
//! count stays on the GPU: `narrow_args` turns it into the workgroup counts of an
//! indirect dispatch of `narrow`.

use super::collider::Buffers;
use super::{bind_group, compute_pipeline, shader_module};
use crate::shaders::Stage;

/// The narrow-phase pipelines.
#[derive(Debug)]
pub struct Narrow {
    args: wgpu::ComputePipeline,
    pipeline: wgpu::ComputePipeline,
}

/// Bind groups of the two narrow-phase pipelines.
#[derive(Debug)]
pub(crate) struct NarrowGroups {
    args: wgpu::BindGroup,
    narrow: wgpu::BindGroup,
}

impl Narrow {
    /// Compiles the stage.
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let module = shader_module(device, Stage::Narrow);
        Narrow {
            args: compute_pipeline(device, &module, "narrow_args"),
            pipeline: compute_pipeline(device, &module, "narrow"),
        }
    }

    /// Binds the buffers the stage reads and writes, at the shader's binding numbers.
    pub(crate) fn bind(&self, device: &wgpu::Device, b: &Buffers) -> NarrowGroups {
        NarrowGroups {
            args: bind_group(
                device,
                &self.args,
                &[(0, &b.params), (7, &b.counters), (9, &b.narrow_dispatch)],
            ),
            narrow: bind_group(
                device,
                &self.pipeline,
                &[
                    (0, &b.params),
                    (1, &b.shapes),
                    (2, &b.polygon_vertices),
                    (3, &b.bitmask_words),
                    (4, &b.transforms),
                    (5, &b.infos),
                    (6, &b.candidates),
                    (7, &b.counters),
                    (8, &b.pairs),
                ],
            ),
        }
    }

    /// One thread per candidate, sized on the GPU.
    pub(crate) fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass,
        groups: &NarrowGroups,
        b: &Buffers,
    ) {
        pass.set_pipeline(&self.args);
        pass.set_bind_group(0, &groups.args, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &groups.narrow, &[]);
        pass.dispatch_workgroups_indirect(&b.narrow_dispatch, 0);
    }
}
