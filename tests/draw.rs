//! `gpu-collide draw`: the SVG it writes parses as XML and shows every body in view, the
//! colliding ones marked, for the format's example and for a scene of 10^4 bodies.

use std::collections::BTreeSet;
use std::process::Command;

use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::{Collider, CpuCollider, Scene};

use crate::support::SPEC_EXAMPLE;

/// A path under the target directory's scratch space (see tests/cli.rs's `write_scene`).
fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("draw");
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// Draws `scene` with `extra` arguments; gives the SVG's text.
fn draw(name: &str, scene: &str, extra: &[&str]) -> String {
    let input = temp(&format!("{name}.json"));
    std::fs::write(&input, scene).expect("scene written");
    let output = temp(&format!("{name}.svg"));
    let run = Command::new(env!("CARGO_BIN_EXE_gpu-collide"))
        .arg("draw")
        .arg(&input)
        .arg("--out")
        .arg(&output)
        .args(extra)
        .output()
        .expect("binary runs");
    assert!(
        run.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(&output).expect("svg written")
}

/// (bodies drawn, bodies drawn as colliding), read from the parsed SVG.
fn drawn(svg: &str) -> (BTreeSet<usize>, BTreeSet<usize>) {
    let document = roxmltree::Document::parse(svg).expect("the picture is well-formed XML");
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert!(root.attribute("viewBox").is_some());
    let (mut all, mut hit) = (BTreeSet::new(), BTreeSet::new());
    for node in document.descendants().filter(|n| n.has_tag_name("title")) {
        // Bodies are titled `body N`; their ghosted poses say more after the index.
        let Some(Ok(index)) = node
            .text()
            .and_then(|t| t.strip_prefix("body "))
            .map(str::parse::<usize>)
        else {
            continue;
        };
        let shape = node.parent().expect("a shape around the title");
        assert!(all.insert(index), "body {index} drawn twice");
        if shape
            .attribute("class")
            .is_some_and(|c| c.split(' ').any(|w| w == "hit"))
        {
            hit.insert(index);
        }
    }
    (all, hit)
}

fn colliding(scene: &Scene) -> BTreeSet<usize> {
    let pairs = CpuCollider::new(scene.validate().expect("valid"))
        .find_pairs(&scene.bodies)
        .expect("pairs");
    pairs
        .iter()
        .flat_map(|p| [p[0] as usize, p[1] as usize])
        .collect()
}

#[test]
fn draws_the_format_example_with_its_colliding_bodies_filled() {
    let svg = draw("spec", SPEC_EXAMPLE, &[]);
    let scene = Scene::from_json(SPEC_EXAMPLE).expect("example");
    let (all, hit) = drawn(&svg);
    assert_eq!(all, (0..scene.bodies.len()).collect());
    assert!(!hit.is_empty());
    assert_eq!(hit, colliding(&scene));
}

#[test]
fn draws_ten_thousand_bodies_and_a_window_of_them() {
    let scene = random_scene(SceneKind::Mixed, 10_000, 81);
    let text = scene.to_json();
    let (all, hit) = drawn(&draw("mixed", &text, &[]));
    assert_eq!(all.len(), 10_000);
    assert_eq!(hit, colliding(&scene));
    // A window shows some bodies, not all, and each one it shows is marked as before.
    let first = scene.bodies[0].position;
    let view = format!(
        "{},{},{},{}",
        first.x - 100.0,
        first.y - 100.0,
        first.x + 100.0,
        first.y + 100.0
    );
    let (some, some_hit) = drawn(&draw("window", &text, &["--view", &view]));
    assert!(
        some.contains(&0) && some.len() < 10_000,
        "{} bodies in the window",
        some.len()
    );
    assert_eq!(some_hit, some.intersection(&hit).copied().collect());
}

#[test]
fn a_bad_view_is_refused_with_the_reason() {
    let input = temp("bad-view.json");
    std::fs::write(&input, SPEC_EXAMPLE).expect("scene written");
    for (view, words) in [
        ("0,0,1", "four numbers"),
        ("5,0,1,1", "x0 < x1"),
        (
            "0,0,1e39,1",
            "1e39 is beyond the range of the scene's 32-bit coordinates",
        ),
        ("-inf,0,1,1", "finite"),
    ] {
        let run = Command::new(env!("CARGO_BIN_EXE_gpu-collide"))
            .arg("draw")
            .arg(&input)
            .args(["--out", "/dev/null", "--view", view])
            .output()
            .expect("binary runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{view}: {stderr}");
        assert!(stderr.contains(words), "{view}: {stderr}");
    }
}

/// The format's example of motion: a bullet crossing a wall during the frame.
const SWEPT: &str = r#"{
  "shapes": [{"circle": 1.0}, {"polygon": [[-4, -1], [4, -1], [4, 1], [-4, 1]]}],
  "bodies": [
    {"shape": 0, "x": 0, "y": 0, "vx": 30, "vy": 0},
    {"shape": 1, "x": 15, "y": 0, "angle": 1.5707963}
  ]
}"#;

