//! Concave polygons and compound shapes (scene format 1.2) on every backend: pairs, swept
//! pairs, queries and contacts held to the f64 oracle on scenes out to the edge of the
//! exact range; contacts one per pair of touching parts; the `shapes` listing a valid
//! cut; hand-checked cases; and the reader's refusals.

use std::process::Command;

use serde_json::{json, Value};

use gpu_collide::cpu::ReferenceCollider;
use gpu_collide::{Collider, Contact, ContactKind, CpuCollider, GpuCollider, Scene};

use crate::oracle::contact::Reported;
use crate::oracle::parts::{PartContact, PartsOracle};
use crate::support::{
    assert_every_backend, crowded_scene, gpu, hundredths, pairs_across_the_range,
    queries_across_the_range, Lcg, CENTRES,
};

/// A star-shaped outline of `n` vertices about the origin (simple whatever the radii:
/// its angles increase), some of its sides with a straight vertex in their middle.
fn star(random: &mut Lcg, n: usize, reach: f64) -> Value {
    let mut angles: Vec<f64> = (0..n)
        .map(|k| (k as f64 + random.between(0.1, 0.9)) * std::f64::consts::TAU / n as f64)
        .collect();
    angles.sort_by(f64::total_cmp);
    let mut vertices = Vec::new();
    let mut last: Option<[f64; 2]> = None;
    for (k, a) in angles.iter().enumerate() {
        let r = reach * random.between(0.3, 1.0);
        let v = [hundredths(r * a.cos()), hundredths(r * a.sin())];
        // A straight vertex halfway along every fifth side, where the halves round exactly.
        if let Some(p) = last {
            let middle = [(p[0] + v[0]) / 2.0, (p[1] + v[1]) / 2.0];
            if k % 5 == 0 && middle == middle.map(hundredths) {
                vertices.push(json!(middle));
            }
        }
        vertices.push(json!(v));
        last = Some(v);
    }
    json!({ "concave": vertices })
}

/// Shapes: concave outlines (a "U", stars of 5 to 256 vertices), compounds of polygons,
/// circles, capsules and concave parts, and convex shapes and a bitmask to meet them.
fn shapes(random: &mut Lcg, scale: f64, largest: usize) -> Vec<Value> {
    let s = scale;
    let mut shapes = vec![
        // 0: a "U" with a straight vertex on its floor.
        json!({"concave": [[0, 0], [3.0 * s, 0], [6.0 * s, 0], [6.0 * s, 6.0 * s], [4.0 * s, 6.0 * s],
            [4.0 * s, 2.0 * s], [2.0 * s, 2.0 * s], [2.0 * s, 6.0 * s], [0, 6.0 * s]]}),
        // 1-2: a triangle and a circle, parts of the compounds below.
        json!({"polygon": [[-s, -s], [2.0 * s, -0.5 * s], [0, 1.5 * s]]}),
        json!({"circle": 1.5 * s}),
        // 3: a capsule.
        json!({"capsule": {"a": [-3.0 * s, 0], "b": [3.0 * s, 1.0 * s], "radius": 0.5 * s}}),
    ];
    for (k, n) in [5usize, 9, 16, 40, largest].into_iter().enumerate() {
        shapes.push(star(random, n, [4.0, 7.0, 10.0, 14.0, 25.0][k] * s));
    }
    // 9-11: compounds: a ship of hull, wings and a gun; overlapping parts; a "U" placed twice.
    let part = |shape: usize, x: f64, y: f64, angle: f64| json!({"shape": shape, "x": hundredths(x * s), "y": hundredths(y * s), "angle": angle});
    shapes.push(json!({"compound": [part(2, 0.0, 0.0, 0.0), part(1, 2.0, 1.5, 0.3), part(1, 2.0, -1.5, -0.3), part(3, 0.0, 3.0, 1.57)]}));
    shapes.push(json!({"compound": [part(4, 0.0, 0.0, 0.0), part(5, 1.0, 1.0, 0.7), part(3, 0.0, 0.0, 0.0)]}));
    shapes.push(json!({"compound": [part(0, -3.0, -3.0, 0.0), part(0, 3.0, 3.0, 3.0), part(2, 0.0, 0.0, 0.0)]}));
    // 12-14: convex shapes and a bitmask.
    shapes.push(json!({"polygon": [[-4, -3], [5, -2], [6, 4], [-3, 5]]}));
    shapes.push(json!({"circle": 2}));
    shapes.push(json!({"bitmask": {"width": 9, "height": 6, "rows": [
        "##.......", "###...#..", ".####.##.", "..#....##", ".........", "#.#.#.#.#"
    ]}}));
    shapes
}

