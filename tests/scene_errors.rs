//! Every kind of malformed scene the format excludes is refused whole, with a message
//! naming the shape or body, the field and the rule; nothing panics.

use gpu_collide::{Body, Collider, CpuCollider, Scene, ShapeLibrary};

/// (scene, words the message must contain).
const MALFORMED: &[(&str, &[&str])] = &[
    ("{", &["scene", "JSON"]),
    ("[]", &["scene", "object"]),
    // Both lists are required, so that a misspelt key is not read as an empty scene.
    ("{}", &["scene", "shapes", "required"]),
    (r###"{"shapes": []}"###, &["scene", "bodies", "required"]),
    (
        r###"{"shapes": [], "boKies": []}"###,
        &["scene", "bodies", "required", "boKies"],
    ),
    // A key given twice is refused wherever it is, naming it and where.
    (
        r###"{"shapes": [], "bodies": [], "shapes": []}"###,
        &["scene", "shapes", "more than once"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0}, {"shape": 0, "x": 0, "y": 0, "y": 5}]}"###,
        &["body 1", "y", "more than once"],
    ),
    (
        r###"{"shapes": [{"circle": 1}, {"circle": 1, "circle": 2}], "bodies": []}"###,
        &["shape 1", "circle", "more than once"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 1, "height": 1, "rows": ["#"], "rows": ["."]}}], "bodies": []}"###,
        &["shape 0", "rows", "more than once in `bitmask`"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "note": [{"a": 1, "a": 2}]}"###,
        &["scene", "a", "more than once in `note[0]`"],
    ),
    // Nesting stays bounded by serde_json's recursion limit: an error, not a stack overflow.
    (
        concat!(
            r#"{"shapes": "#,
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        ),
        &["scene", "JSON", "recursion limit"],
    ),
    (
        r###"{"shapes": 3, "bodies": []}"###,
        &["scene", "shapes", "list"],
    ),
    (
        r###"{"shapes": [], "bodies": {}}"###,
        &["scene", "bodies", "list"],
    ),
    (
        r###"{"shapes": [{}], "bodies": []}"###,
        &["shape 0", "exactly one"],
    ),
    (
        r###"{"shapes": [{"circle": 1, "polygon": [[0,0],[1,0],[0,1]]}], "bodies": []}"###,
        &["shape 0", "exactly one"],
    ),
    (
        r###"{"shapes": [{"square": 1}], "bodies": []}"###,
        &["shape 0", "exactly one"],
    ),
    (
        r###"{"shapes": [7], "bodies": []}"###,
        &["shape 0", "object"],
    ),
    (
        r###"{"shapes": [{"circle": 0}], "bodies": []}"###,
        &["shape 0", "circle", "greater than 0"],
    ),
    (
        r###"{"shapes": [{"circle": -2}], "bodies": []}"###,
        &["shape 0", "circle"],
    ),
    (
        r###"{"shapes": [{"circle": "big"}], "bodies": []}"###,
        &["shape 0", "circle", "number"],
    ),
    (
        r###"{"shapes": [{"circle": 1e39}], "bodies": []}"###,
        &["shape 0", "circle", "32-bit"],
    ),
    (
        r###"{"shapes": [{"circle": 1}, {"polygon": [[0,0],[1,0]]}], "bodies": []}"###,
        &["shape 1", "polygon", "3 to"],
    ),
    (
        r###"{"shapes": [{"polygon": [[0,0],[1,0],[1,1],[0.2,0.5],[0,1]]}], "bodies": []}"###,
        &["shape 0", "polygon", "convex"],
    ),
    (
        r###"{"shapes": [{"polygon": [[0,0],[1,0],[2,0]]}], "bodies": []}"###,
        &["shape 0", "polygon", "collinear"],
    ),
    (
        r###"{"shapes": [{"polygon": [[0,0],[1,0],[2,0],[1,1]]}], "bodies": []}"###,
        &["shape 0", "polygon", "collinear"],
    ),
    (
        r###"{"shapes": [{"polygon": [[0,0],[1,0],[1,0],[0,1]]}], "bodies": []}"###,
        &["shape 0", "polygon", "repeats"],
    ),
    (
        r###"{"shapes": [{"polygon": [[0,0],[2,0],[1,0]]}], "bodies": []}"###,
        &["shape 0", "polygon"],
    ),
    // A pentagram: every turn has the same sign, but it winds twice.
    (
        r###"{"shapes": [{"polygon": [[0,10],[5.9,-8.1],[-9.5,3.1],[9.5,3.1],[-5.9,-8.1]]}], "bodies": []}"###,
        &["shape 0", "polygon", "convex"],
    ),
    (
        r###"{"shapes": [{"polygon": [[0,0],[1,0],[0]]}], "bodies": []}"###,
        &["shape 0", "polygon", "vertex 2"],
    ),
    (
        r###"{"shapes": [{"polygon": "triangle"}], "bodies": []}"###,
        &["shape 0", "polygon"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 2, "height": 1, "rows": ["#"]}}], "bodies": []}"###,
        &["shape 0", "rows", "width"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 2, "height": 2, "rows": ["##"]}}], "bodies": []}"###,
        &["shape 0", "rows", "height"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 2, "height": 2, "rows": ["##", "#"]}}], "bodies": []}"###,
        &["shape 0", "rows", "row 1"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 2, "height": 1, "rows": ["#x"]}}], "bodies": []}"###,
        &["shape 0", "rows", "'x'"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 0, "height": 1, "rows": [""]}}], "bodies": []}"###,
        &["shape 0", "width"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 1, "height": 0, "rows": []}}], "bodies": []}"###,
        &["shape 0", "height"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 1.5, "height": 1, "rows": ["#"]}}], "bodies": []}"###,
        &["shape 0", "width", "whole"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 1, "height": 1}}], "bodies": []}"###,
        &["shape 0", "rows", "required"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 1, "height": 1, "rows": [5]}}], "bodies": []}"###,
        &["shape 0", "rows", "string"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"x": 0, "y": 0}]}"###,
        &["body 0", "shape", "required"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 1, "x": 0, "y": 0}]}"###,
        &["body 0", "shape", "not a shape index"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": -1, "x": 0, "y": 0}]}"###,
        &["body 0", "shape"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0.5, "x": 0, "y": 0}]}"###,
        &["body 0", "shape", "whole"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "y": 0}]}"###,
        &["body 0", "x", "required"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0}]}"###,
        &["body 0", "y", "required"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0}, {"shape": 0, "x": "1", "y": 0}]}"###,
        &["body 1", "x", "number"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 1e300, "y": 0}]}"###,
        &["body 0", "x", "32-bit"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0, "angle": null}]}"###,
        &["body 0", "angle", "number"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0, "layer": -1}]}"###,
        &["body 0", "layer"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0, "layer": 4294967296}]}"###,
        &["body 0", "layer", "4294967295"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0, "mask": 1.5}]}"###,
        &["body 0", "mask", "whole"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0, "mask": "all"}]}"###,
        &["body 0", "mask"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 1, "height": 1, "rows": ["#"]}}], "bodies": [{"shape": 0, "x": 0.5, "y": 0}]}"###,
        &["body 0", "x", "whole"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 1, "height": 1, "rows": ["#"]}}], "bodies": [{"shape": 0, "x": 0, "y": 3.0000000001}]}"###,
        &["body 0", "y", "whole"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 1, "height": 1, "rows": ["#"]}}], "bodies": [{"shape": 0, "x": 0, "y": 0, "angle": 0.1}]}"###,
        &["body 0", "angle", "bitmask"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [5]}"###,
        &["body 0", "object"],
    ),
    // Format 1.1: motion.
    (
        r###"{"shapes": [{"bitmask": {"width": 1, "height": 1, "rows": ["#"]}}], "bodies": [{"shape": 0, "x": 0, "y": 0, "vx": 2}]}"###,
        &["body 0", "vx", "bitmask body cannot move", "2"],
    ),
    (
        r###"{"shapes": [{"bitmask": {"width": 1, "height": 1, "rows": ["#"]}}], "bodies": [{"shape": 0, "x": 0, "y": 0, "vx": 0, "vy": -0.5}]}"###,
        &["body 0", "vy", "cannot move"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0, "vx": 1e300}]}"###,
        &["body 0", "vx", "32-bit"],
    ),
    (
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0, "vy": "fast"}]}"###,
        &["body 0", "vy", "number"],
    ),
    // Format 1.1: queries. Each names its list, index and field.
    (
        r###"{"shapes": [], "bodies": [], "rays": [{"x": 0, "y": 0, "dx": 1, "dy": 0}, {"x": 0, "y": 0, "dx": 0, "dy": 0}]}"###,
        &["ray 1: dx, dy: zero length"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "rays": [{"x": 0, "y": 0, "dx": 1e-50, "dy": 0}]}"###,
        &["ray 0: dx, dy: zero length", "32-bit"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "rays": [{"x": 0, "y": 1e39, "dx": 1, "dy": 0}]}"###,
        &["ray 0: y:", "32-bit"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "rays": [{"x": 0, "y": 0, "dx": 1}]}"###,
        &["ray 0: dy:", "required"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "rays": [{"x": 0, "y": 0, "dx": 1, "dy": 0, "mask": 4294967296}]}"###,
        &["ray 0: mask:", "4294967295"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "rays": [{"x": 0, "y": 0, "dx": 1, "dy": 0, "mask": -1}]}"###,
        &["ray 0: mask:"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "rays": {}}"###,
        &["scene: rays:", "list"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "rays": [[0, 0, 1, 1]]}"###,
        &["ray 0", "object"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "rays": [{"x": 0, "y": 0, "x": 1, "dx": 1, "dy": 0}]}"###,
        &["ray 0", "x", "more than once"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "points": [{"x": 0, "y": 0}, {"x": 1e39, "y": 0}]}"###,
        &["point 1: x:", "32-bit"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "points": [{"x": 0}]}"###,
        &["point 0: y:", "required"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "points": [{"x": 0, "y": 0, "mask": 0.5}]}"###,
        &["point 0: mask:", "whole"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "points": 3}"###,
        &["scene: points:", "list"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "boxes": [{"min": [0, 0], "max": [1, 1]}, {"min": [2, 0], "max": [1, 1]}]}"###,
        &["box 1: min, max:", "greater than max on x", "2 > 1"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "boxes": [{"min": [0, 3], "max": [1, 1]}]}"###,
        &["box 0: min, max:", "on y"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "boxes": [{"min": [0, 0], "max": [1e39, 1]}]}"###,
        &["box 0: max:", "32-bit"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "boxes": [{"min": [0], "max": [1, 1]}]}"###,
        &["box 0: min:", "[x, y]"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "boxes": [{"max": [1, 1]}]}"###,
        &["box 0: min:", "required"],
    ),
    (
        r###"{"shapes": [], "bodies": [], "boxes": [{"min": [0, 0], "max": [1, 1], "mask": 4294967296}]}"###,
        &["box 0: mask:", "4294967295"],
    ),
];

