//! Hand-made cases with known answers, one or more for every pair of shape kinds.
//! Each runs on the CPU reference, on the GPU and through the independent f64 oracle;
//! all three must give exactly the expected pairs.

use serde_json::{json, Value};

use crate::oracle;
use crate::support::{cpu_pairs, gpu, gpu_pairs, reference_pairs};
use gpu_collide::{Pair, Scene};

const SQRT_HALF: f64 = std::f64::consts::FRAC_1_SQRT_2;

fn rect(w: f64, h: f64) -> Value {
    let (w, h) = (w / 2.0, h / 2.0);
    json!({"polygon": [[-w, -h], [w, -h], [w, h], [-w, h]]})
}

fn body(shape: u32, x: f64, y: f64) -> Value {
    json!({"shape": shape, "x": x, "y": y})
}

fn turned(shape: u32, x: f64, y: f64, angle: f64) -> Value {
    json!({"shape": shape, "x": x, "y": y, "angle": angle})
}

fn filtered(shape: u32, x: f64, y: f64, layer: u32, mask: u32) -> Value {
    json!({"shape": shape, "x": x, "y": y, "layer": layer, "mask": mask})
}

fn bitmask(rows: &[&str]) -> Value {
    json!({"bitmask": {"width": rows[0].len(), "height": rows.len(), "rows": rows}})
}

/// Runs the scene on every backend and the oracle; all must find exactly `expected`.
/// `touching` lists expected pairs that only touch (the oracle puts them in the band).
fn check(name: &str, shapes: Vec<Value>, bodies: Vec<Value>, expected: &[Pair], touching: &[Pair]) {
    let text = json!({"shapes": shapes, "bodies": bodies}).to_string();
    let scene = Scene::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(reference_pairs(&scene), expected, "{name}: reference");
    assert_eq!(cpu_pairs(&scene), expected, "{name}: cpu");
    if let Some(context) = gpu() {
        assert_eq!(gpu_pairs(&context, &scene), expected, "{name}: gpu");
    }
    let truth = oracle::oracle(&text);
    for pair in expected {
        let p = *pair;
        if touching.contains(pair) {
            assert!(
                truth.band.contains(&p),
                "{name}: oracle should see {p:?} touch"
            );
        } else {
            assert!(
                truth.pairs.contains(&p) && !truth.band.contains(&p),
                "{name}: oracle misses {p:?}"
            );
        }
    }
    for p in &truth.pairs {
        assert!(
            expected.contains(p),
            "{name}: oracle finds unexpected {p:?}"
        );
    }
}

#[test]
fn bars_crossing_as_a_plus_sign() {
    // No vertex of either bar is inside the other: only the edges cross.
    let half_turn = std::f64::consts::FRAC_PI_2;
    check(
        "plus",
        vec![rect(10.0, 1.0)],
        vec![
            turned(0, 0.0, 0.0, 0.0),
            turned(0, 0.0, 0.0, half_turn),
            turned(0, 16000.5, -16000.25, 0.0),
            turned(0, 16000.5, -16000.25, half_turn),
            // A vertical bar beside the cross, 0.5 clear of the horizontal bar's end.
            turned(0, 6.0, 6.0, half_turn),
        ],
        &[[0, 1], [2, 3]],
        &[],
    );
}

#[test]
fn circle_off_a_squares_corner() {
    // The centre lies on the corner's diagonal: the square's own normals see overlap,
    // only the axis to the nearest vertex sees the 0.05 gap.
    let gap = |g: f64| 1.0 + (1.0 + g) * SQRT_HALF;
    check(
        "corner",
        vec![rect(2.0, 2.0), json!({"circle": 1.0})],
        vec![
            body(0, 0.0, 0.0),
            body(1, gap(0.05), gap(0.05)),
            body(0, 100.0, 0.0),
            body(1, 100.0 + gap(-0.05), gap(-0.05)),
            // Straight off an edge, 0.05 clear.
            body(0, 200.0, 0.0),
            body(1, 202.05, 0.0),
        ],
        &[[2, 3]],
        &[],
    );
}

