//! Queries (scene format 1.1): rays, points and boxes in known cases, random batches
//! against the distance oracle of `oracle::query` on scenes of thousands of bodies, a
//! property that shrinks. The gpu backend answers every batch here too, held to the
//! same oracle and to the cpu's answers within the spec's tolerances, and to batches
//! whose work would pass llvmpipe's loop cap in one invocation.

use glam::Vec2;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

use gpu_collide::cpu::ReferenceCollider;
use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::{
    BoxQuery, Collider, CpuCollider, GpuCollider, PointQuery, QueryAnswers, QueryBatch, Ray,
    RayHit, Scene, Shape, ShapeLibrary,
};

use crate::oracle::query::{Query, QueryOracle, ReportedHit};
use crate::support::gpu;

/// The answers of the cpu backend, which must equal the reference's, every one checked
/// against the oracle.
pub(crate) fn answers(what: &str, scene: &Scene) -> QueryAnswers {
    let library = scene.validate().unwrap_or_else(|e| panic!("{what}: {e}"));
    let found = CpuCollider::new(library.clone())
        .query(&scene.bodies, &scene.queries)
        .expect("cpu answers");
    let reference = ReferenceCollider::new(library.clone())
        .query(&scene.bodies, &scene.queries)
        .expect("reference answers");
    assert_eq!(
        found, reference,
        "{what}: cpu backend (grid) vs reference (all bodies)"
    );
    let problems = problems(scene, &found);
    assert!(
        problems.is_empty(),
        "{what}: {} wrong answers: {:?}",
        problems.len(),
        &problems[..problems.len().min(5)]
    );
    check_gpu(what, scene, &library, &found);
    found
}

