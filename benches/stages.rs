//! Micro-benchmarks for regression tracking (criterion): each exact test per shape pair,
//! each stage of the CPU reference on a seeded scene, a whole frame of the cpu and
//! parry2d backends, and one GPU frame when an adapter exists.
//!
//! ```text
//! cargo bench --bench stages                  # everything
//! cargo bench --bench stages -- shape_pair    # only the exact tests
//! ```
//!
//! Not run by CI (`cargo bench --no-run` only proves it compiles); the end-to-end
//! numbers come from `gpu-collide bench` (BENCHMARKS.md, "Running the benchmark").

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use gpu_collide::bench::parry::ParryCollider;
use gpu_collide::bench::workload::Workload;
use gpu_collide::cpu::narrow::{circle_circle, Geometry, Placement};
use gpu_collide::cpu::{bounds, broad, narrow};
use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::glam::{IVec2, Vec2};
use gpu_collide::layout::bodies::{body_info, body_transform};
use gpu_collide::layout::packed::{BodyInfo, BodyTransform};
use gpu_collide::{
    Bitmask, Circle, Collider, CpuCollider, GpuCollider, GpuContext, Polygon, Shape, ShapeLibrary,
};

/// Seed of the scenes, the same as the `bench` command's.
const SEED: u64 = gpu_collide::bench::SEED;

/// Bodies in the scenes of the stage benchmarks: big enough to matter, small enough
/// that the all-pairs reference broad phase takes milliseconds.
const STAGE_BODIES: usize = 2_000;

/// A `size × size` mask of alternating cells (a checkerboard), `phase` 0 or 1.
fn checkerboard(size: u32, phase: u32) -> Bitmask {
    let mut mask = Bitmask::new(size, size).expect("side in range");
    for r in 0..size {
        for c in 0..size {
            mask.set(c, r, (c + r) % 2 == phase);
        }
    }
    mask
}

/// A rotation as the pipeline stores it.
fn rotation(angle: f32) -> Vec2 {
    let (s, c) = (angle as f64).sin_cos();
    Vec2::new(c as f32, s as f32)
}

/// The exact test of every shape pair, once where the shapes overlap and once where
/// they do not: a hit can stop early in some tests and a miss in others.
fn shape_pairs(c: &mut Criterion) {
    let library = ShapeLibrary::new(&[
        Shape::Polygon(Polygon::regular(8, 10.0)), // 0
        Shape::Polygon(Polygon::regular(5, 6.0)),  // 1
        Shape::Circle(Circle::new(4.0)),           // 2
        Shape::Bitmask(checkerboard(64, 0)),       // 3
        Shape::Bitmask(checkerboard(64, 1)),       // 4: never shares a cell with 3 at even offsets
    ])
    .expect("valid shapes");
    let s = library.packed_shapes().to_vec();
    let geometry = Geometry { library: &library };
    let at = |x: f32, y: f32, angle: f32| Placement {
        offset: Vec2::new(x, y),
        rotation: rotation(angle),
    };
    let mut group = c.benchmark_group("shape_pair");
    for (case, apart) in [("hit", 0.0), ("miss", 40.0)] {
        group.bench_function(format!("polygon-polygon SAT/{case}"), |b| {
            b.iter(|| {
                geometry.polygon_polygon(
                    black_box(&s[0]),
                    at(0.0, 0.0, 0.3),
                    black_box(&s[1]),
                    at(12.0 + apart, 3.0, 1.1),
                )
            })
        });
        group.bench_function(format!("circle-polygon/{case}"), |b| {
            b.iter(|| {
                geometry.circle_polygon(
                    black_box(Vec2::new(11.0 + apart, 4.0)),
                    black_box(s[2].radius),
                    black_box(&s[0]),
                    at(0.0, 0.0, 0.3),
                )
            })
        });
        group.bench_function(format!("circle-circle/{case}"), |b| {
            b.iter(|| circle_circle(black_box(Vec2::new(7.0 + apart, 2.0)), 4.0, 4.0))
        });
        // Placed in the mask's frame, over its middle (or beside it).
        group.bench_function(format!("polygon-bitmask/{case}"), |b| {
            b.iter(|| {
                geometry.polygon_bitmask(
                    black_box(&s[1]),
                    at(32.0 + apart * 2.0, 32.0, 0.7),
                    black_box(&s[3]),
                )
            })
        });
        group.bench_function(format!("circle-bitmask/{case}"), |b| {
            b.iter(|| {
                geometry.circle_bitmask(
                    black_box(Vec2::new(32.0 + apart * 2.0, 32.5)),
                    black_box(s[2].radius),
                    black_box(&s[3]),
                )
            })
        });
    }
    // Bitmask AND: the same checkerboard overlapping itself (a hit in the first word),
    // and two complementary ones fully overlapping (a miss that ANDs every row).
    group.bench_function("bitmask AND/hit", |b| {
        b.iter(|| {
            geometry.bitmask_bitmask(
                black_box(&s[3]),
                IVec2::ZERO,
                black_box(&s[3]),
                IVec2::new(2, 0),
            )
        })
    });
    group.bench_function("bitmask AND/miss (full scan)", |b| {
        b.iter(|| {
            geometry.bitmask_bitmask(
                black_box(&s[3]),
                IVec2::ZERO,
                black_box(&s[4]),
                IVec2::new(2, 2),
            )
        })
    });
    group.finish();
}