/// A scene of `bodies` bodies crowded around `centre`, `speed` the largest displacement
/// over the frame (0: a still frame). A still frame's largest star has 256 vertices; a
/// moving one's 64, since the swept oracle searches every pair of its triangles in time.
fn scene_text(seed: u64, bodies: usize, centre: [f64; 2], speed: f64) -> String {
    let mut random = Lcg(seed);
    let scale = [1.0, 2.5][seed as usize % 2];
    let largest = if speed > 0.0 { 64 } else { 256 };
    let shapes = shapes(&mut random, scale, largest);
    let spread = (bodies as f64).sqrt() * 8.0 * scale;
    crowded_scene(&mut random, shapes, bodies, centre, spread, speed)
}

#[test]
fn concave_and_compound_pairs_agree_with_the_oracle_on_every_backend() {
    pairs_across_the_range(
        "concave and compound",
        |seed, centre| scene_text(seed, 300, centre, 0.0),
        100,
    );
}

#[test]
fn swept_concave_and_compound_bodies_agree_with_the_oracle_on_every_backend() {
    for (k, centre) in CENTRES.iter().enumerate() {
        for (seed, speed) in [(3, 5.0), (4, 60.0)] {
            let what = format!("swept concave and compound at {centre:?} seed {seed}");
            let text = scene_text(seed + 10 * k as u64, 150, *centre, speed);
            let (pairs, reported, left) = crate::swept::check(&what, &text);
            eprintln!("{what}: {pairs} pairs, {reported} band pairs reported, {left} not");
            assert!(pairs > 50, "{what}: too few pairs to test");
        }
    }
}

#[test]
fn queries_of_concave_and_compound_bodies_agree_with_the_oracle_on_every_backend() {
    queries_across_the_range("queries of concave and compound", |seed, centre| {
        scene_text(seed, 300, centre, 0.0)
    });
}

/// The `gpu-collide shapes` listing of a scene.
fn shapes_listing(name: &str, text: &str) -> Value {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("compounds");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write scene");
    let output = Command::new(env!("CARGO_BIN_EXE_gpu-collide"))
        .args(["shapes", &path.display().to_string()])
        .output()
        .expect("binary runs");
    assert!(
        output.status.success(),
        "shapes: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON")
}

fn part_contacts(found: &[Contact]) -> Vec<PartContact> {
    found
        .iter()
        .map(|c| PartContact {
            pair: [c.pair[0] as usize, c.pair[1] as usize],
            parts: c.parts.map(|[k, l]| [k as usize, l as usize]),
            reported: match c.kind {
                ContactKind::Penetration { normal, depth } => Reported::Depth {
                    normal: (normal.x as f64, normal.y as f64),
                    depth: depth as f64,
                },
                ContactKind::Area(area) => Reported::Area(area),
            },
        })
        .collect()
}

#[test]
fn contacts_are_one_per_pair_of_touching_parts_on_every_backend() {
    for (k, centre) in CENTRES.iter().enumerate() {
        let what = format!("contacts of concave and compound at {centre:?}");
        let text = scene_text(5 + 10 * k as u64, 300, *centre, 0.0);
        let found = check_part_contacts(&what, &format!("contacts-{k}.json"), &text);
        let with_parts = found.iter().filter(|c| c.parts.is_some()).count();
        assert!(
            with_parts > 100 && found.len() > with_parts,
            "{what}: too few contacts to test ({with_parts} of {})",
            found.len()
        );
    }
}