/// The gpu backend's answers (when there is an adapter), held to the oracle and to the
/// cpu's answers `cpu`: rays that both answer meet the same body at a `t` within the
/// spec's tolerance, or bodies whose hits the oracle accepts either way; lists that
/// differ only in bodies the oracle accepts either way. Returns them.
fn check_gpu(
    what: &str,
    scene: &Scene,
    library: &ShapeLibrary,
    cpu: &QueryAnswers,
) -> Option<QueryAnswers> {
    let context = gpu()?;
    let found = GpuCollider::new(&context, library.clone())
        .expect("gpu collider builds")
        .query(&scene.bodies, &scene.queries)
        .unwrap_or_else(|e| panic!("{what}: gpu backend: {e}"));
    let wrong = problems(scene, &found);
    assert!(
        wrong.is_empty(),
        "{what}: gpu backend: {} wrong answers: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
    let (differing, _) = differing(what, &scene.queries, &found, cpu);
    // The oracle accepted every answer; differing ones are grazing cases, and few.
    let total = found.rays.len() + found.points.len() + found.boxes.len();
    let differing = differing.rays.len() + differing.points.len() + differing.boxes.len();
    assert!(
        differing * 100 <= total,
        "{what}: gpu and cpu differ on {differing} of {total} queries"
    );
    Some(found)
}

/// Compares the gpu's answers to `batch` with the cpu's, query by query: rays that both
/// answer with the same body must agree on `t` within the spec's tolerance, and lists
/// must be ascending. Gives the queries whose answers differ (the body a ray meets, a
/// list), and the gpu's answers to them, for the oracle to judge.
pub(crate) fn differing(
    what: &str,
    batch: &QueryBatch,
    gpu: &QueryAnswers,
    cpu: &QueryAnswers,
) -> (QueryBatch, QueryAnswers) {
    assert_eq!(
        (gpu.rays.len(), gpu.points.len(), gpu.boxes.len()),
        (cpu.rays.len(), cpu.points.len(), cpu.boxes.len()),
        "{what}"
    );
    let mut queries = QueryBatch::default();
    let mut answers = QueryAnswers::default();
    for (k, ((ray, g), c)) in batch.rays.iter().zip(&gpu.rays).zip(&cpu.rays).enumerate() {
        if let (Some(g), Some(c)) = (g, c) {
            if g.body == c.body {
                let tolerance = 0.01 / ray.delta.length() + 1e-5;
                assert!(
                    (g.t - c.t).abs() <= tolerance,
                    "{what}: ray {k}: gpu {g:?}, cpu {c:?}"
                );
            }
        }
        if g.map(|h| h.body) != c.map(|h| h.body) {
            queries.rays.push(*ray);
            answers.rays.push(*g);
        }
    }
    for (k, (g, c)) in gpu.points.iter().zip(&cpu.points).enumerate() {
        if g != c {
            queries.points.push(batch.points[k]);
            answers.points.push(g.clone());
        }
    }
    for (k, (g, c)) in gpu.boxes.iter().zip(&cpu.boxes).enumerate() {
        if g != c {
            queries.boxes.push(batch.boxes[k]);
            answers.boxes.push(g.clone());
        }
    }
    for g in gpu.points.iter().chain(&gpu.boxes) {
        assert!(
            g.windows(2).all(|w| w[0] < w[1]),
            "{what}: {g:?} not ascending"
        );
    }
    (queries, answers)
}

/// What the oracle finds wrong with the answers.
pub(crate) fn problems(scene: &Scene, found: &QueryAnswers) -> Vec<String> {
    let value: Value = serde_json::from_str(&scene.to_json()).expect("JSON");
    let oracle = QueryOracle::new(&value);
    let q = &scene.queries;
    let pair = |v: Vec2| (v.x as f64, v.y as f64);
    let mut out = Vec::new();
    for (k, (ray, hit)) in q.rays.iter().zip(&found.rays).enumerate() {
        let query = Query::Ray {
            origin: pair(ray.origin),
            delta: pair(ray.delta),
            mask: ray.mask,
        };
        let reported = hit.map(|h: RayHit| ReportedHit {
            body: h.body as usize,
            t: h.t as f64,
            normal: h.normal.map(pair),
        });
        if let Some(p) = oracle.ray_problem(query, reported) {
            out.push(format!("ray {k} {ray:?} -> {hit:?}: {p}"));
        }
    }
    for (k, (point, listed)) in q.points.iter().zip(&found.points).enumerate() {
        let query = Query::Box {
            min: pair(point.point),
            max: pair(point.point),
            mask: point.mask,
        };
        if let Some(p) = oracle.list_problem(query, listed) {
            out.push(format!("point {k} {point:?} -> {listed:?}: {p}"));
        }
    }
    for (k, (b, listed)) in q.boxes.iter().zip(&found.boxes).enumerate() {
        let query = Query::Box {
            min: pair(b.min),
            max: pair(b.max),
            mask: b.mask,
        };
        if let Some(p) = oracle.list_problem(query, listed) {
            out.push(format!("box {k} {b:?} -> {listed:?}: {p}"));
        }
    }
    out
}

fn scene_with(shapes: Vec<Value>, bodies: Vec<Value>, queries: QueryBatch) -> Scene {
    let mut scene =
        Scene::from_json(&json!({"shapes": shapes, "bodies": bodies}).to_string()).expect("valid");
    scene.queries = queries;
    scene
}

fn square() -> Value {
    json!({"polygon": [[-1, -1], [1, -1], [1, 1], [-1, 1]]})
}

fn hit(found: &QueryAnswers, k: usize) -> RayHit {
    found.rays[k].unwrap_or_else(|| panic!("ray {k} misses: {found:?}"))
}

#[test]
fn rays_at_a_corner_along_an_edge_and_from_inside() {
    let rays = vec![
        // Straight at the square's corner (1, 1) from (3, 3): t = 0.5, either side's normal.
        Ray::new(Vec2::new(3.0, 3.0), Vec2::new(-4.0, -4.0)),
        // Along the line of its top edge, from the right: it touches; either way is right.
        Ray::new(Vec2::new(5.0, 1.0), Vec2::new(-10.0, 0.0)),
        // From inside: t = 0, no normal.
        Ray::new(Vec2::new(0.2, 0.3), Vec2::new(5.0, 1.0)),
        // Into the left side, then the circle behind is not reached.
        Ray::new(Vec2::new(-5.0, 0.5), Vec2::new(20.0, 0.0)),
        // The same with a mask that only sees the circle.
        Ray::new(Vec2::new(-5.0, 0.5), Vec2::new(20.0, 0.0)).with_mask(0b10),
        // Short of everything.
        Ray::new(Vec2::new(-5.0, 0.5), Vec2::new(3.0, 0.0)),
    ];
    let scene = scene_with(
        vec![square(), json!({"circle": 1.0})],
        vec![
            json!({"shape": 0, "x": 0, "y": 0, "layer": 1}),
            json!({"shape": 1, "x": 5, "y": 0, "layer": 2}),
        ],
        QueryBatch {
            rays,
            ..QueryBatch::default()
        },
    );
    let found = answers("rays", &scene);
    let corner = hit(&found, 0);
    assert_eq!(corner.body, 0);
    assert!((corner.t - 0.5).abs() < 1e-5, "{corner:?}");
    let n = corner.normal.expect("a normal at the corner");
    assert!(n == Vec2::X || n == Vec2::Y, "{n}");
    let inside = hit(&found, 2);
    assert_eq!((inside.body, inside.t, inside.normal), (0, 0.0, None));
    let side = hit(&found, 3);
    assert_eq!(side.body, 0);
    assert!(
        (side.t - 0.2).abs() < 1e-6 && side.normal == Some(-Vec2::X),
        "{side:?}"
    );
    let masked = hit(&found, 4);
    assert_eq!(masked.body, 1);
    // The circle of radius 1 at (5, 0), met at height 0.5: x = 5 - √0.75.
    let x = 5.0 - 0.75f32.sqrt();
    assert!((masked.t - (x + 5.0) / 20.0).abs() < 1e-5, "{masked:?}");
    let normal = masked.normal.expect("normal");
    assert!(
        (normal - Vec2::new(-0.75f32.sqrt(), 0.5)).length() < 1e-4,
        "{normal}"
    );
    assert_eq!(found.rays[5], None);
}

#[test]
fn a_ray_meets_a_compounds_segment_part_with_a_normal_facing_it() {
    // A compound of a segment (a capsule of radius 0) from (-5, 0) to (5, 0) and a square
    // beside it; a slanted ray crosses the segment at (0, 0) half way along. The format
    // accepts the segment's side normal facing the ray, or the way back along the ray.
    let delta = Vec2::new(6.0, -20.0);
    let scene = scene_with(
        vec![
            json!({"capsule": {"a": [-5, 0], "b": [5, 0], "radius": 0}}),
            square(),
            json!({"compound": [{"shape": 0}, {"shape": 1, "x": 20, "y": 0}]}),
        ],
        vec![json!({"shape": 2, "x": 0, "y": 0})],
        QueryBatch {
            rays: vec![Ray::new(Vec2::new(-3.0, 10.0), delta)],
            ..QueryBatch::default()
        },
    );
    let found = answers("a compound's segment", &scene);
    let crossing = hit(&found, 0);
    assert_eq!(crossing.body, 0);
    assert!((crossing.t - 0.5).abs() < 1e-5, "{crossing:?}");
    let n = crossing.normal.expect("a normal on the segment");
    let back = -delta.normalize();
    assert!(
        (n - Vec2::Y).length() < 1e-4 || (n - back).length() < 1e-4,
        "{n}"
    );
}

/// The oracle judges the normal on a compound's round part as on a circle body: any
/// radius direction of the arc within the band of the reported point, which on a small
/// circle spans a wide angle (a point at 9000 units is off by a thousandth).
#[test]
fn the_oracle_takes_the_normal_on_a_compounds_circle_as_on_a_circle() {
    let scene = json!({
        "shapes": [{"circle": 0.05}, square(), {"compound": [{"shape": 0}, {"shape": 1, "x": 20}]}],
        "bodies": [{"shape": 2, "x": 0, "y": 0}]
    });
    let oracle = QueryOracle::new(&scene);
    let ray = Query::Ray {
        origin: (-5.0, 0.0),
        delta: (10.0, 0.0),
        mask: u32::MAX,
    };
    // Met at (-0.05, 0), t = 0.495, the normal (-1, 0); turned by `turn`, the radius
    // direction of a point of the arc 2 · 0.05 · sin(turn / 2) from there.
    let reported = |turn: f64| {
        Some(ReportedHit {
            body: 0,
            t: 0.495,
            normal: Some((-turn.cos(), turn.sin())),
        })
    };
    for turn in [0.0, 0.1, -0.15] {
        assert_eq!(
            oracle.ray_problem(ray, reported(turn)),
            None,
            "turned {turn}"
        );
    }
    for turn in [0.5, -1.0, 3.0] {
        assert!(
            oracle.ray_problem(ray, reported(turn)).is_some(),
            "turned {turn}"
        );
    }
}

/// The oracle tells an outline's sides from the diagonals between its pieces by a step
/// outwards, which must stay far below the outline's size wherever it lies: a "U" 0.012
/// wide at x = 6000, its arms 0.004 wide, and a ray down into the gap that meets the left
/// arm's inner side at t = 0.5. A step of a millionth of the coordinates (0.006 here)
/// crossed the arms, so that the sides facing the gap were taken for diagonals and the
/// diagonals across an arm for sides.
#[test]
fn the_oracle_tells_sides_from_diagonals_in_a_narrow_outline() {
    let scene = json!({
        "shapes": [{"concave": [
            [0, 0], [0.012, 0], [0.012, 0.05], [0.008, 0.05],
            [0.008, 0.01], [0.004, 0.01], [0.004, 0.05], [0, 0.05]
        ]}],
        "bodies": [{"shape": 0, "x": 6000, "y": 0}]
    });
    let oracle = QueryOracle::new(&scene);
    let ray = Query::Ray {
        origin: (6000.0075, 0.09),
        delta: (-0.007, -0.14),
        mask: u32::MAX,
    };
    let reported = |normal: (f64, f64)| {
        Some(ReportedHit {
            body: 0,
            t: 0.5,
            normal: Some(normal),
        })
    };
    // The left arm's inner side; the right arm's, 0.004 away, is within the band too.
    assert_eq!(oracle.ray_problem(ray, reported((1.0, 0.0))), None);
    assert_eq!(oracle.ray_problem(ray, reported((-1.0, 0.0))), None);
    // The normals of the diagonals that can cut the arms (from corner to corner of an
    // arm, or of an arm's top and the floor's far end): no side has them, whichever cut
    // the oracle made. The bottom, 0.02 away, is not there either.
    for (dx, dy) in [(0.004, 0.05), (0.004, 0.04)] {
        let length = f64::hypot(dx, dy);
        for (sx, sy) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
            let normal = (sx * dy / length, sy * dx / length);
            assert!(
                oracle.ray_problem(ray, reported(normal)).is_some(),
                "{normal:?}"
            );
        }
    }
    assert!(oracle.ray_problem(ray, reported((0.0, -1.0))).is_some());
}

