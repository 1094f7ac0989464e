//! Shared test helpers: the one GPU device of the test run, and running a scene on
//! every backend.

use std::sync::OnceLock;

use gpu_collide::cpu::ReferenceCollider;
use gpu_collide::{Collider, CpuCollider, GpuCollider, GpuContext, Pair, Scene};

/// The device all GPU tests share, or `None` on a developer machine without an adapter.
/// Under `CI=true` a missing adapter fails the test: CI must really run the GPU tests.
pub fn gpu() -> Option<GpuContext> {
    static CONTEXT: OnceLock<Result<GpuContext, String>> = OnceLock::new();
    let context = CONTEXT.get_or_init(|| {
        let context = GpuContext::new().map_err(|e| e.to_string());
        match &context {
            Ok(c) => eprintln!("GPU tests run on adapter: {}", c.describe()),
            Err(e) => eprintln!(
                "\n!!!!!!!! NO GPU ADAPTER: GPU TESTS ARE SKIPPED ({e}) !!!!!!!!\n\
                 !!!!!!!! install one: apt-get install -y mesa-vulkan-drivers !!!!!!!!\n"
            ),
        }
        context
    });
    match context {
        Ok(c) => Some(c.clone()),
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("no GPU adapter under CI=true, so the GPU tests cannot run: {e}")
        }
        Err(_) => None,
    }
}

/// Checks the format's promise: each pair once, as `[i, j]` with `i < j`, sorted ascending.
pub fn assert_well_formed(what: &str, pairs: &[Pair]) -> Vec<Pair> {
    for p in pairs {
        assert!(p[0] < p[1], "{what}: pair {p:?} is not [i, j] with i < j");
    }
    for w in pairs.windows(2) {
        assert!(
            w[0] < w[1],
            "{what}: pairs not strictly ascending (duplicate?) at {:?}",
            w
        );
    }
    pairs.to_vec()
}

/// Pairs from the readable CPU reference (all pairs, one thread).
pub fn reference_pairs(scene: &Scene) -> Vec<Pair> {
    let library = scene.validate().expect("test scene is valid");
    let pairs = ReferenceCollider::new(library)
        .find_pairs(&scene.bodies)
        .expect("reference runs");
    assert_well_formed("reference", &pairs)
}

/// Pairs from the cpu backend (grid broad phase, all cores).
pub fn cpu_pairs(scene: &Scene) -> Vec<Pair> {
    let library = scene.validate().expect("test scene is valid");
    let pairs = CpuCollider::new(library)
        .find_pairs(&scene.bodies)
        .expect("cpu backend runs");
    assert_well_formed("cpu", &pairs)
}

/// Pairs from the GPU.
pub fn gpu_pairs(context: &GpuContext, scene: &Scene) -> Vec<Pair> {
    let library = scene.validate().expect("test scene is valid");
    let pairs = GpuCollider::new(context, library)
        .expect("gpu collider builds")
        .find_pairs(&scene.bodies)
        .expect("gpu backend runs");
    assert_well_formed("gpu", &pairs)
}

/// The example scene of the format's spec, with a second bitmask overlapping the first
/// (pairs `[0, 3]` and `[2, 4]`), as the command-line tests feed it.
pub const SPEC_EXAMPLE: &str = r#######"{
  "shapes": [
    {"polygon": [[-9.0, -8.0], [9.0, -8.0], [0.0, 12.0]]},
    {"circle": 2.5},
    {"bitmask": {"width": 5, "height": 3, "rows": [".###.", "#####", ".#.#."]}}
  ],
  "bodies": [
    {"shape": 0, "x": 100.0, "y": 40.0, "angle": 0.5},
    {"shape": 1, "x": 104.0, "y": 52.0, "layer": 4, "mask": 2},
    {"shape": 2, "x": 90, "y": 35},
    {"shape": 1, "x": 101.0, "y": 41.0},
    {"shape": 2, "x": 88, "y": 36}
  ]
}"#######;
