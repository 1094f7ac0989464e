//! Self-tests of the oracle: hand-made cases with known answers.

use super::*;
use serde_json::json;
use std::f64::consts::{FRAC_PI_2, SQRT_2};

fn rect(hw: f64, hh: f64) -> Value {
    json!({"polygon": [[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]]})
}

fn run(scene: &Value) -> OracleResult {
    // Go through the text form too, as the tests of the crate will. serde_json's default
    // float parsing may be one ulp off, so touching pairs may flip, but only in the band.
    let by_text = oracle(&scene.to_string());
    let by_value = oracle_value(scene);
    let flipped: Vec<_> = by_text
        .pairs
        .symmetric_difference(&by_value.pairs)
        .collect();
    assert!(
        flipped
            .iter()
            .all(|p| by_text.band.contains(*p) && by_value.band.contains(*p)),
        "text and value disagree outside the band: {flipped:?}"
    );
    by_value
}

fn set(pairs: &[[u32; 2]]) -> BTreeSet<[u32; 2]> {
    pairs.iter().copied().collect()
}

#[test]
fn plus_sign_collides_without_any_vertex_inside() {
    let scene = json!({
        "shapes": [rect(5.0, 1.0), rect(1.0, 5.0)],
        "bodies": [{"shape": 0, "x": 0.0, "y": 0.0}, {"shape": 1, "x": 0.0, "y": 0.0}]
    });
    let r = run(&scene);
    assert_eq!(r.pairs, set(&[[0, 1]]));
    assert!(r.band.is_empty());
    assert!((signed_distance(&scene, 0, 1) + 6.0).abs() < 1e-12);
}

#[test]
fn circle_off_square_corner_with_small_gap() {
    let off = 1.0 + 1.05 / SQRT_2;
    let scene = json!({
        "shapes": [rect(1.0, 1.0), {"circle": 1.0}],
        "bodies": [{"shape": 0, "x": 0.0, "y": 0.0}, {"shape": 1, "x": off, "y": off}]
    });
    let r = run(&scene);
    assert!(r.pairs.is_empty() && r.band.is_empty());
    assert!((signed_distance(&scene, 0, 1) - 0.05).abs() < 1e-12);
}

#[test]
fn touching_edges_collide_and_are_in_band() {
    let scene = json!({
        "shapes": [rect(1.0, 1.0), {"circle": 0.5}],
        "bodies": [
            {"shape": 0, "x": 0.0, "y": 0.0},
            {"shape": 0, "x": 2.0, "y": 0.5},
            {"shape": 1, "x": 0.0, "y": -1.5}
        ]
    });
    let r = run(&scene);
    assert_eq!(r.pairs, set(&[[0, 1], [0, 2]]));
    assert_eq!(r.band, set(&[[0, 1], [0, 2]]));
}

#[test]
fn signed_distance_of_sliding_squares_is_continuous() {
    // Squares of half-width 1, centres t apart along x and 0.3 along y: d = t - 2 both
    // sides of contact, until pushing apart along y (1.7) becomes the shorter way out.
    for step in 0..=40 {
        let t = step as f64 * 0.1;
        let expected = (t - 2.0).max(-1.7);
        let scene = json!({
            "shapes": [rect(1.0, 1.0)],
            "bodies": [{"shape": 0, "x": 0.0, "y": 0.0}, {"shape": 0, "x": t, "y": 0.3}]
        });
        let d = signed_distance(&scene, 0, 1);
        assert!((d - expected).abs() < 1e-12, "t = {t}: d = {d}");
    }
}

#[test]
fn containment_collides() {
    let scene = json!({
        "shapes": [rect(10.0, 10.0), {"polygon": [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]}, {"circle": 0.2}],
        "bodies": [
            {"shape": 0, "x": 0.0, "y": 0.0},
            {"shape": 1, "x": 3.0, "y": 2.0},
            {"shape": 2, "x": -4.0, "y": 5.0}
        ]
    });
    let r = run(&scene);
    assert_eq!(r.pairs, set(&[[0, 1], [0, 2]]));
    assert!(r.band.is_empty());
    // Circle centre 5 from the top edge (y = 10), inside: -(5 + 0.2).
    assert!((signed_distance(&scene, 0, 2) + 5.2).abs() < 1e-12);
}

