//! Exactness over the whole documented range: bodies anywhere within ±16384, shapes from
//! a twentieth of a unit to 1024 across, displacements from a hundredth of a unit to the
//! world's full span, for every kind pair of a sweep, of a contact and every kind of
//! query, each held to the f64 oracle on both backends (`swept::check`,
//! `contacts::contacts` or, with parts, `compounds::check_part_contacts`,
//! `queries::answers`). The kinds: polygons, circles, bitmasks, capsules of every form
//! (segments, points, round circles), star-shaped concave outlines, and compounds of a few
//! parts of those kinds.
//!
//! The generators here aim: a moving body is sent past another so that their paths come
//! closest at a chosen time and at a chosen fraction of their summed sizes, head-on,
//! grazing or just missing; a ray is sent at a body the same way, some ending short of
//! it. Random placement alone would almost never bring two bodies 30 000 units apart
//! into contact, which is where f32 formulas cancel (a swept circle's discriminant once
//! lost every hit past a few thousand units of motion).
//!
//! Each scene holds many aimed pairs; every other pair the paths happen to make is judged
//! by the oracle too. Seeds are fixed; `RANGE_SEEDS=N` runs N per target instead of the
//! default, to look further.

use std::f64::consts::{PI, TAU};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde_json::{json, Value};

use gpu_collide::Scene;

use crate::contacts::contacts;
use crate::queries::answers;
use crate::swept::check;

/// The format's coordinate range.
const RANGE: f64 = 16384.0;

/// Shape kinds, as the generator makes them.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Polygon,
    Circle,
    Bitmask,
    /// Capsules, segments (radius 0), points and round circles (`a == b`).
    Capsule,
    /// Star-shaped outlines of 4 to 40 vertices, each at its own distance from the centre.
    Concave,
    /// 2 to 5 parts (polygons, circles, capsules and outlines), placed and turned.
    Compound,
}

impl Kind {
    const ALL: [Kind; 6] = [
        Kind::Polygon,
        Kind::Circle,
        Kind::Bitmask,
        Kind::Capsule,
        Kind::Concave,
        Kind::Compound,
    ];
}

