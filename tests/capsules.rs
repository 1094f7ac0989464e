//! Capsules (scene format 1.2): capsules, segments (radius 0), points (both ends one, radius
//! 0) and circles off the body's origin, against every kind, on every backend, held to
//! the f64 oracle; hand-checked cases; and the reader's refusals.

use serde_json::{json, Value};

use gpu_collide::{Collider, ContactKind, CpuCollider, Scene};

use crate::oracle::motion::swept_oracle;
use crate::support::{
    assert_every_backend, crowded_scene, hundredths, pairs_across_the_range,
    queries_across_the_range, Lcg, CENTRES,
};

/// Capsules of every form the format names: long and short, thick and of no width, a
/// point, a circle off the origin; then a polygon, a circle and a bitmask to meet them.
fn shapes(random: &mut Lcg, scale: f64) -> Vec<Value> {
    let mut shapes = Vec::new();
    let end = |random: &mut Lcg, reach: f64| {
        [
            hundredths(random.between(-reach, reach)),
            hundredths(random.between(-reach, reach)),
        ]
    };
    for k in 0..10 {
        let reach = scale * [0.5, 2.0, 8.0, 40.0][k % 4];
        let a = end(random, reach);
        let b = match k {
            3 | 7 => a, // a point or a circle off the origin
            _ => end(random, reach),
        };
        let radius = match k {
            0 | 3 | 5 => 0.0,
            _ => hundredths(random.between(0.05, 2.0) * scale),
        };
        shapes.push(json!({"capsule": {"a": a, "b": b, "radius": radius}}));
    }
    // A laser: 400 units long, of no width, and one a unit thick.
    shapes.push(json!({"capsule": {"a": [-200, 0], "b": [200, 0], "radius": 0}}));
    shapes.push(json!({"capsule": {"a": [-200, 3], "b": [200, -3], "radius": 0.5}}));
    shapes.push(json!({"polygon": [[-4, -3], [5, -2], [6, 4], [-3, 5]]}));
    shapes.push(json!({"polygon": [[0, 0], [30, 0], [30, 1], [0, 1]]}));
    // A large pentagon, for capsules deep inside a polygon.
    shapes.push(json!({"polygon": [[-12, -10], [10, -11], [14, 6], [0, 14], [-13, 5]]}));
    shapes.push(json!({"circle": hundredths(1.5 * scale)}));
    shapes.push(json!({"bitmask": {"width": 9, "height": 6, "rows": [
        "##.......", "###...#..", ".####.##.", "..#....##", ".........", "#.#.#.#.#"
    ]}}));
    shapes
}

/// A scene of `bodies` bodies crowded around `centre` (so that many pairs touch), with
/// `speed` as the largest displacement over the frame (0: a still frame).
fn scene_text(seed: u64, bodies: usize, centre: [f64; 2], speed: f64) -> String {
    let mut random = Lcg(seed);
    let scale = [1.0, 3.0][seed as usize % 2];
    let shapes = shapes(&mut random, scale);
    let spread = (bodies as f64).sqrt() * 6.0 * scale;
    crowded_scene(&mut random, shapes, bodies, centre, spread, speed)
}

#[test]
fn capsule_pairs_agree_with_the_oracle_on_every_backend() {
    pairs_across_the_range(
        "capsules",
        |seed, centre| scene_text(seed, 400, centre, 0.0),
        100,
    );
}

#[test]
fn swept_capsules_agree_with_the_oracle_on_every_backend() {
    for (k, centre) in CENTRES.iter().enumerate() {
        for (seed, speed) in [(3, 5.0), (4, 60.0)] {
            let what = format!("swept capsules at {centre:?} seed {seed}");
            let text = scene_text(seed + 10 * k as u64, 250, *centre, speed);
            // The cpu backend against the reference and the oracle, the gpu against both.
            let (pairs, band_reported, band_left) = crate::swept::check(&what, &text);
            eprintln!(
                "{what}: {pairs} pairs ({} in the oracle, {band_reported} band pairs reported, {band_left} not)",
                swept_oracle(&text).pairs().len()
            );
            let scene = Scene::from_json(&text).expect("valid");
            let met_later = CpuCollider::new(scene.validate().expect("valid"))
                .find_swept_pairs(&scene.bodies)
                .expect("cpu sweeps")
                .iter()
                .filter(|s| s.toi > 0.0)
                .count();
            assert!(
                met_later > 5,
                "{what}: too few pairs that meet after t = 0 to test ({met_later})"
            );
        }
    }
}

#[test]
fn capsule_contacts_agree_with_the_oracle_on_every_backend() {
    for (k, centre) in CENTRES.iter().enumerate() {
        let what = format!("capsule contacts at {centre:?}");
        let text = scene_text(5 + 10 * k as u64, 400, *centre, 0.0);
        // The cpu backend against the reference and the oracle, the gpu against both.
        let found = crate::contacts::contacts(&what, &text);
        let depths = found
            .iter()
            .filter(|c| matches!(c.kind, ContactKind::Penetration { .. }))
            .count();
        assert!(
            depths > 100 && found.len() > depths,
            "{what}: too few contacts to test ({depths} depths of {})",
            found.len()
        );
    }
}

#[test]
fn capsule_queries_agree_with_the_oracle_on_every_backend() {
    queries_across_the_range("capsule queries", |seed, centre| {
        scene_text(seed, 400, centre, 0.0)
    });
}

/// The pairs of `shapes` placed by `bodies`, on every backend (each held to the oracle).
fn pairs_of(shapes: Value, bodies: Value) -> Vec<[u32; 2]> {
    let text = json!({"shapes": shapes, "bodies": bodies}).to_string();
    let scene = Scene::from_json(&text).expect("valid scene");
    assert_every_backend("hand-checked", &scene).cpu
}

