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