#[test]
fn touching_edges_and_circles_collide() {
    check(
        "touching",
        vec![rect(2.0, 2.0), json!({"circle": 1.0})],
        vec![
            body(0, 0.0, 0.0),
            body(0, 2.0, 0.0),
            body(1, 0.0, 10.0),
            body(1, 2.0, 10.0),
            body(0, 0.0, 20.0),
            body(1, 2.0, 20.0),
            // 0.05 apart: no contact.
            body(0, 10.0, 30.0),
            body(0, 12.05, 30.0),
        ],
        &[[0, 1], [2, 3], [4, 5]],
        &[[0, 1], [2, 3], [4, 5]],
    );
}

#[test]
fn full_containment() {
    check(
        "containment",
        vec![
            rect(100.0, 100.0),
            json!({"polygon": [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]}),
            json!({"circle": 1.0}),
            json!({"circle": 50.0}),
        ],
        vec![
            body(0, 0.0, 0.0),
            body(1, 10.0, 10.0),
            body(2, -20.0, 5.0),
            body(3, 500.0, 500.0),
            body(1, 505.0, 495.0),
            body(0, 560.0, 500.0),
        ],
        &[[0, 1], [0, 2], [3, 4], [3, 5]],
        &[],
    );
}

#[test]
fn identical_bodies_collide() {
    check(
        "identical",
        vec![
            json!({"polygon": [[0.0, 0.0], [3.0, 0.5], [1.0, 2.0]]}),
            json!({"circle": 0.25}),
            bitmask(&["#.", ".#"]),
        ],
        vec![
            turned(0, 5.0, 5.0, 0.7),
            turned(0, 5.0, 5.0, 0.7),
            body(1, 20.0, 0.0),
            body(1, 20.0, 0.0),
            body(2, 40.0, 0.0),
            body(2, 40.0, 0.0),
        ],
        &[[0, 1], [2, 3], [4, 5]],
        &[],
    );
}

#[test]
fn slivers() {
    check(
        "sliver",
        vec![rect(20.0, 0.01), rect(2.0, 2.0)],
        vec![
            turned(0, 0.0, 0.0, 0.3),
            body(1, 3.0, 0.5),
            // Parallel to the square's top edge, 0.1 above it.
            body(0, 100.0, 1.105),
            body(1, 100.0, 0.0),
        ],
        &[[0, 1]],
        &[],
    );
}

#[test]
fn bitmasks_at_negative_offsets() {
    // Mask 0 is 33 wide: its column 32 sits in a second word.
    let mut row0 = ".".repeat(32);
    row0.push('#');
    let mut row1 = "#".to_string();
    row1.push_str(&".".repeat(32));
    check(
        "negative",
        vec![
            bitmask(&[&row0, &row1]),
            bitmask(&["#"]),
            json!({"circle": 0.4}),
        ],
        vec![
            body(0, -40.0, -7.0),
            // Cell (32, 0) of mask 0 is the world cell [-8, -7] x [-7, -6].
            body(1, -8.0, -7.0),
            // One to the right: shares only an edge.
            body(1, -7.0, -7.0),
            // Inside cell (0, 1), the world cell [-40, -39] x [-6, -5].
            body(2, -39.5, -5.5),
            // 0.1 clear of that cell.
            body(2, -38.5, -5.5),
        ],
        &[[0, 1], [0, 3]],
        &[],
    );
}

#[test]
fn bitmask_widths_not_multiple_of_32() {
    let a = format!("#{}#", ".".repeat(43)); // 45 wide, columns 0 and 44
    let b = format!("{}#", ".".repeat(69)); // 70 wide, column 69
    let wide = format!("{}#{}", ".".repeat(40), ".".repeat(29)); // 70 wide, column 40
    check(
        "widths",
        vec![bitmask(&[&a]), bitmask(&[&b]), bitmask(&[&wide])],
        vec![
            body(0, 1000.0, 0.0),
            // Column 69 of mask 1 lands on column 44 of mask 0.
            body(1, 1000.0 + 44.0 - 69.0, 0.0),
            // One further right: it lands beyond mask 0's last column.
            body(1, 1000.0 + 45.0 - 69.0, 10.0),
            body(0, 1000.0, 10.0),
            // Column 40 of mask 2 lands on column 0 of mask 0; the frames overlap widely elsewhere.
            body(2, 1000.0 - 40.0, 20.0),
            body(0, 1000.0, 20.0),
        ],
        &[[0, 1], [4, 5]],
        &[],
    );
}

