//! Particles that never leave the GPU: a compute shader of this example moves them, gpu-collide
//! finds their pairs from the particle buffer itself, and a response pass of this example
//! pushes colliding particles apart, dispatched through the pairs' indirect arguments. No
//! frame reads anything back. At the end the example reads the positions and the last
//! frame's pairs once, checks those pairs against the cpu backend, and prints frames per
//! second.
//!
//! ```text
//! cargo run --release --example particles                 # 20000 particles, 200 frames
//! cargo run --release --example particles -- 50000 100    # particles, frames
//! ```
//!
//! It runs on whatever adapter gpu-collide would pick (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`),
//! software ones included, and exits non-zero if the pairs disagree.

use std::error::Error;
use std::time::Instant;

use gpu_collide::gpu::{readback::read_mapped, usable_adapters, BodyLayout, PAIRS_WGSL};
use gpu_collide::{glam::Vec2, wgpu, Body, Circle, Collider, CpuCollider, GpuCollider, GpuContext};
use gpu_collide::{Shape, ShapeLibrary};
use wgpu::util::DeviceExt;

/// Radius of every particle.
const RADIUS: f32 = 1.5;
/// Side of the square box they bounce in.
const BOX: f32 = 700.0;

/// The particle struct, 16 bytes: what the simulation keeps, in its own layout. gpu-collide
/// reads the position at byte 0 of each ([`BodyLayout::new(16, 0)`]).
const PARTICLE_WGSL: &str = "
struct Particle {
    position: vec2<f32>,
    velocity: vec2<f32>,
}
const RADIUS: f32 = RADIUS_VALUE;
const BOX: f32 = BOX_VALUE;
// Pushes are summed in fixed point (1/4096 of a unit), since WGSL has no float atomics.
const PUSH_SCALE: f32 = 4096.0;
";

/// Moves each particle by its velocity plus the pushes the response pass summed for it last
/// frame, bounces it off the walls, and clears its pushes.
const STEP_WGSL: &str = "
@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(1) var<storage, read_write> pushes: array<atomic<i32>>;

@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&particles) {
        return;
    }
    var p = particles[i];
    let push = vec2<f32>(f32(atomicExchange(&pushes[2u * i], 0)), f32(atomicExchange(&pushes[2u * i + 1u], 0))) / PUSH_SCALE;
    // A push moves the particle out of the overlap and turns a little of it into speed.
    p.velocity = clamp(p.velocity + 0.2 * push, vec2<f32>(-1.0), vec2<f32>(1.0));
    p.position += p.velocity + push;
    if p.position.x < RADIUS || p.position.x > BOX - RADIUS {
        p.velocity.x = -p.velocity.x;
    }
    if p.position.y < RADIUS || p.position.y > BOX - RADIUS {
        p.velocity.y = -p.velocity.y;
    }
    p.position = clamp(p.position, vec2<f32>(RADIUS), vec2<f32>(BOX - RADIUS));
    particles[i] = p;
}
";

/// One invocation per colliding pair: half the overlap pushes each particle away from the
/// other, summed in fixed point for the next step.
const RESPONSE_WGSL: &str = "
@group(0) @binding(0) var<storage, read> header: PairsHeader;
@group(0) @binding(1) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> particles: array<Particle>;
@group(0) @binding(3) var<storage, read_write> pushes: array<atomic<i32>>;