#[test]
fn identical_bodies_collide() {
    let scene = json!({
        "shapes": [{"polygon": [[0.0, 0.0], [0.0, 2.0], [3.0, 1.0]]}, {"circle": 1.5}],
        "bodies": [
            {"shape": 0, "x": 7.0, "y": -3.0, "angle": 0.7},
            {"shape": 0, "x": 7.0, "y": -3.0, "angle": 0.7},
            {"shape": 1, "x": -20.0, "y": 0.0},
            {"shape": 1, "x": -20.0, "y": 0.0}
        ]
    });
    let r = run(&scene);
    assert_eq!(r.pairs, set(&[[0, 1], [2, 3]]));
    assert!(r.band.is_empty());
}

#[test]
fn rotation_by_quarter_turn() {
    // A 10 x 1 bar turned by pi/2 stands upright: it misses a circle at (3, 0) that the
    // unturned bar would hit, and hits one at (0, 4).
    let scene = json!({
        "shapes": [rect(5.0, 0.5), {"circle": 1.0}, {"circle": 0.5}],
        "bodies": [
            {"shape": 0, "x": 0.0, "y": 0.0, "angle": FRAC_PI_2},
            {"shape": 1, "x": 3.0, "y": 0.0},
            {"shape": 2, "x": 0.0, "y": 4.0}
        ]
    });
    let r = run(&scene);
    assert_eq!(r.pairs, set(&[[0, 2]]));
    assert!((signed_distance(&scene, 0, 1) - 1.5).abs() < 1e-12);
    let mut unturned = scene.clone();
    unturned["bodies"][0]["angle"] = json!(0.0);
    assert_eq!(run(&unturned).pairs, set(&[[0, 1]]));
}

#[test]
fn filters_must_agree_both_ways() {
    let scene = json!({
        "shapes": [{"circle": 1.0}],
        "bodies": [
            // 0 and 1: layer0 & mask1 = 1, layer1 & mask0 = 0 -> no pair.
            {"shape": 0, "x": 0.0, "y": 0.0, "layer": 1, "mask": 1},
            {"shape": 0, "x": 0.5, "y": 0.0, "layer": 2, "mask": 1},
            // 2 and 3: the other direction only -> no pair.
            {"shape": 0, "x": 10.0, "y": 0.0, "layer": 2, "mask": 1},
            {"shape": 0, "x": 10.5, "y": 0.0, "layer": 1, "mask": 4},
            // 4 and 5: both ways -> pair; 5 has default filters.
            {"shape": 0, "x": 20.0, "y": 0.0, "layer": 8, "mask": 16},
            {"shape": 0, "x": 20.5, "y": 0.0}
        ]
    });
    let r = run(&scene);
    assert_eq!(r.pairs, set(&[[4, 5]]));
}

#[test]
fn bitmask_at_negative_offsets() {
    // Set cells (0,0) -> [-10,-9]x[-7,-6] and (2,2) -> [-8,-7]x[-5,-4].
    let scene = json!({
        "shapes": [
            {"bitmask": {"width": 3, "height": 3, "rows": ["#..", "...", "..#"]}},
            {"circle": 0.3}
        ],
        "bodies": [
            {"shape": 0, "x": -10, "y": -7},
            {"shape": 1, "x": -7.5, "y": -4.5},
            {"shape": 1, "x": -8.5, "y": -5.5},
            {"shape": 1, "x": -9.5, "y": -6.5}
        ]
    });
    let r = run(&scene);
    assert_eq!(r.pairs, set(&[[0, 1], [0, 3]]));
    assert!(r.band.is_empty());
    // Centre cell is clear: nearest set corner (-8, -5) is sqrt(0.5) away.
    assert!((signed_distance(&scene, 0, 2) - (0.5f64.sqrt() - 0.3)).abs() < 1e-12);
}

