//! Contacts (scene format 1.1): known depths and normals, bitmask areas, random scenes
//! against the Minkowski-difference oracle of `oracle::contact`, and the command line.
//! Every scene runs on both backends: the gpu's contacts are held to the oracle, to the
//! gpu's own pairs, and to the cpu backend's contacts within the spec's tolerances.

use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

use gpu_collide::cpu::ReferenceCollider;
use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::{Collider, Contact, ContactKind, CpuCollider, GpuCollider, Scene};

use crate::oracle::contact::{ContactOracle, ContactTruth, Reported};
use crate::support::gpu;

/// The contacts of the cpu backend, which must equal the reference's, after checking
/// that their pairs are `find_pairs`'s and every contact against the oracle; and the gpu
/// backend's, checked by [`check_gpu`], where there is an adapter.
pub(crate) fn contacts(what: &str, text: &str) -> Vec<Contact> {
    let found = cpu_contacts(what, text);
    if let Some(context) = gpu() {
        check_gpu(&context, what, text, &found);
    }
    found
}

/// Every contact's problem according to the oracle (none when all are right).
pub(crate) fn oracle_problems(text: &str, found: &[Contact]) -> Vec<String> {
    let value: Value = serde_json::from_str(text).expect("JSON");
    let oracle = ContactOracle::new(&value);
    found
        .iter()
        .filter_map(|c| {
            oracle
                .problem(c.pair[0] as usize, c.pair[1] as usize, reported(c))
                .map(|p| format!("{:?}: {p}", c.pair))
        })
        .collect()
}

fn reported(c: &Contact) -> Reported {
    match c.kind {
        ContactKind::Penetration { normal, depth } => Reported::Depth {
            normal: (normal.x as f64, normal.y as f64),
            depth: depth as f64,
        },
        ContactKind::Area(area) => Reported::Area(area),
    }
}

/// The gpu backend's contacts of the scene: for the gpu's own pairs at t = 0 in the same
/// order, each right by the oracle, and against the cpu backend's (`cpu`): a pair only one
/// backend reports lies within the band of touching; a shared pair's depth within 0.01
/// of the cpu's, its normal within 0.01 (or a tie, which the oracle has judged), its area
/// the cpu's unless the oracle says cells of the band decide it.
fn check_gpu(
    context: &gpu_collide::GpuContext,
    what: &str,
    text: &str,
    cpu: &[Contact],
) -> Vec<Contact> {
    let scene = Scene::from_json(text).expect("valid");
    let library = scene.validate().expect("valid");
    let mut collider = GpuCollider::new(context, library).expect("gpu collider");
    let found = collider
        .find_contacts(&scene.bodies)
        .unwrap_or_else(|e| panic!("{what}: gpu contacts: {e}"));
    let still: Vec<_> = scene
        .bodies
        .iter()
        .map(|b| b.with_velocity(glam::Vec2::ZERO))
        .collect();
    let pairs = collider.find_pairs(&still).expect("gpu pairs");
    let contact_pairs: Vec<[u32; 2]> = found.iter().map(|c| c.pair).collect();
    assert_eq!(
        contact_pairs, pairs,
        "{what}: gpu contacts are for the gpu's find_pairs's pairs"
    );
    let problems = oracle_problems(text, &found);
    assert!(
        problems.is_empty(),
        "{what}: {} gpu contacts wrong: {:?}",
        problems.len(),
        &problems[..problems.len().min(5)]
    );
    let value: Value = serde_json::from_str(text).expect("JSON");
    let oracle = ContactOracle::new(&value);
    let mut disagreements = Vec::new();
    let mut k = 0;
    for g in &found {
        while k < cpu.len() && cpu[k].pair < g.pair {
            disagreements.extend(only_one(&oracle, "cpu", &cpu[k]));
            k += 1;
        }
        if k < cpu.len() && cpu[k].pair == g.pair {
            disagreements.extend(differ(&oracle, &cpu[k], g));
            k += 1;
        } else {
            disagreements.extend(only_one(&oracle, "gpu", g));
        }
    }
    for c in &cpu[k..] {
        disagreements.extend(only_one(&oracle, "cpu", c));
    }
    assert!(
        disagreements.is_empty(),
        "{what}: gpu vs cpu, {} disagree: {:?}",
        disagreements.len(),
        &disagreements[..disagreements.len().min(5)]
    );
    found
}

