//! Frames recorded into the caller's encoder (`GpuCollider::record` and
//! `record_from_buffer`), as a game does them: its own device, a buffer of its own
//! structs for positions, a pass of its own that consumes the pairs through the indirect
//! arguments, and one read at the end. Held to `find_pairs` on the same bodies, and to
//! the oracle wherever the two differ.

use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::gpu::{usable_adapters, BodyLayout, RecordedFrame, PAIRS_WGSL};
use gpu_collide::{wgpu, Body, Collider, Error, GpuCollider, GpuContext, Pair, Scene, Shape};
use wgpu::util::DeviceExt;

use crate::oracle;
use crate::support::{assert_differences_in_band, assert_well_formed, exact_json, gpu};

/// A device opened the way a game would, on the adapter the tests use.
fn game_device() -> Option<GpuContext> {
    gpu()?;
    let adapter = pollster::block_on(usable_adapters())
        .expect("adapters")
        .into_iter()
        .next()
        .expect("an adapter, since gpu() found one");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("the game's device"),
        ..Default::default()
    }))
    .expect("a device with the default limits");
    Some(GpuContext::from_device(device, queue).expect("default limits are enough"))
}

/// The game's particle struct: 32 bytes, position at 0, velocity at 8, angle at 16.
const STRIDE: u64 = 32;

fn particle_bytes(bodies: &[Body]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(bodies.len() * STRIDE as usize);
    for body in bodies {
        let words: [f32; 8] = [
            body.position.x,
            body.position.y,
            0.5,
            -0.5,
            body.angle,
            0.0,
            0.0,
            0.0,
        ];
        bytes.extend_from_slice(bytemuck::cast_slice(&words));
    }
    bytes
}

/// The game's own consumer: one invocation per pair through the header's indirect
/// arguments, copying each pair into a list of its own (with a counter of its own), so
/// the test sees exactly what a response pass would.
struct Consumer {
    pipeline: wgpu::ComputePipeline,
    output: wgpu::Buffer,
    readback: wgpu::Buffer,
}

const CONSUMER_WGSL: &str = "
@group(0) @binding(0) var<storage, read> header: PairsHeader;
@group(0) @binding(1) var<storage, read> pairs: array<vec2<u32>>;
// [0]: pairs seen, [1], [2]: unused, then the pairs.
@group(0) @binding(2) var<storage, read_write> seen: array<atomic<u32>>;

@compute @workgroup_size(64)
fn consume(@builtin(workgroup_id) workgroup: vec3<u32>,
           @builtin(num_workgroups) workgroups: vec3<u32>,
           @builtin(local_invocation_index) local: u32) {
    let k = pair_index(workgroup, workgroups, local);
    if k >= header.stored {
        return;
    }
    let slot = atomicAdd(&seen[0], 1u);
    atomicStore(&seen[3u + 2u * slot], pairs[k].x);
    atomicStore(&seen[4u + 2u * slot], pairs[k].y);
}
";

impl Consumer {
    fn new(device: &wgpu::Device, room: u64) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("the game's consumer"),
            source: wgpu::ShaderSource::Wgsl(format!("{PAIRS_WGSL}\n{CONSUMER_WGSL}").into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("consume"),
            layout: None,
            module: &module,
            entry_point: Some("consume"),
            compilation_options: Default::default(),
            cache: None,
        });
        let size = (3 + 2 * room) * 4;
        let output = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pairs the game saw"),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("the game's readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Consumer {
            pipeline,
            output,
            readback,
        }
    }

    fn encode(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        frame: &RecordedFrame,
    ) {
        encoder.clear_buffer(&self.output, 0, None);
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("consume"),
            layout: &self.pipeline.get_bind_group_layout(0),
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
                    resource: self.output.as_entire_binding(),
                },
            ],
        });
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups_indirect(&frame.header, 0);
        }
        // The header's count and completeness, where the test reads them (words 1 and 2).
        encoder.copy_buffer_to_buffer(&frame.header, 12, &self.output, 4, 4);
        encoder.copy_buffer_to_buffer(&frame.header, 24, &self.output, 8, 4);
    }

    /// (pairs seen, sorted; the header's count; complete), read once, blocking.
    fn read(&self, context: &GpuContext) -> (Vec<Pair>, u32, bool) {
        let mut encoder = context.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.output, 0, &self.readback, 0, self.output.size());
        context.queue.submit([encoder.finish()]);
        let words: Vec<u32> =
            gpu_collide::gpu::readback::read_mapped(&context.device, &self.readback, |bytes| {
                bytemuck::cast_slice(bytes).to_vec()
            })
            .expect("the game's readback");
        let seen = words[0] as usize;
        let mut pairs: Vec<Pair> = words[3..3 + 2 * seen]
            .chunks_exact(2)
            .map(|p| [p[0], p[1]])
            .collect();
        pairs.sort_unstable();
        (pairs, words[1], words[2] == 1)
    }
}

