//! How Mesa's llvmpipe counts its loop cap, which the kernels' budgets rely on (see
//! `LLVMPIPE_LANES` in src/layout/packed.rs): a single loop costs its longest lane's turns, and
//! nested loops whose lanes work at different outer turns add their counts up.
//!
//! Only llvmpipe (lavapipe or GL) has the cap; on another adapter these tests say so and
//! check nothing. CI runs on lavapipe.

use gpu_collide::layout::packed::LLVMPIPE_LANES;
use gpu_collide::wgpu::util::DeviceExt;
use gpu_collide::{gpu, wgpu, GpuContext};

use crate::support;

const SHADER: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> ones: array<u32>;
@group(0) @binding(2) var<uniform> n: vec4<u32>;

// Lane j of each n.y takes its n.x iterations during turn j of an outer loop.
@compute @workgroup_size(64)
fn taking_turns(@builtin(local_invocation_index) l: u32) {
    let lane = l % n.y;
    var done = 0u;
    for (var turn = 0u; turn < n.y; turn++) {
        let count = select(0u, n.x, turn == lane);
        for (var k = 0u; k < count; k++) {
            done += ones[k & 63u];
        }
    }
    out[l] = done;
}

// Every lane in one loop: even lanes n.x iterations, odd ones twice as many.
@compute @workgroup_size(64)
fn one_loop(@builtin(local_invocation_index) l: u32) {
    var done = 0u;
    let count = n.x * (1u + (l % 2u));
    for (var k = 0u; k < count; k++) {
        done += ones[k & 63u];
    }
    out[l] = done;
}
"#;

/// The context, if its adapter is an llvmpipe; otherwise `None`, said out loud.
fn llvmpipe() -> Option<GpuContext> {
    let context = support::gpu()?;
    if gpu::llvmpipe_lanes(&context.adapter.name).is_none() {
        eprintln!(
            "!!!! {} is not llvmpipe: it has no loop cap to measure; these tests check nothing here",
            context.describe()
        );
        return None;
    }
    Some(context)
}

/// The iterations each of 64 invocations of `entry` completed, asked for `n`.
fn iterations(context: &GpuContext, entry: &str, n: [u32; 4]) -> Vec<u32> {
    let device = &context.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("loop cap"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    });
    let init = |contents: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents,
            usage,
        })
    };
    let ones = init(
        bytemuck::cast_slice(&[1u32; 64]),
        wgpu::BufferUsages::STORAGE,
    );
    let params = init(bytemuck::cast_slice(&n), wgpu::BufferUsages::UNIFORM);
    let out = init(
        &[0; 256],
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: out.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: ones.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: params.as_entire_binding(),
            },
        ],
    });
    support::dispatch_and_read(context, &pipeline, &bind, 1, &out, 256)
}

#[test]
fn one_loop_costs_the_longest_lanes_turns() {
    let Some(context) = llvmpipe() else { return };
    // Lanes of 30000 and 60000 iterations side by side: 90000 in all, under the cap
    // only if the turns they share count once.
    let done = iterations(&context, "one_loop", [30000, 0, 0, 0]);
    for (lane, &d) in done.iter().enumerate() {
        assert_eq!(d, 30000 * (1 + lane as u32 % 2), "lane {lane} of one loop");
    }
}

#[test]
fn nested_loops_add_up_the_lanes_turns_over_lanes_in_lockstep() {
    let Some(context) = llvmpipe() else { return };
    let lanes = gpu::llvmpipe_lanes(&context.adapter.name).unwrap();
    assert!(
        lanes <= LLVMPIPE_LANES,
        "{} was not refused",
        context.describe()
    );
    // Each lane's 9000 iterations are far under the cap; its group's together are not.
    let per_lane = 9000;
    let done = iterations(&context, "taking_turns", [per_lane, lanes, 0, 0]);
    let cut = done.iter().filter(|&&d| d < per_lane).count();
    assert!(
        cut > 0,
        "no lane was cut short ({done:?}): if llvmpipe no longer shares its cap among the \
         lanes of a group, the budgets of LLVMPIPE_LANES in src/layout/packed.rs can be relaxed"
    );
    // A group's first lanes finish before the shared count runs out.
    assert_eq!(done[0], per_lane);
    // Under the cap in all, every lane finishes: what the chunk budgets keep to.
    let budget = 65535 / lanes / 2;
    let done = iterations(&context, "taking_turns", [budget, lanes, 0, 0]);
    assert!(done.iter().all(|&d| d == budget), "{done:?}");
}