#[test]
fn a_swept_body_is_ghosted_at_its_end_and_at_its_impact() {
    let svg = draw("swept", SWEPT, &[]);
    let document = roxmltree::Document::parse(&svg).expect("well-formed");
    let titled = |class: &str| -> Vec<String> {
        document
            .descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .filter_map(|n| n.children().find(|c| c.has_tag_name("title")))
            .filter_map(|t| t.text().map(str::to_string))
            .collect()
    };
    assert_eq!(titled("end"), vec!["body 0 at the frame's end".to_string()]);
    let impact = titled("impact");
    assert_eq!(impact.len(), 1, "{impact:?}");
    // The bullet's edge meets the wall's face (x = 14) when its centre is at 13: t = 13/30.
    let toi: f32 = impact[0]
        .rsplit("t = ")
        .next()
        .and_then(|t| t.parse().ok())
        .expect("the impact's time in its title");
    assert!((toi - 13.0 / 30.0).abs() < 1e-3, "{toi}");
    // Both bodies are marked as colliding, though they are apart at t = 0.
    let (_, hit) = drawn(&svg);
    assert_eq!(hit, [0, 1].into_iter().collect());
}

#[test]
fn contact_normals_are_drawn_as_arrows() {
    let scene = random_scene(SceneKind::Polygons, 300, 82);
    let contacts = CpuCollider::new(scene.validate().expect("valid"))
        .find_contacts(&scene.bodies)
        .expect("contacts");
    assert!(!contacts.is_empty());
    let svg = draw("contacts", &scene.to_json(), &[]);
    let document = roxmltree::Document::parse(&svg).expect("well-formed");
    let arrows = document
        .descendants()
        .filter(|n| n.attribute("class") == Some("normal"))
        .count();
    assert_eq!(arrows, contacts.len());
}

#[test]
fn queries_are_drawn_with_what_they_found() {
    let scene = r#"{
      "shapes": [{"circle": 1.0}, {"polygon": [[-4, -1], [4, -1], [4, 1], [-4, 1]]}],
      "bodies": [
        {"shape": 0, "x": 0, "y": 0, "layer": 2, "mask": 1},
        {"shape": 1, "x": 15, "y": 0, "angle": 1.5707963, "layer": 1, "mask": 2}
      ],
      "rays":   [{"x": -10, "y": 0.5, "dx": 40, "dy": 0, "mask": 1}, {"x": 0, "y": 30, "dx": 5, "dy": 0}],
      "points": [{"x": 15, "y": 3}, {"x": 50, "y": 50}],
      "boxes":  [{"min": [-2, -2], "max": [2, 2]}]
    }"#;
    let svg = draw("queries", scene, &[]);
    let document = roxmltree::Document::parse(&svg).expect("well-formed");
    let titles: Vec<&str> = document
        .descendants()
        .filter(|n| n.attribute("class") == Some("query found"))
        .filter_map(|n| n.children().find(|c| c.has_tag_name("title")))
        .filter_map(|t| t.text())
        .collect();
    // The first ray stops at the wall (body 1) at t = 0.6; the second finds nothing; the
    // first point is in the wall; the box holds the circle.
    assert_eq!(
        titles,
        vec![
            "ray 0: body 1 at t = 0.6",
            "point 0: bodies [1]",
            "box 0: bodies [0]"
        ]
    );
}