#[test]
fn malformed_scenes_are_refused_with_a_clear_message() {
    for (text, words) in MALFORMED {
        let error = Scene::from_json(text)
            .map(|_| ())
            .expect_err(&format!("should refuse {text}"));
        let message = error.to_string();
        for word in *words {
            assert!(
                message.contains(word),
                "{text}\n  gave `{message}`, which lacks `{word}`"
            );
        }
    }
}

#[test]
fn valid_scenes_are_accepted() {
    for text in [
        r###"{"shapes": [], "bodies": []}"###,
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 1, "y": 2, "angle": 12345.678, "layer": 0, "mask": 4294967295}]}"###,
        // Clockwise winding is accepted and normalised.
        r###"{"shapes": [{"polygon": [[0,0],[0,1],[1,1],[1,0]]}], "bodies": []}"###,
        r###"{"shapes": [{"bitmask": {"width": 1, "height": 1, "rows": ["#"]}}], "bodies": [{"shape": 0, "x": -16384, "y": 3.0, "angle": 0}]}"###,
        // Format 1.1: a still bitmask may say so, queries may be empty or degenerate.
        r###"{"shapes": [{"bitmask": {"width": 1, "height": 1, "rows": ["#"]}}], "bodies": [{"shape": 0, "x": 0, "y": 0, "vx": 0, "vy": -0.0}]}"###,
        r###"{"shapes": [], "bodies": [], "rays": [], "points": [], "boxes": []}"###,
        r###"{"shapes": [], "bodies": [], "rays": [{"x": 0, "y": 0, "dx": 0, "dy": -1, "mask": 0}], "boxes": [{"min": [1, 2], "max": [1, 2]}]}"###,
    ] {
        Scene::from_json(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}

#[test]
fn messages_say_their_location_once_and_quote_values_short() {
    let message = |text: &str| {
        Scene::from_json(text)
            .map(|_| ())
            .expect_err("refused")
            .to_string()
    };
    assert_eq!(message("[]"), "scene: must be a JSON object, not a list");
    assert_eq!(
        message(r###"{"shapes": [], "bodies": [4]}"###),
        "body 0: must be a JSON object, not a number"
    );
    let long = format!(
        r###"{{"shapes": [{{"polygon": [[0, 0], [1, 0], "{}"]}}], "bodies": []}}"###,
        "x".repeat(400_000)
    );
    let cut = message(&long);
    assert!(cut.len() < 150 && cut.ends_with('…'), "{cut}");
    // Rust would print 1e300 as 301 digits.
    for (text, words) in [
        (
            r###"{"shapes": [{"circle": 1e300}], "bodies": []}"###,
            "shape 0: circle: 1e300 is too large",
        ),
        (
            r###"{"shapes": [{"circle": -1e300}], "bodies": []}"###,
            "radius -1e300 must be",
        ),
        (
            r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 1e300}]}"###,
            "body 0: y: 1e300 is too large",
        ),
        (
            r###"{"shapes": [{"bitmask": {"width": 1, "height": 1, "rows": ["#"]}}], "bodies": [{"shape": 0, "x": 0, "y": 1e200}]}"###,
            "not 1e200",
        ),
    ] {
        let m = message(text);
        assert!(m.contains(words) && m.len() < 150, "{m}");
    }
    let parsed = Scene::from_json_with_warnings(&format!(
        r###"{{"shapes": [], "bodies": [], "{}": 1}}"###,
        "k".repeat(100_000)
    ))
    .expect("valid");
    assert!(parsed.warnings[0].len() < 150, "{:?}", parsed.warnings);
}