/// Why a pair only `backend` reports should have been reported by both, if it should.
fn only_one(oracle: &ContactOracle, backend: &str, c: &Contact) -> Option<String> {
    let banded = match oracle.truth(c.pair[0] as usize, c.pair[1] as usize) {
        ContactTruth::Depth(Ok((depth, _))) => depth <= 0.01,
        ContactTruth::Depth(Err(_)) => true,
        ContactTruth::Area { min, .. } => min == 0,
    };
    (!banded).then(|| format!("{:?} only on the {backend}, not within the band", c.pair))
}

/// Why the two backends' contacts of one pair differ by more than the spec allows.
fn differ(oracle: &ContactOracle, cpu: &Contact, gpu: &Contact) -> Option<String> {
    match (cpu.kind, gpu.kind) {
        (
            ContactKind::Penetration {
                normal: nc,
                depth: dc,
            },
            ContactKind::Penetration {
                normal: ng,
                depth: dg,
            },
        ) => {
            // A different normal is a tie the oracle has accepted already.
            let _ = (nc, ng);
            ((dc - dg).abs() > 0.01).then(|| format!("{:?}: depth {dg}, cpu {dc}", cpu.pair))
        }
        (ContactKind::Area(ac), ContactKind::Area(ag)) => {
            let exact = matches!(
                oracle.truth(cpu.pair[0] as usize, cpu.pair[1] as usize),
                ContactTruth::Area { min, max } if min == max
            );
            (ac != ag && exact).then(|| format!("{:?}: area {ag}, cpu {ac}", cpu.pair))
        }
        (c, g) => Some(format!("{:?}: {g:?}, cpu {c:?}", cpu.pair)),
    }
}

/// The cpu backend's contacts of a scene, checked equal to the reference's, and the
/// pairs `find_pairs` gives at the start (contacts ignore velocities), which theirs
/// must be.
pub(crate) fn cpu_contacts_and_pairs(what: &str, text: &str) -> (Vec<Contact>, Vec<[u32; 2]>) {
    let scene = Scene::from_json(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let library = scene.validate().expect("valid");
    let mut cpu = CpuCollider::new(library.clone());
    let found = cpu.find_contacts(&scene.bodies).expect("cpu contacts");
    let reference = ReferenceCollider::new(library)
        .find_contacts(&scene.bodies)
        .expect("reference contacts");
    assert_eq!(found, reference, "{what}: cpu backend vs reference");
    let still: Vec<_> = scene
        .bodies
        .iter()
        .map(|b| b.with_velocity(glam::Vec2::ZERO))
        .collect();
    (found, cpu.find_pairs(&still).expect("pairs"))
}

/// The cpu backend's contacts, checked as [`contacts`] says.
fn cpu_contacts(what: &str, text: &str) -> Vec<Contact> {
    // One contact a pair, in find_pairs's order.
    let (found, pairs) = cpu_contacts_and_pairs(what, text);
    let contact_pairs: Vec<[u32; 2]> = found.iter().map(|c| c.pair).collect();
    assert_eq!(
        contact_pairs, pairs,
        "{what}: contacts are for find_pairs's pairs"
    );
    let problems = oracle_problems(text, &found);
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
fn the_gpu_backend_treats_moving_bodies_at_the_start() {
    let Some(context) = gpu() else { return };
    // Velocities are ignored: the pair at t = 0, not the one the sweep would add.
    let text = r#"{"shapes": [{"circle": 1}], "bodies": [
        {"shape": 0, "x": 0, "y": 0, "vx": 1},
        {"shape": 0, "x": 1.5, "y": 0},
        {"shape": 0, "x": 10, "y": 0, "vx": -10}]}"#;
    let cpu = cpu_contacts("moving", text);
    let found = check_gpu(&context, "moving", text, &cpu);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_penetration(&found, [0, 1], [1.0, 0.0], 0.5);
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

/// A regular polygon of `sides` vertices on a circle of `radius`.
fn regular(sides: usize, radius: f64) -> Value {
    let points: Vec<[f64; 2]> = (0..sides)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / sides as f64;
            [radius * a.cos(), radius * a.sin()]
        })
        .collect();
    json!({ "polygon": points })
}

