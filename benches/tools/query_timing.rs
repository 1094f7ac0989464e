//! What each part of a query batch costs, per backend: the benchmark's bullet-hell bodies
//! (seed 4 unless a third argument says otherwise, as `gpu-collide bench --scene queries
//! --seed S` makes them, standing still), asked
//! one point (the batch's fixed cost: upload, the grid, readback), the rays alone, the
//! points alone, the boxes alone, and the whole batch. Each is timed on the host from the
//! call to the answer, median of `FRAMES` calls after two of warm-up.
//!
//! ```text
//! cargo bench --bench query_timing -- 100000 10      # bodies, calls
//! cargo bench --bench query_timing -- 100000 10 7    # and the seed
//! ```

use std::time::Instant;

use gpu_collide::bench::parry::ParryCollider;
use gpu_collide::bench::workload::{query_batch, Workload, QUERIES};
use gpu_collide::bench::SEED;
use gpu_collide::{Body, Collider, CpuCollider, GpuCollider, GpuContext, QueryBatch};

fn median_ms(frames: usize, mut call: impl FnMut() -> usize) -> (f64, usize) {
    let mut answers = 0;
    for _ in 0..2 {
        answers = call();
    }
    let mut times: Vec<f64> = (0..frames)
        .map(|_| {
            let start = Instant::now();
            answers = call();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], answers)
}

/// The (query, body) answers of a batch: rays that hit, and what points and boxes hold.
fn answers(collider: &mut dyn Collider, bodies: &[Body], batch: &QueryBatch) -> usize {
    let a = collider.query(bodies, batch).expect("query");
    a.rays.iter().flatten().count() + a.points.iter().chain(&a.boxes).map(Vec::len).sum::<usize>()
}

fn main() {
    let mut args = std::env::args()
        .filter(|a| a != "--bench")
        .skip(1)
        .filter_map(|a| a.parse::<usize>().ok());
    let bodies = args.next().unwrap_or(100_000);
    let frames = args.next().unwrap_or(10).max(1);
    let seed = args.next().map_or(SEED, |s| s as u64);
    let workload = Workload::bullet_hell(bodies, seed);
    let library = workload.scene().validate().expect("a valid scene");
    let bodies = workload.bodies();
    let whole = query_batch(bodies, QUERIES, seed.wrapping_add(2));
    let parts = [
        (
            "one point",
            QueryBatch {
                rays: vec![],
                points: whole.points[..1].to_vec(),
                boxes: vec![],
            },
        ),
        (
            "rays",
            QueryBatch {
                rays: whole.rays.clone(),
                points: vec![],
                boxes: vec![],
            },
        ),
        (
            "points",
            QueryBatch {
                rays: vec![],
                points: whole.points.clone(),
                boxes: vec![],
            },
        ),
        (
            "boxes",
            QueryBatch {
                rays: vec![],
                points: vec![],
                boxes: whole.boxes.clone(),
            },
        ),
        ("whole batch", whole),
    ];
    let gpu = GpuContext::new().ok();
    let mut colliders: Vec<(&str, Box<dyn Collider>)> = Vec::new();
    match &gpu {
        Some(gpu) => {
            println!("gpu: {}", gpu.describe());
            colliders.push((
                "gpu",
                Box::new(GpuCollider::new(gpu, library.clone()).expect("gpu collider")),
            ));
        }
        None => println!("gpu: no adapter, cpu and parry2d only"),
    }
    colliders.push(("cpu", Box::new(CpuCollider::new(library.clone()))));
    colliders.push((
        "parry2d",
        Box::new(ParryCollider::new(library).expect("parry2d")),
    ));
    println!(
        "{} bodies, median of {frames} calls, ms (answers)",
        bodies.len()
    );
    print!("{:<12}", "");
    for (name, _) in &colliders {
        print!("{name:>20}");
    }
    println!();
    for (part, batch) in &parts {
        print!("{part:<12}");
        for (_, collider) in &mut colliders {
            let (ms, n) = median_ms(frames, || answers(collider.as_mut(), bodies, batch));
            print!("{:>20}", format!("{ms:.2} ({n})"));
        }
        println!();
    }
}