#[test]
fn unknown_fields_are_warned_about_not_silently_dropped() {
    let parsed = Scene::from_json_with_warnings(
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0, "angel": 1}], "note": "hi"}"###,
    )
    .expect("valid");
    assert_eq!(parsed.warnings.len(), 2, "{:?}", parsed.warnings);
    assert!(parsed
        .warnings
        .iter()
        .any(|w| w.contains("body 0") && w.contains("angel")));
}

#[test]
fn bodies_breaking_rules_are_refused_by_the_library_api() {
    let scene = Scene::from_json(
        r###"{"shapes": [{"circle": 1}, {"bitmask": {"width": 1, "height": 1, "rows": ["#"]}}], "bodies": []}"###,
    )
    .expect("valid");
    let library = ShapeLibrary::new(&scene.shapes).expect("valid shapes");
    let mut collider = CpuCollider::new(library);
    let cases = [
        (Body::new(2, glam::Vec2::ZERO), "shape"),
        (Body::new(0, glam::Vec2::new(f32::NAN, 0.0)), "x"),
        (
            Body::new(0, glam::Vec2::ZERO).with_angle(f32::INFINITY),
            "angle",
        ),
        (Body::new(1, glam::Vec2::new(0.5, 0.0)), "whole"),
        (Body::new(1, glam::Vec2::ZERO).with_angle(1.0), "rotated"),
        (
            Body::new(1, glam::Vec2::ZERO).with_velocity(glam::Vec2::new(0.0, 1.0)),
            "vy: a bitmask body cannot move",
        ),
        (
            Body::new(0, glam::Vec2::ZERO).with_velocity(glam::Vec2::new(f32::NAN, 1.0)),
            "vx",
        ),
    ];
    for (bad, word) in cases {
        let bodies = [Body::new(0, glam::Vec2::ZERO), bad];
        let message = collider
            .find_pairs(&bodies)
            .expect_err("refused")
            .to_string();
        assert!(
            message.contains("body 1") && message.contains(word),
            "{message}"
        );
    }
}