#[test]
fn bitmasks_sharing_only_an_edge_or_corner_do_not_collide() {
    let scene = json!({
        "shapes": [{"bitmask": {"width": 2, "height": 2, "rows": ["##", "##"]}}],
        "bodies": [
            {"shape": 0, "x": 0, "y": 0},
            {"shape": 0, "x": 2, "y": 0},
            {"shape": 0, "x": 2, "y": 2},
            {"shape": 0, "x": 100, "y": 100},
            {"shape": 0, "x": 101, "y": 101}
        ]
    });
    let r = run(&scene);
    assert_eq!(r.pairs, set(&[[3, 4]]));
    assert!(r.band.is_empty(), "bitmask pairs are never in the band");
    assert_eq!(signed_distance(&scene, 0, 1), 1.0);
    assert_eq!(signed_distance(&scene, 3, 4), -1.0);
}

#[test]
fn bitmasks_with_overlapping_frames_but_disjoint_cells() {
    let scene = json!({
        "shapes": [
            {"bitmask": {"width": 2, "height": 2, "rows": ["#.", ".#"]}},
            {"bitmask": {"width": 2, "height": 2, "rows": [".#", "#."]}}
        ],
        "bodies": [{"shape": 0, "x": 3, "y": 3}, {"shape": 1, "x": 3, "y": 3}]
    });
    assert!(run(&scene).pairs.is_empty());
}

#[test]
fn circle_touching_bitmask_cell_from_a_diagonal() {
    // The only set cell is [0,1]x[0,1]; its clear neighbours must not count.
    let scene_with_circle = |radius: f64, x: f64, y: f64| {
        json!({
            "shapes": [
                {"bitmask": {"width": 2, "height": 2, "rows": ["#.", ".."]}},
                {"circle": radius}
            ],
            "bodies": [{"shape": 0, "x": 0, "y": 0}, {"shape": 1, "x": x, "y": y}]
        })
    };
    // Exactly touching the corner (1, 1) from (4, 5): a 3-4-5 triangle, no rounding.
    let r = run(&scene_with_circle(5.0, 4.0, 5.0));
    assert_eq!(r.pairs, set(&[[0, 1]]));
    assert_eq!(r.band, set(&[[0, 1]]));
    // Touching at 45 degrees: rounding may land either side, but it is in the band.
    let touch = 1.0 + 1.0 / SQRT_2;
    let r = run(&scene_with_circle(1.0, touch, touch));
    assert_eq!(r.band, set(&[[0, 1]]));
    // Same direction, 0.05 away: decided, no pair.
    let gap = 1.0 + 1.05 / SQRT_2;
    let scene = scene_with_circle(1.0, gap, gap);
    let r = run(&scene);
    assert!(r.pairs.is_empty() && r.band.is_empty());
    assert!((signed_distance(&scene, 0, 1) - 0.05).abs() < 1e-12);
}

#[test]
fn polygon_inside_a_bitmask_hole_does_not_collide() {
    // Hole is the cell [6,7]x[6,7]; a square of half-size 0.3 at its centre leaves 0.2.
    let scene = json!({
        "shapes": [
            {"bitmask": {"width": 3, "height": 3, "rows": ["###", "#.#", "###"]}},
            rect(0.3, 0.3),
            rect(0.6, 0.6)
        ],
        "bodies": [
            {"shape": 0, "x": 5, "y": 5},
            {"shape": 1, "x": 6.5, "y": 6.5, "angle": 0.3},
            {"shape": 2, "x": 6.5, "y": 106.5}
        ]
    });
    let r = run(&scene);
    assert!(r.pairs.is_empty() && r.band.is_empty());
    // The same hole with a square larger than it does collide.
    let bigger = json!({
        "shapes": scene["shapes"],
        "bodies": [{"shape": 0, "x": 5, "y": 5}, {"shape": 2, "x": 6.5, "y": 6.5}]
    });
    assert_eq!(run(&bigger).pairs, set(&[[0, 1]]));
}