/// The contacts of a scene of any shapes on the cpu backend, which must be the
/// reference's and be for the pairs `find_pairs` gives at the start (velocities are not
/// looked at), each held to the oracle of the parts `gpu-collide shapes` lists (saved
/// as `name`); then the gpu backend's, held to the same oracle. Returns the cpu's.
pub(crate) fn check_part_contacts(what: &str, name: &str, text: &str) -> Vec<Contact> {
    let oracle = PartsOracle::new(
        &serde_json::from_str(text).expect("JSON"),
        &shapes_listing(name, text),
    )
    .unwrap_or_else(|e| panic!("{what}: the listed parts: {e}"));
    let (found, still_pairs) = crate::contacts::cpu_contacts_and_pairs(what, text);
    let mut pairs: Vec<[u32; 2]> = found.iter().map(|c| c.pair).collect();
    pairs.dedup();
    assert_eq!(pairs, still_pairs, "{what}");
    let scene = Scene::from_json(text).expect("valid");
    let library = scene.validate().expect("valid");
    let problems = oracle.problems(&part_contacts(&found));
    assert!(
        problems.is_empty(),
        "{what}: {} problems, first {:?}",
        problems.len(),
        &problems[..problems.len().min(6)]
    );
    if let Some(context) = gpu() {
        let on_gpu = GpuCollider::new(&context, library)
            .expect("gpu collider")
            .find_contacts(&scene.bodies)
            .expect("gpu contacts");
        let problems = oracle.problems(&part_contacts(&on_gpu));
        assert!(
            problems.is_empty(),
            "{what} on the gpu: {} problems, first {:?}",
            problems.len(),
            &problems[..problems.len().min(6)]
        );
    }
    found
}

/// The pairs of `shapes` placed by `bodies`, on every backend (each held to the oracle).
fn pairs_of(shapes: Value, bodies: Value) -> Vec<[u32; 2]> {
    let text = json!({"shapes": shapes, "bodies": bodies}).to_string();
    let scene = Scene::from_json(&text).expect("valid scene");
    assert_every_backend("hand-checked", &scene).cpu
}

#[test]
fn a_concave_shape_collides_by_its_outline_not_its_hull() {
    let shapes = json!([
        // A "U" 6 wide and 6 high, its gap from x = 2 to 4 above y = 2.
        {"concave": [[0, 0], [6, 0], [6, 6], [4, 6], [4, 2], [2, 2], [2, 6], [0, 6]]},
        {"circle": 0.5},
        {"compound": [{"shape": 1, "x": -10}, {"shape": 1, "x": 10}]}
    ]);
    let cases = [
        // In the gap: inside the hull, outside the outline.
        (
            json!([{"shape": 0, "x": 0, "y": 0}, {"shape": 1, "x": 3, "y": 4}]),
            false,
        ),
        // On an arm.
        (
            json!([{"shape": 0, "x": 0, "y": 0}, {"shape": 1, "x": 1, "y": 4}]),
            true,
        ),
        // Touching the inner floor from the gap.
        (
            json!([{"shape": 0, "x": 0, "y": 0}, {"shape": 1, "x": 3, "y": 2.5}]),
            true,
        ),
        // A dumbbell of two far circles around the "U": neither part touches it.
        (
            json!([{"shape": 0, "x": 0, "y": 0}, {"shape": 2, "x": 3, "y": 3}]),
            false,
        ),
        // Its right circle on the "U"'s right arm.
        (
            json!([{"shape": 0, "x": 0, "y": 0}, {"shape": 2, "x": -5, "y": 3}]),
            true,
        ),
    ];
    for (k, (bodies, collide)) in cases.into_iter().enumerate() {
        let pairs = pairs_of(shapes.clone(), bodies);
        assert_eq!(pairs == vec![[0, 1]], collide, "case {k}: {pairs:?}");
    }
}

