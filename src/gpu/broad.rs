//! Stage 2 on the GPU, broad phase: host side of `shaders/broad.wgsl`: the counting
//! sort of the bodies into the grid's hash table, then the query that emits candidates.

use super::collider::Buffers;
use super::{bind_group, compute_pipeline, shader_module};
use crate::packed::{dispatch_size, BUCKETS_PER_THREAD};
use crate::shaders::Stage;

/// The kernels of the stage in dispatch order, with the bindings each one uses.
const KERNELS: [(&str, &[u32]); 4] = [
    ("assign_cells", &[0, 1, 2, 3, 4, 6]),
    ("allocate_buckets", &[0, 4, 6]),
    ("scatter_cells", &[0, 1, 2, 3, 4, 5]),
    ("broad", &[0, 1, 2, 3, 4, 5, 6, 7, 8]),
];

/// The broad-phase pipelines, in [`KERNELS`] order.
#[derive(Debug)]
pub struct Broad {
    pipelines: Vec<wgpu::ComputePipeline>,
}

/// Bind groups of the broad-phase pipelines, in [`KERNELS`] order.
#[derive(Debug)]
pub(crate) struct BroadGroups(Vec<wgpu::BindGroup>);

impl Broad {
    /// Compiles the stage.
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let module = shader_module(device, Stage::Broad);
        Broad {
            pipelines: KERNELS
                .iter()
                .map(|(entry, _)| compute_pipeline(device, &module, entry))
                .collect(),
        }
    }

    /// Binds the buffers each kernel uses, at the shader's binding numbers.
    pub(crate) fn bind(&self, device: &wgpu::Device, b: &Buffers) -> BroadGroups {
        let buffer = |binding: u32| match binding {
            0 => &b.params,
            1 => &b.infos,
            2 => &b.aabbs,
            3 => &b.body_cells,
            4 => &b.buckets,
            5 => &b.grid_entries,
            6 => &b.grid_info,
            7 => &b.candidates,
            _ => &b.counters,
        };
        BroadGroups(
            KERNELS
                .iter()
                .zip(&self.pipelines)
                .map(|((_, bindings), pipeline)| {
                    let entries: Vec<(u32, &wgpu::Buffer)> =
                        bindings.iter().map(|&n| (n, buffer(n))).collect();
                    bind_group(device, pipeline, &entries)
                })
                .collect(),
        )
    }

    /// The counting sort and the query, for `bodies` bodies and `buckets` buckets.
    pub(crate) fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass,
        groups: &BroadGroups,
        bodies: u32,
        buckets: u32,
    ) {
        let per_body = dispatch_size(bodies);
        let sizes = [
            per_body,
            dispatch_size(buckets / BUCKETS_PER_THREAD),
            per_body,
            per_body,
        ];
        for ((pipeline, group), (x, y)) in self.pipelines.iter().zip(&groups.0).zip(sizes) {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
    }
}