/// A bitmask drawn as an image: the `<use>` that shows body `index`, and the `<image>` it
/// refers to.
fn mask_image<'a>(
    document: &'a roxmltree::Document<'a>,
    index: usize,
) -> (roxmltree::Node<'a, 'a>, roxmltree::Node<'a, 'a>) {
    let title = format!("body {index}");
    let shown = document
        .descendants()
        .find(|n| {
            n.has_tag_name("use") && n.first_element_child().and_then(|t| t.text()) == Some(&title)
        })
        .unwrap_or_else(|| panic!("no <use> titled {title}"));
    let id = shown
        .attribute("href")
        .and_then(|h| h.strip_prefix('#'))
        .expect("the use refers to an element of the document");
    let image = document
        .descendants()
        .find(|n| n.has_tag_name("image") && n.attribute("id") == Some(id))
        .unwrap_or_else(|| panic!("no image {id}"));
    (shown, image)
}

/// The RGBA pixels, width and height of an `<image>`'s PNG data URL, decoded.
fn decode_image(image: roxmltree::Node) -> (Vec<u8>, u32, u32) {
    use base64::Engine;
    let data = image
        .attribute("href")
        .and_then(|h| h.strip_prefix("data:image/png;base64,"))
        .expect("a PNG data URL");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("valid base64");
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let frame = reader.next_frame(&mut pixels).expect("a PNG image");
    assert_eq!(
        frame.color_type,
        png::ColorType::Rgba,
        "palette and alpha, expanded"
    );
    pixels.truncate(frame.buffer_size());
    (pixels, frame.width, frame.height)
}

#[test]
fn a_bitmask_is_an_image_of_its_cells_placed_in_world_units() {
    // 37 columns cross a word of the packed mask and end inside a PNG byte; no two rows
    // or columns alike, so a flip or a shift shows.
    let (width, height) = (37u32, 5u32);
    let set = |c: u32, r: u32| (c * 7 + r * 3).is_multiple_of(5) || (c == 36 && r == 4);
    let rows: Vec<String> = (0..height)
        .map(|r| {
            (0..width)
                .map(|c| if set(c, r) { '#' } else { '.' })
                .collect()
        })
        .collect();
    let rows = serde_json::to_string(&rows).expect("rows as JSON");
    // Body 2, a circle on the set cell (5, 0) of body 1, collides with it; bodies 0 and 3
    // share the plain image, body 1 has the colliding one.
    let scene = format!(
        r#"{{"shapes": [{{"bitmask": {{"width": {width}, "height": {height}, "rows": {rows}}}}},
                       {{"circle": 0.25}}],
            "bodies": [{{"shape": 0, "x": -50, "y": 20}}, {{"shape": 0, "x": 100, "y": -7}},
                       {{"shape": 1, "x": 105.5, "y": -6.5}}, {{"shape": 0, "x": 300, "y": 40}}]}}"#
    );
    let parsed = Scene::from_json(&scene).expect("valid");
    assert_eq!(colliding(&parsed), [1, 2].into_iter().collect());
    let svg = draw("bitmask-image", &scene, &[]);
    let document = roxmltree::Document::parse(&svg).expect("well-formed");
    let images = document
        .descendants()
        .filter(|n| n.has_tag_name("image"))
        .count();
    assert_eq!(images, 2, "one image per shape and colour");
    let (_, hit) = drawn(&svg);
    assert_eq!(hit, [1, 2].into_iter().collect());

    for (index, (x, y), colliding) in [
        (0, (-50.0, 20.0), false),
        (1, (100.0, -7.0), true),
        (3, (300.0, 40.0), false),
    ] {
        let (shown, image) = mask_image(&document, index);
        let number = |node: roxmltree::Node, name: &str| -> f64 {
            node.attribute(name)
                .map_or(0.0, |v| v.parse().expect("a number"))
        };
        // Placed at the body, one world unit per cell, stretched to exactly that.
        assert_eq!(
            (number(shown, "x"), number(shown, "y")),
            (x, y),
            "body {index}"
        );
        assert_eq!((number(image, "x"), number(image, "y")), (0.0, 0.0));
        assert_eq!(
            (number(image, "width"), number(image, "height")),
            (width as f64, height as f64)
        );
        assert_eq!(image.attribute("preserveAspectRatio"), Some("none"));
        assert!(
            image
                .attribute("style")
                .is_some_and(|s| s.contains("image-rendering: pixelated")),
            "cells stay sharp"
        );
        // In the picture's y-up group, where row r of the image lies at y + r as the
        // format puts the mask's row r.
        let flipped = shown
            .ancestors()
            .any(|a| a.attribute("transform") == Some("scale(1,-1)"));
        assert!(flipped, "body {index} is drawn y up");
        let class = shown.attribute("class").expect("a class");
        assert_eq!(class.split(' ').any(|w| w == "hit"), colliding, "{class}");

        let (pixels, w, h) = decode_image(image);
        assert_eq!((w, h), (width, height));
        let colour: [u8; 3] = if colliding {
            [0xe4, 0x57, 0x2e]
        } else {
            [0x4a, 0x6f, 0xa5]
        };
        for r in 0..height {
            for c in 0..width {
                let at = 4 * (r * width + c) as usize;
                let pixel = &pixels[at..at + 4];
                if set(c, r) {
                    assert_eq!(pixel[..3], colour, "body {index}: cell ({c}, {r})");
                    assert!(pixel[3] > 0, "body {index}: cell ({c}, {r}) is shown");
                } else {
                    assert_eq!(pixel[3], 0, "body {index}: cell ({c}, {r}) is transparent");
                }
            }
        }
    }
}

