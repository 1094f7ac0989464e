//! Contacts (scene format 1.1): known depths and normals, bitmask areas, random scenes
//! against the Minkowski-difference oracle of `oracle::contact`, and the command line.

use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

use gpu_collide::cpu::ReferenceCollider;
use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::{Collider, Contact, ContactKind, CpuCollider, GpuCollider, Scene};

use crate::oracle::contact::{ContactOracle, Reported};
use crate::support::gpu;

/// The contacts of the cpu backend, which must equal the reference's, after checking
/// that their pairs are `find_pairs`'s and every contact against the oracle.
fn contacts(what: &str, text: &str) -> Vec<Contact> {
    let scene = Scene::from_json(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let library = scene.validate().expect("valid");
    let mut cpu = CpuCollider::new(library.clone());
    let found = cpu.find_contacts(&scene.bodies).expect("cpu contacts");
    let reference = ReferenceCollider::new(library)
        .find_contacts(&scene.bodies)
        .expect("reference contacts");
    assert_eq!(found, reference, "{what}: cpu backend vs reference");
    // Velocities are ignored: the pairs at t = 0, in find_pairs's order.
    let still: Vec<_> = scene
        .bodies
        .iter()
        .map(|b| b.with_velocity(glam::Vec2::ZERO))
        .collect();
    let pairs = cpu.find_pairs(&still).expect("pairs");
    let contact_pairs: Vec<[u32; 2]> = found.iter().map(|c| c.pair).collect();
    assert_eq!(
        contact_pairs, pairs,
        "{what}: contacts are for find_pairs's pairs"
    );
    let value: Value = serde_json::from_str(text).expect("JSON");
    let oracle = ContactOracle::new(&value);
    let problems: Vec<String> = found
        .iter()
        .filter_map(|c| {
            let reported = match c.kind {
                ContactKind::Penetration { normal, depth } => Reported::Depth {
                    normal: (normal.x as f64, normal.y as f64),
                    depth: depth as f64,
                },
                ContactKind::Area(area) => Reported::Area(area),
            };
            oracle
                .problem(c.pair[0] as usize, c.pair[1] as usize, reported)
                .map(|p| format!("{:?}: {p}", c.pair))
        })
        .collect();
    assert!(
        problems.is_empty(),
        "{what}: {} contacts wrong: {:?}",
        problems.len(),
        &problems[..problems.len().min(5)]
    );
    found
}

fn rect(w: f64, h: f64) -> Value {
    let (w, h) = (w / 2.0, h / 2.0);
    json!({"polygon": [[-w, -h], [w, -h], [w, h], [-w, h]]})
}

fn scene(shapes: Vec<Value>, bodies: Vec<Value>) -> String {
    json!({"shapes": shapes, "bodies": bodies}).to_string()
}

fn penetration(found: &[Contact], pair: [u32; 2]) -> (glam::Vec2, f32) {
    match found.iter().find(|c| c.pair == pair).map(|c| c.kind) {
        Some(ContactKind::Penetration { normal, depth }) => (normal, depth),
        other => panic!("{pair:?}: {other:?} in {found:?}"),
    }
}

fn assert_penetration(found: &[Contact], pair: [u32; 2], normal: [f32; 2], depth: f32) {
    let (n, d) = penetration(found, pair);
    assert!(
        (n - glam::Vec2::from(normal)).length() < 1e-4 && (d - depth).abs() < 1e-4,
        "{pair:?}: normal {n}, depth {d}; expected {normal:?}, {depth}"
    );
}

#[test]
fn a_square_pushed_into_a_square() {
    let found = contacts(
        "squares",
        &scene(
            vec![rect(2.0, 2.0)],
            vec![
                json!({"shape": 0, "x": 0, "y": 0}),
                json!({"shape": 0, "x": 1.5, "y": 0.2}),
                // From below, and from the left, against body 0: normals from i to j.
                json!({"shape": 0, "x": -0.1, "y": -1.75}),
            ],
        ),
    );
    assert_penetration(&found, [0, 1], [1.0, 0.0], 0.5);
    assert_penetration(&found, [0, 2], [0.0, -1.0], 0.25);
    // Turned by a quarter and an eighth.
    let found = contacts(
        "turned",
        &scene(
            vec![rect(2.0, 2.0)],
            vec![
                json!({"shape": 0, "x": 0, "y": 0, "angle": std::f64::consts::FRAC_PI_4}),
                json!({"shape": 0, "x": 0, "y": 2.3}),
            ],
        ),
    );
    // The diamond's top corner is at √2: the square above (bottom at 1.3) is in by √2 - 1.3.
    assert_penetration(&found, [0, 1], [0.0, 1.0], (2f32.sqrt() - 1.3).max(0.0));
}

#[test]
fn a_circle_in_a_corner_and_off_a_corner() {
    let found = contacts(
        "corner",
        &scene(
            vec![
                rect(10.0, 1.0),
                rect(1.0, 10.0),
                json!({"circle": 1.0}),
                rect(2.0, 2.0),
            ],
            vec![
                // A floor (top at y = 0) and a wall (right side at x = 0), apart.
                json!({"shape": 0, "x": 4.0, "y": -0.5}),
                json!({"shape": 1, "x": -0.5, "y": 5.5}),
                // A circle in the corner they make, 0.2 into the floor and 0.3 into the wall.
                json!({"shape": 2, "x": 0.7, "y": 0.8}),
                // A square and a circle off its corner: the vertex axis.
                json!({"shape": 3, "x": 20, "y": 0}),
                json!({"shape": 2, "x": 21.5, "y": 1.5}),
                // A circle in a circle, and the same the other way round.
                json!({"shape": 2, "x": 40, "y": 0}),
                json!({"shape": 2, "x": 41.5, "y": 0}),
            ],
        ),
    );
    assert_penetration(&found, [0, 2], [0.0, 1.0], 0.2);
    assert_penetration(&found, [1, 2], [1.0, 0.0], 0.3);
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert_penetration(&found, [3, 4], [h, h], 1.0 - h);
    assert_penetration(&found, [5, 6], [1.0, 0.0], 0.5);
    assert_eq!(found.len(), 4, "{found:?}");
    // The circle first, then the polygon: the normal turns round.
    let found = contacts(
        "circle first",
        &scene(
            vec![json!({"circle": 1.0}), rect(2.0, 2.0)],
            vec![
                json!({"shape": 0, "x": 0, "y": 1.5}),
                json!({"shape": 1, "x": 0, "y": 0}),
            ],
        ),
    );
    assert_penetration(&found, [0, 1], [0.0, -1.0], 0.5);
}

#[test]
fn identical_squares_have_a_tied_normal() {
    let found = contacts(
        "identical",
        &scene(
            vec![rect(2.0, 2.0)],
            vec![
                json!({"shape": 0, "x": 5, "y": 5}),
                json!({"shape": 0, "x": 5, "y": 5}),
            ],
        ),
    );
    let (normal, depth) = penetration(&found, [0, 1]);
    assert!((depth - 2.0).abs() < 1e-5, "{depth}");
    assert!(
        [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]
            .iter()
            .any(|&n| (normal - glam::Vec2::from(n)).length() < 1e-5),
        "{normal}"
    );
}

#[test]
fn bitmask_areas_count_shared_and_touched_cells() {
    let mask = json!({"bitmask": {"width": 40, "height": 3, "rows": [
        "########################################",
        "#......................................#",
        "##.##.##.##.##.##.##.##.##.##.##.##.##.#"]}});
    let found = contacts(
        "areas",
        &scene(
            vec![mask, json!({"circle": 0.5}), rect(3.0, 0.5)],
            vec![
                json!({"shape": 0, "x": 0, "y": 0}),
                // The same mask one cell right and one down: row 0 of it over row 1 of
                // the first (2 shared: columns 1 and 40 → 1 and 39 only where both set).
                json!({"shape": 0, "x": 1, "y": 1}),
                // A circle at a cell corner meets the four cells around it.
                json!({"shape": 1, "x": 10, "y": 1}),
                // A bar across row 2: x from 4.5 to 7.5 at y 2.25..2.75.
                json!({"shape": 2, "x": 6, "y": 2.5}),
            ],
        ),
    );
    let area = |pair: [u32; 2]| match found.iter().find(|c| c.pair == pair).map(|c| c.kind) {
        Some(ContactKind::Area(n)) => n,
        other => panic!("{pair:?}: {other:?}"),
    };
    // Mask 1's row 0 (all set, columns 1..=40 in mask 0's cells) over mask 0's row 1
    // (set at 0 and 39): column 39 only. Mask 1's row 1 (set at its 0 and 39: mask 0's 1
    // and 40) over mask 0's row 2 (set at 1, and 39 - not 40): column 1. Total 2.
    assert_eq!(area([0, 1]), 2);
    // Cells (9, 0), (10, 0) set; (9, 1), (10, 1) clear.
    assert_eq!(area([0, 2]), 2);
    // Row 2 cells 4..=7 (x 4 to 8): set at 4, 6, 7 (pattern ##. from 0).
    assert_eq!(area([0, 3]), 3);
}

#[test]
fn random_scenes_against_the_oracle() {
    for (kind, bodies, seed) in [
        (SceneKind::Polygons, 2000, 21),
        (SceneKind::Circles, 2000, 22),
        (SceneKind::Mixed, 2000, 23),
        (SceneKind::Filtered, 1500, 24),
    ] {
        let text = random_scene(kind, bodies, seed).to_json();
        let found = contacts(&format!("{kind:?}"), &text);
        let areas = found
            .iter()
            .filter(|c| matches!(c.kind, ContactKind::Area(_)))
            .count();
        eprintln!(
            "contacts {kind:?} seed {seed}: {bodies} bodies, {} contacts ({areas} areas), all within the spec's tolerance",
            found.len()
        );
        assert!(found.len() > bodies / 10, "{kind:?}: {}", found.len());
    }
}

#[test]
fn the_gpu_backend_refuses_contacts_for_now() {
    let Some(context) = gpu() else { return };
    let scene = Scene::from_json(
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0}, {"shape": 0, "x": 1, "y": 0}]}"#,
    )
    .expect("valid");
    let mut collider = GpuCollider::new(&context, scene.validate().expect("valid")).expect("gpu");
    let message = collider
        .find_contacts(&scene.bodies)
        .expect_err("not yet on the gpu")
        .to_string();
    assert!(
        message.contains("contacts is not implemented on the gpu backend yet"),
        "{message}"
    );
}