/// Parts of one body are never a pair, so no backend's broad phase hands them on: two
/// bodies of three overlapping circles each, and a circle whose box meets the box of one
/// part of the first. Every backend counts that one candidate (the gpu backend's pairs
/// of parts, the cpu backend's pairs of bodies), where the parts' own overlaps would make
/// six more; through `find_pairs`, a frame in flight and a frame with motion alike.
#[test]
fn parts_of_one_body_are_never_candidates() {
    let text = json!({
        "shapes": [
            {"circle": 1},
            {"compound": [{"shape": 0, "x": -0.5}, {"shape": 0}, {"shape": 0, "x": 0.5}]}
        ],
        "bodies": [
            {"shape": 1, "x": 0, "y": 0},
            {"shape": 1, "x": 100, "y": 0},
            // Its box, x 1.2 to 3.2, meets only the third part's, -0.5 to 1.5; its
            // centre is 1.7 from that part's.
            {"shape": 0, "x": 2.2, "y": 0}
        ]
    })
    .to_string();
    let scene = Scene::from_json(&text).expect("valid");
    let library = scene.validate().expect("valid");
    let mut cpu = CpuCollider::new(library.clone());
    assert_eq!(cpu.find_pairs(&scene.bodies).expect("pairs"), vec![[0, 2]]);
    assert_eq!(cpu.last_frame().candidates, Some(1));
    let Some(context) = gpu() else { return };
    let mut on_gpu = GpuCollider::new(&context, library).expect("gpu");
    assert_eq!(
        on_gpu.find_pairs(&scene.bodies).expect("pairs"),
        vec![[0, 2]]
    );
    assert_eq!(on_gpu.last_frame().candidates, Some(1), "find_pairs");
    let frame = on_gpu.submit(&scene.bodies).expect("submit");
    assert_eq!(on_gpu.collect(frame).expect("collect"), vec![[0, 2]]);
    assert_eq!(on_gpu.last_frame().candidates, Some(1), "a frame in flight");
    let mut moving = scene.bodies.clone();
    moving[2].velocity = gpu_collide::glam::Vec2::new(0.25, 0.0);
    assert_eq!(on_gpu.find_pairs(&moving).expect("swept"), vec![[0, 2]]);
    assert_eq!(
        on_gpu.last_frame().candidates,
        Some(1),
        "a frame with motion"
    );
}

#[test]
fn a_compound_pair_is_reported_once_and_its_contacts_name_their_parts() {
    // Two dumbbells crossing: each circle of one touches the bar of the other.
    let text = json!({
        "shapes": [
            {"circle": 1},
            {"capsule": {"a": [-4, 0], "b": [4, 0], "radius": 0.25}},
            {"compound": [{"shape": 0, "x": -4}, {"shape": 1}, {"shape": 0, "x": 4}]}
        ],
        "bodies": [
            {"shape": 2, "x": 0, "y": 0},
            {"shape": 2, "x": 0, "y": 0, "angle": std::f64::consts::FRAC_PI_2}
        ]
    })
    .to_string();
    let scene = Scene::from_json(&text).expect("valid");
    let mut cpu = CpuCollider::new(scene.validate().expect("valid"));
    assert_eq!(cpu.find_pairs(&scene.bodies).expect("pairs"), vec![[0, 1]]);
    let contacts = cpu.find_contacts(&scene.bodies).expect("contacts");
    let parts: Vec<[u32; 2]> = contacts.iter().map(|c| c.parts.expect("parts")).collect();
    // Only the bars cross (each circle sits 4 from the other's bar); they part when one
    // slides along the other past its end: 4 and the two radii.
    assert_eq!(parts, vec![[1, 1]]);
    let ContactKind::Penetration { depth, .. } = contacts[0].kind else {
        panic!("a depth");
    };
    assert!((depth - 4.5).abs() < 1e-5, "{depth}");
}