#[test]
fn the_first_bad_body_by_index_is_named_and_the_next_frame_is_whole() {
    use gpu_collide::cpu::ReferenceCollider;
    use gpu_collide::{Polygon, Shape};
    // Bodies over several of the cpu backend's chunks, which it checks in parallel with
    // their transforms and boxes: two bad ones, and the first by index must be named
    // whichever chunk finishes first. After the refused frame, with them mended, the
    // frame is found whole: nothing half-updated is reused.
    // Squares, whose pairs depend on their turns.
    let library =
        ShapeLibrary::new(&[Shape::Polygon(Polygon::rectangle(2.0, 2.0))]).expect("valid");
    let mut collider = CpuCollider::new(library.clone());
    let mut bodies: Vec<Body> = (0..5000)
        .map(|k| {
            let at = glam::Vec2::new((k % 100) as f32 * 1.9, (k / 100) as f32 * 1.9);
            // Some unturned, as a new index's placeholder might wrongly match.
            Body::new(0, at).with_angle(if k % 7 == 0 { 0.0 } else { k as f32 * 0.01 })
        })
        .collect();
    collider
        .find_pairs(&bodies[..1200])
        .expect("fewer bodies first");
    bodies[4500].angle = f32::INFINITY;
    bodies[3100].position.x = f32::NAN;
    for angle in bodies
        .iter_mut()
        .map(|b| &mut b.angle)
        .filter(|a| **a != 0.0)
    {
        *angle += 0.5;
    }
    let message = collider
        .find_pairs(&bodies)
        .expect_err("refused")
        .to_string();
    assert!(
        message.contains("body 3100") && message.contains("x"),
        "{message}"
    );
    bodies[4500].angle = 0.25;
    bodies[3100].position.x = 3.0;
    let pairs = collider.find_pairs(&bodies).expect("mended");
    let expected = ReferenceCollider::new(library)
        .find_pairs(&bodies)
        .expect("reference");
    assert!(pairs.len() > 1000, "{} pairs", pairs.len());
    assert_eq!(pairs, expected);
}