#[test]
fn spec_example_scene() {
    let scene = json!({
        "shapes": [
            {"polygon": [[-9.0, -8.0], [9.0, -8.0], [0.0, 12.0]]},
            {"circle": 2.5},
            {"bitmask": {"width": 5, "height": 3, "rows": [".###.", "#####", ".#.#."]}}
        ],
        "bodies": [
            {"shape": 0, "x": 100.0, "y": 40.0, "angle": 0.5},
            {"shape": 1, "x": 104.0, "y": 52.0, "layer": 4, "mask": 2},
            {"shape": 2, "x": 90, "y": 35}
        ]
    });
    let text = scene.to_string();
    let r = oracle(&text);
    // The triangle's left edge passes about 0.29 right of the bitmask's cells, and
    // body 1 meets no one's filters (its layer 4 is in no mask of 2, its mask 2 in no layer 4).
    assert!(r.pairs.is_empty() && r.band.is_empty());
    let d = signed_distance(&scene, 0, 2);
    assert!((0.25..0.33).contains(&d), "d = {d}");
    // Nearest set cell corner to the circle centre (104, 52) is (94, 38).
    assert!((signed_distance(&scene, 1, 2) - (296f64.sqrt() - 2.5)).abs() < 1e-12);
}

#[test]
fn compare_sorts_errors_from_band_pairs() {
    let r = OracleResult {
        pairs: set(&[[0, 1], [2, 3], [4, 5]]),
        band: set(&[[4, 5], [6, 7]]),
    };
    let c = compare(&[[0, 1], [0, 1], [4, 5], [8, 9], [7, 6]], &r);
    assert_eq!(c.false_positives, vec![[7, 6], [8, 9]]);
    assert_eq!(c.false_negatives, vec![[2, 3]]);
    assert_eq!((c.band_reported, c.band_not_reported), (1, 1));
    assert!(!c.is_exact_outside_band());
    let ok = compare(&[[0, 1], [2, 3], [6, 7]], &r);
    assert!(ok.is_exact_outside_band());
}

/// Small deterministic generator, so that the tests need no extra crate.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

fn random_scene(n: usize, extent: f64, seed: u64) -> Value {
    let mut rng = Lcg(seed);
    let mut rows = Vec::new();
    for _ in 0..40 {
        rows.push(
            (0..40)
                .map(|_| if rng.next() < 0.3 { '#' } else { '.' })
                .collect::<String>(),
        );
    }
    let shapes = json!([
        {"polygon": [[-1.0, -0.5], [1.0, -0.5], [1.2, 0.4], [0.0, 1.0], [-1.1, 0.3]]},
        {"circle": 0.7},
        rect(2.0, 0.2),
        {"polygon": [[0.0, 0.0], [0.3, 0.0], [0.0, 0.3]]},
        {"bitmask": {"width": 40, "height": 40, "rows": rows}},
        {"bitmask": {"width": 3, "height": 2, "rows": ["#.#", "###"]}}
    ]);
    let bodies: Vec<Value> = (0..n)
        .map(|k| {
            let shape = if k % 97 == 5 { 4 } else { (rng.next() * 4.0) as usize + (k % 13 == 0) as usize * 5 };
            let shape = shape.min(5);
            let (x, y) = (rng.range(-extent, extent), rng.range(-extent, extent));
            let layer = 1u32 << (rng.next() * 3.0) as u32;
            let mask = if rng.next() < 0.8 { u32::MAX } else { layer };
            if shape >= 4 {
                json!({"shape": shape, "x": x.floor(), "y": y.floor(), "layer": layer, "mask": mask})
            } else {
                json!({"shape": shape, "x": x, "y": y, "angle": rng.range(-4.0, 4.0), "layer": layer, "mask": mask})
            }
        })
        .collect();
    json!({"shapes": shapes, "bodies": bodies})
}

/// Part of `subject` on the inner side of every edge of the convex counter-clockwise
/// `clipper` (Sutherland-Hodgman): a route to "do they overlap" that shares nothing with
/// the segment tests above.
fn clip(subject: &[V], clipper: &[V]) -> Vec<V> {
    let mut out = subject.to_vec();
    for (a, b) in edges(clipper) {
        let input = std::mem::take(&mut out);
        for k in 0..input.len() {
            let (p, q) = (input[k], input[(k + 1) % input.len()]);
            let (sp, sq) = (orient(a, b, p), orient(a, b, q));
            if sp >= 0.0 {
                out.push(p);
            }
            if (sp >= 0.0) != (sq >= 0.0) {
                out.push(p.add(q.sub(p).scale(sp / (sp - sq))));
            }
        }
    }
    out
}