#[test]
fn a_ray_through_a_bitmask_diagonally_stops_at_the_first_set_cell() {
    let mask =
        json!({"bitmask": {"width": 4, "height": 4, "rows": ["...#", "....", "..#.", "#..."]}});
    let scene = scene_with(
        vec![mask],
        vec![json!({"shape": 0, "x": 10, "y": 20})],
        QueryBatch {
            rays: vec![
                // y = x + 0.5 in the mask's cells: enters cell (2, 2) by its left side at x = 2.
                Ray::new(Vec2::new(9.0, 19.5), Vec2::new(6.0, 6.0)),
                // The other way round: enters (2, 2) by its top side (y = 3) at x = 2.5.
                Ray::new(Vec2::new(15.0, 25.5), Vec2::new(-6.0, -6.0)),
                // Between the set cells, touching none.
                Ray::new(Vec2::new(9.0, 21.5), Vec2::new(6.0, 0.0)),
            ],
            ..QueryBatch::default()
        },
    );
    let found = answers("bitmask rays", &scene);
    let forward = hit(&found, 0);
    assert!(
        (forward.t - 0.5).abs() < 1e-5 && forward.normal == Some(-Vec2::X),
        "{forward:?}"
    );
    let back = hit(&found, 1);
    assert!(
        (back.t - 2.5 / 6.0).abs() < 1e-5 && back.normal == Some(Vec2::Y),
        "{back:?}"
    );
    assert_eq!(found.rays[2], None);
}

