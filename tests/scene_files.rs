//! Scene files held to the oracle on every backend: the example scenes, and with
//! `GPU_COLLIDE_SCENES=DIR` every `.json` file in `DIR` too (`.ci/run` points it at
//! scenes that `scripts/unseen_scenes.py` makes apart from the library's generators:
//! concave outlines of four makes, capsules of every form moving through them, compound
//! ships of up to 64 parts). A still frame's pairs are checked as the cross-check checks
//! them, a moving frame's as the swept tests do, times of impact included; then every
//! frame's contacts and a seeded batch of queries.

use std::path::{Path, PathBuf};
use std::time::Instant;

use gpu_collide::{Body, Scene};

use crate::support::check_every_backend;

/// The `.json` files of `dir`, sorted by name.
fn scene_files(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn scene_files_agree_with_the_oracle_on_every_backend() {
    let mut files = scene_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/scenes"));
    if let Some(dir) = std::env::var_os("GPU_COLLIDE_SCENES") {
        let more = scene_files(Path::new(&dir));
        assert!(
            !more.is_empty(),
            "GPU_COLLIDE_SCENES: no .json file in {dir:?}"
        );
        files.extend(more);
    }
    let mut problems = Vec::new();
    for path in &files {
        let what = path.display().to_string();
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{what}: {e}"));
        let scene = Scene::from_json(&text).unwrap_or_else(|e| panic!("{what}: {e}"));
        let started = Instant::now();
        if scene.bodies.iter().any(Body::moves) {
            // Panics with the pairs and times that are wrong.
            let (pairs, band_reported, band_left) = crate::swept::check(&what, &text);
            eprintln!(
                "{what}: {} bodies moving, {pairs} pairs, band pairs {band_reported} reported and {band_left} not, checked in {:.2?}",
                scene.bodies.len(),
                started.elapsed()
            );
        } else if let Err(problem) = check_every_backend(&what, &scene) {
            problems.push(problem);
        }
        // Contacts (of the bodies as they stand at the start) and a seeded batch of
        // rays, points and boxes, each answer held to the oracle; these panic with the
        // answers that are wrong.
        let name = path.file_name().expect("a file").to_string_lossy();
        let contacts = crate::compounds::check_part_contacts(&what, &name, &text);
        let mut queried = scene.clone();
        queried.queries = crate::queries::random_batch(&scene, 200, 7);
        let answers = crate::queries::answers(&what, &queried);
        let hits = answers.rays.iter().flatten().count();
        eprintln!(
            "{what}: {} contacts, {hits} of 200 rays hit, all checked in {:.2?}",
            contacts.len(),
            started.elapsed()
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