/// `scene`'s bodies moved a little, as frame `frame` of a game would have them.
fn moved(scene: &Scene, frame: usize) -> Vec<Body> {
    scene
        .bodies
        .iter()
        .enumerate()
        .map(|(k, body)| {
            let mut body = *body;
            // Bitmask bodies stay on whole numbers; the others drift and turn.
            let bitmask = matches!(scene.shapes[body.shape as usize], Shape::Bitmask(_));
            let step = if bitmask || k % 3 == 0 { 1.0 } else { 0.37 };
            body.position.x += step * frame as f32;
            if body.angle != 0.0 {
                body.angle += 0.01 * frame as f32;
            }
            body
        })
        .collect()
}

/// Runs `frames` frames recorded from the game's buffer of particles, the game's pass
/// consuming each, and reads only the last frame's pairs; compares them with
/// `find_pairs` on the same bodies, and with the oracle where the two differ.
fn recorded_frames_match_find_pairs(context: &GpuContext, kind: SceneKind, seed: u64) {
    let scene = random_scene(kind, 2500, seed);
    let device = &context.device;
    let mut collider =
        GpuCollider::new(context, scene.validate().expect("valid")).expect("collider");
    let particles = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("the game's particles"),
        size: scene.bodies.len() as u64 * STRIDE,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let consumer = Consumer::new(device, 1 << 16);
    let layout = BodyLayout::new(STRIDE, 0).with_angle(16);
    let frames = 6;
    let mut last = Vec::new();
    for frame in 0..frames {
        last = moved(&scene, frame);
        // The game's simulation would write these on the GPU; a write stands in for it.
        context
            .queue
            .write_buffer(&particles, 0, &particle_bytes(&last));
        let mut encoder = device.create_command_encoder(&Default::default());
        let recorded = collider
            .record_from_buffer(&mut encoder, &scene.bodies, &particles, layout)
            .expect("recorded");
        assert_eq!(recorded.frame, frame as u64);
        consumer.encode(device, &mut encoder, &recorded);
        context.queue.submit([encoder.finish()]);
    }
    let (seen, count, complete) = consumer.read(context);
    let seen = assert_well_formed("recorded", &seen);
    assert!(
        complete,
        "the last frame's pairs fit (the buffers grew after the first)"
    );
    assert_eq!(
        count as usize,
        seen.len(),
        "one invocation per pair, each pair once"
    );

    let last_scene = Scene {
        bodies: last.clone(),
        ..scene.clone()
    };
    let blocking = collider.find_pairs(&last).expect("find_pairs");
    assert!(!blocking.is_empty());
    if seen != blocking {
        // Angles read on the GPU are turned into rotations in f32 there (within 1e-6 of
        // the host's f64): only pairs within the band may differ.
        let truth = oracle::oracle_value(&exact_json(&last_scene));
        let band = assert_differences_in_band("recorded vs find_pairs", &seen, &blocking, &truth);
        eprintln!("{kind:?} seed {seed}: recorded and find_pairs differ on {band} band pairs");
    }

    // The counts came back without a wait, and say what the header said.
    let mut encoder = device.create_command_encoder(&Default::default());
    collider
        .record_from_buffer(&mut encoder, &scene.bodies, &particles, layout)
        .expect("one more frame");
    context.queue.submit([encoder.finish()]);
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("idle");
    let counts = collider
        .recorded_counts()
        .expect("counts")
        .expect("some came back");
    assert!(counts.complete);
    assert!(counts.frame >= frames as u64 - 1);
}