/// The gpu's walk tests what a ray meets as it goes and looks no further than its
/// nearest hit: the first hit is found whichever level of the grid (cell size) holds it,
/// past bodies further along on every level, and a tie goes to the lowest body even when
/// the two lie on different levels.
#[test]
fn a_ray_stops_at_its_first_hit_on_any_level_and_a_tie_goes_to_the_lowest_body() {
    let big = json!({"polygon": [[-20, -20], [20, -20], [20, 20], [-20, 20]]});
    let mut bodies = vec![
        json!({"shape": 1, "x": 30, "y": 0}), // 0: big, its left side at x = 10
        json!({"shape": 0, "x": 11, "y": 0}), // 1: small, its left side at x = 10
        json!({"shape": 0, "x": -11, "y": 0}), // 2: small, its right side at x = -10
        json!({"shape": 1, "x": -30, "y": 0}), // 3: big, its right side at x = -10
        json!({"shape": 0, "x": 5, "y": -5}), // 4: small, in front of body 0
        json!({"shape": 2, "x": 0, "y": 40}), // 5: a circle past a row of small squares
    ];
    // Small bodies further along every ray, on both sides and above.
    for k in 0..60 {
        let (x, y) = (14 + 3 * k, k % 7 - 3);
        bodies.push(json!({"shape": 0, "x": x, "y": y}));
        bodies.push(json!({"shape": 0, "x": -x, "y": y}));
        bodies.push(json!({"shape": 0, "x": y, "y": 60 + 3 * k}));
    }
    let along = Vec2::new(100.0, 0.0);
    let scene = scene_with(
        vec![square(), big, json!({"circle": 3.0})],
        bodies,
        QueryBatch {
            rays: vec![
                Ray::new(Vec2::ZERO, along),           // a tie at x = 10: body 0
                Ray::new(Vec2::ZERO, -along),          // a tie at x = -10: body 2
                Ray::new(Vec2::new(0.0, 5.0), along),  // the big body 0 first
                Ray::new(Vec2::new(0.0, -5.0), along), // the small body 4 first
                Ray::new(Vec2::new(0.5, 20.0), Vec2::new(0.0, 200.0)), // the circle first
                Ray::new(Vec2::new(0.5, 250.0), Vec2::new(0.0, -240.0)), // squares first
            ],
            ..QueryBatch::default()
        },
    );
    let library = scene.validate().expect("valid");
    let cpu = answers("first hits", &scene);
    let expected = [
        (0, 0.1, -Vec2::X),
        (2, 0.1, Vec2::X),
        (0, 0.1, -Vec2::X),
        (4, 0.04, -Vec2::X),
    ];
    for (k, &(body, t, normal)) in expected.iter().enumerate() {
        let h = hit(&cpu, k);
        assert_eq!((h.body, h.normal), (body, Some(normal)), "ray {k}: {h:?}");
        assert!((h.t - t).abs() < 1e-6, "ray {k}: {h:?}");
    }
    assert_eq!(hit(&cpu, 4).body, 5);
    assert_ne!(hit(&cpu, 5).body, 5);
    let Some(gpu) = check_gpu("first hits", &scene, &library, &cpu) else {
        return;
    };
    // The same bodies; times and normals to the last few bits (a GPU's square root and
    // division need not round as the CPU's do).
    for (k, (g, c)) in gpu.rays.iter().zip(&cpu.rays).enumerate() {
        let (g, c) = (g.expect("gpu hit"), c.expect("cpu hit"));
        let normals = g.normal.zip(c.normal).map(|(a, b)| (a - b).length());
        assert!(
            g.body == c.body && (g.t - c.t).abs() <= 1e-6 && normals.is_some_and(|d| d <= 1e-6),
            "ray {k}: gpu {g:?}, cpu {c:?}"
        );
    }
}