/// Seeds per target: `RANGE_SEEDS`, else `default`.
fn seeds(default: u64) -> std::ops::Range<u64> {
    let n = std::env::var("RANGE_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    0..n
}

/// A number between `lo` and `hi` whose logarithm is uniform: sizes and speeds over
/// orders of magnitude.
fn log_uniform(rng: &mut Pcg64, lo: f64, hi: f64) -> f64 {
    (lo.ln() + rng.random::<f64>() * (hi.ln() - lo.ln())).exp()
}

fn direction(rng: &mut Pcg64) -> [f64; 2] {
    let a = rng.random_range(0.0..TAU);
    [a.cos(), a.sin()]
}

/// A shape of `kind` and the radius of a disc about its centre that holds it; for a
/// bitmask also its size in cells (its body's origin is its corner, not its centre); for
/// a compound the shapes of its parts, which its `shape` fields index from 0 ([`push`]).
struct Made {
    shape: Value,
    radius: f64,
    cells: Option<[u32; 2]>,
    parts: Vec<Value>,
}

impl Made {
    fn convex(shape: Value, radius: f64) -> Made {
        Made {
            shape,
            radius,
            cells: None,
            parts: Vec::new(),
        }
    }
}

/// Appends `made` to `shapes`, its parts' shapes first, and returns its index.
fn push(shapes: &mut Vec<Value>, made: Made) -> usize {
    let first = shapes.len();
    let mut shape = made.shape;
    if let Some(parts) = shape.get_mut("compound").and_then(Value::as_array_mut) {
        for part in parts {
            let k = part["shape"].as_u64().expect("a part's shape") as usize;
            part["shape"] = json!(first + k);
        }
    }
    shapes.extend(made.parts);
    shapes.push(shape);
    shapes.len() - 1
}

/// A star-shaped outline of `n` vertices about the origin, the farthest `radius` out,
/// each vertex at its own distance (down to a fifth of it): concave but for a few.
fn star(rng: &mut Pcg64, n: usize, radius: f64) -> Value {
    let turn = rng.random_range(0.0..TAU);
    let vertices: Vec<[f64; 2]> = (0..n)
        .map(|k| {
            let a = turn + TAU * (k as f64 + rng.random_range(-0.3..0.3)) / n as f64;
            let r = if k == 0 {
                radius
            } else {
                radius * rng.random_range(0.2..=1.0)
            };
            [r * a.cos(), r * a.sin()]
        })
        .collect();
    json!({ "concave": vertices })
}

/// A capsule of reach `radius` about the origin: a segment, a point, a round circle
/// (`a == b`) or a capsule of any thickness.
fn capsule(rng: &mut Pcg64, radius: f64) -> Value {
    let [x, y] = direction(rng);
    let (half, thick) = match rng.random_range(0..5) {
        0 => (radius, 0.0),
        1 => (0.0, 0.0),
        2 => (0.0, radius),
        _ => {
            let thick = radius * rng.random_range(0.0..0.5);
            (radius - thick, thick)
        }
    };
    json!({"capsule": {"a": [-x * half, -y * half], "b": [x * half, y * half], "radius": thick}})
}

fn make_shape(rng: &mut Pcg64, kind: Kind) -> Made {
    match kind {
        Kind::Capsule => {
            let radius = log_uniform(rng, 0.05, 512.0);
            Made::convex(capsule(rng, radius), radius)
        }
        Kind::Concave => {
            let radius = log_uniform(rng, 0.05, 512.0);
            let n = rng.random_range(4..=40);
            Made::convex(star(rng, n, radius), radius)
        }
        Kind::Compound => {
            // Parts within the radius: each its own reach from a point of the inner half.
            let radius = log_uniform(rng, 0.05, 512.0);
            let count = rng.random_range(2..=5);
            let (mut parts, mut placed) = (Vec::new(), Vec::new());
            for k in 0..count {
                let reach = radius * rng.random_range(0.1..0.5);
                let shape = match rng.random_range(0..4) {
                    0 => make_polygon(rng, reach),
                    1 => json!({ "circle": reach }),
                    2 => capsule(rng, reach),
                    _ => {
                        let n = rng.random_range(4..=16);
                        star(rng, n, reach)
                    }
                };
                let [x, y] = direction(rng);
                let off = (radius - reach) * rng.random_range(0.0..=1.0);
                parts.push(shape);
                placed.push(json!({"shape": k, "x": x * off, "y": y * off, "angle": rng.random_range(-PI..PI)}));
            }
            Made {
                shape: json!({ "compound": placed }),
                radius,
                cells: None,
                parts,
            }
        }
        Kind::Circle => {
            let radius = log_uniform(rng, 0.05, 512.0);
            Made::convex(json!({ "circle": radius }), radius)
        }
        Kind::Polygon => {
            let radius = log_uniform(rng, 0.05, 512.0);
            Made::convex(make_polygon(rng, radius), radius)
        }
        Kind::Bitmask => {
            let (w, h) = (rng.random_range(1..=40u32), rng.random_range(1..=40u32));
            let mut rows: Vec<String> = (0..h)
                .map(|_| {
                    (0..w)
                        .map(|_| if rng.random_bool(0.5) { '#' } else { '.' })
                        .collect()
                })
                .collect();
            rows[0].replace_range(0..1, "#"); // never empty
            Made {
                shape: json!({"bitmask": {"width": w, "height": h, "rows": rows}}),
                radius: (w as f64).hypot(h as f64) / 2.0,
                cells: Some([w, h]),
                parts: Vec::new(),
            }
        }
    }
}

/// A regular polygon of 3 to 12 vertices and reach `radius`, squashed along x: convex,
/// counter-clockwise.
fn make_polygon(rng: &mut Pcg64, radius: f64) -> Value {
    let n = rng.random_range(3..=12);
    let squash = rng.random_range(0.2..=1.0);
    let vertices: Vec<[f64; 2]> = (0..n)
        .map(|k| {
            let a = TAU * k as f64 / n as f64;
            [radius * squash * a.cos(), radius * a.sin()]
        })
        .collect();
    json!({ "polygon": vertices })
}

/// A body of `made` centred near `centre` (a bitmask's corner on whole numbers), with
/// displacement `v` and filter `group`, or `None` when it would start outside the range.
/// Its `shape` is set once `made` is in the file ([`push`]).
fn body(made: &Made, centre: [f64; 2], v: [f64; 2], group: u32, rng: &mut Pcg64) -> Option<Value> {
    let reach = made.radius;
    if centre.iter().any(|c| c.abs() + reach > RANGE) {
        return None;
    }
    let mut body = json!({"layer": group, "mask": group});
    if let Some([w, h]) = made.cells {
        body["x"] = json!((centre[0] - w as f64 / 2.0).round());
        body["y"] = json!((centre[1] - h as f64 / 2.0).round());
    } else {
        body["x"] = json!(centre[0]);
        body["y"] = json!(centre[1]);
        body["angle"] = json!(rng.random_range(-PI..PI));
        if v != [0.0, 0.0] {
            body["vx"] = json!(v[0]);
            body["vy"] = json!(v[1]);
        }
    }
    Some(body)
}

/// How far off a path passes a target, as a fraction of their summed radii: head-on,
/// near the grazing distance, or anywhere out to a clear miss.
fn aim(rng: &mut Pcg64) -> f64 {
    match rng.random_range(0..5) {
        0 | 1 => rng.random_range(0.0..0.5),
        2 | 3 => rng.random_range(0.8..1.05),
        _ => rng.random_range(0.0..1.3),
    }
}

/// A scene of `pairs` aimed pairs of kinds `a` (still or moving) and `b` (moving),
/// seeded; a bitmask never moves, so with one it is always `a`.
fn swept_scene(a: Kind, b: Kind, pairs: usize, seed: u64) -> String {
    let mut rng = Pcg64::seed_from_u64(seed);
    let (mut shapes, mut bodies) = (Vec::new(), Vec::new());
    while bodies.len() < 2 * pairs {
        let (ma, mb) = (make_shape(&mut rng, a), make_shape(&mut rng, b));
        let span = 2.0 * RANGE;
        let va = if a == Kind::Bitmask || rng.random_bool(0.5) {
            [0.0, 0.0]
        } else {
            let [x, y] = direction(&mut rng);
            let s = log_uniform(&mut rng, 0.01, span);
            [x * s, y * s]
        };
        // The relative displacement, from a hundredth of a unit to the full span.
        let [ux, uy] = direction(&mut rng);
        let speed = log_uniform(&mut rng, 0.01, span);
        let w = [ux * speed, uy * speed];
        let vb = [va[0] + w[0], va[1] + w[1]];
        let ca = [
            rng.random_range(-RANGE..RANGE),
            rng.random_range(-RANGE..RANGE),
        ];
        // b's centre relative to a's, as it moves: off·n at the time of closest approach.
        let closest = rng.random_range(-0.2..1.2);
        let off =
            aim(&mut rng) * (ma.radius + mb.radius) * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        let n = [-uy, ux];
        let cb = [
            ca[0] + off * n[0] - closest * w[0],
            ca[1] + off * n[1] - closest * w[1],
        ];
        push_pair(
            &mut shapes,
            &mut bodies,
            (ma, ca, va),
            (mb, cb, vb),
            &mut rng,
        );
    }
    json!({"shapes": shapes, "bodies": bodies}).to_string()
}

/// Appends two bodies of one filter group, each given as its shape, centre and
/// displacement, and their shapes; nothing when either would start outside the range.
fn push_pair(
    shapes: &mut Vec<Value>,
    bodies: &mut Vec<Value>,
    (ma, ca, va): (Made, [f64; 2], [f64; 2]),
    (mb, cb, vb): (Made, [f64; 2], [f64; 2]),
    rng: &mut Pcg64,
) {
    let group = 1u32 << (bodies.len() / 2 % 32);
    let (Some(mut body_a), Some(mut body_b)) =
        (body(&ma, ca, va, group, rng), body(&mb, cb, vb, group, rng))
    else {
        return;
    };
    body_a["shape"] = json!(push(shapes, ma));
    body_b["shape"] = json!(push(shapes, mb));
    bodies.extend([body_a, body_b]);
}

/// Swept pairs of every kind pair, aimed across the whole range, on both backends
/// against the oracle; enough of them must meet for the check to mean something.
#[test]
fn sweeps_of_every_kind_pair_are_exact_across_the_range() {
    use Kind::*;
    let kinds = [
        (Polygon, Polygon),
        (Polygon, Circle),
        (Circle, Polygon),
        (Circle, Circle),
        (Bitmask, Polygon),
        (Bitmask, Circle),
    ];
    // About half the aims pass within the summed radii; fewer meet (the disc that holds
    // a shape is larger than the shape), but never only a handful.
    aimed_sweeps(&kinds, seeds(3), 40, 5);
}

/// Scenes of `pairs` aimed pairs of each kind pair of `kinds`, one a seed, held to the
/// oracle; at least one aimed pair in `share` must meet for the check to mean something.
fn aimed_sweeps(kinds: &[(Kind, Kind)], seeds: std::ops::Range<u64>, pairs: usize, share: usize) {
    for &(a, b) in kinds {
        let (mut met, mut aimed) = (0, 0);
        for seed in seeds.clone() {
            let text = swept_scene(a, b, pairs, seed);
            let what = format!("{a:?} against moving {b:?}, seed {seed}");
            let (found, _, _) = check(&what, &text);
            met += found;
            aimed += pairs;
        }
        assert!(
            met * share >= aimed,
            "{a:?}/{b:?}: only {met} of {aimed} aimed pairs met"
        );
    }
}

/// Swept capsules, outlines and compounds against every kind, aimed across the whole
/// range, as above: every time of impact of a pair of parts is in play, and the earliest
/// is the pair's.
#[test]
fn sweeps_of_the_new_kinds_against_every_kind_are_exact_across_the_range() {
    use Kind::*;
    let mut kinds = Vec::new();
    for (k, &new) in [Capsule, Concave, Compound].iter().enumerate() {
        kinds.extend([
            (new, Polygon),
            (Polygon, new),
            (new, Circle),
            (Bitmask, new),
        ]);
        kinds.extend(
            [Capsule, Concave, Compound][k..]
                .iter()
                .map(|&other| (new, other)),
        );
    }
    // Thin capsules, spiky outlines and compounds of far-apart parts fill less of their
    // discs than polygons do.
    aimed_sweeps(&kinds, seeds(2), 30, 8);
}

/// A scene of bodies of every kind spread over the range, and rays, points and boxes
/// aimed at them: rays from anywhere in the range, some long enough to cross the world,
/// some ending short of their body.
fn query_scene(bodies_count: usize, queries: usize, seed: u64) -> String {
    let mut rng = Pcg64::seed_from_u64(seed);
    let (mut shapes, mut bodies, mut targets) = (Vec::new(), Vec::new(), Vec::new());
    while bodies.len() < bodies_count {
        let kind = Kind::ALL[rng.random_range(0..Kind::ALL.len())];
        let made = make_shape(&mut rng, kind);
        let centre = [
            rng.random_range(-RANGE..RANGE),
            rng.random_range(-RANGE..RANGE),
        ];
        let layer = 1u32 << rng.random_range(0..4);
        let Some(mut value) = body(&made, centre, [0.0, 0.0], layer, &mut rng) else {
            continue;
        };
        value["mask"] = json!(u32::MAX);
        targets.push((centre, made.radius));
        value["shape"] = json!(push(&mut shapes, made));
        bodies.push(value);
    }
    let (mut rays, mut points, mut boxes) = (Vec::new(), Vec::new(), Vec::new());
    let mask = |rng: &mut Pcg64| {
        if rng.random_bool(0.8) {
            u32::MAX
        } else {
            rng.random_range(1..16u32)
        }
    };
    for _ in 0..queries {
        let (centre, radius) = targets[rng.random_range(0..targets.len())];
        let start = [
            rng.random_range(-RANGE..RANGE),
            rng.random_range(-RANGE..RANGE),
        ];
        let (dx, dy) = (centre[0] - start[0], centre[1] - start[1]);
        let distance = dx.hypot(dy).max(1e-3);
        let along = [dx / distance, dy / distance];
        let off = aim(&mut rng) * radius * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        let aimed = [centre[0] - along[1] * off, centre[1] + along[0] * off];
        let (ax, ay) = (aimed[0] - start[0], aimed[1] - start[1]);
        let to_aim = ax.hypot(ay).max(1e-3);
        // Past the body (up to the world's diagonal), near where it would be met, or short.
        let length = match rng.random_range(0..3) {
            0 => rng.random_range(to_aim..(to_aim + 2.0 * RANGE)),
            1 => to_aim - radius + rng.random_range(-0.1..0.1) * radius.max(1.0),
            _ => rng.random_range(0.0..to_aim),
        }
        .max(1e-3);
        let m = mask(&mut rng);
        rays.push(json!({"x": start[0], "y": start[1], "dx": ax / to_aim * length, "dy": ay / to_aim * length, "mask": m}));
        // A point and a box about the body's boundary.
        let [px, py] = direction(&mut rng);
        let r = radius * rng.random_range(0.0..1.3);
        let p = [centre[0] + px * r, centre[1] + py * r];
        let m = mask(&mut rng);
        points.push(json!({"x": p[0], "y": p[1], "mask": m}));
        let half = [
            log_uniform(&mut rng, 1e-3, 600.0),
            log_uniform(&mut rng, 1e-3, 600.0),
        ];
        let m = mask(&mut rng);
        boxes.push(json!({"min": [p[0] - half[0], p[1] - half[1]], "max": [p[0] + half[0], p[1] + half[1]], "mask": m}));
    }
    json!({"shapes": shapes, "bodies": bodies, "rays": rays, "points": points, "boxes": boxes})
        .to_string()
}

/// Rays, points and boxes aimed at bodies of every kind across the whole range, on both
/// backends against the oracle; enough of them must hit for the check to mean something.
#[test]
fn queries_of_every_kind_are_exact_across_the_range() {
    let (mut hits, mut listed, mut asked) = (0, 0, 0);
    for seed in seeds(3) {
        let text = query_scene(60, 400, seed);
        let scene = Scene::from_json(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let found = answers(&format!("queries across the range, seed {seed}"), &scene);
        hits += found.rays.iter().flatten().count();
        listed += found
            .points
            .iter()
            .chain(&found.boxes)
            .filter(|l| !l.is_empty())
            .count();
        asked += 400;
    }
    assert!(hits * 5 >= asked, "only {hits} of {asked} rays hit");
    assert!(
        listed * 5 >= asked * 2,
        "only {listed} of {} points and boxes found a body",
        2 * asked
    );
}

/// A still scene of 60 pairs, each of a kind of `kinds_a` and one of `kinds_b`, placed
/// anywhere in the range from deep overlap to just apart.
fn contact_scene(kinds_a: &[Kind], kinds_b: &[Kind], seed: u64) -> String {
    let mut rng = Pcg64::seed_from_u64(seed);
    let (mut shapes, mut bodies) = (Vec::new(), Vec::new());
    while bodies.len() < 120 {
        let a = kinds_a[rng.random_range(0..kinds_a.len())];
        let b = kinds_b[rng.random_range(0..kinds_b.len())];
        let (ma, mb) = (make_shape(&mut rng, a), make_shape(&mut rng, b));
        let ca = [
            rng.random_range(-RANGE..RANGE),
            rng.random_range(-RANGE..RANGE),
        ];
        let [x, y] = direction(&mut rng);
        let apart = (ma.radius + mb.radius) * rng.random_range(0.0..1.05);
        let cb = [ca[0] + x * apart, ca[1] + y * apart];
        let still = [0.0, 0.0];
        push_pair(
            &mut shapes,
            &mut bodies,
            (ma, ca, still),
            (mb, cb, still),
            &mut rng,
        );
    }
    json!({"shapes": shapes, "bodies": bodies}).to_string()
}

/// Pairs of every kind pair of version 1 placed anywhere in the range, from deep overlap
/// to just apart, their contacts on both backends against the oracle.
#[test]
fn contacts_of_every_kind_pair_are_exact_across_the_range() {
    let kinds = [Kind::Polygon, Kind::Circle, Kind::Bitmask];
    let mut touching = 0;
    for seed in seeds(3) {
        let text = contact_scene(&kinds, &kinds, 1000 + seed);
        touching += contacts(&format!("contacts across the range, seed {seed}"), &text).len();
    }
    assert!(
        touching >= 60,
        "only {touching} contacts in 180 placed pairs"
    );
}

/// Capsules, outlines and compounds placed against bodies of every kind anywhere in the
/// range, their contacts (one for each pair of touching parts) on both backends against
/// the oracle of the parts `gpu-collide shapes` lists.
#[test]
fn contacts_of_the_new_kinds_are_exact_across_the_range() {
    let new = [Kind::Capsule, Kind::Concave, Kind::Compound];
    let (mut touching, mut of_parts) = (0, 0);
    for seed in seeds(3) {
        let text = contact_scene(&new, &Kind::ALL, 2000 + seed);
        let what = format!("contacts of the new kinds across the range, seed {seed}");
        let found =
            crate::compounds::check_part_contacts(&what, &format!("range-{seed}.json"), &text);
        touching += found.len();
        of_parts += found
            .iter()
            .filter(|c| c.parts.is_some_and(|p| p != [0, 0]))
            .count();
    }
    assert!(
        touching >= 60 && of_parts >= 30,
        "only {touching} contacts, {of_parts} of parts past the first, in 180 placed pairs"
    );
}