#[test]
fn frames_recorded_from_the_callers_buffer_match_find_pairs() {
    let Some(context) = game_device() else { return };
    recorded_frames_match_find_pairs(&context, SceneKind::Mixed, 71);
    recorded_frames_match_find_pairs(&context, SceneKind::Polygons, 72);
}

#[test]
fn frames_recorded_from_host_bodies_match_find_pairs() {
    let Some(context) = game_device() else { return };
    let scene = random_scene(SceneKind::Mixed, 2000, 73);
    let mut collider =
        GpuCollider::new(&context, scene.validate().expect("valid")).expect("collider");
    let consumer = Consumer::new(&context.device, 1 << 16);
    let expected = GpuCollider::new(&context, scene.validate().expect("valid"))
        .and_then(|mut fresh| fresh.find_pairs(&scene.bodies))
        .expect("find_pairs");
    // Should a frame have more pairs than the buffers hold, it says so, and the buffers
    // grow once its counts come back: the loop waits for a complete frame.
    for frame in 0..4 {
        let mut encoder = context.device.create_command_encoder(&Default::default());
        let recorded = collider
            .record(&mut encoder, &scene.bodies)
            .expect("recorded");
        consumer.encode(&context.device, &mut encoder, &recorded);
        context.queue.submit([encoder.finish()]);
        let (seen, count, complete) = consumer.read(&context);
        // The true count, even when the buffer is short.
        assert_eq!(count as usize, expected.len(), "frame {frame}");
        if complete {
            // Host bodies carry the host's f64 rotations: exactly the same pairs.
            assert!(
                seen == expected,
                "frame {frame}: {} pairs seen, {} expected",
                seen.len(),
                expected.len()
            );
            return;
        }
        assert!(seen.len() < expected.len());
    }
    panic!("no frame was complete");
}

#[test]
fn an_overflowing_frame_says_so_and_a_later_frame_has_room() {
    let Some(context) = game_device() else { return };
    // A pile: every pair collides, far more than the first buffers hold.
    let scene = random_scene(SceneKind::Circles, 600, 74);
    let pile: Vec<Body> = scene
        .bodies
        .iter()
        .map(|b| Body {
            position: b.position * 0.01,
            ..*b
        })
        .collect();
    let mut collider =
        GpuCollider::new(&context, scene.validate().expect("valid")).expect("collider");
    let expected = collider.find_pairs(&pile).expect("find_pairs");
    let mut collider =
        GpuCollider::new(&context, scene.validate().expect("valid")).expect("collider");
    let consumer = Consumer::new(&context.device, expected.len() as u64);
    let mut first = None;
    for frame in 0..4 {
        let mut encoder = context.device.create_command_encoder(&Default::default());
        let recorded = collider.record(&mut encoder, &pile).expect("recorded");
        consumer.encode(&context.device, &mut encoder, &recorded);
        context.queue.submit([encoder.finish()]);
        context
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("idle");
        let (seen, count, complete) = consumer.read(&context);
        if frame == 0 {
            // Never silent: the header tells the true count and that pairs are missing.
            assert!(
                !complete,
                "the first frame overflowed {} pairs",
                recorded.pair_capacity
            );
            assert!(seen.len() < expected.len());
            first = Some(count);
        } else if complete {
            assert_eq!(seen, expected);
            assert_eq!(count as usize, expected.len());
            assert!(first.is_some());
            return;
        }
    }
    panic!("no frame had room for the pairs after the overflow came back");
}