fn random_convex(rng: &mut Lcg, at: V) -> Vec<V> {
    let n = 3 + (rng.next() * 8.0) as usize;
    let (ax, ay, turn) = (
        rng.range(0.2, 3.0),
        rng.range(0.2, 3.0),
        rng.range(0.0, 6.3),
    );
    let mut angles: Vec<f64> = (0..n)
        .map(|_| rng.range(0.0, std::f64::consts::TAU))
        .collect();
    angles.sort_by(f64::total_cmp);
    let (s, c) = turn.sin_cos();
    // Points of an ellipse in angular order are convex and counter-clockwise.
    angles
        .iter()
        .map(|t| {
            let (x, y) = (ax * t.cos(), ay * t.sin());
            at.add(V::new(c * x - s * y, s * x + c * y))
        })
        .collect()
}

#[test]
fn polygon_verdicts_agree_with_clipping() {
    let mut rng = Lcg(3);
    let (mut apart, mut overlapping) = (0, 0);
    for _ in 0..20_000 {
        let a = random_convex(&mut rng, V::new(0.0, 0.0));
        let at = V::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0));
        let b = random_convex(&mut rng, at);
        if doubled_area(&a) < 1e-3 || doubled_area(&b) < 1e-3 {
            continue;
        }
        let d = polygon_polygon(&a, &b);
        assert_eq!(d, polygon_polygon(&b, &a));
        let common = doubled_area(&clip(&a, &b)).abs() / 2.0;
        if d > BAND {
            apart += 1;
            assert!(
                common < 1e-9,
                "d = {d} but they share area {common}: {a:?} {b:?}"
            );
        } else if d < -BAND {
            overlapping += 1;
            assert!(common > 0.0, "d = {d} but they share no area: {a:?} {b:?}");
        }
    }
    assert!(
        apart > 1000 && overlapping > 1000,
        "{apart} apart, {overlapping} overlapping"
    );
}

#[test]
fn broad_phase_misses_nothing_and_distance_is_symmetric() {
    let scene_value = random_scene(400, 25.0, 7);
    let fast = oracle_value(&scene_value);
    let scene = Scene::parse(&scene_value);
    let placed: Vec<Placed> = (0..scene.bodies.len()).map(|i| scene.place(i)).collect();
    let mut pairs = BTreeSet::new();
    let mut band = BTreeSet::new();
    for i in 0..placed.len() {
        for j in i + 1..placed.len() {
            let d = placed_distance(&placed[i], &placed[j], MARGIN);
            let d_swapped = placed_distance(&placed[j], &placed[i], MARGIN);
            assert!(
                d == d_swapped || (d < -BAND && d_swapped < -BAND),
                "{i} {j}: {d} vs {d_swapped}"
            );
            if !scene.filters_agree(i, j) {
                continue;
            }
            if d <= 0.0 {
                pairs.insert([i as u32, j as u32]);
            }
            if !(placed[i].is_bitmask() && placed[j].is_bitmask()) && d.abs() <= BAND {
                band.insert([i as u32, j as u32]);
            }
        }
    }
    assert!(
        pairs.len() > 50,
        "scene too sparse to test anything: {}",
        pairs.len()
    );
    assert_eq!(fast.pairs, pairs);
    assert_eq!(fast.band, band);
}

#[test]
fn hundred_thousand_bodies_finish() {
    let scene = random_scene(100_000, 800.0, 11);
    let start = std::time::Instant::now();
    let r = oracle_value(&scene);
    let took = start.elapsed();
    assert!(!r.pairs.is_empty());
    eprintln!(
        "100k bodies: {} pairs, {} band, {took:?}",
        r.pairs.len(),
        r.band.len()
    );
}

fn capsule(a: [f64; 2], b: [f64; 2], radius: f64) -> Value {
    json!({"capsule": {"a": a, "b": b, "radius": radius}})
}