#[test]
fn query_batches_breaking_rules_are_refused_by_the_library_api() {
    use glam::Vec2;
    use gpu_collide::{BoxQuery, PointQuery, QueryBatch, Ray};
    let library = ShapeLibrary::new(&[]).expect("empty library");
    let mut collider = CpuCollider::new(library);
    let ok_ray = Ray::new(Vec2::ZERO, Vec2::X);
    let cases = [
        (
            QueryBatch {
                rays: vec![ok_ray, ok_ray, ok_ray, Ray::new(Vec2::ONE, Vec2::ZERO)],
                ..QueryBatch::default()
            },
            "ray 3: dx, dy: zero length",
        ),
        (
            QueryBatch {
                rays: vec![Ray::new(Vec2::new(0.0, f32::INFINITY), Vec2::X)],
                ..QueryBatch::default()
            },
            "ray 0: y: inf",
        ),
        (
            QueryBatch {
                points: vec![PointQuery::new(Vec2::new(f32::NAN, 0.0))],
                ..QueryBatch::default()
            },
            "point 0: x: NaN",
        ),
        (
            QueryBatch {
                boxes: vec![BoxQuery::new(Vec2::new(0.0, 2.0), Vec2::new(1.0, 1.0))],
                ..QueryBatch::default()
            },
            "box 0: min, max: min is greater than max on y",
        ),
    ];
    for (batch, words) in cases {
        let message = collider
            .query(&[], &batch)
            .expect_err("refused")
            .to_string();
        assert!(message.contains(words), "{message}");
    }
}