/// Two rows of 70 circles, 0.8 wide a metre apart, end to end: only A's last circle
/// and B's first touch, the last parts of one body's list and the first of the other's
/// (bodies of more parts than the GPU's groups hold, in its grid part by part). Still,
/// turned a half turn (B's row then reversed), and swept into place.
#[test]
fn long_compounds_meet_only_at_their_ends() {
    let row: Vec<Value> = (0..70).map(|k| json!({"shape": 0, "x": k})).collect();
    let shapes = json!([{"circle": 0.4}, {"compound": row}]);
    // The one pair on every backend, and its contacts' pairs of parts.
    let touching = |name: &str, bodies: Value| -> Vec<[u32; 2]> {
        assert_eq!(
            pairs_of(shapes.clone(), bodies.clone()),
            vec![[0, 1]],
            "{name}"
        );
        let text = json!({"shapes": shapes, "bodies": bodies}).to_string();
        let contacts = check_part_contacts(name, &format!("{name}.json"), &text);
        contacts.iter().map(|c| c.parts.expect("parts")).collect()
    };
    // A's part 69 at (69, 0), B's part 0 at (69.7, 0.25): 0.74 apart, within 0.8.
    let still = json!([{"shape": 1, "x": 0, "y": 0}, {"shape": 1, "x": 69.7, "y": 0.25}]);
    assert_eq!(touching("rows", still), vec![[69, 0]]);
    // B turned a half turn about its first circle's centre, its last circle now there.
    let turned = json!([
        {"shape": 1, "x": 0, "y": 0},
        {"shape": 1, "x": 69.7 + 69.0, "y": 0.25, "angle": std::f64::consts::PI}
    ]);
    assert_eq!(touching("rows-turned", turned), vec![[69, 69]]);
    // B 10 further along, moving back by 10: its first circle comes within 0.8 of A's
    // last when it is at 69.8, at t = 0.99; a row 1 higher (beside B all the way) never
    // comes within 1.2 of A.
    let swept = json!([
        {"shape": 1, "x": 0, "y": 0},
        {"shape": 1, "x": 79.7, "y": 0, "vx": -10},
        {"shape": 1, "x": 79.7, "y": 1, "vx": -10}
    ]);
    let text = json!({"shapes": shapes, "bodies": swept}).to_string();
    let (pairs, _, _) = crate::swept::check("rows swept end to end", &text);
    assert_eq!(pairs, 1);
}

#[test]
fn the_shapes_command_lists_each_shapes_convex_parts() {
    let text = json!({
        "shapes": [
            {"concave": [[0, 0], [6, 0], [6, 6], [4, 6], [4, 2], [2, 2], [2, 6], [0, 6]]},
            {"circle": 1.5},
            {"capsule": {"a": [0, 0], "b": [3, 0], "radius": 1}},
            {"compound": [{"shape": 1, "x": 2, "y": 1}, {"shape": 0, "angle": 0.5}]},
            {"bitmask": {"width": 2, "height": 1, "rows": ["#."]}}
        ],
        "bodies": []
    })
    .to_string();
    let listing = shapes_listing("listing.json", &text);
    let oracle = PartsOracle::new(&serde_json::from_str(&text).expect("JSON"), &listing)
        .unwrap_or_else(|e| panic!("{e}: {listing}"));
    let u_pieces = oracle.part_count(0);
    assert!((3..=4).contains(&u_pieces), "{listing}");
    assert_eq!(
        listing["shapes"][1],
        json!({"parts": [{"circle": {"center": [0.0, 0.0], "radius": 1.5}}]})
    );
    assert_eq!(oracle.part_count(3), 1 + u_pieces);
    assert_eq!(
        listing["shapes"][3]["parts"][0]["circle"]["center"],
        json!([2.0, 1.0])
    );
    assert_eq!(
        listing["shapes"][4],
        json!({"parts": [{"bitmask": "whole"}]})
    );
}