#[test]
fn the_picture_goes_to_standard_output_for_out_dash() {
    let input = temp("stdout.json");
    std::fs::write(&input, SPEC_EXAMPLE).expect("scene written");
    let dir = temp("stdout-cwd");
    std::fs::create_dir_all(&dir).expect("dir");
    let run = Command::new(env!("CARGO_BIN_EXE_gpu-collide"))
        .current_dir(&dir)
        .arg("draw")
        .arg(&input)
        .args(["--out", "-"])
        .output()
        .expect("binary runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("to standard output"), "{stderr}");
    assert!(!dir.join("-").exists(), "no file named `-`");
    let (all, _) = drawn(&String::from_utf8(run.stdout).expect("UTF-8"));
    assert_eq!(all.len(), 5);
}

/// Concave and compound bodies are drawn by their outlines, once each, and with
/// `--pieces` the convex pieces the answers use show inside them.
#[test]
fn concave_and_compound_bodies_are_outlined_and_their_pieces_drawn_on_request() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("examples/scenes/ship.json")).expect("scene");
    let scene = Scene::from_json(&text).expect("valid");
    let plain = draw("ship", &text, &[]);
    let (all, hit) = drawn(&plain);
    assert_eq!(all, (0..scene.bodies.len()).collect());
    assert_eq!(hit, colliding(&scene));
    assert!(!plain.contains(r#"class="piece""#));
    let with_pieces = draw("ship-pieces", &text, &["--pieces"]);
    assert_eq!(drawn(&with_pieces), (all, hit));
    // The hangar's three pieces and the ship's hull: the polygon parts of the concave
    // and compound bodies.
    let library = scene.validate().expect("valid");
    let polygons = |k: usize| {
        library
            .parts(k)
            .iter()
            .filter(|p| matches!(p, gpu_collide::ConvexPart::Polygon(_)))
            .count()
    };
    assert_eq!(
        with_pieces.matches(r#"class="piece""#).count(),
        polygons(0) + polygons(3)
    );
}