#[test]
fn a_laser_and_a_circle_are_apart_by_the_gap_between_their_rims() {
    for (gap, collides, in_band) in [
        (0.05, false, false),
        (0.005, false, true),
        (-0.2, true, false),
    ] {
        let scene = json!({
            "shapes": [capsule([-20.0, 0.0], [20.0, 0.0], 0.5), {"circle": 1.0}],
            "bodies": [{"shape": 0, "x": 0.0, "y": 0.0}, {"shape": 1, "x": 13.0, "y": 1.5 + gap}]
        });
        let r = run(&scene);
        assert_eq!(r.pairs.contains(&[0, 1]), collides, "gap {gap}");
        assert_eq!(r.band.contains(&[0, 1]), in_band, "gap {gap}");
        assert!(
            (signed_distance(&scene, 0, 1) - gap).abs() < 1e-12,
            "gap {gap}"
        );
        // Past the laser's end the round cap decides: 3-4-5 from the end point.
        let scene = json!({
            "shapes": [capsule([-20.0, 0.0], [20.0, 0.0], 0.5), {"circle": 1.0}],
            "bodies": [{"shape": 0, "x": 0.0, "y": 0.0}, {"shape": 1, "x": 23.0, "y": 4.0}]
        });
        assert!((signed_distance(&scene, 0, 1) - 3.5).abs() < 1e-12);
    }
}

#[test]
fn segments_and_points_have_no_area_but_touch() {
    let scene = json!({
        "shapes": [
            rect(1.0, 1.0),
            capsule([0.0, 0.0], [0.0, 4.0], 0.0),
            capsule([0.0, 0.0], [0.0, 0.0], 0.0),
            capsule([-1.0, 0.0], [1.0, 0.0], 0.0),
        ],
        "bodies": [
            {"shape": 0, "x": 0.0, "y": 0.0},
            // A segment standing on the square's top edge.
            {"shape": 1, "x": 0.3, "y": 1.0},
            // A point at the square's centre: as deep as the nearest side is far.
            {"shape": 2, "x": 0.0, "y": 0.2},
            // A point 0.5 above the segment's top, then one on another point.
            {"shape": 2, "x": 0.3, "y": 5.5},
            {"shape": 2, "x": 0.3, "y": 5.5},
            // A segment along the first one, overlapping it, then one crossing it.
            {"shape": 1, "x": 0.3, "y": 3.0},
            {"shape": 3, "x": 0.3, "y": 3.0},
        ]
    });
    let r = run(&scene);
    assert!(r.pairs.contains(&[0, 1]) && r.band.contains(&[0, 1]));
    assert!((signed_distance(&scene, 0, 2) + 0.8).abs() < 1e-12);
    assert!(r.pairs.contains(&[0, 2]) && !r.band.contains(&[0, 2]));
    assert!((signed_distance(&scene, 1, 3) - 0.5).abs() < 1e-12);
    assert!(!r.pairs.contains(&[1, 3]));
    // Point on point, and segments overlapping along one line: no area, depth 0, in the
    // band. Crossing segments are as deep as the shorter push that parts them.
    assert!(r.pairs.contains(&[3, 4]) && r.band.contains(&[3, 4]));
    assert_eq!(signed_distance(&scene, 3, 4), 0.0);
    assert!(r.pairs.contains(&[1, 5]) && r.band.contains(&[1, 5]));
    assert!((signed_distance(&scene, 1, 6) + 1.0).abs() < 1e-12);
    assert!(r.pairs.contains(&[1, 6]) && !r.band.contains(&[1, 6]));
}

#[test]
fn a_laser_through_a_mask_meets_its_set_cells_only() {
    let scene = json!({
        "shapes": [
            {"bitmask": {"width": 3, "height": 1, "rows": ["#.#"]}},
            capsule([0.0, 0.0], [0.0, 10.0], 0.2),
        ],
        "bodies": [
            {"shape": 0, "x": 0, "y": 0},
            // Down the middle of the clear cell, 0.3 from each set one.
            {"shape": 1, "x": 1.5, "y": -5.0},
            // 0.1 into the right set cell.
            {"shape": 1, "x": 1.9, "y": -5.0},
        ]
    });
    let r = run(&scene);
    assert!((signed_distance(&scene, 0, 1) - 0.3).abs() < 1e-12);
    assert!(!r.pairs.contains(&[0, 1]));
    assert!((signed_distance(&scene, 0, 2) + 0.1).abs() < 1e-12);
    assert!(r.pairs.contains(&[0, 2]) && !r.band.contains(&[0, 2]));
}