#[test]
fn misuse_is_a_clear_error() {
    let Some(context) = game_device() else { return };
    let scene = random_scene(SceneKind::Circles, 100, 75);
    let mut collider =
        GpuCollider::new(&context, scene.validate().expect("valid")).expect("collider");
    let device = &context.device;
    let small = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("too small"),
        contents: &particle_bytes(&scene.bodies[..50]),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let no_storage = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("not storage"),
        size: 100 * STRIDE,
        usage: wgpu::BufferUsages::VERTEX,
        mapped_at_creation: false,
    });
    let fine = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("fine"),
        contents: &particle_bytes(&scene.bodies),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let cases: [(&wgpu::Buffer, BodyLayout, &str); 5] = [
        (&small, BodyLayout::new(STRIDE, 0), "holds 1600 bytes"),
        (&no_storage, BodyLayout::new(STRIDE, 0), "without STORAGE"),
        (&fine, BodyLayout::new(0, 0), "stride of 0"),
        (&fine, BodyLayout::new(STRIDE, 2), "not a multiple of 4"),
        (
            &fine,
            BodyLayout::new(STRIDE, 0).with_angle(32),
            "within the stride",
        ),
    ];
    for (buffer, layout, words) in cases {
        let mut encoder = device.create_command_encoder(&Default::default());
        match collider.record_from_buffer(&mut encoder, &scene.bodies, buffer, layout) {
            Err(Error::InvalidUse(message)) => {
                assert!(message.contains(words), "{message:?} should say {words:?}")
            }
            other => panic!("{layout:?}: expected InvalidUse, got {other:?}"),
        }
    }
    // A buffer of another device: wgpu's validation error, as a value.
    let other = game_device().expect("a second device");
    let foreign = other.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("another device's"),
        size: 100 * STRIDE,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    match collider.record_from_buffer(
        &mut encoder,
        &scene.bodies,
        &foreign,
        BodyLayout::new(STRIDE, 0),
    ) {
        Err(Error::Gpu(message)) => eprintln!("another device's buffer: {message}"),
        other => panic!("expected Error::Gpu, got {other:?}"),
    }
}

#[test]
fn a_body_the_gpu_cannot_take_is_named_by_a_later_frame() {
    let Some(context) = game_device() else { return };
    let scene = random_scene(SceneKind::Circles, 100, 76);
    let mut collider =
        GpuCollider::new(&context, scene.validate().expect("valid")).expect("collider");
    let mut bodies = scene.bodies.clone();
    bodies[37].position.y = f32::NAN;
    let particles = context
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("particles"),
            contents: &particle_bytes(&bodies),
            usage: wgpu::BufferUsages::STORAGE,
        });
    let layout = BodyLayout::new(STRIDE, 0);
    let consumer = Consumer::new(&context.device, 1 << 12);
    let mut encoder = context.device.create_command_encoder(&Default::default());
    let recorded = collider
        .record_from_buffer(&mut encoder, &scene.bodies, &particles, layout)
        .expect("recorded: the GPU has not read it yet");
    consumer.encode(&context.device, &mut encoder, &recorded);
    context.queue.submit([encoder.finish()]);
    let (_, _, complete) = consumer.read(&context);
    assert!(!complete, "the header says the frame is not whole");
    let mut failed = None;
    for _ in 0..3 {
        let mut encoder = context.device.create_command_encoder(&Default::default());
        match collider.record_from_buffer(&mut encoder, &scene.bodies, &particles, layout) {
            Ok(_) => {
                context.queue.submit([encoder.finish()]);
                context
                    .device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .expect("idle");
            }
            Err(error) => {
                failed = Some(error.to_string());
                break;
            }
        }
    }
    let message = failed.expect("a later frame fails");
    assert!(message.contains("body 37"), "{message}");
    assert!(message.contains("not finite"), "{message}");
}

#[test]
fn empty_and_single_body_frames_record_no_pairs() {
    let Some(context) = game_device() else { return };
    let scene = random_scene(SceneKind::Circles, 10, 77);
    let mut collider =
        GpuCollider::new(&context, scene.validate().expect("valid")).expect("collider");
    let consumer = Consumer::new(&context.device, 16);
    for bodies in [&scene.bodies[..0], &scene.bodies[..1], &scene.bodies[..0]] {
        let mut encoder = context.device.create_command_encoder(&Default::default());
        let recorded = collider.record(&mut encoder, bodies).expect("recorded");
        consumer.encode(&context.device, &mut encoder, &recorded);
        context.queue.submit([encoder.finish()]);
        assert_eq!(consumer.read(&context), (Vec::new(), 0, true));
    }
}