#[test]
fn points_on_edges_and_degenerate_boxes() {
    let scene = scene_with(
        vec![
            square(),
            json!({"circle": 1.0}),
            json!({"bitmask": {"width": 2, "height": 1, "rows": ["#."]}}),
        ],
        vec![
            json!({"shape": 0, "x": 0, "y": 0}),
            json!({"shape": 1, "x": 3, "y": 0, "layer": 2}),
            json!({"shape": 2, "x": 10, "y": 0}),
        ],
        QueryBatch {
            points: vec![
                PointQuery::new(Vec2::new(1.0, 0.5)), // on the square's right edge
                PointQuery::new(Vec2::new(2.0, 0.0)), // on the circle
                PointQuery::new(Vec2::new(1.5, 0.0)), // between them
                PointQuery::new(Vec2::new(10.5, 0.5)), // in the set cell
                PointQuery::new(Vec2::new(11.5, 0.5)), // in the clear cell
                PointQuery::new(Vec2::new(3.0, 0.0)).with_mask(1), // the circle, unseen
            ],
            boxes: vec![
                // A point box, a segment box across both shapes, a box in the gap.
                BoxQuery::new(Vec2::new(3.5, 0.5), Vec2::new(3.5, 0.5)),
                BoxQuery::new(Vec2::new(-3.0, 0.0), Vec2::new(12.0, 0.0)),
                BoxQuery::new(Vec2::new(1.2, -5.0), Vec2::new(1.8, 5.0)),
                // Near the circle's diagonal but outside it: its bounds would say yes.
                BoxQuery::new(Vec2::new(3.8, 0.8), Vec2::new(4.0, 1.0)),
            ],
            ..QueryBatch::default()
        },
    );
    let found = answers("points and boxes", &scene);
    assert_eq!(
        found.points,
        vec![vec![0], vec![1], vec![], vec![2], vec![], vec![]]
    );
    assert_eq!(found.boxes, vec![vec![1], vec![0, 1, 2], vec![], vec![]]);
}