#[test]
fn a_circle_in_a_concave_notch_misses_what_the_hull_would_hit() {
    // A U: the notch is x in [3, 7], y above 3.
    let u =
        json!({"concave": [[0, 0], [10, 0], [10, 10], [7, 10], [7, 3], [3, 3], [3, 10], [0, 10]]});
    let scene = json!({
        "shapes": [u, {"circle": 1.0}],
        "bodies": [
            {"shape": 0, "x": 0.0, "y": 0.0},
            {"shape": 1, "x": 5.0, "y": 7.0},
            {"shape": 1, "x": 5.0, "y": 3.5},
            {"shape": 1, "x": 8.5, "y": 5.0},
            // Outside, beside the right arm: 0.004 off its side.
            {"shape": 1, "x": 11.004, "y": 5.0},
        ]
    });
    let r = run(&scene);
    assert!((signed_distance(&scene, 0, 1) - 1.0).abs() < 1e-12);
    assert!(!r.pairs.contains(&[0, 1]));
    assert!(r.pairs.contains(&[0, 2]) && !r.band.contains(&[0, 2]));
    assert!(r.pairs.contains(&[0, 3]) && !r.band.contains(&[0, 3]));
    assert!(!r.pairs.contains(&[0, 4]) && r.band.contains(&[0, 4]));
    // Either winding, and straight vertices along a side, give the same region.
    let turned = json!({"concave": [[0, 10], [3, 10], [3, 3], [5, 3], [7, 3], [7, 10], [10, 10], [10, 5], [10, 0], [0, 0]]});
    let again = json!({"shapes": [turned, {"circle": 1.0}], "bodies": scene["bodies"]});
    assert_eq!(run(&again).pairs, r.pairs);
}

#[test]
fn a_compound_is_the_union_of_its_placed_parts() {
    let scene = json!({
        "shapes": [
            {"compound": [
                {"shape": 1, "x": -3.0},
                {"shape": 1, "x": 3.0, "angle": FRAC_PI_2},
                {"shape": 2, "y": 4.0},
            ]},
            rect(1.0, 2.0),
            capsule([0.0, 0.0], [2.0, 0.0], 0.5),
            {"circle": 0.5},
        ],
        "bodies": [
            {"shape": 0, "x": 100.0, "y": 0.0},
            // Between the two boxes: 1.5 from the left, 0.5 from the right one, which the
            // turn makes 4 wide.
            {"shape": 3, "x": 100.0, "y": 0.0},
            // 0.1 into the right box.
            {"shape": 3, "x": 105.4, "y": 0.0},
            // Above the capsule part's far end.
            {"shape": 3, "x": 102.0, "y": 5.2},
        ]
    });
    let r = run(&scene);
    assert!((signed_distance(&scene, 0, 1) - 0.5).abs() < 1e-9);
    assert!(!r.pairs.contains(&[0, 1]));
    assert!(r.pairs.contains(&[0, 2]));
    assert!((signed_distance(&scene, 0, 3) - 0.2).abs() < 1e-9);
    assert!(!r.pairs.contains(&[0, 3]));
}

#[test]
fn a_point_bullet_meets_a_wall_when_it_reaches_it() {
    let scene = json!({
        "shapes": [rect(0.5, 10.0), capsule([0.0, 0.0], [0.0, 0.0], 0.0)],
        "bodies": [
            {"shape": 0, "x": 0.0, "y": 0.0},
            {"shape": 1, "x": -10.5, "y": 0.0, "vx": 40.0, "vy": 0.0},
        ]
    });
    let truth = super::motion::swept_oracle(&scene.to_string());
    let entry = truth.entries[&[0, 1]];
    let toi = entry.toi.expect("the bullet reaches the wall");
    assert!((toi - 0.25).abs() < 1e-9, "{toi}");
}