#[test]
fn filters_that_exclude_one_direction_only() {
    check(
        "filters",
        vec![json!({"circle": 1.0})],
        vec![
            filtered(0, 0.0, 0.0, 1, 2),
            // Body 0 accepts layer 2, but body 1 accepts nothing.
            filtered(0, 0.0, 0.0, 2, 0),
            // Each accepts the other's layer.
            filtered(0, 0.0, 0.0, 2, 1),
        ],
        &[[0, 2]],
        &[],
    );
}

#[test]
fn shapes_in_a_bitmask_hole() {
    // The hole is the world cell [1, 2] x [1, 2]; inner bodies do not test each other.
    let wall = |s: u32| filtered(s, 0.0, 0.0, 1, 2);
    let inside = |s: u32, angle: f64| json!({"shape": s, "x": 1.5, "y": 1.5, "angle": angle, "layer": 2, "mask": 1});
    check(
        "hole",
        vec![
            bitmask(&["###", "#.#", "###"]),
            rect(0.8, 0.8),
            json!({"circle": 0.4}),
            json!({"circle": 0.6}),
        ],
        vec![
            wall(0),
            inside(1, 0.0),
            // Turned 45 degrees its corners reach 0.566 from the centre: into the walls.
            inside(1, std::f64::consts::FRAC_PI_4),
            inside(2, 0.0),
            inside(3, 0.0),
        ],
        &[[0, 2], [0, 4]],
        &[],
    );
}

#[test]
fn circle_and_polygon_against_bitmask_corners() {
    let off = |g: f64| 1.0 + (1.0 + g) * SQRT_HALF;
    let diamond = json!({"polygon": [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]});
    check(
        "mask corners",
        vec![bitmask(&["#"]), json!({"circle": 1.0}), diamond],
        vec![
            body(0, 0.0, 0.0),
            body(1, off(0.05), off(0.05)),
            body(0, 10.0, 0.0),
            body(1, 10.0 + off(-0.05), off(-0.05)),
            // A diamond whose tip points at the cell's right edge, 0.05 away, then 0.04 into it.
            body(0, 20.0, 0.0),
            body(2, 22.05, 0.5),
            body(0, 30.0, 0.0),
            body(2, 31.96, 0.5),
        ],
        &[[2, 3], [6, 7]],
        &[],
    );
}

#[test]
fn empty_and_single_body_scenes_have_no_pairs() {
    check("empty", vec![], vec![], &[], &[]);
    check(
        "single",
        vec![json!({"circle": 1.0})],
        vec![body(0, 0.0, 0.0)],
        &[],
        &[],
    );
}

#[test]
fn large_bitmask_against_a_polygon_and_a_circle() {
    // A 300 x 200 frame with one set pixel, far from its origin.
    let mut rows = vec![".".repeat(300); 200];
    rows[150].replace_range(250..251, "#");
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    check(
        "large mask",
        vec![bitmask(&rows), rect(1.0, 1.0), json!({"circle": 0.5})],
        vec![
            body(0, -100.0, -100.0),
            // The pixel is the world cell [150, 151] x [50, 51].
            turned(1, 150.5, 49.6, 0.2),
            body(2, 152.0, 50.5),
            body(2, 151.45, 50.5),
        ],
        &[[0, 1], [0, 3], [2, 3]],
        &[],
    );
}

