//! The `gpu-collide` binary as a user runs it: output format, exit status, errors.

use std::process::{Command, Output};

use crate::support::{gpu, SPEC_EXAMPLE};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpu-collide"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn write_scene(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("gpu-collide-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write scene");
    path.display().to_string()
}

/// The backends the CLI tests exercise: the GPU only where an adapter exists (or under CI).
fn backends() -> Vec<&'static str> {
    if gpu().is_some() {
        vec!["cpu", "gpu"]
    } else {
        vec!["cpu"]
    }
}

#[test]
fn pairs_prints_sorted_pairs_on_every_backend() {
    let path = write_scene("spec.json", SPEC_EXAMPLE);
    for backend in backends() {
        let out = run(&["pairs", &path, "--backend", backend]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{backend}: {stderr}");
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        assert_eq!(
            value,
            serde_json::json!({"pairs": [[0, 3], [2, 4]]}),
            "{backend}"
        );
        assert!(
            stderr.contains("backend:"),
            "{backend}: the backend used goes to stderr: {stderr}"
        );
    }
}

#[test]
fn empty_scene_gives_no_pairs() {
    for text in [r###"{"shapes": [], "bodies": []}"###, "{}"] {
        let path = write_scene("empty.json", text);
        for backend in backends() {
            let out = run(&["pairs", &path, "--backend", backend]);
            assert!(out.status.success(), "{backend}");
            let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
            assert_eq!(value, serde_json::json!({"pairs": []}), "{backend}");
        }
    }
}

#[test]
fn out_writes_the_file_and_nothing_to_stdout() {
    let path = write_scene("spec-out.json", SPEC_EXAMPLE);
    let target = write_scene("result.json", "");
    let out = run(&["pairs", &path, "--backend", "cpu", "--out", &target]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&target).expect("written")).expect("JSON");
    assert_eq!(value["pairs"], serde_json::json!([[0, 3], [2, 4]]));
}

#[test]
fn refused_input_exits_1_with_the_message_on_stderr() {
    let bad = write_scene(
        "bad.json",
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 3, "x": 0, "y": 0}]}"###,
    );
    let missing = "/nonexistent/scene.json".to_string();
    for backend in backends() {
        for (path, words) in [
            (&bad, ["body 0", "shape"]),
            (&missing, ["cannot read", "scene.json"]),
        ] {
            let out = run(&["pairs", path, "--backend", backend]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{backend} {path}: {stderr}");
            assert!(out.stdout.is_empty());
            for word in words {
                assert!(
                    stderr.contains(word),
                    "{backend}: `{stderr}` lacks `{word}`"
                );
            }
        }
    }
}

#[test]
fn adapters_lists_something_or_says_none() {
    let out = run(&["adapters"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    if gpu().is_some() {
        assert!(stdout.contains("usable"), "{stdout}");
    } else {
        assert!(!stdout.is_empty());
    }
}