/// Property: small piles over a fixed library, shrunk to a minimal failing one.
#[test]
fn contacts_agree_with_the_oracle_on_small_scenes() {
    let shapes: Value = serde_json::from_str(
        r#####"[
        {"polygon": [[-2, -0.5], [2, -0.5], [2, 0.5], [-2, 0.5]]},
        {"polygon": [[0, 0], [3, 0.5], [1, 2]]},
        {"circle": 1.0},
        {"circle": 0.3},
        {"bitmask": {"width": 4, "height": 3, "rows": ["##.#", ".#..", "####"]}}
    ]"#####,
    )
    .expect("shapes");
    let body = (0usize..5, -4.0f32..4.0, -4.0f32..4.0, -3.2f32..3.2);
    let mut runner = TestRunner::new(Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&proptest::collection::vec(body, 0..10), |bodies| {
            let bodies: Vec<Value> = bodies
                .iter()
                .map(|&(shape, x, y, angle)| {
                    if shape == 4 {
                        json!({"shape": 4, "x": x.round(), "y": y.round()})
                    } else {
                        json!({"shape": shape, "x": x, "y": y, "angle": angle})
                    }
                })
                .collect();
            let text = json!({"shapes": shapes, "bodies": bodies}).to_string();
            // `contacts` panics with the oracle's complaint, which proptest catches and
            // shrinks.
            contacts("property", &text);
            Ok(())
        })
        .expect("contacts agree with the oracle");
}