/// Touch events keyed by the caller's ids, frame after frame, while bodies are removed
/// from the list: the same events from every backend, and the ones a game expects.
#[test]
fn touch_events_follow_ids_on_every_backend() {
    use gpu_collide::{Body, Circle, Collider, CpuCollider, GpuCollider, Shape, ShapeLibrary};
    use gpu_collide::{TouchEvent, TouchTracker};
    let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))]).expect("library");
    // A ship (id 1) at the origin; bullets (ids 100..) flying left through it, 3 units
    // apart, so that (radius 1) they never touch each other.
    let frames: Vec<Vec<Body>> = (0..6)
        .map(|frame| {
            let mut bodies = vec![Body::new(0, glam::Vec2::ZERO).with_id(1)];
            for k in 0..4u64 {
                // The bullet of id 100 leaves the list after frame 2.
                if k == 0 && frame > 2 {
                    continue;
                }
                let x = 6.0 + 3.0 * k as f32 - 3.0 * frame as f32;
                bodies.push(Body::new(0, glam::Vec2::new(x, 0.0)).with_id(100 + k));
            }
            bodies
        })
        .collect();
    let mut backends: Vec<Box<dyn Collider>> = vec![Box::new(CpuCollider::new(library.clone()))];
    if let Some(context) = crate::support::gpu() {
        backends.push(Box::new(GpuCollider::new(&context, library).expect("gpu")));
    }
    let mut all = Vec::new();
    for collider in &mut backends {
        let mut touches = TouchTracker::new();
        let events: Vec<Vec<TouchEvent>> = frames
            .iter()
            .map(|bodies| {
                let pairs = collider.find_pairs(bodies).expect("frame");
                touches.update(&pairs, bodies).to_vec()
            })
            .collect();
        all.push(events);
    }
    use TouchEvent::{Began, Ended};
    let expected = vec![
        vec![],                             // bullets at 6, 9, 12, 15
        vec![],                             // 3, 6, 9, 12
        vec![Began(1, 100)],                // 0 (on the ship), 3, 6, 9
        vec![Ended(1, 100), Began(1, 101)], // 100 gone; 101 at 0
        vec![Ended(1, 101), Began(1, 102)],
        vec![Ended(1, 102), Began(1, 103)],
    ];
    for events in &all {
        assert_eq!(events, &expected);
    }
}

/// A bar over more cells of a row than the grid's table has buckets: cells 1024 apart in
/// a row share a bucket, so the bar, sweeping the fine cells under it, reads some buckets
/// twice. Each body must still be its candidate once (a grid entry is taken only in its
/// own cell), on every backend: the host's sort would hide a pair found twice, so the
/// candidates are counted.
#[test]
fn a_bar_over_more_cells_than_buckets_finds_each_body_once() {
    use gpu_collide::{glam::Vec2, ShapeLibrary};
    use gpu_collide::{Body, Circle, Collider, CpuCollider, GpuCollider, Polygon, Shape};
    let bar = Polygon::new(vec![
        Vec2::new(-550.0, -0.25),
        Vec2::new(550.0, -0.25),
        Vec2::new(550.0, 0.25),
        Vec2::new(-550.0, 0.25),
    ]);
    let library = ShapeLibrary::new(&[Shape::Polygon(bar), Shape::Circle(Circle::new(0.25))])
        .expect("library");
    // 1000 dots of half a unit along the bar, 1.1 apart: 1001 bodies, a table of 1024
    // buckets, and cells of about a unit, of which the bar covers 1100 in a row.
    let mut bodies = vec![Body::new(0, Vec2::new(550.0, 0.0))];
    bodies.extend((0..1000).map(|k| Body::new(1, Vec2::new(0.5 + 1.1 * k as f32, 0.0))));
    let expected: Vec<Pair> = (1..=1000).map(|j| [0, j]).collect();
    let mut backends: Vec<Box<dyn Collider>> = vec![Box::new(CpuCollider::new(library.clone()))];
    if let Some(context) = gpu() {
        backends.push(Box::new(GpuCollider::new(&context, library).expect("gpu")));
    }
    for collider in &mut backends {
        let pairs = collider.find_pairs(&bodies).expect("frame");
        let name = collider.describe();
        assert_eq!(collider.last_frame().candidates, Some(1000), "{name}");
        assert_eq!(pairs.len(), expected.len(), "{name}");
        assert_eq!(pairs, expected, "{name}");
    }
}

