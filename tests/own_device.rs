//! A device the caller opened, handed over with `GpuContext::from_device`: the same pairs
//! as a device gpu-collide opens, a clear error for a device with too few resources, and
//! the caller's own error handler left in place.

use std::sync::{Arc, Mutex};

use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::gpu::usable_adapters;
use gpu_collide::{wgpu, Error, GpuContext};

use crate::support::{gpu, gpu_pairs};

/// A device opened the way a game would, on the adapter the tests use, with `limits`.
fn open_device(limits: wgpu::Limits) -> (wgpu::Device, wgpu::Queue) {
    let adapter = pollster::block_on(usable_adapters())
        .expect("adapters")
        .into_iter()
        .next()
        .expect("an adapter, since gpu() found one");
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("the game's device"),
        required_limits: limits,
        ..Default::default()
    }))
    .expect("the adapter opens a device with these limits")
}

#[test]
fn a_device_the_caller_opened_gives_the_same_pairs() {
    let Some(ours) = gpu() else { return };
    let scene = random_scene(SceneKind::Mixed, 2000, 41);
    let (device, queue) = open_device(wgpu::Limits::default());
    let theirs = GpuContext::from_device(device, queue).expect("default limits are enough");
    let expected = gpu_pairs(&ours, &scene);
    assert!(!expected.is_empty());
    assert_eq!(gpu_pairs(&theirs, &scene), expected);
    // Any number of colliders share it.
    assert_eq!(gpu_pairs(&theirs, &scene), expected);
}

#[test]
fn a_device_with_too_few_storage_buffers_is_refused_by_name() {
    if gpu().is_none() {
        return;
    }
    // WebGL-class limits: 4 storage buffers per stage, where the kernels bind 8.
    let (device, queue) = open_device(wgpu::Limits::downlevel_defaults());
    match GpuContext::from_device(device, queue) {
        Err(Error::DeviceLimit { limit, needed, has }) => {
            assert_eq!(limit, "max_storage_buffers_per_shader_stage");
            assert_eq!((needed, has), (8, 4));
        }
        other => panic!("expected Error::DeviceLimit, got {other:?}"),
    }
}

#[test]
fn the_callers_error_handler_stays_the_callers() {
    if gpu().is_none() {
        return;
    }
    let (device, queue) = open_device(wgpu::Limits::default());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
        sink.lock().expect("log").push(error.to_string());
    }));
    let context = GpuContext::from_device(device.clone(), queue).expect("context");
    let scene = random_scene(SceneKind::Circles, 500, 42);
    assert!(!gpu_pairs(&context, &scene).is_empty());
    assert!(
        seen.lock().expect("log").is_empty(),
        "gpu-collide's work raised nothing"
    );
    // A mistake of the caller's own still reaches the caller's handler.
    let _ = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("a buffer no device allows"),
        size: 16,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    assert_eq!(
        seen.lock().expect("log").len(),
        1,
        "the caller's handler saw its error"
    );
}