/// A `side` x `side` bitmask with a pattern that is neither full nor regular by words.
fn patterned_mask(side: usize) -> Value {
    let rows: Vec<String> = (0..side)
        .map(|r| {
            (0..side)
                .map(|c| if (c * 7 + r * 3) % 5 != 0 { '#' } else { '.' })
                .collect()
        })
        .collect();
    json!({"bitmask": {"width": side, "height": side, "rows": rows}})
}

/// Work past llvmpipe's 65535 loop iterations per invocation, which the GPU must chunk:
/// 256-gon pairs (512 axes of 256 projections), more of them than the long-pair and task
/// lists first hold (so the pass runs again with longer ones), two 2048 x 2048 masks
/// sharing 1348 rows of 64 words, and a circle and a 256-gon over a mask's rows.
#[test]
fn long_contacts_stay_under_the_loop_cap() {
    let mut bodies = Vec::new();
    // 300 pairs of 256-gons of radius 10, 4 to 6 apart: about 15 deep, turned every way.
    for k in 0..300 {
        let (x, y) = ((k % 20) as f64 * 50.0, (k / 20) as f64 * 50.0);
        let gap = 4.0 + (k % 7) as f64 / 3.0;
        bodies.push(json!({"shape": 0, "x": x, "y": y, "angle": k as f64 * 0.1}));
        bodies.push(json!({"shape": 0, "x": x + gap, "y": y + 0.3, "angle": k as f64 * 0.37}));
    }
    let text = scene(vec![regular(256, 10.0)], bodies);
    let found = contacts("256-gons", &text);
    assert_eq!(found.len(), 300);
    for c in &found {
        let (_, depth) = penetration(&found, c.pair);
        assert!(depth > 13.0, "{:?}: {depth}", c.pair);
    }

    let text = scene(
        vec![
            patterned_mask(2048),
            json!({"circle": 700.0}),
            regular(256, 100.0),
        ],
        vec![
            json!({"shape": 0, "x": 0, "y": 0}),
            json!({"shape": 0, "x": 1000, "y": 700}),
            json!({"shape": 1, "x": 5000.3, "y": 1020.6}),
            json!({"shape": 0, "x": 4000, "y": 0}),
            json!({"shape": 2, "x": 9024.5, "y": 1030.2, "angle": 0.3}),
            json!({"shape": 0, "x": 8000, "y": 0}),
        ],
    );
    let found = contacts("2048 masks", &text);
    let area = |pair: [u32; 2]| match found.iter().find(|c| c.pair == pair).map(|c| c.kind) {
        Some(ContactKind::Area(n)) => n,
        other => panic!("{pair:?}: {other:?}"),
    };
    // Cells set in both: their shared 1048 x 1348 cells, about 16/25 of them.
    assert!(area([0, 1]) > 1048 * 1348 / 2, "{}", area([0, 1]));
    // About π 700² · 4/5 and π 100² · 4/5 cells.
    assert!(area([2, 3]) > 1_000_000, "{}", area([2, 3]));
    assert!(area([4, 5]) > 20_000, "{}", area([4, 5]));
    assert_eq!(found.len(), 3, "{found:?}");
}

/// A pile with more pairs than the pair buffer first holds: the frame grows its buffers
/// and runs again, and the contact pass with it.
#[test]
fn a_pile_past_the_first_pair_buffer() {
    let bodies: Vec<Value> = (0..120)
        .map(|k| {
            let a = k as f64 * 2.4;
            let r = (k as f64).sqrt() * 0.05;
            json!({"shape": k % 2, "x": r * a.cos(), "y": r * a.sin(), "angle": a})
        })
        .collect();
    let found = contacts(
        "pile",
        &scene(vec![json!({"circle": 1.0}), rect(1.5, 1.0)], bodies),
    );
    assert_eq!(found.len(), 120 * 119 / 2);
}