/// The grid's table is laid out around the rectangle the bodies sat in when the grid
/// was chosen (`TableLayout`), and is not chosen again while their shapes and filters
/// stay the same. Bodies that then move far away, spread over many times that
/// rectangle, share buckets: each must still be found once, on every backend.
#[test]
fn bodies_that_leave_the_tables_rectangle_are_found_once() {
    use gpu_collide::grid::cell_size::choose_grid;
    use gpu_collide::grid::TableLayout;
    use gpu_collide::layout::bodies::{body_info, body_transform};
    use gpu_collide::{glam::Vec2, ShapeLibrary};
    use gpu_collide::{Body, Circle, Collider, CpuCollider, GpuCollider, Shape};
    let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(0.6))]).expect("library");
    // 45 x 45 circles a unit apart: each overlaps its four neighbours, and its box
    // overlaps the diagonal ones' too.
    let side = 45usize;
    let grid_at = |block: &dyn Fn(usize) -> Vec2| -> Vec<Body> {
        (0..side * side)
            .map(|k| {
                let (x, y) = (k % side, k / side);
                Body::new(0, block(y) + Vec2::new(x as f32, y as f32))
            })
            .collect()
    };
    let packed = grid_at(&|_| Vec2::ZERO);
    // Then five rows at a time, each band of rows thousands of units from the others.
    let spread =
        grid_at(&|y| Vec2::new(1.0e5, -3.0e4) + (y / 5) as f32 * Vec2::new(2111.0, -1733.0));
    let truth = |bodies: &[Body]| {
        let (mut pairs, mut boxes) = (Vec::new(), 0u64);
        for i in 0..bodies.len() {
            for j in i + 1..bodies.len() {
                let d = bodies[i].position.as_dvec2() - bodies[j].position.as_dvec2();
                if d.x.abs() <= 1.2 && d.y.abs() <= 1.2 {
                    boxes += 1;
                }
                if d.length() <= 1.2 {
                    pairs.push([i as u32, j as u32]);
                }
            }
        }
        (pairs, boxes)
    };
    // The premise: the packed bodies get a table laid out around them.
    let infos: Vec<_> = packed.iter().map(body_info).collect();
    let transforms: Vec<_> = packed.iter().map(body_transform).collect();
    let chosen = choose_grid(&library, &infos, &transforms);
    assert_ne!(chosen.layout, TableLayout::SCATTERED);
    let mut backends: Vec<Box<dyn Collider>> = vec![Box::new(CpuCollider::new(library.clone()))];
    if let Some(context) = gpu() {
        backends.push(Box::new(GpuCollider::new(&context, library).expect("gpu")));
    }
    for collider in &mut backends {
        let name = collider.describe();
        for (frame, bodies) in [
            ("packed", &packed),
            ("spread", &spread),
            ("packed again", &packed),
        ] {
            let (expected, boxes) = truth(bodies);
            assert_eq!(
                expected.len(),
                2 * side * (side - 1) - if frame == "spread" { 8 * side } else { 0 }
            );
            let pairs = collider.find_pairs(bodies).expect("frame");
            assert_eq!(
                collider.last_frame().candidates,
                Some(boxes),
                "{name}, {frame}"
            );
            assert_eq!(pairs, expected, "{name}, {frame}");
        }
    }
}