/// A seeded mixed scene, packed as the stages read it.
struct Packed {
    library: ShapeLibrary,
    transforms: Vec<BodyTransform>,
    infos: Vec<BodyInfo>,
}

fn packed_scene(kind: SceneKind) -> Packed {
    let scene = random_scene(kind, STAGE_BODIES, SEED);
    Packed {
        library: scene.validate().expect("generated scenes are valid"),
        transforms: scene.bodies.iter().map(body_transform).collect(),
        infos: scene.bodies.iter().map(body_info).collect(),
    }
}

/// Each stage of the CPU reference on its own, on the same inputs every iteration.
fn cpu_stages(c: &mut Criterion) {
    let p = packed_scene(SceneKind::Mixed);
    let aabbs = bounds::bounds(&p.library, &p.transforms, &p.infos);
    let params = gpu_collide::grid::GridParams::for_bodies(&p.library, &p.infos);
    let candidates = broad::broad(&params, &p.infos, &aabbs);
    let mut group = c.benchmark_group(format!("cpu_stage/mixed {STAGE_BODIES}"));
    group.sample_size(20);
    group.bench_function("bounds", |b| {
        b.iter(|| bounds::bounds(&p.library, black_box(&p.transforms), &p.infos))
    });
    group.bench_function("broad", |b| {
        b.iter(|| broad::broad(&params, &p.infos, black_box(&aabbs)))
    });
    group.bench_function(format!("narrow ({} candidates)", candidates.len()), |b| {
        b.iter(|| narrow::narrow(&p.library, &p.transforms, &p.infos, black_box(&candidates)))
    });
    group.finish();
}

/// Whole frames as `gpu-collide bench` times them: the bodies move (untimed) and
/// `find_pairs` runs on their new positions.
fn time_frames(collider: &mut dyn Collider, workload: &mut Workload, iters: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        workload.step();
        let start = Instant::now();
        let pairs = collider.find_pairs(workload.bodies()).expect("frame runs");
        total += start.elapsed();
        black_box(pairs);
    }
    total
}

fn frames(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("frame/bullet-hell {STAGE_BODIES}"));
    group.sample_size(20);
    let workload = Workload::bullet_hell(STAGE_BODIES, SEED);
    let library = workload.scene().validate().expect("valid scene");

    let mut cpu = CpuCollider::new(library.clone());
    let mut moving = workload.clone();
    group.bench_function("cpu", |b| {
        b.iter_custom(|iters| time_frames(&mut cpu, &mut moving, iters))
    });

    let mut parry = ParryCollider::new(library.clone()).expect("parry shapes");
    let mut moving = workload.clone();
    group.bench_function("parry2d", |b| {
        b.iter_custom(|iters| time_frames(&mut parry, &mut moving, iters))
    });

    match GpuContext::new() {
        Ok(context) => {
            eprintln!("gpu frame benchmark on {}", context.describe());
            let mut gpu = GpuCollider::new(&context, library).expect("gpu collider");
            let mut moving = workload;
            group.bench_function("gpu", |b| {
                b.iter_custom(|iters| time_frames(&mut gpu, &mut moving, iters))
            });
        }
        Err(error) => eprintln!("skipping the gpu frame benchmark: no adapter ({error})"),
    }
    group.finish();
}

criterion_group!(benches, shape_pairs, cpu_stages, frames);
criterion_main!(benches);
