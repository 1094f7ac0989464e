//! Swept pairs (scene format 1.1): known cases with their times of impact, random and
//! adversarial moving scenes against the f64 oracle of `oracle::motion` (band cases
//! counted), a property that shrinks, on the cpu backend and, where there is a GPU, on
//! the gpu backend too (held to the oracle and to the cpu's answer); and tests whose work
//! would pass llvmpipe's loop cap unless the gpu chunks it.

use std::collections::{BTreeMap, BTreeSet};

use glam::Vec2;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

use gpu_collide::cpu::ReferenceCollider;
use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::{
    Bitmask, Body, Circle, Collider, CpuCollider, GpuCollider, Polygon, Scene, Shape, ShapeLibrary,
    SweptPair,
};

use crate::oracle::motion::{swept_oracle, SweptTruth};
use crate::support::gpu;

/// Swept pairs of the cpu backend and of the reference, which must agree exactly (the
/// same tests on the same candidates), as `(pair, toi)`.
fn swept(scene: &Scene) -> Vec<([u32; 2], f32)> {
    let library = scene.validate().expect("valid scene");
    let cpu = CpuCollider::new(library.clone())
        .find_swept_pairs(&scene.bodies)
        .expect("cpu sweeps");
    let reference = ReferenceCollider::new(library)
        .find_swept_pairs(&scene.bodies)
        .expect("reference sweeps");
    assert_eq!(cpu, reference, "cpu backend vs reference");
    for w in cpu.windows(2) {
        assert!(w[0].pair < w[1].pair, "sorted, each pair once: {w:?}");
    }
    cpu.iter().map(|s: &SweptPair| (s.pair, s.toi)).collect()
}

/// The gpu backend's swept pairs, where there is a GPU, as `(pair, toi)`; its
/// `find_pairs` on a moving frame, and a frame submitted and collected, give the same
/// pairs.
fn gpu_swept(bodies: &[Body], library: ShapeLibrary) -> Option<Vec<([u32; 2], f32)>> {
    let context = gpu()?;
    let mut collider = GpuCollider::new(&context, library).expect("gpu collider");
    let found = collider.find_swept_pairs(bodies).expect("gpu sweeps");
    for w in found.windows(2) {
        assert!(w[0].pair < w[1].pair, "gpu: sorted, each pair once: {w:?}");
    }
    let pairs: Vec<[u32; 2]> = found.iter().map(|s| s.pair).collect();
    if bodies.iter().any(Body::moves) {
        let again = collider.find_pairs(bodies).expect("gpu find_pairs");
        assert_eq!(again, pairs, "gpu: find_pairs on a moving frame");
        let frame = collider.submit(bodies).expect("gpu submit");
        let collected = collider.collect(frame).expect("gpu collect");
        assert_eq!(
            collected, pairs,
            "gpu: a moving frame submitted and collected"
        );
    }
    Some(found.iter().map(|s| (s.pair, s.toi)).collect())
}

/// Holds the gpu's swept pairs to the cpu's: the same pairs but for those in `band`, and
/// each time within the format's tolerance (`0.01 / |v_j - v_i| + 1e-4`) of the cpu's.
fn gpu_matches_cpu(
    what: &str,
    bodies: &[Body],
    band: &BTreeSet<[u32; 2]>,
    cpu: &[([u32; 2], f32)],
    gpu: &[([u32; 2], f32)],
) {
    let cpu: BTreeMap<[u32; 2], f32> = cpu.iter().copied().collect();
    let gpu: BTreeMap<[u32; 2], f32> = gpu.iter().copied().collect();
    for (pair, &toi) in &gpu {
        let Some(&cpu_toi) = cpu.get(pair) else {
            assert!(
                band.contains(pair),
                "{what}: gpu finds {pair:?} (toi {toi}), the cpu not"
            );
            continue;
        };
        if band.contains(pair) {
            continue;
        }
        let [i, j] = pair.map(|k| k as usize);
        let speed = (bodies[j].velocity - bodies[i].velocity).length() as f64;
        let tolerance = if speed > 0.0 {
            0.01 / speed + 1e-4
        } else {
            0.0
        };
        assert!(
            ((toi - cpu_toi).abs() as f64) <= tolerance,
            "{what}: {pair:?} at {toi} on the gpu, {cpu_toi} on the cpu (tolerance {tolerance})"
        );
    }
    for pair in cpu.keys() {
        assert!(
            gpu.contains_key(pair) || band.contains(pair),
            "{what}: the cpu finds {pair:?}, the gpu not"
        );
    }
}