#[test]
fn segments_and_points_collide_by_what_they_touch() {
    let shapes = json!([
        {"capsule": {"a": [-10, 0], "b": [10, 0], "radius": 0}},
        {"capsule": {"a": [0, 0], "b": [0, 0], "radius": 0}},
        {"polygon": [[-1, -1], [1, -1], [1, 1], [-1, 1]]},
        {"capsule": {"a": [3, 4], "b": [3, 4], "radius": 2}},
        {"bitmask": {"width": 2, "height": 1, "rows": ["#."]}}
    ]);
    let cases = [
        // A laser through a square, both ends outside: a hit.
        (
            json!([{"shape": 0, "x": 0, "y": 0}, {"shape": 2, "x": 0, "y": 0.5}]),
            true,
        ),
        // A laser 0.5 past a square's corner: none.
        (
            json!([{"shape": 0, "x": 0, "y": 0, "angle": std::f64::consts::FRAC_PI_4}, {"shape": 2, "x": 1.5, "y": -1.5}]),
            false,
        ),
        // A point in a square, and one 0.1 off its side.
        (
            json!([{"shape": 1, "x": 0.3, "y": 0.2}, {"shape": 2, "x": 0, "y": 0}]),
            true,
        ),
        (
            json!([{"shape": 1, "x": 1.1, "y": 0.2}, {"shape": 2, "x": 0, "y": 0}]),
            false,
        ),
        // A short laser wholly inside a large square.
        (
            json!([{"shape": 0, "x": 0, "y": 0}, {"shape": 2, "x": 0, "y": 0}]),
            true,
        ),
        // A circle off its body's origin (at (3, 4) from it, radius 2): its body at the
        // origin reaches (3, 2.05) but not (0, 0).
        (
            json!([{"shape": 3, "x": 0, "y": 0}, {"shape": 1, "x": 3, "y": 2.05}]),
            true,
        ),
        (
            json!([{"shape": 3, "x": 0, "y": 0}, {"shape": 1, "x": 0, "y": 0}]),
            false,
        ),
        // Two crossing lasers; two parallel ones 0.1 apart.
        (
            json!([{"shape": 0, "x": 0, "y": 0}, {"shape": 0, "x": 3, "y": 1, "angle": 1.0}]),
            true,
        ),
        (
            json!([{"shape": 0, "x": 0, "y": 0}, {"shape": 0, "x": 3, "y": 0.1}]),
            false,
        ),
        // A laser over a bitmask's set cell, and over its clear one only.
        (
            json!([{"shape": 0, "x": 0.5, "y": 0.5, "angle": std::f64::consts::FRAC_PI_2}, {"shape": 4, "x": 0, "y": 0}]),
            true,
        ),
        (
            json!([{"shape": 0, "x": 1.6, "y": 0.5, "angle": std::f64::consts::FRAC_PI_2}, {"shape": 4, "x": 0, "y": 0}]),
            false,
        ),
    ];
    for (k, (bodies, collide)) in cases.into_iter().enumerate() {
        let pairs = pairs_of(shapes.clone(), bodies);
        assert_eq!(pairs == vec![[0, 1]], collide, "case {k}: {pairs:?}");
    }
}

#[test]
fn a_capsule_swept_into_a_wall_meets_it_when_its_round_end_does() {
    // A capsule from (0, 0) to (10, 0) of radius 1 moving 20 right against a wall at
    // x = 16 (a 2-wide rectangle from 16 to 18): its end (11 at t = 0) reaches 16 at t = 0.25.
    let text = json!({
        "shapes": [
            {"capsule": {"a": [0, 0], "b": [10, 0], "radius": 1}},
            {"polygon": [[16, -50], [18, -50], [18, 50], [16, 50]]}
        ],
        "bodies": [
            {"shape": 0, "x": 0, "y": 0, "vx": 20},
            {"shape": 1, "x": 0, "y": 0}
        ]
    })
    .to_string();
    let scene = Scene::from_json(&text).expect("valid");
    let found = CpuCollider::new(scene.validate().expect("valid"))
        .find_swept_pairs(&scene.bodies)
        .expect("cpu sweeps");
    assert_eq!(found.len(), 1);
    assert!((found[0].toi - 0.25).abs() < 1e-5, "{found:?}");
}

#[test]
fn malformed_capsules_are_refused_by_name() {
    let cases = [
        (
            json!({"capsule": {"a": [0, 0], "b": [1, 0], "radius": -1}}),
            "shape 0: capsule: radius: must be finite and >= 0, not -1",
        ),
        (
            json!({"capsule": {"a": [0, 0], "b": [1, 0]}}),
            "shape 0: capsule: radius: is required",
        ),
        (
            json!({"capsule": {"b": [1, 0], "radius": 1}}),
            "shape 0: capsule: a: is required",
        ),
        (
            json!({"capsule": {"a": [0], "b": [1, 0], "radius": 1}}),
            "shape 0: capsule: a: must be [x, y] with two numbers",
        ),
        (
            json!({"capsule": {"a": [0, 0], "b": [1e39, 0], "radius": 1}}),
            "shape 0: capsule: b: 1e39 is too large for a 32-bit float",
        ),
        (
            json!({"capsule": [0, 1]}),
            "shape 0: capsule: must be a JSON object",
        ),
    ];
    for (shape, message) in cases {
        let text = json!({"shapes": [shape], "bodies": []}).to_string();
        let error = Scene::from_json(&text).expect_err("refused").to_string();
        assert!(error.starts_with(message), "{shape}: {error}");
    }
}