/// Rectangles take their box from the corners of their bounds (`world_box` in
/// shaders/bounds.wgsl), other polygons from their vertices. Turned rectangles, one off
/// its origin, among turned triangles, packed so that boxes overlap where shapes do not:
/// every backend must count the cpu backend's candidates (a box too large on the gpu
/// would show there, one too small in the pairs) and find the reference's pairs.
#[test]
fn turned_rectangles_get_the_boxes_their_vertices_give() {
    use gpu_collide::{glam::Vec2, ShapeLibrary};
    use gpu_collide::{Body, Collider, CpuCollider, GpuCollider, Polygon, Shape};
    let shapes = [
        Shape::Polygon(Polygon::rectangle(1.0, 6.0)),
        Shape::Polygon(Polygon::new(vec![
            Vec2::new(3.0, 7.5),
            Vec2::new(-0.5, 7.5),
            Vec2::new(-0.5, -1.25),
            Vec2::new(3.0, -1.25),
        ])),
        Shape::Polygon(Polygon::regular(3, 3.0)),
    ];
    let library = ShapeLibrary::new(&shapes).expect("library");
    let bodies: Vec<Body> = (0..3000)
        .map(|k| {
            let at = Vec2::new((k % 60) as f32 * 3.1, (k / 60) as f32 * 4.3);
            Body::new((k % 3) as u32, at).with_angle(k as f32 * 0.618)
        })
        .collect();
    let expected = gpu_collide::cpu::ReferenceCollider::new(library.clone())
        .find_pairs(&bodies)
        .expect("reference");
    let mut cpu = CpuCollider::new(library.clone());
    assert_eq!(cpu.find_pairs(&bodies).expect("cpu"), expected);
    let candidates = cpu.last_frame().candidates.expect("counted");
    assert!(
        candidates > expected.len() as u64 + 500,
        "{candidates} candidates"
    );
    if let Some(context) = gpu() {
        let mut collider = GpuCollider::new(&context, library).expect("gpu");
        assert_eq!(collider.find_pairs(&bodies).expect("gpu"), expected);
        assert_eq!(collider.last_frame().candidates, Some(candidates));
    }
}

/// The GPU's grid entries keep a body's index in as few bits as the frame's body count
/// needs, and its row's tag above (entry_index_mask in shaders/grid.wgsl). A lattice
/// of circles, each touching its four neighbours, at body counts on both sides of a
/// power of two: the last body, whose index alone needs the top bit, must meet its
/// neighbours, on the GPU as in the expected list. An index one bit short would lose it
/// (its entry would name body 0 or 512).
#[test]
fn the_last_body_of_a_power_of_two_count_meets_its_neighbours() {
    use gpu_collide::{glam::Vec2, Body, Circle, Collider, GpuCollider, Shape, ShapeLibrary};
    let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(0.6))]).expect("library");
    let context = gpu();
    for count in [1023u32, 1024, 1025] {
        let at = |k: u32| Vec2::new((k % 32) as f32, (k / 32) as f32);
        let bodies: Vec<Body> = (0..count).map(|k| Body::new(0, at(k))).collect();
        // Right and upper neighbours, 1 apart: the circles overlap by 0.2; diagonal
        // ones are 1.41 apart and do not touch.
        let mut expected: Vec<Pair> = Vec::new();
        for k in 0..count {
            if k % 32 != 31 && k + 1 < count {
                expected.push([k, k + 1]);
            }
            if k + 32 < count {
                expected.push([k, k + 32]);
            }
        }
        expected.sort_unstable();
        let reference = gpu_collide::cpu::ReferenceCollider::new(library.clone())
            .find_pairs(&bodies)
            .expect("reference");
        assert_eq!(reference, expected, "{count} bodies: reference");
        let last = count - 1;
        assert!(
            expected.iter().any(|p| p[1] == last),
            "{count}: the last body meets nobody"
        );
        if let Some(context) = &context {
            let mut collider = GpuCollider::new(context, library.clone()).expect("gpu");
            assert_eq!(
                collider.find_pairs(&bodies).expect("gpu"),
                expected,
                "{count} bodies: gpu"
            );
        }
    }
}

/// Fast sweeps and long rays against circles: every example here was once missed or
/// misplaced, because the quadratic's discriminant `b² - a·c` cancelled in f32 once a
/// body moved a few thousand units. Each is held to the oracle on both backends
/// (`swept::check`, `queries::answers`) and to its value worked out by hand.
mod far_and_fast {
    use serde_json::json;

    use gpu_collide::{Scene, ShapeLibrary};

    use super::rect;
    use crate::queries::answers;
    use crate::swept::{assert_toi, tois};

    #[test]
    fn a_small_fast_circle_through_a_circles_centre() {
        // Contact when the centres are 2.5 + 0.05 apart: t = (11750 - 2.55) / 17625.
        let found = tois(
            "fast circle",
            vec![json!({"circle": 2.5}), json!({"circle": 0.05})],
            vec![
                json!({"shape": 0, "x": 0, "y": 0}),
                json!({"shape": 1, "x": -11750, "y": 0, "vx": 17625}),
            ],
        );
        assert_toi(&found, [0, 1], ((11750.0 - 2.55) / 17625.0) as f32);
    }