@compute @workgroup_size(64)
fn respond(@builtin(workgroup_id) workgroup: vec3<u32>,
           @builtin(num_workgroups) workgroups: vec3<u32>,
           @builtin(local_invocation_index) local: u32) {
    let k = pair_index(workgroup, workgroups, local);
    if k >= header.stored {
        return;
    }
    let pair = pairs[k];
    let d = particles[pair.y].position - particles[pair.x].position;
    let distance = length(d);
    // Two particles exactly on one point have no direction between them: any will do.
    var away = vec2<f32>(1.0, 0.0);
    if distance > 1e-6 {
        away = d / distance;
    }
    let push = away * max(2.0 * RADIUS - distance, 0.0) * 0.5 * PUSH_SCALE;
    atomicAdd(&pushes[2u * pair.x], -i32(push.x));
    atomicAdd(&pushes[2u * pair.x + 1u], -i32(push.y));
    atomicAdd(&pushes[2u * pair.y], i32(push.x));
    atomicAdd(&pushes[2u * pair.y + 1u], i32(push.y));
}
";

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let count: u32 = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(20_000);
    let frames: u32 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(200);
    if count < 2 || frames == 0 {
        return Err("particles: give at least 2 particles and 1 frame".into());
    }

    // The game opens its own device, as it would to render, and hands it over.
    let adapter = pollster::block_on(usable_adapters())?
        .into_iter()
        .next()
        .ok_or("no GPU adapter (install mesa-vulkan-drivers for a software one)")?;
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))?;
    let gpu = GpuContext::from_device(device.clone(), queue.clone())?;
    println!("{count} particles, {frames} frames, on {}", gpu.describe());

    let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(RADIUS))])?;
    let mut collider = GpuCollider::new(&gpu, library.clone())?;
    // Shape, layer and mask: the host's part of each body, uploaded once.
    let bodies = vec![Body::new(0, Vec2::ZERO); count as usize];
    let layout = BodyLayout::new(16, 0);

    // Start on a jittered lattice with small random velocities (a fixed LCG: no dependency).
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut random = move || {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let side = (count as f32).sqrt().ceil() as u32;
    let spacing = (BOX - 4.0 * RADIUS) / side as f32;
    let initial: Vec<[f32; 4]> = (0..count)
        .map(|k| {
            let (x, y) = ((k % side) as f32, (k / side) as f32);
            [
                2.0 * RADIUS + x * spacing + random() * 0.5,
                2.0 * RADIUS + y * spacing + random() * 0.5,
                random() - 0.5,
                random() - 0.5,
            ]
        })
        .collect();
    let particles = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("particles"),
        contents: bytemuck::cast_slice(&initial),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let pushes = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("pushes"),
        size: count as u64 * 8,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });

    let common = PARTICLE_WGSL
        .replace("RADIUS_VALUE", &format!("{RADIUS:?}"))
        .replace("BOX_VALUE", &format!("{BOX:?}"));
    let pipeline = |source: String, entry: &str| {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(entry),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let step = pipeline(format!("{common}{STEP_WGSL}"), "step");
    let respond = pipeline(format!("{PAIRS_WGSL}{common}{RESPONSE_WGSL}"), "respond");
    let step_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("step"),
        layout: &step.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: particles.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: pushes.as_entire_binding(),
            },
        ],
    });

    let start = Instant::now();
    let mut last = None;
    for _ in 0..frames {
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&step);
            pass.set_bind_group(0, &step_group, &[]);
            pass.dispatch_workgroups(count.div_ceil(64), 1, 1);
        }
        let frame = collider.record_from_buffer(&mut encoder, &bodies, &particles, layout)?;
        // The buffers are replaced when they grow, so the group is made from each frame's.
        let respond_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("respond"),
            layout: &respond.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: frame.header.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: frame.pairs.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: particles.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: pushes.as_entire_binding(),
                },
            ],
        });
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&respond);
            pass.set_bind_group(0, &respond_group, &[]);
            pass.dispatch_workgroups_indirect(&frame.header, 0);
        }
        queue.submit([encoder.finish()]);
        last = Some(frame);
    }
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let seconds = start.elapsed().as_secs_f64();
    let last = last.ok_or("no frame ran")?;
    if let Some(counts) = collider.recorded_counts()? {
        println!(
            "frame {}: {} pairs came back without a wait",
            counts.frame, counts.pairs
        );
    }

    // Once, at the end: the positions the last frame collided (the response pass only
    // summed pushes, which the next step would apply), and that frame's pairs.
    let positions = read_buffer(&gpu, &particles)?;
    let header = read_buffer(&gpu, &last.header)?;
    let (stored, complete) = (header[4], header[6] == 1);
    let pair_words = read_buffer(&gpu, &last.pairs)?;
    let mut gpu_pairs: Vec<[u32; 2]> = pair_words[..2 * stored as usize]
        .chunks_exact(2)
        .map(|p| [p[0], p[1]])
        .collect();
    gpu_pairs.sort_unstable();
    let moved: Vec<Body> = positions
        .chunks_exact(4)
        .map(|p| Body::new(0, Vec2::new(f32::from_bits(p[0]), f32::from_bits(p[1]))))
        .collect();
    let cpu_pairs = CpuCollider::new(library).find_pairs(&moved)?;
    println!(
        "{:.1} frames per second ({:.2} ms a frame, no readback); last frame: {} pairs on the GPU, {} on the cpu backend",
        frames as f64 / seconds,
        seconds * 1e3 / frames as f64,
        gpu_pairs.len(),
        cpu_pairs.len()
    );
    if !complete {
        return Err(format!(
            "the last frame's pair buffer was short ({} of {} pairs): the buffers should have grown",
            stored, header[3]
        )
        .into());
    }
    if gpu_pairs != cpu_pairs {
        return Err("the GPU's pairs differ from the cpu backend's".into());
    }
    println!("the last frame's pairs match the cpu backend");
    Ok(())
}

/// A buffer's words, read once through a staging copy.
fn read_buffer(gpu: &GpuContext, buffer: &wgpu::Buffer) -> Result<Vec<u32>, Box<dyn Error>> {
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("staging"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    gpu.queue.submit([encoder.finish()]);
    Ok(read_mapped(&gpu.device, &staging, |bytes| {
        bytemuck::cast_slice(bytes).to_vec()
    })?)
}