/// A random batch over the scene's area: rays of length 1 to 60 (some very short,
/// some starting inside bodies), points, and boxes from a point to 30 across; a third
/// of the queries masked.
pub(crate) fn random_batch(scene: &Scene, count: usize, seed: u64) -> QueryBatch {
    let (lo, hi) = scene.bodies.iter().fold(
        (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
        |(lo, hi), b| (lo.min(b.position), hi.max(b.position)),
    );
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let at = |next: &mut dyn FnMut() -> f32| lo + Vec2::new(next(), next()) * (hi - lo);
    let mut batch = QueryBatch::default();
    for k in 0..count {
        let mask = if k % 3 == 0 { 1 << (k % 4) } else { u32::MAX };
        let origin = if k % 5 == 0 {
            scene.bodies[k % scene.bodies.len()].position // from a body's origin
        } else {
            at(&mut next)
        };
        let length = [0.5f32, 5.0, 20.0, 60.0][k % 4];
        let delta = Vec2::from_angle(next() * std::f32::consts::TAU) * length;
        batch.rays.push(Ray::new(origin, delta).with_mask(mask));
        batch
            .points
            .push(PointQuery::new(at(&mut next)).with_mask(mask));
        let min = at(&mut next);
        let size = Vec2::new(next(), next()) * [0.0f32, 1.0, 30.0][k % 3];
        batch
            .boxes
            .push(BoxQuery::new(min, min + size).with_mask(mask));
    }
    batch
}

#[test]
fn random_batches_against_the_oracle() {
    for (kind, bodies, seed) in [
        (SceneKind::Polygons, 2000, 31),
        (SceneKind::Circles, 2000, 32),
        (SceneKind::Mixed, 2000, 33),
        (SceneKind::Filtered, 2000, 34),
    ] {
        let start = std::time::Instant::now();
        let mut scene = random_scene(kind, bodies, seed);
        scene.queries = random_batch(&scene, 600, seed);
        let found = answers(&format!("{kind:?}"), &scene);
        let hits = found.rays.iter().flatten().count();
        let listed: usize = found.points.iter().chain(&found.boxes).map(Vec::len).sum();
        eprintln!(
            "queries {kind:?} seed {seed}: {bodies} bodies, 600 rays ({hits} hit), 600 points and 600 boxes ({listed} bodies listed), all within the spec's tolerance ({:.1} s)",
            start.elapsed().as_secs_f64()
        );
        assert!(
            hits > 100 && listed > 300,
            "{kind:?}: too few answers to test"
        );
    }
}

/// Rays as long as the world, from anywhere in the range the format promises (±16384)
/// to bodies of every kind and size (0.05 to 1024 across) anywhere else in it, aimed at a
/// point of the body's box so that some pass through, some graze and some miss: the
/// entry is judged to 0.01 along rays up to 60000 units long.
#[test]
fn long_rays_across_the_world_against_the_oracle() {
    use crate::support::{hundredths, Lcg};
    let shapes = vec![
        json!({"polygon": [[-0.03, -0.02], [0.03, -0.02], [0.0, 0.03]]}),
        json!({"polygon": [[-4, -4], [4, -4], [4, 4], [-4, 4]]}),
        json!({"polygon": [[-300, 0], [-150, -260], [150, -260], [300, 0], [150, 260], [-150, 260]]}),
        json!({"polygon": [[-512, -20], [512, -20], [512, 20], [-512, 20]]}),
        json!({"circle": 0.05}),
        json!({"circle": 3.5}),
        json!({"circle": 512}),
        json!({"capsule": {"a": [-0.2, 0.1], "b": [0.2, -0.1], "radius": 0.04}}),
        json!({"capsule": {"a": [-500, 0], "b": [500, 0], "radius": 2}}),
        json!({"capsule": {"a": [0, 0], "b": [0, 0], "radius": 0}}),
        json!({"capsule": {"a": [-60, -60], "b": [60, 60], "radius": 0}}),
        json!({"bitmask": {"width": 5, "height": 3, "rows": ["#.#.#", ".###.", "#...#"]}}),
    ];
    // Each shape's size across, to aim at.
    let sizes = [
        0.06, 8.0, 600.0, 1024.0, 0.1, 7.0, 1024.0, 0.5, 1004.0, 0.0, 170.0, 5.0,
    ];
    let mut random = Lcg(41);
    let mut bodies = Vec::new();
    let mut targets = Vec::new();
    for k in 0..360 {
        let shape = k % shapes.len();
        let mut at = [0.0, 0.0].map(|_: f64| random.between(-16384.0, 16384.0));
        let mut body = json!({"shape": shape, "angle": hundredths(random.between(-3.1, 3.1))});
        if shape == shapes.len() - 1 {
            at = at.map(|x| x.round().clamp(-16379.0, 16379.0)); // a bitmask, unturned
            body = json!({"shape": shape});
        } else {
            at = at.map(hundredths);
        }
        body["x"] = json!(at[0]);
        body["y"] = json!(at[1]);
        bodies.push(body);
        targets.push((at, sizes[shape]));
    }
    let mut scene = Scene::from_json(&json!({"shapes": shapes, "bodies": bodies}).to_string())
        .expect("valid scene");
    for k in 0..1500 {
        let origin = [0.0, 0.0].map(|_: f64| random.between(-16384.0, 16384.0) as f32);
        let (at, size) = targets[random.below(targets.len())];
        let aim = at.map(|x| (x + size * random.between(-0.6, 0.6)) as f32);
        let delta = (Vec2::from(aim) - Vec2::from(origin)) * random.between(1.0, 1.5) as f32;
        let mask = if k % 7 == 0 { 1 } else { u32::MAX };
        if delta != Vec2::ZERO {
            scene
                .queries
                .rays
                .push(Ray::new(origin.into(), delta).with_mask(mask));
        }
    }
    let found = answers("long rays", &scene);
    let hits = found.rays.iter().flatten().count();
    assert!(hits > 1000, "too few hits to test: {hits}");
}

/// Property: a small fixed scene, random queries, shrunk to a minimal failing one.
#[test]
fn queries_agree_with_the_oracle_on_small_scenes() {
    let scene = Scene::from_json(
        r#####"{"shapes": [
            {"polygon": [[-2, -0.5], [2, -0.5], [2, 0.5], [-2, 0.5]]},
            {"polygon": [[0, 0], [3, 0.5], [1, 2]]},
            {"circle": 1.0},
            {"bitmask": {"width": 4, "height": 3, "rows": ["##.#", ".#..", "####"]}}],
         "bodies": [
            {"shape": 0, "x": 0, "y": 0, "angle": 0.3},
            {"shape": 1, "x": 3, "y": 2, "angle": -1.2, "layer": 2},
            {"shape": 2, "x": -3, "y": 2.5},
            {"shape": 3, "x": -1, "y": -4},
            {"shape": 2, "x": 4, "y": -2, "layer": 4}]}"#####,
    )
    .expect("valid");
    let coordinate = -8.0f32..8.0;
    let query = (
        coordinate.clone(),
        coordinate.clone(),
        coordinate.clone(),
        coordinate,
        0u32..8,
    );
    let gpu = gpu();
    let mut runner = TestRunner::new(Config {
        cases: 96,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&proptest::collection::vec(query, 1..8), |queries| {
            let mut scene = scene.clone();
            for &(x, y, a, b, mask) in &queries {
                let mask = if mask == 0 { u32::MAX } else { mask };
                let (p, q) = (Vec2::new(x, y), Vec2::new(a, b));
                if q != p {
                    scene.queries.rays.push(Ray::new(p, q - p).with_mask(mask));
                }
                scene
                    .queries
                    .points
                    .push(PointQuery::new(p).with_mask(mask));
                scene
                    .queries
                    .boxes
                    .push(BoxQuery::new(p.min(q), p.max(q)).with_mask(mask));
            }
            let library = scene.validate().expect("valid");
            let found = CpuCollider::new(library.clone())
                .query(&scene.bodies, &scene.queries)
                .expect("answers");
            let wrong = problems(&scene, &found);
            prop_assert!(wrong.is_empty(), "{wrong:?}");
            if let Some(gpu) = &gpu {
                let found = gpu_collider(gpu, &library)
                    .query(&scene.bodies, &scene.queries)
                    .expect("gpu answers");
                let wrong = problems(&scene, &found);
                prop_assert!(wrong.is_empty(), "gpu: {wrong:?}");
            }
            Ok(())
        })
        .expect("queries agree with the oracle");
}