    #[test]
    fn a_fast_circle_into_a_square_and_past_its_corner() {
        // Into the square's left side (x = -1) at y = 0.5, then one passing its corner
        // (1, 1) at 0.03 from it, which meets nothing: the corner's disc is what the
        // sweep reads there.
        let found = tois(
            "fast circle and square",
            vec![rect(2.0, 2.0), json!({"circle": 0.05})],
            vec![
                json!({"shape": 0, "x": 0, "y": 0, "layer": 1, "mask": 1}),
                json!({"shape": 1, "x": -15000, "y": 0.5, "vx": 30000, "layer": 1, "mask": 1}),
                json!({"shape": 0, "x": 100, "y": 0, "layer": 2, "mask": 2}),
                json!({"shape": 1, "x": -14000, "y": 101.08, "vx": 29000, "layer": 2, "mask": 2}),
            ],
        );
        assert_toi(&found, [0, 1], ((15000.0 - 1.05) / 30000.0) as f32);
        assert!(!found.iter().any(|f| f.0 == [2, 3]), "{found:?}");
    }

    #[test]
    fn displacements_up_to_the_limit_meet_and_miss_exactly() {
        // Head-on at ±1e18 a frame: they meet at once (t about 1e-17). Squares whose
        // paths stay 14 units apart never meet, however fast.
        let found = tois(
            "the largest displacements",
            vec![json!({"circle": 1.0}), rect(2.0, 2.0)],
            vec![
                json!({"shape": 0, "x": -10, "y": 0, "vx": 1e18, "layer": 1, "mask": 1}),
                json!({"shape": 0, "x": 10, "y": 0, "vx": -1e18, "layer": 1, "mask": 1}),
                json!({"shape": 1, "x": 0, "y": 100, "vx": 1e18, "vy": 1e18, "layer": 2, "mask": 2}),
                json!({"shape": 1, "x": 0, "y": 116, "vx": -1e18, "vy": -1e18, "layer": 2, "mask": 2}),
            ],
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_toi(&found, [0, 1], 0.0);
    }

    #[test]
    fn displacements_past_the_limit_are_refused_by_name() {
        // A difference of two displacements at ±3.4e38 is not a number; past ±1e18 the
        // reader and the library refuse the body, naming it and the field.
        let text = json!({
            "shapes": [rect(2.0, 2.0)],
            "bodies": [{"shape": 0, "x": 0, "y": 0, "vx": 1e18}, {"shape": 0, "x": 20, "y": 0, "vy": -3.4e38}],
        })
        .to_string();
        let error = Scene::from_json(&text).expect_err("refused").to_string();
        assert_eq!(
            error,
            "body 1: vy: a displacement of -3.4e38 is beyond ±1e18"
        );
        let scene = Scene::from_json(
            &json!({"shapes": [rect(2.0, 2.0)], "bodies": [{"shape": 0, "x": 0, "y": 0}]})
                .to_string(),
        )
        .expect("valid");
        let library: ShapeLibrary = scene.validate().expect("valid");
        let mut bodies = scene.bodies.clone();
        bodies[0].velocity.x = 2e18;
        let error = library
            .check_bodies(&bodies)
            .expect_err("refused")
            .to_string();
        assert_eq!(error, "body 0: vx: a displacement of 2e18 is beyond ±1e18");
    }

    #[test]
    fn a_displacement_that_is_zero_in_f32_is_no_motion_on_any_body() {
        // 1e-46 rounds to 0 in f32: a bitmask takes it as it is taken on a circle.
        let text = json!({
            "shapes": [{"circle": 1.0}, {"bitmask": {"width": 1, "height": 1, "rows": ["#"]}}],
            "bodies": [{"shape": 0, "x": 0, "y": 0, "vx": 1e-46}, {"shape": 1, "x": 1, "y": 0, "vx": 1e-46}],
        })
        .to_string();
        let scene = Scene::from_json(&text).expect("valid");
        assert!(scene.bodies.iter().all(|b| !b.moves()));
    }

    #[test]
    fn a_long_ray_into_a_wide_corner_gets_the_edge_it_enters() {
        // A 9-gon 0.06 across at x = -12598, entered 0.0116 from a corner of 160°
        // after 18000 units: the two edges' half-planes are entered within rounding of
        // each other, and the normal must still be the entered edge's (0.0226, -0.9997),
        // not its neighbour's (0.2043, -0.9789), which lies past the band.
        let text = json!({
            "shapes": [{"polygon": [
                [0.016563772773481585, 0.0], [0.012688586090210991, 0.042195117310359895],
                [0.002876268957404195, 0.06464667028470919], [-0.00828188638674079, 0.056849327765132594],
                [-0.015564855047615183, 0.02245155297434931], [-0.015564855047615189, -0.022451552974349295],
                [-0.0082818863867408, -0.05684932776513257], [0.0028762689574041876, -0.0646466702847092],
                [0.012688586090210988, -0.04219511731035992]
            ]}],
            "bodies": [{"shape": 0, "x": -12597.782563148146, "y": 8990.969042018558, "angle": -1.4566001828488684}],
            "rays": [{"x": -3611.1045024005216, "y": -6759.19298862321, "dx": -8986.70132251348, "dy": 15750.167690975304}],
        })
        .to_string();
        let scene = Scene::from_json(&text).expect("valid");
        let found = answers("a wide corner", &scene);
        let normal = found.rays[0]
            .and_then(|h| h.normal)
            .expect("a hit with a normal");
        let off = (normal.x as f64 - 0.0226).hypot(normal.y as f64 + 0.9997);
        assert!(off < 1e-3, "{normal:?}");
    }

    #[test]
    fn long_rays_against_circles_hit_where_they_should() {
        // Off-centre by 1.9 of a radius of 2.5: enters at x = -sqrt(2.5² - 1.9²), the
        // normal there (x, 1.9) / 2.5. Through the centre from 16000 away: enters at
        // x = -2.5, normal (-1, 0). A ray of 32000 that stops 0.5 short: no hit.
        let text = json!({
            "shapes": [{"circle": 2.5}],
            "bodies": [{"shape": 0, "x": 0, "y": 0}],
            "rays": [
                {"x": -11750, "y": 1.9, "dx": 17625, "dy": 0},
                {"x": -16000, "y": 0, "dx": 32000, "dy": 0},
                {"x": -16000, "y": 0, "dx": 15997, "dy": 0},
                {"x": 16000, "y": 16000, "dx": -32000, "dy": -32000},
            ],
        })
        .to_string();
        let scene = Scene::from_json(&text).expect("valid");
        let found = answers("long rays against a circle", &scene);
        let x = -(2.5f64 * 2.5 - 1.9 * 1.9).sqrt();
        let expect = |k: usize, t: f64, normal: [f64; 2]| {
            let hit = found.rays[k].unwrap_or_else(|| panic!("ray {k}: no hit"));
            let tolerance = 0.01 / scene.queries.rays[k].delta.length() as f64;
            assert_eq!(hit.body, 0);
            assert!(
                (hit.t as f64 - t).abs() <= tolerance,
                "ray {k}: t {} not {t}",
                hit.t
            );
            let n = hit.normal.unwrap_or_else(|| panic!("ray {k}: no normal"));
            let off = (n.x as f64 - normal[0]).hypot(n.y as f64 - normal[1]);
            assert!(off <= 1e-3, "ray {k}: normal {n:?} not {normal:?}");
        };
        expect(0, (x + 11750.0) / 17625.0, [x / 2.5, 1.9 / 2.5]);
        expect(1, (16000.0 - 2.5) / 32000.0, [-1.0, 0.0]);
        assert_eq!(found.rays[2], None);
        let h = std::f64::consts::FRAC_1_SQRT_2;
        expect(3, (16000.0 - 2.5 * h) / 32000.0, [h, h]);
    }
}
