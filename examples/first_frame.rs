//! The first frames of a scene file on one gpu collider, each timed on the host with its
//! stage times: what a one-shot `gpu-collide pairs` pays (frame 0: the bodies' infos
//! uploaded and the grid chosen, after `Collider::reserve` made the buffers and readied
//! the kernels, timed apart) against the steady frames after it, on the same positions.
//! The target: the first frame at most 1.5 times a steady one.
//!
//! ```text
//! cargo run --release --example first_frame -- scene.json 4
//! ```

use std::time::Instant;

use gpu_collide::{Collider, GpuCollider, GpuContext, Scene};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: first_frame SCENE.json [FRAMES]")?;
    let frames: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(4);
    let scene = Scene::from_json(&std::fs::read_to_string(&path)?)?;
    let library = scene.validate()?;
    let gpu = GpuContext::new()?;
    println!(
        "{path}: {} bodies on {}",
        scene.bodies.len(),
        gpu.describe()
    );
    let mut collider = GpuCollider::new(&gpu, library)?;
    // Every frame alike pays for its timestamps (a fraction of a millisecond on lavapipe).
    collider.set_stage_timing(true);
    // What a game does as a level loads, and `gpu-collide pairs` as it starts.
    let start = Instant::now();
    collider.reserve(scene.bodies.len())?;
    println!("reserve: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    let mut steady = Vec::new();
    let mut first = 0.0;
    for frame in 0..frames.max(2) {
        let start = Instant::now();
        let pairs = collider.find_pairs(&scene.bodies)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        if frame == 0 {
            first = ms;
        } else {
            steady.push(ms);
        }
        let stages = collider
            .last_frame()
            .stages
            .map(|s| {
                format!(
                    "upload {:.1}, bounds {:.1}, broad {:.1}, narrow {:.1}, readback {:.1}",
                    s.upload, s.bounds, s.broad, s.narrow, s.readback
                )
            })
            .unwrap_or_default();
        println!(
            "frame {frame}: {} pairs in {ms:.1} ms ({stages})",
            pairs.len()
        );
    }
    steady.sort_by(f64::total_cmp);
    let median = steady[steady.len() / 2];
    println!(
        "first frame / median steady frame: {first:.1} / {median:.1} ms = {:.2}x",
        first / median
    );
    Ok(())
}
