//! The `gpu-collide` binary as a user runs it: output format, exit status, errors.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{gpu, json_close, SPEC_EXAMPLE, SPEC_EXAMPLE_1_1};

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gpu-collide"));
    command.args(args);
    command
}

fn run(args: &[&str]) -> Output {
    command(args).output().expect("binary runs")
}

/// Checks stderr carries no panic and no driver noise posing as our error.
fn assert_clean_stderr(what: &str, stderr: &str) {
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert!(
        !stderr.lines().any(|l| l.starts_with("error: XDG")),
        "{what}: libwayland's complaint leaked: {stderr}"
    );
}

/// Writes a scene file under the target directory's scratch space (`CARGO_TARGET_TMPDIR`,
/// which cargo gives integration tests), so that runs leave nothing in the system's
/// temporary directory.
fn write_scene(name: &str, text: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
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
            stderr.contains("start-up: scene read in") && stderr.contains("backend ready in"),
            "{backend}: start-up is timed apart from the pairs: {stderr}"
        );
        assert!(
            stderr.contains("backend:"),
            "{backend}: the backend used goes to stderr: {stderr}"
        );
    }
}

#[test]
fn empty_scene_gives_no_pairs() {
    let path = write_scene("empty.json", r###"{"shapes": [], "bodies": []}"###);
    for backend in backends() {
        let out = run(&["pairs", &path, "--backend", backend]);
        assert!(out.status.success(), "{backend}");
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(value, serde_json::json!({"pairs": []}), "{backend}");
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
    // Not an empty scene: both lists are required, and `boKies` is a typo.
    let misspelt = write_scene("misspelt.json", r###"{"shapes": [], "boKies": []}"###);
    let twice = write_scene(
        "twice.json",
        r###"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "x": 9, "y": 0}]}"###,
    );
    for backend in backends() {
        for (path, words) in [
            (&bad, ["body 0", "shape"]),
            (&missing, ["cannot read", "scene.json"]),
            (&misspelt, ["bodies", "boKies"]),
            (&twice, ["body 0", "x: is given more than once"]),
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

#[test]
fn output_errors_are_reported_and_a_closed_pipe_ends_quietly() {
    let path = write_scene("spec-stdout.json", SPEC_EXAMPLE);
    let mut cases: Vec<Vec<&str>> = backends()
        .into_iter()
        .map(|b| vec!["pairs", path.as_str(), "--backend", b])
        .collect();
    cases.push(vec!["adapters"]);
    for args in cases {
        // A reader that has gone (`| head -c 0`): the pipe's read end is closed before
        // the program writes, so its write surely fails with a broken pipe.
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let out = command(&args).stdout(writer).output().expect("binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?} | closed: {stderr}");
        assert_clean_stderr(&format!("{args:?} | closed"), &stderr);
        assert!(!stderr.contains("error:"), "{args:?} | closed: {stderr}");

        // A full disk is a failure, said plainly.
        if Path::new("/dev/full").exists() {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full opens");
            let out = command(&args).stdout(full).output().expect("binary runs");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?} > /dev/full: {stderr}");
            assert_clean_stderr(&format!("{args:?} > /dev/full"), &stderr);
            assert!(
                stderr.contains("error: cannot write standard output: "),
                "{args:?} > /dev/full: {stderr}"
            );
        }
    }
}

/// Runs `command`, failing the test if it takes more than `limit`.
fn output_within(mut command: Command, limit: Duration) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

#[test]
fn input_that_cannot_be_a_scene_is_refused_at_its_first_byte() {
    let list = write_scene("list.json", "\n  [1, 2, 3]");
    let mut cases = vec![(
        command(&["pairs", &list, "--backend", "cpu"]),
        "byte 3 is '['",
    )];
    // Standard input too.
    let mut stdin = command(&["pairs", "-", "--backend", "cpu"]);
    stdin.stdin(std::fs::File::open(&list).expect("scene opens"));
    cases.push((stdin, "byte 3 is '['"));
    if Path::new("/dev/zero").exists() {
        // Endless: read to the end, it took all memory.
        cases.push((
            command(&["pairs", "/dev/zero", "--backend", "cpu"]),
            "byte 0 is 0x00",
        ));
        let mut zeros = command(&["pairs", "-", "--backend", "cpu"]);
        zeros.stdin(std::fs::File::open("/dev/zero").expect("/dev/zero opens"));
        cases.push((zeros, "byte 0 is 0x00"));
    }
    for (command, words) in cases {
        let what = format!("{:?}", command.get_args().collect::<Vec<_>>());
        let out = output_within(command, Duration::from_secs(30));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
        assert!(
            stderr.contains("must be a JSON object") && stderr.contains(words),
            "{what}: {stderr}"
        );
    }
}

#[test]
fn no_driver_noise_on_stderr_and_no_directory_left_behind() {
    if gpu().is_none() {
        return;
    }
    let path = write_scene("spec-quiet.json", SPEC_EXAMPLE);
    for args in [
        vec!["pairs", path.as_str(), "--backend", "gpu"],
        vec!["adapters"],
    ] {
        // Without XDG_RUNTIME_DIR, Mesa's Vulkan device-select layer made libwayland print
        // `error: XDG_RUNTIME_DIR is invalid or not set in the environment.`
        let child = command(&args)
            .env_remove("XDG_RUNTIME_DIR")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("binary runs");
        let pid = child.id();
        let out = child.wait_with_output().expect("output");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
        assert_clean_stderr(&format!("{args:?}"), &stderr);
        assert!(
            !stderr.contains("error"),
            "{args:?}: a run that worked says no error: {stderr}"
        );
        let runtime = std::env::temp_dir().join(format!("gpu-collide-runtime-{pid}"));
        assert!(!runtime.exists(), "{} left behind", runtime.display());
    }
}

#[test]
fn wgpu_environment_mistakes_are_named_not_answered_with_install_advice() {
    let path = write_scene("spec-env.json", SPEC_EXAMPLE);
    for args in [
        vec!["pairs", path.as_str(), "--backend", "gpu"],
        vec!["adapters"],
    ] {
        for value in ["bogus", "vulkan, bogus", " , "] {
            let out = command(&args)
                .env("WGPU_BACKEND", value)
                .output()
                .expect("binary runs");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?} {value}: {stderr}");
            for word in ["WGPU_BACKEND", value, "vulkan", "gl", "metal", "dx12"] {
                assert!(
                    stderr.contains(word),
                    "{args:?} {value}: lacks {word}: {stderr}"
                );
            }
            assert!(!stderr.contains("apt-get"), "{args:?} {value}: {stderr}");
        }
    }
    if let Some(context) = gpu() {
        let out = command(&["pairs", &path, "--backend", "gpu"])
            .env("WGPU_ADAPTER_NAME", "no-such-adapter")
            .output()
            .expect("binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        for word in [
            "WGPU_ADAPTER_NAME",
            "no-such-adapter",
            &context.adapter.name,
        ] {
            assert!(stderr.contains(word), "lacks {word}: {stderr}");
        }
        assert!(!stderr.contains("apt-get"), "{stderr}");
    }
}

#[test]
fn max_pairs_refuses_a_pile_past_it_on_every_backend_and_answers_under_it() {
    // 200 circles on one point: 19 900 pairs, all of them colliding.
    let bodies = vec![r#"{"shape": 0, "x": 1, "y": 2}"#; 200].join(",");
    let path = write_scene(
        "pile.json",
        &format!(r#"{{"shapes": [{{"circle": 1}}], "bodies": [{bodies}]}}"#),
    );
    for backend in backends() {
        let refused = run(&["pairs", &path, "--backend", backend, "--max-pairs", "19899"]);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{backend}: {stderr}");
        assert!(refused.stdout.is_empty(), "{backend}: nothing on stdout");
        assert!(
            stderr.contains("more than 19899 pairs") && stderr.contains("--max-pairs"),
            "{backend}: {stderr}"
        );
        assert_clean_stderr(backend, &stderr);

        let answered = run(&["pairs", &path, "--backend", backend, "--max-pairs", "19900"]);
        let stderr = String::from_utf8_lossy(&answered.stderr);
        assert!(answered.status.success(), "{backend}: {stderr}");
        let value: serde_json::Value =
            serde_json::from_slice(&answered.stdout).expect("JSON on stdout");
        assert_eq!(
            value["pairs"].as_array().map(Vec::len),
            Some(19_900),
            "{backend}"
        );
    }
    let zero = run(&["pairs", &path, "--max-pairs", "0"]);
    assert_eq!(zero.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("--max-pairs"));
}

/// Runs `args` on the spec's 1.1 example with the cpu backend and returns its JSON; with
/// the gpu backend (where there is one), checks it gives the same answer.
fn answer_1_1(command_name: &str) -> serde_json::Value {
    let path = write_scene("spec-1.1.json", SPEC_EXAMPLE_1_1);
    let out = run(&[command_name, &path, "--backend", "cpu"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{command_name}: {stderr}");
    assert_clean_stderr(command_name, &stderr);
    let value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    if gpu().is_some() {
        let answered = run(&[command_name, &path, "--backend", "gpu"]);
        let stderr = String::from_utf8_lossy(&answered.stderr);
        assert!(answered.status.success(), "{command_name} gpu: {stderr}");
        assert_clean_stderr(command_name, &stderr);
        let gpu_value: serde_json::Value =
            serde_json::from_slice(&answered.stdout).expect("JSON on stdout");
        // Times of impact within the format's tolerance (0.01 / |v| with |v| = 30, plus
        // 1e-4); the rest within 1e-4.
        assert!(
            json_close(&gpu_value, &value, 0.01 / 30.0 + 1e-4),
            "{command_name}: gpu {gpu_value}, cpu {value}"
        );
    }
    value
}

#[test]
fn pairs_of_a_moving_scene_print_their_times_of_impact() {
    let value = answer_1_1("pairs");
    let expected = serde_json::json!({"pairs": [[0, 1]], "toi": [13.0 / 30.0]});
    assert!(json_close(&value, &expected, 1e-4), "{value}");
    // A still scene prints no `toi`, as version 1 did.
    let path = write_scene("still.json", SPEC_EXAMPLE);
    let out = run(&["pairs", &path, "--backend", "cpu"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("toi"));
}

#[test]
fn contacts_prints_depths_normals_and_areas() {
    // The spec's example touches nowhere at t = 0 (the circle only gets there later).
    let value = answer_1_1("contacts");
    assert_eq!(value, serde_json::json!({"contacts": []}));
    let path = write_scene(
        "contacts.json",
        r####"{"shapes": [{"polygon": [[-1, -1], [1, -1], [1, 1], [-1, 1]]},
                       {"bitmask": {"width": 2, "height": 1, "rows": ["##"]}}],
            "bodies": [{"shape": 0, "x": 0, "y": 0, "vx": 100}, {"shape": 0, "x": 1.5, "y": 0.2},
                       {"shape": 1, "x": 10, "y": 0}, {"shape": 1, "x": 11, "y": 0}]}"####,
    );
    let expected = serde_json::json!({"contacts": [
        {"pair": [0, 1], "normal": [1, 0], "depth": 0.5},
        {"pair": [2, 3], "area": 1}
    ]});
    let backends: &[&str] = if gpu().is_some() {
        &["cpu", "gpu"]
    } else {
        &["cpu"]
    };
    for backend in backends {
        let out = run(&["contacts", &path, "--backend", backend]);
        assert!(
            out.status.success(),
            "{backend}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert!(json_close(&value, &expected, 1e-5), "{backend}: {value}");
    }
}

#[test]
fn query_answers_the_spec_example() {
    let value = answer_1_1("query");
    let expected = serde_json::json!({
        "rays": [{"body": 1, "t": 0.6, "normal": [-1, 0]}],
        "points": [[1]],
        "boxes": [[0]]
    });
    assert!(json_close(&value, &expected, 1e-4), "{value}");
    let backends: &[&str] = if gpu().is_some() {
        &["cpu", "gpu"]
    } else {
        &["cpu"]
    };
    if gpu().is_some() {
        let path = write_scene("spec-1.1.json", SPEC_EXAMPLE_1_1);
        let out = run(&["query", &path, "--backend", "gpu"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "query gpu: {stderr}");
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert!(json_close(&value, &expected, 1e-4), "gpu: {value}");
    }
    // A scene without queries answers with empty lists; a miss is null, a start inside
    // has a null normal.
    let path = write_scene(
        "rays.json",
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0}],
            "rays": [{"x": 5, "y": 5, "dx": 1, "dy": 0}, {"x": 0, "y": 0, "dx": 1, "dy": 0}]}"#,
    );
    for backend in backends {
        let out = run(&["query", &path, "--backend", backend]);
        assert!(
            out.status.success(),
            "{backend}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(
            value,
            serde_json::json!({"rays": [null, {"body": 0, "t": 0.0, "normal": null}], "points": [], "boxes": []}),
            "{backend}"
        );
    }
    // A query breaking a rule is refused naming it, with status 1.
    let path = write_scene(
        "bad-ray.json",
        r#"{"shapes": [], "bodies": [], "rays": [{"x": 0, "y": 0, "dx": 1, "dy": 0}, {"x": 0, "y": 0, "dx": 0, "dy": 0}]}"#,
    );
    let out = run(&["query", &path, "--backend", "cpu"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: ray 1: dx, dy: zero length"),
        "{stderr}"
    );
}

#[test]
fn answers_stay_writable_where_f32_overflows() {
    // Far past the format's range, arithmetic overflows: the answers may lose precision,
    // but every number the format requires is a number, never null.
    let path = write_scene(
        "overflow.json",
        r#"{"shapes": [{"circle": 1e30}],
            "bodies": [{"shape": 0, "x": 0, "y": 0}, {"shape": 0, "x": 1e30, "y": 0}],
            "rays": [{"x": -3e38, "y": 0, "dx": 3e38, "dy": 1e-30}]}"#,
    );
    let mut runs = vec![("contacts", "cpu"), ("query", "cpu")];
    if gpu().is_some() {
        runs.push(("query", "gpu"));
    }
    for (command_name, backend) in runs {
        let out = run(&[command_name, &path, "--backend", backend]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        for contact in value["contacts"].as_array().into_iter().flatten() {
            assert!(contact["depth"].is_number(), "{value}");
            assert!(
                contact["normal"]
                    .as_array()
                    .is_some_and(|n| n.iter().all(|c| c.is_number())),
                "{value}"
            );
        }
        for ray in value["rays"].as_array().into_iter().flatten() {
            assert!(ray.is_null() || ray["t"].is_number(), "{value}");
        }
    }
}

/// A fresh, empty directory to run the binary in, to see what it leaves there.
fn empty_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn out_dash_is_standard_output_for_every_command() {
    let path = write_scene("spec-1.1-dash.json", SPEC_EXAMPLE_1_1);
    let dir = empty_dir("dash");
    for name in ["pairs", "contacts", "query"] {
        let to_stdout = run(&[name, &path, "--backend", "cpu"]);
        let out = command(&[name, &path, "--backend", "cpu", "--out", "-"])
            .current_dir(&dir)
            .output()
            .expect("binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {stderr}");
        assert!(!out.stdout.is_empty(), "{name}: {stderr}");
        assert_eq!(out.stdout, to_stdout.stdout, "{name}: as without --out");
    }
    // The benchmark's --out is a directory, which standard output is not; its JSON can go
    // there instead of the table.
    let bench = |args: &[&str]| {
        let mut all = vec!["bench", "--scene", "bullet-hell", "--bodies", "300"];
        all.extend(["--frames", "1", "--backend", "cpu"]);
        all.extend(args);
        command(&all)
            .current_dir(&dir)
            .output()
            .expect("binary runs")
    };
    let refused = bench(&["--out", "-"]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--out -") && stderr.contains("directory") && stderr.contains("--json -"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("bodies on cpu"),
        "refused before running: {stderr}"
    );
    let json = bench(&["--out", "results", "--json", "-"]);
    let stderr = String::from_utf8_lossy(&json.stderr);
    assert!(json.status.success(), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_slice(&json.stdout).expect("only the JSON on stdout");
    assert_eq!(report["runs"][0]["bodies"], 300, "{report}");
    assert!(stderr.contains("wrote standard output"), "{stderr}");
    assert!(dir.join("results").join("frame_time.svg").exists());
    assert!(!dir.join("results").join("bench.json").exists());
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(left, ["results"], "no file named `-`");
}

/// The README's commands on the example scenes, run as written (from the repository's
/// root) where they show an answer: each must print exactly that answer, so the README
/// cannot drift from the binary. Every scene a README command names must exist.
#[test]
fn the_readme_commands_answer_as_the_readme_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let drawings = empty_dir("readme");
    let (mut answered, mut drawn) = (0, 0);
    let mut previous: Option<serde_json::Value> = None;
    for line in readme.lines() {
        let Some(command_line) = line.strip_prefix("gpu-collide ") else {
            continue;
        };
        let (args, comment) = match command_line.split_once(" # ") {
            Some((args, comment)) => (args, comment.trim()),
            None => (command_line, ""),
        };
        let mut args: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        let Some(name) = args.first().cloned() else {
            continue;
        };
        if !["pairs", "contacts", "query", "shapes", "draw"].contains(&name.as_str()) {
            continue;
        }
        let scene = root.join(&args[1]);
        assert!(scene.is_file(), "README: `{line}`: no {}", scene.display());
        // Drawn into a scratch directory rather than the repository.
        let picture = (name == "draw").then(|| {
            let out = args.iter().position(|a| a == "--out").expect("draw --out") + 1;
            args[out] = drawings.join(&args[out]).display().to_string();
            args[out].clone()
        });
        let backend = args
            .iter()
            .position(|a| a == "--backend")
            .map_or(if name == "draw" { "cpu" } else { "gpu" }, |k| {
                args[k + 1].as_str()
            });
        if backend == "gpu" && gpu().is_none() {
            continue;
        }
        let out = command(&args.iter().map(String::as_str).collect::<Vec<_>>())
            .current_dir(root)
            .output()
            .expect("binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "README: `{line}`: {stderr}");
        if let Some(picture) = picture {
            let svg = std::fs::read_to_string(picture).expect("the picture is written");
            roxmltree::Document::parse(&svg).expect("the picture is well-formed XML");
            drawn += 1;
        } else if comment.starts_with('{') {
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(text.trim_end(), comment, "README: `{line}`");
            previous = Some(serde_json::from_str(comment).expect("the README shows JSON"));
            answered += 1;
        } else if comment.starts_with("the same") {
            let shown = previous
                .as_ref()
                .expect("an answer above to be the same as");
            let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
            assert!(json_close(&value, shown, 1e-5), "README: `{line}`: {value}");
        }
    }
    assert!(answered >= 4, "the README shows {answered} answers");
    assert_eq!(drawn, 2, "the README's two drawings");
}