#[test]
fn huge_boxes_and_long_rays_are_answered_like_small_ones() {
    // Spanning far more grid cells than there are bodies: the grid's entries are read
    // instead of its cells, and the answers stay the reference's.
    let mut scene = random_scene(SceneKind::Mixed, 1000, 35);
    let centre = scene.bodies[0].position;
    scene.queries = QueryBatch {
        rays: vec![
            // Long, but short enough for f32 to place a hit within the band along them.
            Ray::new(centre - Vec2::splat(7e3), Vec2::splat(1.4e4)),
            Ray::new(centre - Vec2::new(1e4, 0.0), Vec2::new(2e4, 0.0)),
        ],
        points: vec![],
        boxes: vec![
            BoxQuery::new(centre - Vec2::splat(1e5), centre + Vec2::splat(1e5)),
            BoxQuery::new(centre - Vec2::new(1e5, 0.0), centre + Vec2::new(1e5, 0.0)),
        ],
    };
    let found = answers("huge", &scene);
    assert_eq!(found.boxes[0].len(), 1000);
    assert!(found.rays.iter().all(Option::is_some), "{:?}", found.rays);
}

fn gpu_collider(context: &gpu_collide::GpuContext, library: &ShapeLibrary) -> GpuCollider {
    GpuCollider::new(context, library.clone()).expect("gpu collider builds")
}

#[test]
fn the_gpu_backend_answers_an_empty_batch_and_no_bodies() {
    let Some(context) = gpu() else { return };
    let scene = Scene::from_json(
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0}]}"#,
    )
    .expect("valid");
    let library = scene.validate().expect("valid");
    let mut collider = gpu_collider(&context, &library);
    let batch = QueryBatch {
        rays: vec![Ray::new(Vec2::new(-5.0, 0.0), Vec2::new(10.0, 0.0))],
        points: vec![PointQuery::new(Vec2::ZERO)],
        ..QueryBatch::default()
    };
    let none = collider.query(&[], &batch).expect("no bodies");
    assert_eq!(none.rays, vec![None]);
    assert_eq!(none.points, vec![Vec::<u32>::new()]);
    let empty = collider
        .query(&scene.bodies, &QueryBatch::default())
        .expect("empty batch");
    assert_eq!(empty, QueryAnswers::default());
    // A bad query is refused as on the cpu, naming it.
    let bad = QueryBatch {
        rays: vec![Ray::new(Vec2::ZERO, Vec2::ZERO)],
        ..QueryBatch::default()
    };
    let message = collider
        .query(&scene.bodies, &bad)
        .expect_err("zero length")
        .to_string();
    assert!(message.contains("ray 0: dx, dy: zero length"), "{message}");
    // Pairs still work after queries (the grid holds the bodies' own masks again), and
    // queries after pairs.
    let answers = collider.query(&scene.bodies, &batch).expect("answers");
    assert_eq!(answers.points, vec![vec![0]]);
    assert_eq!(answers.rays[0].map(|h| h.body), Some(0));
}

#[test]
fn pairs_and_queries_alternate_on_one_gpu_collider() {
    let Some(context) = gpu() else { return };
    // Body 1's mask accepts nobody: it has no pairs, yet queries see it by its layer.
    let scene = Scene::from_json(
        r#"{"shapes": [{"circle": 1}],
            "bodies": [{"shape": 0, "x": 0, "y": 0}, {"shape": 0, "x": 1, "y": 0, "mask": 0},
                       {"shape": 0, "x": 1.5, "y": 0.5}]}"#,
    )
    .expect("valid");
    let library = scene.validate().expect("valid");
    let mut collider = gpu_collider(&context, &library);
    let batch = QueryBatch {
        points: vec![PointQuery::new(Vec2::new(0.8, 0.2))],
        ..QueryBatch::default()
    };
    for _ in 0..2 {
        assert_eq!(
            collider.find_pairs(&scene.bodies).expect("pairs"),
            vec![[0, 2]]
        );
        let answers = collider.query(&scene.bodies, &batch).expect("answers");
        assert_eq!(answers.points, vec![vec![0, 1, 2]]);
    }
}

