//! Property tests: small random scenes over a fixed shape library, shrunk to a minimal
//! failing scene when a backend disagrees with the oracle or with the other backend.

use gpu_collide::cpu::ReferenceCollider;
use gpu_collide::{Body, Collider, CpuCollider, GpuCollider, Scene, Shape, ShapeLibrary};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use std::cell::RefCell;

use crate::oracle;
use crate::support::{differences, gpu};

fn shapes() -> Vec<Shape> {
    let scene = Scene::from_json(
        r#######"{"shapes": [
            {"polygon": [[-2, -0.5], [2, -0.5], [2, 0.5], [-2, 0.5]]},
            {"polygon": [[0, 0], [3, 0.5], [1, 2]]},
            {"polygon": [[2, 0], [1.25, 1.56], [-0.44, 1.95], [-1.8, 0.87], [-1.8, -0.87], [-0.44, -1.95], [1.25, -1.56]]},
            {"polygon": [[-3, -0.02], [3, -0.02], [3, 0.02], [-3, 0.02]]},
            {"circle": 1.0},
            {"circle": 0.3},
            {"bitmask": {"width": 4, "height": 3, "rows": ["##.#", ".#..", "####"]}},
            {"bitmask": {"width": 33, "height": 2, "rows": ["#...............................#", "..#.............................."]}}
        ], "bodies": []}"#######,
    )
    .expect("valid");
    scene.shapes
}

/// Up to 24 bodies in a 24 x 24 box, so that many of them touch.
fn bodies(shapes: &[Shape]) -> impl Strategy<Value = Vec<Body>> {
    let kinds: Vec<bool> = shapes
        .iter()
        .map(|s| matches!(s, Shape::Bitmask(_)))
        .collect();
    let body = (
        0..shapes.len(),
        -12.0f32..12.0,
        -12.0f32..12.0,
        -3.2f32..3.2,
        0u32..4,
        0u32..16,
    )
        .prop_map(move |(shape, x, y, angle, layer, mask)| {
            let mut body =
                Body::new(shape as u32, glam::Vec2::new(x, y)).with_filter(1 << layer, mask | 1);
            if kinds[shape] {
                body.position = body.position.round();
            } else {
                body.angle = angle;
            }
            body
        });
    proptest::collection::vec(body, 0..24)
}

fn oracle_of(shapes: &[Shape], bodies: &[Body]) -> oracle::OracleResult {
    let text = Scene {
        shapes: shapes.to_vec(),
        bodies: bodies.to_vec(),
        ..Scene::default()
    }
    .to_json();
    oracle::oracle(&text)
}

#[test]
fn cpu_agrees_with_the_oracle_outside_the_band() {
    let shapes = shapes();
    let cpu = RefCell::new(CpuCollider::new(ShapeLibrary::new(&shapes).expect("valid")));
    let mut runner = TestRunner::new(Config {
        cases: 256,
        ..Config::default()
    });
    runner
        .run(&bodies(&shapes), |bodies| {
            let found = cpu.borrow_mut().find_pairs(&bodies).expect("cpu");
            let comparison = oracle::compare(&found, &oracle_of(&shapes, &bodies));
            prop_assert!(comparison.is_exact_outside_band(), "{comparison:?}");
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn gpu_agrees_with_cpu_except_in_the_band() {
    let Some(context) = gpu() else { return };
    let shapes = shapes();
    let library = ShapeLibrary::new(&shapes).expect("valid");
    let cpu = RefCell::new(CpuCollider::new(library.clone()));
    let gpu = RefCell::new(GpuCollider::new(&context, library).expect("collider"));
    let mut runner = TestRunner::new(Config {
        cases: 64,
        ..Config::default()
    });
    runner
        .run(&bodies(&shapes), |bodies| {
            let expected = cpu.borrow_mut().find_pairs(&bodies).expect("cpu");
            let found = gpu.borrow_mut().find_pairs(&bodies).expect("gpu");
            let well_formed =
                found.windows(2).all(|w| w[0] < w[1]) && found.iter().all(|p| p[0] < p[1]);
            prop_assert!(well_formed, "gpu pairs not unique and sorted: {found:?}");
            let (_, outside) = differences(&expected, &found, &oracle_of(&shapes, &bodies));
            prop_assert!(
                outside.is_empty(),
                "differ outside the band on {outside:?}\ncpu {expected:?}\ngpu {found:?}"
            );
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Shapes from 0.2 to 80 units across, so bodies spread over many grid levels and the
/// grid looks both ways between levels (coarse sweeping fine, fine looking up).
fn mixed_size_shapes() -> Vec<Shape> {
    let mut rows = vec!["#".repeat(40); 40];
    rows[20] = ".".repeat(40);
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let text = serde_json::json!({"shapes": [
        {"circle": 0.1},
        {"circle": 0.4},
        {"polygon": [[0, 0], [0.5, 0], [0, 0.5]]},
        {"circle": 30.0},
        {"polygon": [[-40, -0.5], [40, -0.5], [40, 0.5], [-40, 0.5]]},
        {"bitmask": {"width": 40, "height": 40, "rows": rows}},
        {"bitmask": {"width": 1, "height": 1, "rows": ["#"]}}
    ], "bodies": []})
    .to_string();
    Scene::from_json(&text).expect("valid").shapes
}

#[test]
fn grid_finds_exactly_the_reference_pairs() {
    let shapes = mixed_size_shapes();
    let library = ShapeLibrary::new(&shapes).expect("valid");
    let reference = RefCell::new(ReferenceCollider::new(library.clone()));
    let cpu = RefCell::new(CpuCollider::new(library.clone()));
    let gpu =
        gpu().map(|context| RefCell::new(GpuCollider::new(&context, library).expect("collider")));
    let kinds: Vec<bool> = shapes
        .iter()
        .map(|s| matches!(s, Shape::Bitmask(_)))
        .collect();
    // Mostly tiny bodies, a few huge ones.
    let body = (
        0..100usize,
        -60.0f32..60.0,
        -60.0f32..60.0,
        -3.2f32..3.2,
        0u32..3,
        1u32..8,
    )
        .prop_map(move |(pick, x, y, angle, layer, mask)| {
            let shape = if pick < 90 { pick % 3 } else { 3 + pick % 4 };
            let mut body =
                Body::new(shape as u32, glam::Vec2::new(x, y)).with_filter(1 << layer, mask);
            if kinds[shape] {
                body.position = body.position.round();
            } else {
                body.angle = angle;
            }
            body
        });
    let mut runner = TestRunner::new(Config {
        cases: 48,
        ..Config::default()
    });
    runner
        .run(&proptest::collection::vec(body, 0..400), |bodies| {
            let expected = reference
                .borrow_mut()
                .find_pairs(&bodies)
                .expect("reference");
            let found = cpu.borrow_mut().find_pairs(&bodies).expect("cpu");
            prop_assert_eq!(&found, &expected);
            if let Some(gpu) = &gpu {
                let on_gpu = gpu.borrow_mut().find_pairs(&bodies).expect("gpu");
                let (_, outside) = differences(&expected, &on_gpu, &oracle_of(&shapes, &bodies));
                prop_assert!(
                    outside.is_empty(),
                    "gpu differs outside the band on {outside:?}"
                );
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}