#[test]
fn malformed_concave_and_compound_shapes_are_refused_by_name() {
    let square = json!({"polygon": [[0, 0], [1, 0], [1, 1], [0, 1]]});
    let mask = json!({"bitmask": {"width": 1, "height": 1, "rows": ["#"]}});
    let cases = [
        (
            json!([{"concave": [[0, 0], [4, 0], [0, 4], [4, 4]]}]),
            "shape 0: concave: edges 1 and 3 cross",
        ),
        (
            json!([{"concave": [[0, 0], [4, 0], [4, 4], [4, 0], [0, 4]]}]),
            "shape 0: concave: vertex 3 repeats vertex 1",
        ),
        (
            json!([{"concave": [[0, 0], [1, 1], [2, 2]]}]),
            "shape 0: concave: has zero area",
        ),
        (
            json!([{"concave": [[0, 0], [1, 1]]}]),
            "shape 0: concave: has 2 vertices",
        ),
        (
            json!([{"concave": "no"}]),
            "shape 0: concave: must be a list of [x, y] vertices",
        ),
        (
            json!([square, {"compound": [{"shape": 0}, {"shape": 1}]}]),
            "shape 1: compound: part 1: shape 1 is a compound",
        ),
        (
            json!([mask, {"compound": [{"shape": 0}]}]),
            "shape 1: compound: part 0: shape 0 is a bitmask",
        ),
        (
            json!([{"compound": [{"shape": 3}]}]),
            "shape 0: compound: part 0: shape 3 is not a shape index",
        ),
        (
            json!([square, {"compound": []}]),
            "shape 1: compound: has 0 parts",
        ),
        (
            json!([square, {"compound": [{"x": 1}]}]),
            "shape 1: compound: part 0: shape: is required",
        ),
        (
            json!([square, {"compound": [{"shape": 0, "angle": "up"}]}]),
            "shape 1: compound: part 0: angle: must be a number",
        ),
        (
            json!([square, {"compound": {"shape": 0}}]),
            "shape 1: compound: must be a list of parts",
        ),
    ];
    for (shapes, message) in cases {
        let text = json!({"shapes": shapes, "bodies": []}).to_string();
        let error = Scene::from_json(&text).expect_err("refused").to_string();
        assert!(error.starts_with(message), "{shapes}: {error}");
    }
}

/// The gpu backend's grid holds a concave or compound body of a few parts as one body
/// boxed around its parts, and cuts each pair it is in into pairs of parts. Here those
/// bodies sit on a pile of 4500 small circles, more than one reading of a cell takes
/// (the walk hands such a cell over in pieces, whose readings hand the pairs on to be
/// cut): the circles only meet the others (they wait), so every pair has a part in it.
/// The pairs must be the cpu backend's, and the reference's.
#[test]
fn bodies_of_parts_on_a_crowded_pile_find_every_pair() {
    let text = json!({
        "shapes": [
            {"circle": 0.05},
            {"concave": [[0, 0], [3, 0], [3, 3], [2, 3], [2, 1], [1, 1], [1, 3], [0, 3]]},
            {"compound": [
                {"shape": 0, "x": -0.3},
                {"shape": 1, "x": 0.2, "y": -1.5, "angle": 0.4},
                {"shape": 0, "x": 0.4, "y": 0.2}
            ]}
        ],
        "bodies": []
    })
    .to_string();
    let scene = Scene::from_json(&text).expect("valid");
    let library = scene.validate().expect("valid");
    let mut random = Lcg(7);
    let mut bodies = Vec::new();
    for _ in 0..4500 {
        let at = gpu_collide::glam::Vec2::new(
            random.between(0.0, 3.0) as f32,
            random.between(0.0, 3.0) as f32,
        );
        let mut circle = gpu_collide::Body::new(0, at);
        (circle.layer, circle.mask) = (1, 2);
        bodies.push(circle);
    }
    for k in 0..12 {
        let at = gpu_collide::glam::Vec2::new(
            random.between(-1.0, 2.0) as f32,
            random.between(-1.0, 2.0) as f32,
        );
        let mut body = gpu_collide::Body::new(1 + k % 2, at);
        body.angle = random.between(-3.0, 3.0) as f32;
        (body.layer, body.mask) = (2, 3);
        bodies.push(body);
    }
    let mut cpu = CpuCollider::new(library.clone());
    let expected = cpu.find_pairs(&bodies).expect("pairs");
    let mut reference = ReferenceCollider::new(library.clone());
    assert_eq!(reference.find_pairs(&bodies).expect("pairs"), expected);
    assert!(expected.len() > 5000, "{} pairs", expected.len());
    let Some(context) = gpu() else { return };
    let mut on_gpu = GpuCollider::new(&context, library).expect("gpu");
    assert_eq!(on_gpu.find_pairs(&bodies).expect("pairs"), expected);
}