/// A bitmask of `side` x `side` cells with the given cells set.
/// A scene of these shapes, bodies and queries.
fn scene_of(shapes: Vec<Shape>, bodies: Vec<gpu_collide::Body>, queries: QueryBatch) -> Scene {
    let mut scene =
        Scene::from_json(r#"{"shapes": [{"circle": 1}], "bodies": []}"#).expect("valid");
    scene.shapes = shapes;
    scene.bodies = bodies;
    scene.queries = queries;
    scene
}

fn bitmask(side: u32, set: &[(u32, u32)]) -> Shape {
    let mut mask = gpu_collide::Bitmask::new(side, side).expect("size");
    for &(column, row) in set {
        mask.set(column, row, true);
    }
    Shape::Bitmask(mask)
}

#[test]
fn work_past_the_loop_cap_of_one_invocation_is_split() {
    // Llvmpipe ends an invocation's loops after 65535 iterations in all, silently. Each
    // query below would pass that in one invocation: a box over a 2048 x 2048 mask
    // whose one set cell under it is in its last row (2045 rows of 64 words), a ray
    // diagonally through the mask to a cell near its far corner, a point and a ray in a
    // pile of 5000 bodies on one cell, and a ray 40000 cells long over 3000 bodies.
    let mask = bitmask(2048, &[(0, 2047), (2047, 0), (2046, 2046)]);
    let mut shapes = vec![mask, Shape::Circle(gpu_collide::Circle::new(0.5))];
    shapes.push(Shape::Circle(gpu_collide::Circle::new(0.25)));
    let library = ShapeLibrary::new(&shapes).expect("library");
    let mut bodies = vec![gpu_collide::Body::new(0, Vec2::new(-3000.0, -3000.0))];
    // The pile, all on one point.
    bodies.extend((0..5000).map(|_| gpu_collide::Body::new(1, Vec2::new(100.0, 100.0))));
    // A row of small circles along y = 200.
    bodies.extend((0..3000).map(|k| gpu_collide::Body::new(2, Vec2::new(k as f32 * 3.0, 200.0))));
    let corner = Vec2::new(-3000.0, -3000.0);
    let batch = QueryBatch {
        rays: vec![
            Ray::new(corner + Vec2::splat(1.5), Vec2::splat(2045.2)),
            Ray::new(Vec2::new(90.0, 100.2), Vec2::new(20.0, 0.0)),
            Ray::new(Vec2::new(8995.0, 200.1), Vec2::new(-40000.0, 0.0)),
        ],
        points: vec![PointQuery::new(Vec2::new(100.1, 100.0))],
        boxes: vec![BoxQuery::new(
            corner + Vec2::splat(1.5),
            corner + Vec2::splat(2046.5),
        )],
    };
    let scene = scene_of(shapes, bodies, batch);
    let cpu = CpuCollider::new(library.clone())
        .query(&scene.bodies, &scene.queries)
        .expect("cpu answers");
    assert_eq!(cpu.boxes, vec![vec![0]]);
    assert_eq!(cpu.points[0].len(), 5000);
    let Some(found) = check_gpu("past the loop cap", &scene, &library, &cpu) else {
        return;
    };
    assert_eq!(found.boxes, vec![vec![0]]);
    let diagonal = found.rays[0].expect("the diagonal ray meets the far cell");
    assert_eq!(diagonal.body, 0);
    assert!(
        (diagonal.t - cpu.rays[0].expect("cpu").t).abs() < 1e-5,
        "{diagonal:?}"
    );
    assert_eq!(found.points, cpu.points);
    assert_eq!(
        found.rays[1].map(|h| h.body),
        Some(1),
        "lowest index of the pile"
    );
    // From between the last two circles leftwards: the second last (1 + 5000 + 2998).
    assert_eq!(found.rays[2].map(|h| h.body), Some(7999));
    assert_eq!(cpu.rays[2].map(|h| h.body), Some(7999));
}

/// A box over a pile of the largest bitmasks: each test is split into hundreds of chunks,
/// so the walk's planning of the tests alone, not only its reading, must be kept within
/// an invocation's budget (and past it, handed on), rather than stopped by its guard.
#[test]
fn a_box_over_a_pile_of_the_largest_bitmasks_is_answered() {
    let shapes = vec![bitmask(8192, &[(0, 0), (8191, 8191)])];
    let library = ShapeLibrary::new(&shapes).expect("library");
    let bodies: Vec<gpu_collide::Body> = (0..16)
        .map(|k| gpu_collide::Body::new(0, Vec2::new(k as f32, 0.0)))
        .collect();
    let batch = QueryBatch {
        boxes: vec![BoxQuery::new(Vec2::splat(-10.0), Vec2::splat(8300.0))],
        ..QueryBatch::default()
    };
    let scene = scene_of(shapes, bodies, batch);
    let cpu = CpuCollider::new(library.clone())
        .query(&scene.bodies, &scene.queries)
        .expect("cpu answers");
    assert_eq!(cpu.boxes, vec![(0..16).collect::<Vec<u32>>()]);
    let Some(found) = check_gpu("a pile of the largest masks", &scene, &library, &cpu) else {
        return;
    };
    assert_eq!(found.boxes, cpu.boxes);
}
