//! `gpu-collide bench` as a user runs it: the JSON it writes, the plot, the exit status,
//! agreement between backends, and refusals of bad options. CPU backends only, small
//! scenes: a few seconds.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::SPEC_EXAMPLE;

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpu-collide"))
        .arg("bench")
        .args(args)
        .output()
        .expect("binary runs")
}

/// A fresh directory for one test's outputs, under the target directory's scratch
/// space (see tests/cli.rs's `write_scene`).
fn out_dir(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("bench-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).expect("JSON written");
    serde_json::from_str(&text).expect("valid JSON")
}

#[test]
fn bullet_hell_on_cpu_and_parry_writes_json_plot_and_table_and_agrees() {
    let out = out_dir("bullet-hell");
    let result = bench(&[
        "--scene",
        "bullet-hell",
        "--bodies",
        "500",
        "--frames",
        "2",
        "--backend",
        "cpu,parry2d",
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(0), "{stdout}\n{stderr}");

    let report = read_json(&out.join("bench.json"));
    let runs = report["runs"].as_array().expect("runs is a list");
    let backends: Vec<&str> = runs.iter().filter_map(|r| r["backend"].as_str()).collect();
    assert_eq!(backends, ["cpu", "parry2d"], "{report:#}");
    for run in runs {
        assert_eq!(run["scene"], "bullet-hell");
        assert_eq!(run["bodies"], 500);
        assert_eq!(run["frames"], 2);
        assert!(run["adapter"].is_null(), "CPU backends have no adapter");
        let ms = |k: &str| run["frame_ms"][k].as_f64().expect("frame_ms number");
        assert!(ms("min") > 0.0 && ms("min") <= ms("median") && ms("median") <= ms("max"));
        // stages_ms and candidates are always there, null where the backend cannot tell.
        let object = run.as_object().expect("run is an object");
        for key in ["stages_ms", "candidates", "pairs", "agreement"] {
            assert!(object.contains_key(key), "run lacks {key}: {run}");
        }
        assert!(run["pairs"].as_u64().is_some());
    }
    let cpu = &runs[0];
    let parry = &runs[1];
    assert!(cpu["agreement"].is_null(), "cpu is the reference");
    assert_eq!(parry["agreement"]["reference"], "cpu");
    assert_eq!(parry["agreement"]["differing_pairs"], 0, "{parry}");
    assert_eq!(
        parry["agreement"]["frames_compared"], 3,
        "warm-up + 2 frames"
    );
    assert_eq!(parry["pairs"], cpu["pairs"]);
    assert!(
        parry["candidates"].as_u64().is_some(),
        "parry counts its candidates"
    );
    assert_eq!(report["all_agree"], true);
    assert_eq!(report["frames_requested"], 2);
    assert!(report["seed"].is_u64() && report["machine"]["cpus"].is_u64());

    let svg = std::fs::read_to_string(out.join("frame_time.svg")).expect("plot written");
    assert!(svg.contains("<svg") && svg.contains("parry2d"), "{svg}");
    let table = std::fs::read_to_string(out.join("table.txt")).expect("table written");
    assert!(
        stdout.contains(&table),
        "the table printed is the one saved"
    );
    assert!(table.contains("median ms") && table.contains("agree with cpu"));
    let _ = std::fs::remove_dir_all(&out);
}

/// `--seed` makes other scenes of the same kind, and the report says which seed ran.
#[test]
fn another_seed_benchmarks_other_scenes_of_the_same_kind() {
    let run = |seed: &str| {
        let out = out_dir(&format!("seed-{seed}"));
        let mut args = vec!["--scene", "mixed", "--bodies", "300", "--frames", "1"];
        args.extend([
            "--backend",
            "cpu",
            "--out",
            out.to_str().expect("utf-8 path"),
        ]);
        if !seed.is_empty() {
            args.extend(["--seed", seed]);
        }
        let result = bench(&args);
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(0), "{stderr}");
        let report = read_json(&out.join("bench.json"));
        let _ = std::fs::remove_dir_all(&out);
        let pairs = report["runs"][0]["pairs"].as_u64().expect("pairs");
        (report["seed"].as_u64().expect("seed"), pairs)
    };
    let (default_seed, default_pairs) = run("");
    assert_eq!(default_seed, gpu_collide::bench::SEED);
    assert_eq!(
        run(&default_seed.to_string()),
        (default_seed, default_pairs)
    );
    let others: Vec<(u64, u64)> = ["11", "12", "13"].map(run).to_vec();
    assert_eq!(others.iter().map(|o| o.0).collect::<Vec<_>>(), [11, 12, 13]);
    assert!(
        others.iter().any(|o| o.1 != default_pairs),
        "three other seeds all found the default seed's {default_pairs} pairs: {others:?}"
    );
    let refused = bench(&["--seed", "x"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--seed"));
}

#[test]
fn each_thread_count_runs_the_cpu_backend_side_by_side_and_the_baselines_once() {
    let out = out_dir("threads");
    let result = bench(&[
        "--scene",
        "mixed",
        "--bodies",
        "300",
        "--frames",
        "2",
        "--backend",
        "cpu,parry2d",
        "--threads",
        "1,2",
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(0), "{stderr}");
    let report = read_json(&out.join("bench.json"));
    let runs: Vec<(&str, Option<u64>, Option<&str>)> = report["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| {
            (
                r["backend"].as_str().expect("backend"),
                r["threads"].as_u64(),
                r["agreement"]["reference"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        runs,
        [
            ("cpu", Some(1), None),
            ("cpu", Some(2), Some("cpu, 1 thread")),
            ("parry2d", None, Some("cpu, 1 thread")),
        ]
    );
    let table = std::fs::read_to_string(out.join("table.txt")).expect("table");
    assert!(table.contains("cpu, 2 threads"), "{table}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_scene_file_runs_its_own_bodies_and_json_goes_where_asked() {
    let out = out_dir("file");
    std::fs::create_dir_all(&out).expect("out dir");
    let scene = out.join("spec.json");
    std::fs::write(&scene, SPEC_EXAMPLE).expect("scene written");
    let json = out.join("elsewhere").join("report.json");
    let result = bench(&[
        "--scene",
        scene.to_str().expect("utf-8 path"),
        "--backend",
        "parry2d,cpu",
        "--frames",
        "3",
        "--json",
        json.to_str().expect("utf-8 path"),
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(0), "{stderr}");
    let report = read_json(&json);
    let runs = report["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2);
    for run in runs {
        assert_eq!(run["scene"], "spec.json");
        assert_eq!(run["bodies"], 5);
    }
    // The spec's example has pairs [0, 3] and [2, 4] before anything moves.
    assert_eq!(runs[0]["pairs"], 2);
    assert_eq!(report["all_agree"], true, "{report:#}");
    assert!(out.join("frame_time.svg").exists());

    // The empty scene is a scene too: no pairs, and a plot that says there is nothing to plot.
    let empty = out.join("empty.json");
    std::fs::write(&empty, r#"{"shapes": [], "bodies": []}"#).expect("scene written");
    let result = bench(&[
        "--scene",
        empty.to_str().expect("utf-8 path"),
        "--backend",
        "cpu,parry2d",
        "--frames",
        "1",
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(0), "{stderr}");
    let report = read_json(&out.join("bench.json"));
    assert_eq!(report["runs"][1]["pairs"], 0);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_options_exit_1_with_a_clear_message() {
    let out = out_dir("bad");
    let out = out.to_str().expect("utf-8 path");
    for (args, words) in [
        (
            vec!["--bodies", "x", "--out", out],
            vec!["--bodies", "`x` is not a whole number"],
        ),
        (
            vec!["--backend", "nope", "--out", out],
            vec!["--backend", "nope", "gpu, cpu, parry2d"],
        ),
        (
            vec!["--scene", "/missing.json", "--out", out],
            vec!["cannot read /missing.json", "not a scene name"],
        ),
        (vec!["--frames", "0", "--out", out], vec!["--frames", "`0`"]),
        // Bounded, so that a stray digit is refused instead of aborting the process
        // when an allocation fails.
        (
            vec!["--bodies", "99999999999", "--out", out],
            vec!["--bodies", "`99999999999`", "1 to 16777216"],
        ),
        (
            vec!["--bodies", "1000,4294967296", "--out", out],
            vec!["--bodies", "`4294967296`", "1 to 16777216"],
        ),
        (
            vec!["--frames", "99999999999999", "--out", out],
            vec!["--frames", "`99999999999999`", "1 to 10000"],
        ),
        (
            vec!["--threads", "2,0", "--out", out],
            vec!["--threads", "`0`", "1 to 1024"],
        ),
    ] {
        let result = bench(&args);
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(1), "{args:?}: {stderr}");
        for word in words {
            assert!(stderr.contains(word), "{args:?}: `{stderr}` lacks `{word}`");
        }
    }
    assert!(
        !std::path::Path::new(out).exists(),
        "nothing is written when the options are refused"
    );
}

#[test]
fn unusable_outputs_are_refused_before_the_benchmark_runs() {
    let base = out_dir("outputs");
    std::fs::create_dir_all(&base).expect("base dir");
    let file = base.join("a-file");
    std::fs::write(&file, "not a directory").expect("file written");
    let file_text = file.to_str().expect("utf-8 path");
    let inside_file = file.join("report.json");
    let inside_text = inside_file.to_str().expect("utf-8 path");
    let out = base.join("out");
    let out_text = out.to_str().expect("utf-8 path");
    let mut cases = vec![
        (
            vec!["--out", file_text],
            vec!["--out", file_text, "is not a directory"],
        ),
        (
            vec!["--out", out_text, "--json", inside_text],
            vec!["--json", inside_text, "is not a directory"],
        ),
        (
            vec!["--out", out_text, "--json", out_text],
            vec!["cannot write", out_text, "is a directory"],
        ),
    ];
    if Path::new("/dev/full").exists() {
        cases.push((
            vec!["--out", "/dev/full"],
            vec!["--out /dev/full", "is not a directory"],
        ));
    }
    for (mut args, words) in cases {
        args.extend([
            "--scene",
            "bullet-hell",
            "--bodies",
            "2000",
            "--frames",
            "1",
        ]);
        args.extend(["--backend", "cpu"]);
        let result = bench(&args);
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(1), "{args:?}: {stderr}");
        for word in words {
            assert!(stderr.contains(word), "{args:?}: `{stderr}` lacks `{word}`");
        }
        assert!(!stderr.contains("File exists"), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("bodies on cpu"),
            "{args:?}: refused only after running: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn the_table_on_a_full_or_closed_stdout_does_not_panic_and_the_files_are_written() {
    let out = out_dir("stdout");
    let args = [
        "--scene",
        "bullet-hell",
        "--bodies",
        "300",
        "--frames",
        "1",
        "--backend",
        "cpu",
        "--out",
        out.to_str().expect("utf-8 path"),
    ];
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let closed = Command::new(env!("CARGO_BIN_EXE_gpu-collide"))
        .arg("bench")
        .args(args)
        .stdout(writer)
        .output()
        .expect("binary runs");
    let stderr = String::from_utf8_lossy(&closed.stderr);
    assert_eq!(closed.status.code(), Some(0), "| closed: {stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("error:"),
        "{stderr}"
    );
    assert!(out.join("table.txt").exists(), "| closed: {stderr}");

    if Path::new("/dev/full").exists() {
        let _ = std::fs::remove_dir_all(&out);
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full opens");
        let result = Command::new(env!("CARGO_BIN_EXE_gpu-collide"))
            .arg("bench")
            .args(args)
            .stdout(full)
            .output()
            .expect("binary runs");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(1), "> /dev/full: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            stderr.contains("error: cannot write standard output: "),
            "{stderr}"
        );
        assert!(out.join("bench.json").exists(), "> /dev/full: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_scene_that_is_not_a_json_object_is_refused_at_its_first_byte() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let out = out_dir("zero");
    let result = bench(&[
        "--scene",
        "/dev/zero",
        "--backend",
        "cpu",
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("byte 0 is 0x00"), "{stderr}");
}

/// Runs the bench on `scenes` at `bodies` for `frames` frames on `backends`, into a fresh
/// directory named `name`; asserts it succeeded and returns the directory, the JSON report
/// and the standard output and error.
fn bench_run(
    name: &str,
    scenes: &str,
    bodies: &str,
    frames: &str,
    backends: &str,
) -> (PathBuf, Value, String, String) {
    let out = out_dir(name);
    let result = bench(&[
        "--scene",
        scenes,
        "--bodies",
        bodies,
        "--frames",
        frames,
        "--backend",
        backends,
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    let stdout = String::from_utf8_lossy(&result.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
    assert_eq!(result.status.code(), Some(0), "{stdout}\n{stderr}");
    let report = read_json(&out.join("bench.json"));
    (out, report, stdout, stderr)
}

/// Each run of a report as `(scene, backend)`, in the order they ran.
fn scenes_and_backends(report: &Value) -> Vec<(&str, &str)> {
    report["runs"]
        .as_array()
        .expect("runs is a list")
        .iter()
        .filter_map(|r| Some((r["scene"].as_str()?, r["backend"].as_str()?)))
        .collect()
}

#[test]
fn swept_bullets_and_query_batches_run_beside_bullet_hell_and_report_agreement() {
    let (out, report, stdout, _) = bench_run(
        "swept-queries",
        "bullet-hell,swept-bullet-hell,queries",
        "400",
        "2",
        "cpu,parry2d",
    );
    let runs = report["runs"].as_array().expect("runs is a list");
    let ran = scenes_and_backends(&report);
    assert_eq!(
        ran,
        [
            ("bullet-hell", "cpu"),
            ("bullet-hell", "parry2d"),
            ("swept-bullet-hell", "cpu"),
            ("swept-bullet-hell", "parry2d"),
            ("queries", "cpu"),
            ("queries", "parry2d"),
        ],
        "{report:#}"
    );
    for run in runs.iter().filter(|r| r["backend"] == "parry2d") {
        let agreement = &run["agreement"];
        assert_eq!(agreement["reference"], "cpu", "{run}");
        assert_eq!(agreement["frames_compared"], 3, "{run}");
        // Whatever differs is laid at the baseline's door, or is within the band.
        assert_eq!(agreement["disagreements"], agreement["wrong_here"], "{run}");
        for key in ["differing_toi", "differing_answers"] {
            assert!(agreement[key].as_u64().is_some(), "{key}: {run}");
        }
    }
    let swept = &runs[2];
    assert!(
        swept["pairs"].as_u64() > Some(0),
        "bullets meet ships: {swept}"
    );
    let queries = &runs[4];
    assert!(
        queries["pairs"].as_u64() > Some(0),
        "rays hit bodies: {queries}"
    );
    // 10^4 rays, 10^3 points and boxes a frame: a ray grazing a circle may hit it at a
    // t that f32 puts past 0.01 / |d| on one backend, but only a handful of them.
    let differing = runs[5]["agreement"]["differing_answers"].as_u64();
    assert!(differing < Some(30), "{:#}", runs[5]);
    assert!(stdout.contains("swept-bullet-hell"), "{stdout}");
    assert!(stdout.contains("queries"), "{stdout}");
    let _ = std::fs::remove_dir_all(&out);
}

/// The rapier2d baseline, whose broad and narrow phases carry over from frame to frame,
/// finds the cpu's pairs on every frame of the default scenes, and is skipped with a
/// note, not failed, on swept frames, which it does not answer.
#[test]
fn rapier2d_agrees_with_cpu_on_the_default_scenes_and_skips_swept_frames() {
    baseline_agrees_with_cpu_on_the_default_scenes_and_skips_swept_frames("rapier2d", true);
}

#[test]
fn box2d_agrees_with_cpu_on_the_default_scenes_and_skips_swept_frames() {
    baseline_agrees_with_cpu_on_the_default_scenes_and_skips_swept_frames("box2d", false);
}

/// A baseline that keeps its world across frames, on the default scenes beside the cpu
/// backend: the same pairs but for a few within 0.01 of touching, every frame compared,
/// and swept frames skipped with a note. `counts_candidates`: it reports candidates.
fn baseline_agrees_with_cpu_on_the_default_scenes_and_skips_swept_frames(
    baseline: &str,
    counts_candidates: bool,
) {
    let (out, report, _, stderr) = bench_run(
        baseline,
        "bullet-hell,mixed,bitmask,swept-bullet-hell",
        "500",
        "3",
        &format!("cpu,{baseline}"),
    );
    let runs = report["runs"].as_array().expect("runs is a list");
    let ran = scenes_and_backends(&report);
    assert_eq!(
        ran,
        [
            ("bullet-hell", "cpu"),
            ("bullet-hell", baseline),
            ("mixed", "cpu"),
            ("mixed", baseline),
            ("bitmask", "cpu"),
            ("bitmask", baseline),
            ("swept-bullet-hell", "cpu"),
        ],
        "{report:#}"
    );
    for pair in runs.chunks(2).filter(|p| p.len() == 2) {
        let (cpu, theirs) = (&pair[0], &pair[1]);
        let agreement = &theirs["agreement"];
        assert_eq!(agreement["reference"], "cpu", "{theirs}");
        assert_eq!(
            agreement["frames_compared"], 4,
            "warm-up + 3 frames: {theirs}"
        );
        assert_eq!(agreement["disagreements"], 0, "{theirs}");
        // Only pairs within 0.01 of touching may differ, and these scenes have few.
        let differing = agreement["differing_pairs"].as_u64().expect("a count");
        let pairs = cpu["pairs"].as_u64().expect("pairs");
        assert!(pairs > 0 && differing * 50 <= pairs, "{cpu}\n{theirs}");
        if counts_candidates {
            assert!(
                theirs["candidates"].as_u64() >= theirs["pairs"].as_u64(),
                "{theirs}"
            );
        } else {
            assert!(theirs["candidates"].is_null(), "{theirs}");
        }
    }
    let dropped = report["dropped"].as_array().expect("dropped is a list");
    assert!(
        dropped.iter().any(|d| d["scene"] == "swept-bullet-hell"
            && d["backend"] == baseline
            && d["reason"]
                .as_str()
                .is_some_and(|r| r.contains("swept pairs"))),
        "{report:#}"
    );
    assert!(
        stderr.contains(&format!("on {baseline}: skipped")),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&out);
}
