//! `gpu-collide draw`: the SVG it writes parses as XML and shows every body in view, the
//! colliding ones marked, for the format's example and for a scene of 10^4 bodies.

use std::collections::BTreeSet;
use std::process::Command;

use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::{Collider, CpuCollider, Scene};

use crate::support::SPEC_EXAMPLE;

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gpu-collide-draw-{}", std::process::id()));
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
        let Some(index) = node.text().and_then(|t| t.strip_prefix("body ")) else {
            continue;
        };
        let index: usize = index.parse().expect("a body index");
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
    for (view, words) in [("0,0,1", "four numbers"), ("5,0,1,1", "x0 < x1")] {
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
