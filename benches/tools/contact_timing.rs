//! What contacts cost over plain pairs, per backend: the benchmark's random mixed and
//! bitmask scenes (seed 4, as `gpu-collide bench` makes them, standing still), each
//! frame timed on the host from the call to the answer, median of `FRAMES` frames after
//! two of warm-up (pipelines compiled, buffers grown). Also writes each scene to
//! `$TMPDIR/contact-timing-KIND-N.json`, for timing the command line on the same file.
//!
//! ```text
//! cargo bench --bench contact_timing -- 10000 20
//! ```

use std::time::Instant;

use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::{Body, Collider, CpuCollider, GpuCollider, GpuContext};

fn median_ms(frames: usize, mut frame: impl FnMut() -> usize) -> (f64, usize) {
    let mut answers = 0;
    for _ in 0..2 {
        answers = frame();
    }
    let mut times: Vec<f64> = (0..frames)
        .map(|_| {
            let start = Instant::now();
            answers = frame();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], answers)
}

fn report(name: &str, frames: usize, collider: &mut dyn Collider, bodies: &[Body]) {
    let (pairs_ms, pairs) = median_ms(frames, || collider.find_pairs(bodies).expect("pairs").len());
    let (contacts_ms, contacts) = median_ms(frames, || {
        collider.find_contacts(bodies).expect("contacts").len()
    });
    assert_eq!(pairs, contacts, "{name}: a contact per pair");
    println!(
        "{name:<18} {pairs:>7} pairs   pairs {pairs_ms:>8.2} ms   contacts {contacts_ms:>8.2} ms   (+{:.2} ms, x{:.2})",
        contacts_ms - pairs_ms,
        contacts_ms / pairs_ms
    );
}

fn main() {
    let mut args = std::env::args()
        .filter(|a| a != "--bench")
        .skip(1)
        .filter_map(|a| a.parse::<usize>().ok());
    let bodies = args.next().unwrap_or(10_000);
    let frames = args.next().unwrap_or(20).max(1);
    let gpu = GpuContext::new().ok();
    match &gpu {
        Some(gpu) => println!("gpu: {}", gpu.describe()),
        None => println!("gpu: no adapter, cpu only"),
    }
    for (name, kind) in [
        ("mixed", SceneKind::Mixed),
        ("bitmask", SceneKind::Bitmasks),
    ] {
        let scene = random_scene(kind, bodies, 4);
        let path = std::env::temp_dir().join(format!("contact-timing-{name}-{bodies}.json"));
        std::fs::write(&path, scene.to_json()).expect("scene file written");
        println!("{name} {bodies} bodies ({}):", path.display());
        let library = scene.validate().expect("valid scene");
        report(
            &format!("  {name} cpu"),
            frames,
            &mut CpuCollider::new(library.clone()),
            &scene.bodies,
        );
        if let Some(gpu) = &gpu {
            let mut collider = GpuCollider::new(gpu, library).expect("gpu collider");
            report(
                &format!("  {name} gpu"),
                frames,
                &mut collider,
                &scene.bodies,
            );
        }
    }
}