/// Checks a scene against the oracle outside the band, on the cpu backend and (where
/// there is a GPU) the gpu backend; returns the cpu's (pairs, band pairs reported, band
/// pairs not reported).
pub(crate) fn check(what: &str, text: &str) -> (usize, usize, usize) {
    let scene = Scene::from_json(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let found = swept(&scene);
    let truth = swept_oracle(text);
    let comparison = truth.compare(&found);
    assert!(
        comparison.is_exact_outside_band(),
        "{what}: {}",
        report(&truth, &comparison)
    );
    if let Some(on_gpu) = gpu_swept(&scene.bodies, scene.validate().expect("valid")) {
        let comparison = truth.compare(&on_gpu);
        assert!(
            comparison.is_exact_outside_band(),
            "{what} on the gpu: {}",
            report(&truth, &comparison)
        );
        gpu_matches_cpu(what, &scene.bodies, &truth.band(), &found, &on_gpu);
    }
    // find_pairs answers the same question when bodies move.
    let library = scene.validate().expect("valid");
    let pairs = CpuCollider::new(library)
        .find_pairs(&scene.bodies)
        .expect("cpu");
    let swept_pairs: Vec<[u32; 2]> = found.iter().map(|f| f.0).collect();
    if scene.bodies.iter().any(Body::moves) {
        assert_eq!(pairs, swept_pairs, "{what}: find_pairs on a moving frame");
    }
    (
        found.len(),
        comparison.band_reported,
        comparison.band_not_reported,
    )
}

fn report(truth: &SweptTruth, c: &crate::oracle::motion::SweptComparison) -> String {
    let show = |pairs: &[[u32; 2]]| -> String {
        pairs
            .iter()
            .take(5)
            .map(|p| format!("{p:?} {:?}", truth.entries.get(p)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    format!(
        "{} false positives [{}], {} false negatives [{}], {} wrong times {:?}",
        c.false_positives.len(),
        show(&c.false_positives),
        c.false_negatives.len(),
        show(&c.false_negatives),
        c.wrong_toi.len(),
        c.wrong_toi.iter().take(5).collect::<Vec<_>>()
    )
}

fn rect(w: f64, h: f64) -> Value {
    let (w, h) = (w / 2.0, h / 2.0);
    json!({"polygon": [[-w, -h], [w, -h], [w, h], [-w, h]]})
}

/// The times of impact the backends give for a hand-made scene, after checking them
/// against the oracle.
pub(crate) fn tois(name: &str, shapes: Vec<Value>, bodies: Vec<Value>) -> Vec<([u32; 2], f32)> {
    let text = json!({"shapes": shapes, "bodies": bodies}).to_string();
    check(name, &text);
    swept(&Scene::from_json(&text).expect("valid"))
}

pub(crate) fn assert_toi(found: &[([u32; 2], f32)], pair: [u32; 2], toi: f32) {
    let hit = found
        .iter()
        .find(|f| f.0 == pair)
        .unwrap_or_else(|| panic!("{pair:?} not found in {found:?}"));
    assert!(
        (hit.1 - toi).abs() < 1e-4,
        "{pair:?}: toi {} not {toi}",
        hit.1
    );
}

#[test]
fn a_bullet_through_a_thin_wall_is_caught_with_its_time() {
    // A 0.5 x 0.5 bullet moving 40 a frame from x = -20: at t = 0 and t = 1 it is 20
    // away from the wall 0.2 thick at x = 0; its front (x + 0.25) reaches -0.1 at
    // t = (20 - 0.25 - 0.1) / 40.
    let found = tois(
        "bullet",
        vec![rect(0.5, 0.5), rect(0.2, 10.0)],
        vec![
            json!({"shape": 0, "x": -20, "y": 1, "vx": 40}),
            json!({"shape": 1, "x": 0, "y": 0}),
        ],
    );
    assert_eq!(found.len(), 1);
    assert_toi(&found, [0, 1], 19.65 / 40.0);
    // A circle bullet and a bullet against a moving wall (relative motion counts).
    let found = tois(
        "circle bullet, moving wall",
        vec![{ json!({"circle": 0.25}) }, rect(0.2, 10.0)],
        vec![
            json!({"shape": 0, "x": -20, "y": 1, "vx": 30}),
            json!({"shape": 1, "x": 0, "y": 0, "vx": -10}),
        ],
    );
    assert_toi(&found, [0, 1], 19.65 / 40.0);
}

#[test]
fn crossing_paths_meet_only_at_the_same_time() {
    // Two unit circles on perpendicular paths through the origin.
    let circle = json!({"circle": 0.5});
    let same_time = tois(
        "same time",
        vec![circle.clone()],
        vec![
            json!({"shape": 0, "x": -10, "y": 0, "vx": 20}),
            json!({"shape": 0, "x": 0, "y": -10, "vy": 20}),
        ],
    );
    assert_eq!(same_time.len(), 1);
    // They meet when the centres are 1 apart: (10 - 20t)·√2 = 1.
    assert_toi(
        &same_time,
        [0, 1],
        ((10.0 - 1.0 / 2f64.sqrt()) / 20.0) as f32,
    );
    let different_times = tois(
        "different times",
        vec![circle],
        vec![
            json!({"shape": 0, "x": -10, "y": 0, "vx": 20}),
            json!({"shape": 0, "x": 0, "y": -16, "vy": 20}),
        ],
    );
    assert!(different_times.is_empty(), "{different_times:?}");
}

#[test]
fn a_grazing_sweep_at_a_gap_of_five_hundredths_is_no_pair() {
    // A square sliding past another with 0.05 between their sides the whole way, and a
    // circle passing a corner 0.05 wide of it.
    let found = tois(
        "grazing",
        vec![rect(1.0, 1.0), json!({"circle": 0.5})],
        vec![
            json!({"shape": 0, "x": 0, "y": 0}),
            json!({"shape": 0, "x": -10, "y": 1.05, "vx": 20}),
            json!({"shape": 1, "x": 10, "y": -1.05, "vx": -20}),
            json!({"shape": 0, "x": 30, "y": 0}),
            json!({"shape": 1, "x": 31.05, "y": -10, "vy": 20}),
        ],
    );
    assert!(found.is_empty(), "{found:?}");
    // The same sweeps 0.05 into the other: pairs.
    let found = tois(
        "grazing into",
        vec![rect(1.0, 1.0)],
        vec![
            json!({"shape": 0, "x": 0, "y": 0}),
            json!({"shape": 0, "x": -10, "y": 0.95, "vx": 20}),
        ],
    );
    assert_toi(&found, [0, 1], 9.0 / 20.0);
}

#[test]
fn a_sweep_that_starts_overlapping_has_time_zero() {
    let found = tois(
        "overlapping",
        vec![rect(2.0, 2.0), json!({"circle": 1.0})],
        vec![
            json!({"shape": 0, "x": 0, "y": 0, "vx": 5}),
            json!({"shape": 1, "x": 0.5, "y": 0, "vx": -5}),
            // Still and overlapping body 0 at the start, with no relative motion to 3.
            json!({"shape": 1, "x": -1.5, "y": 0, "vx": 5}),
        ],
    );
    assert_toi(&found, [0, 1], 0.0);
    assert_toi(&found, [0, 2], 0.0);
}

#[test]
fn shapes_swept_into_a_still_bitmask() {
    let mask =
        json!({"bitmask": {"width": 8, "height": 3, "rows": ["........", ".......#", "........"]}});
    let found = tois(
        "bitmask",
        vec![mask, rect(0.5, 0.5), json!({"circle": 0.25})],
        vec![
            json!({"shape": 0, "x": 0, "y": 0}),
            // Along row 1 from the left: its front (x + 0.25) reaches the cell at x = 7.
            json!({"shape": 1, "x": -10, "y": 1.5, "vx": 20}),
            // Diagonally down onto the cell's top-left corner region.
            json!({"shape": 2, "x": 4.5, "y": -2.5, "vx": 3, "vy": 4}),
            // Passing between rows of nothing.
            json!({"shape": 2, "x": -5, "y": 0.5, "vx": 10}),
        ],
    );
    assert_toi(&found, [0, 1], 16.75 / 20.0);
    assert!(found.iter().any(|f| f.0 == [0, 2]), "{found:?}");
    assert!(!found.iter().any(|f| f.0 == [0, 3]), "{found:?}");
}

#[test]
fn the_gpu_backend_sweeps_like_the_cpu() {
    let Some(context) = gpu() else { return };
    let scene = Scene::from_json(
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0, "vx": 30}, {"shape": 0, "x": 15, "y": 0}]}"#,
    )
    .expect("valid");
    let mut collider = GpuCollider::new(&context, scene.validate().expect("valid")).expect("gpu");
    // The circles meet when 2 apart: 15 - 30t = 2.
    let swept = collider
        .find_swept_pairs(&scene.bodies)
        .expect("gpu sweeps");
    assert_eq!(swept.len(), 1);
    assert_eq!(swept[0].pair, [0, 1]);
    assert!((swept[0].toi - 13.0 / 30.0).abs() < 1e-5, "{swept:?}");
    assert_eq!(
        collider.find_pairs(&scene.bodies).expect("gpu"),
        vec![[0, 1]]
    );
    // A still frame after a moving one is the still question again, and vice versa.
    let still: Vec<Body> = scene
        .bodies
        .iter()
        .map(|b| b.with_velocity(Vec2::ZERO))
        .collect();
    assert_eq!(
        collider.find_pairs(&still).expect("still"),
        Vec::<[u32; 2]>::new()
    );
    assert!(collider.find_swept_pairs(&still).expect("still").is_empty());
    assert_eq!(
        collider.find_pairs(&scene.bodies).expect("gpu"),
        vec![[0, 1]]
    );
    // Frames that do not wait sweep too, mixed with still ones in flight.
    let moving = collider
        .submit(&scene.bodies)
        .expect("a moving frame submits");
    let standing = collider.submit(&still).expect("a still frame submits");
    assert!(collider.collect(standing).expect("collects").is_empty());
    assert_eq!(collider.collect(moving).expect("collects"), vec![[0, 1]]);
}

/// A shape (body 1) sweeping diagonally across a `side` x `side` bitmask (body 0) whose
/// cells from `wall` on, in either direction, are set: it first touches them when its
/// right and top sides (at `reach` from its centre) reach `wall`.
fn diagonal_sweep(
    side: u32,
    wall: u32,
    shape: Shape,
    reach: f32,
) -> (Vec<Body>, ShapeLibrary, f32) {
    let mut mask = Bitmask::new(side, side).expect("mask");
    // A stripe 4 cells wide along each of the two lines, which is all the shape can reach.
    for k in 0..side {
        for d in 0..4 {
            mask.set(wall + d, k, true);
            mask.set(k, wall + d, true);
        }
    }
    let library = ShapeLibrary::new(&[Shape::Bitmask(mask), shape]).expect("library");
    let start = -10.5f32;
    let travel = side as f32 + 20.0;
    let bodies = vec![
        Body::new(0, Vec2::ZERO),
        Body::new(1, Vec2::splat(start)).with_velocity(Vec2::splat(travel)),
    ];
    (bodies, library, (wall as f32 - reach - start) / travel)
}

/// Work that one invocation could not do under llvmpipe's cap of 65535 loop iterations:
/// the gpu must chunk it and still answer as the cpu does.
#[test]
fn times_of_impact_past_the_loop_cap_are_chunked() {
    // Two 256-gons: 512 half-planes of A - B, each a pass over both polygons (262k
    // iterations), and a circle against a 256-gon.
    let found = tois(
        "256-gons",
        vec![
            json!({"polygon": (0..256).map(|k| {
                let a = k as f64 * std::f64::consts::TAU / 256.0;
                [20.0 * a.cos(), 20.0 * a.sin()]
            }).collect::<Vec<_>>()}),
            json!({"circle": 3.0}),
        ],
        vec![
            json!({"shape": 0, "x": 0, "y": 0}),
            json!({"shape": 0, "x": 100, "y": 3, "angle": 0.3, "vx": -100}),
            json!({"shape": 1, "x": -100, "y": -5, "vx": 120, "vy": 1}),
        ],
    );
    assert_eq!(found.len(), 3, "{found:?}");
    // A circle and a 256-gon sweeping across a 2048 x 2048 mask: 2048 rows of 64 words,
    // and (for the 256-gon) 256 iterations for every cell it may reach.
    let Some(_) = gpu() else { return };
    for (what, shape, reach) in [
        (
            "circle over a 2048 mask",
            Shape::Circle(Circle::new(2.0)),
            2.0,
        ),
        (
            "256-gon over a 2048 mask",
            Shape::Polygon(Polygon::regular(256, 2.0)),
            2.0,
        ),
    ] {
        let (bodies, library, expected) = diagonal_sweep(2048, 1500, shape, reach);
        let cpu = CpuCollider::new(library.clone())
            .find_swept_pairs(&bodies)
            .expect("cpu");
        let cpu: Vec<([u32; 2], f32)> = cpu.iter().map(|s| (s.pair, s.toi)).collect();
        assert_eq!(cpu.len(), 1, "{what}: {cpu:?}");
        assert!(
            (cpu[0].1 - expected).abs() < 1e-4,
            "{what}: {cpu:?} not {expected}"
        );
        let on_gpu = gpu_swept(&bodies, library).expect("gpu");
        gpu_matches_cpu(what, &bodies, &BTreeSet::new(), &cpu, &on_gpu);
    }
}

/// A test too long even for the GPU's task list (a 256-gon sweeping across an 8192 x
/// 8192 mask: millions of chunks) goes to the host, which answers with the CPU twin,
/// exactly as the cpu backend does; a circle over the same mask stays on the GPU.
#[test]
fn a_sweep_too_long_for_the_task_list_is_answered_on_the_host() {
    let Some(_) = gpu() else { return };
    for (what, shape) in [
        (
            "256-gon over an 8192 mask",
            Shape::Polygon(Polygon::regular(256, 2.0)),
        ),
        ("circle over an 8192 mask", Shape::Circle(Circle::new(2.0))),
    ] {
        let (bodies, library, expected) = diagonal_sweep(8192, 6000, shape, 2.0);
        let cpu = CpuCollider::new(library.clone())
            .find_swept_pairs(&bodies)
            .expect("cpu");
        let cpu: Vec<([u32; 2], f32)> = cpu.iter().map(|s| (s.pair, s.toi)).collect();
        assert_eq!(cpu.len(), 1, "{what}: {cpu:?}");
        assert!(
            (cpu[0].1 - expected).abs() < 1e-4,
            "{what}: {cpu:?} not {expected}"
        );
        let on_gpu = gpu_swept(&bodies, library).expect("gpu");
        gpu_matches_cpu(what, &bodies, &BTreeSet::new(), &cpu, &on_gpu);
    }
}

/// Small deterministic generator for velocities (the scenes come from the crate's).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A generated scene with every body but bitmasks moving up to `speed` a frame, some of
/// them (one in `fast_every`) ten times faster, like bullets.
fn moving(kind: SceneKind, bodies: usize, seed: u64, speed: f32, fast_every: usize) -> Scene {
    let mut scene = random_scene(kind, bodies, seed);
    let mut rng = Lcg(seed * 7919 + 1);
    for (k, body) in scene.bodies.iter_mut().enumerate() {
        if matches!(scene.shapes[body.shape as usize], Shape::Bitmask(_)) {
            continue;
        }
        let scale = if k % fast_every == 0 {
            10.0 * speed
        } else {
            speed
        };
        let v = Vec2::new(rng.next() - 0.5, rng.next() - 0.5) * 2.0 * scale;
        // A quarter stand still, so that moving-against-still pairs are common.
        body.velocity = if k % 4 == 1 { Vec2::ZERO } else { v };
    }
    scene
}

fn cross_check(kind: SceneKind, bodies: usize, seed: u64) {
    let text = moving(kind, bodies, seed, 3.0, 25).to_json();
    let start = std::time::Instant::now();
    let (pairs, band_reported, band_not_reported) = check(&format!("{kind:?}"), &text);
    assert!(pairs >= bodies / 10, "{kind:?}: only {pairs} swept pairs");
    eprintln!(
        "swept {kind:?} seed {seed}: {bodies} bodies, {pairs} swept pairs, band: {band_reported} reported, {band_not_reported} not ({:.1} s)",
        start.elapsed().as_secs_f64()
    );
}

#[test]
fn cross_check_polygons() {
    cross_check(SceneKind::Polygons, 2000, 11);
}

#[test]
fn cross_check_circles() {
    cross_check(SceneKind::Circles, 2000, 12);
}

#[test]
fn cross_check_mixed_with_bitmasks() {
    cross_check(SceneKind::Mixed, 2000, 13);
}

#[test]
fn cross_check_filtered() {
    cross_check(SceneKind::Filtered, 2000, 14);
}

/// Still bitmasks (which cannot move) crossed by bullets, fast and slow.
#[test]
fn cross_check_bitmasks_against_bullets() {
    let mut scene = random_scene(SceneKind::Bitmasks, 800, 15);
    let (lo, hi) = scene.bodies.iter().fold(
        (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
        |(lo, hi), b| (lo.min(b.position), hi.max(b.position)),
    );
    let first = scene.shapes.len() as u32;
    scene
        .shapes
        .push(Shape::Circle(gpu_collide::Circle::new(0.3)));
    scene
        .shapes
        .push(Shape::Polygon(gpu_collide::Polygon::rectangle(0.5, 0.2)));
    scene
        .shapes
        .push(Shape::Circle(gpu_collide::Circle::new(4.0)));
    let mut rng = Lcg(15);
    for k in 0..700 {
        let at = lo + Vec2::new(rng.next(), rng.next()) * (hi - lo);
        let speed = [1.0f32, 8.0, 30.0][k % 3];
        let velocity = Vec2::from_angle(rng.next() * std::f32::consts::TAU) * speed;
        let body = Body::new(first + (k % 3) as u32, at)
            .with_angle(rng.next() * std::f32::consts::TAU)
            .with_velocity(velocity);
        scene.bodies.push(body);
    }
    let text = scene.to_json();
    let (pairs, band_reported, band_not_reported) = check("bitmasks and bullets", &text);
    eprintln!(
        "swept bitmasks and bullets: 1500 bodies, {pairs} swept pairs, band: {band_reported} reported, {band_not_reported} not"
    );
    assert!(pairs > 300, "{pairs}");
}

/// Adversarial: bullets aimed to graze, touch or barely enter thin walls and each other,
/// at speeds from 0.5 to 200 a frame.
#[test]
fn cross_check_adversarial_grazing_bullets() {
    let mut rng = Lcg(99);
    let mut bodies = Vec::new();
    for k in 0..750 {
        // A wall 0.1 x 6 in a cell of its own, turned at random, and a bullet crossing
        // the line of its top end with its near side `gap` beyond that end (negative:
        // into the wall), in the wall's frame.
        let centre = Vec2::new((k % 30) as f32 * 12.0, (k / 30) as f32 * 12.0);
        let turn = Vec2::from_angle(rng.next() * std::f32::consts::TAU);
        bodies.push(json!({"shape": 0, "x": centre.x, "y": centre.y, "angle": turn.to_angle()}));
        let gap = [-0.02f32, -0.011, -0.005, 0.0, 0.005, 0.011, 0.02, 0.5][k % 8];
        let speed = [0.5f32, 5.0, 40.0, 200.0][k / 8 % 4];
        let (shape, half) = [(1, 0.1f32), (2, 0.3), (1, 0.1)][k % 3];
        let start = centre + turn.rotate(Vec2::new(-speed * 0.5, 3.0 + half + gap));
        let velocity = turn.rotate(Vec2::new(speed, 0.0));
        bodies.push(json!({
            "shape": shape, "x": start.x, "y": start.y, "angle": turn.to_angle(),
            "vx": velocity.x, "vy": velocity.y
        }));
    }
    let text = json!({
        "shapes": [rect(0.1, 6.0), rect(0.5, 0.2), {"circle": 0.3}],
        "bodies": bodies,
    })
    .to_string();
    let (pairs, band_reported, band_not_reported) = check("adversarial", &text);
    eprintln!(
        "swept adversarial: 1500 bodies, {pairs} swept pairs, band: {band_reported} reported, {band_not_reported} not"
    );
    assert!(pairs > 300, "{pairs}");
}

/// Property: small moving scenes, shrunk to a minimal failing one.
#[test]
fn swept_pairs_agree_with_the_oracle_on_small_scenes() {
    let shapes_text = r#####"[
        {"polygon": [[-2, -0.5], [2, -0.5], [2, 0.5], [-2, 0.5]]},
        {"polygon": [[0, 0], [3, 0.5], [1, 2]]},
        {"circle": 1.0},
        {"circle": 0.3},
        {"bitmask": {"width": 4, "height": 3, "rows": ["##.#", ".#..", "####"]}}
    ]"#####;
    let shapes: Value = serde_json::from_str(shapes_text).expect("shapes");
    let body = (
        0usize..5,
        -10.0f32..10.0,
        -10.0f32..10.0,
        -3.2f32..3.2,
        -15.0f32..15.0,
        -15.0f32..15.0,
    );
    let mut runner = TestRunner::new(Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&proptest::collection::vec(body, 0..12), |bodies| {
            let bodies: Vec<Value> = bodies
                .iter()
                .map(|&(shape, x, y, angle, vx, vy)| {
                    if shape == 4 {
                        json!({"shape": 4, "x": x.round(), "y": y.round()})
                    } else {
                        json!({"shape": shape, "x": x, "y": y, "angle": angle, "vx": vx, "vy": vy})
                    }
                })
                .collect();
            let text = json!({"shapes": shapes, "bodies": bodies}).to_string();
            let scene = Scene::from_json(&text).expect("valid");
            let found = swept(&scene);
            let truth = swept_oracle(&text);
            let comparison = truth.compare(&found);
            prop_assert!(
                comparison.is_exact_outside_band(),
                "{text}\n{}",
                report(&truth, &comparison)
            );
            if let Some(on_gpu) = gpu_swept(&scene.bodies, scene.validate().expect("valid")) {
                let comparison = truth.compare(&on_gpu);
                prop_assert!(
                    comparison.is_exact_outside_band(),
                    "gpu: {text}\n{}",
                    report(&truth, &comparison)
                );
                gpu_matches_cpu(&text, &scene.bodies, &truth.band(), &found, &on_gpu);
            }
            Ok(())
        })
        .expect("swept pairs agree with the oracle");
}
