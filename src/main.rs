//! `gpu-collide`: colliding pairs of a scene file, the adapters wgpu can see, and the
//! benchmark of every backend.
//!
//! ```text
//! gpu-collide pairs SCENE.json [--backend gpu|cpu] [--out FILE]
//! gpu-collide draw SCENE.json --out FILE.svg [--backend gpu|cpu] [--view x0,y0,x1,y1]
//! gpu-collide contacts SCENE.json [--backend gpu|cpu] [--out FILE]
//! gpu-collide query SCENE.json [--backend gpu|cpu] [--out FILE]
//! gpu-collide adapters
//! gpu-collide bench [--scene FILE|NAME[,...]] [--bodies N[,N...]] [--backend gpu,cpu,parry2d,rapier2d,box2d]
//!                   [--frames K] [--json FILE] [--out DIR]
//! ```
//!
//! Every command exits with 0 on success and 1 on refused input (options included) or
//! any failure, with the message on stderr. Standard output is written with its errors
//! checked: a full disk is a failure (`error: cannot write standard output: ...`), but a
//! reader that stops reading (`gpu-collide pairs s.json | head -c 10`, a broken pipe)
//! ends the output quietly and does not change the exit status: what it read was right,
//! and stopping early was its choice (ripgrep does the same).
//!
//! `-` is standard input as a scene and standard output as an `--out` file.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use gpu_collide::bench::{BenchOptions, CliError, SceneChoice};
use gpu_collide::{
    Collider, ContactKind, ConvexPart, CpuCollider, Error, GpuCollider, GpuContext, Pair, Scene,
};

#[derive(Parser)]
#[command(
    name = "gpu-collide",
    version,
    about = "Exact 2D collision pairs on the GPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Prints the colliding pairs of a scene file as {"pairs": [[i, j], ...]}.
    Pairs {
        /// The scene file (JSON, see docs/scene-format.md); `-` reads standard input.
        scene: PathBuf,
        /// Where to compute.
        #[arg(long, value_enum, default_value_t = Backend::Gpu)]
        backend: Backend,
        /// Write the pairs to this file; `-`, or no `--out`, writes them to standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Refuse the scene once more than N pairs of bodies have overlapping boxes,
        /// which bounds the memory used (8 bytes a pair; a pile of n bodies on one point
        /// has n²/2 such pairs).
        #[arg(long, value_name = "N", default_value_t = gpu_collide::DEFAULT_MAX_PAIRS,
              value_parser = max_pairs)]
        max_pairs: u64,
    },
    /// Draws a scene and its colliding pairs as SVG: bodies outlined, colliding bodies
    /// filled, seen whole or through a window.
    Draw {
        /// The scene file (JSON, see docs/scene-format.md); `-` reads standard input.
        scene: PathBuf,
        /// The SVG file to write; `-` writes it to standard output.
        #[arg(long)]
        out: PathBuf,
        /// Where to compute the pairs (the cpu backend needs no adapter).
        #[arg(long, value_enum, default_value_t = Backend::Cpu)]
        backend: Backend,
        /// Show only this window of the world: lower-left and upper-right corners
        /// [default: the whole scene].
        #[arg(long, value_name = "x0,y0,x1,y1", value_parser = gpu_collide::draw::View::parse, allow_hyphen_values = true)]
        view: Option<gpu_collide::draw::View>,
        /// Draw the convex pieces of concave and compound bodies as faint lines inside
        /// their outlines (the parts `gpu-collide shapes` lists).
        #[arg(long)]
        pieces: bool,
    },
    /// Prints the contact of every colliding pair at the frame's start as {"contacts":
    /// [{"depth": d, "normal": [x, y], "pair": [i, j]} or {"area": n, "pair": [i, j]}, ...]};
    /// a pair with a concave or compound body has one entry per pair of touching parts,
    /// each with "parts": [k, l].
    Contacts {
        /// The scene file (JSON, see docs/scene-format.md); `-` reads standard input.
        scene: PathBuf,
        /// Where to compute.
        #[arg(long, value_enum, default_value_t = Backend::Gpu)]
        backend: Backend,
        /// Write the contacts to this file; `-`, or no `--out`, writes them to standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// As for `pairs`.
        #[arg(long, value_name = "N", default_value_t = gpu_collide::DEFAULT_MAX_PAIRS,
              value_parser = max_pairs)]
        max_pairs: u64,
    },
    /// Prints, for every shape of a scene, the convex parts the answers use, in the
    /// shape's own frame, as {"shapes": [{"parts": [{"polygon": [[x, y], ...]}, ...]}, ...]}:
    /// a concave shape's pieces, a compound's parts in order.
    Shapes {
        /// The scene file (JSON, see docs/scene-format.md); `-` reads standard input.
        scene: PathBuf,
        /// Write the parts to this file; `-`, or no `--out`, writes them to standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Answers the scene's rays, points and boxes as {"boxes": [...], "points": [...],
    /// "rays": [...]}.
    Query {
        /// The scene file (JSON, see docs/scene-format.md); `-` reads standard input.
        scene: PathBuf,
        /// Where to compute.
        #[arg(long, value_enum, default_value_t = Backend::Gpu)]
        backend: Backend,
        /// Write the answers to this file; `-`, or no `--out`, writes them to standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Lists the adapters wgpu can see, best first, and whether each can run the pipeline.
    Adapters,
    /// Measures frame times on moving scenes on every backend and checks they find the
    /// same pairs; prints a table, writes JSON and a log-log plot to the output directory.
    ///
    /// With no options: bullet-hell at 1k, 10k, 100k and 1M bodies, mixed and bitmask at
    /// 1k and 10k, each on gpu, cpu, parry2d, rapier2d and box2d. A backend whose median frame
    /// exceeds 2 s is not run on the larger sizes of that scene (the run says so).
    Bench {
        /// Scene names or scene files, comma-separated, run in that order: bullet-hell,
        /// mixed, bitmask [default: these three], or swept-bullet-hell (bullets moving 5
        /// to 40 units a frame, answered with swept pairs and their time of impact) and
        /// queries (10^4 rays, 10^3 points and 10^3 boxes a frame against bullet-hell
        /// bodies), lasers (bullet-hell with a tenth of the bullets capsules up to 200
        /// long and compound ships) and lasers-as-circles (the same, the lasers circles),
        /// concave (crowded concave outlines) and concave-hulls (the same, each outline its
        /// convex hull), circles (crowded circles of six sizes, a particle system), which run
        /// only when named.
        #[arg(long, value_name = "FILE|NAME[,...]", value_delimiter = ',')]
        scene: Option<Vec<String>>,
        /// Body counts, comma-separated, each from 1 to 16777216 [default:
        /// 1000,10000,100000,1000000 for bullet-hell, 1000,10000,100000 for
        /// swept-bullet-hell and queries, 1000,10000 for the others]. Not for a scene file.
        #[arg(
            long,
            value_name = "N[,N...]",
            value_delimiter = ',',
            value_parser = bodies_count
        )]
        bodies: Option<Vec<usize>>,
        /// Backends to run, comma-separated [default: all; the gpu is skipped with a
        /// warning when there is no adapter].
        #[arg(
            long,
            value_enum,
            value_name = "gpu,cpu,parry2d,rapier2d,box2d",
            value_delimiter = ','
        )]
        backend: Option<Vec<gpu_collide::bench::Backend>>,
        /// Timed frames per run (1 to 10000), after one warm-up frame; a run stops early
        /// once its timed frames add up to 10 s.
        #[arg(long, value_name = "K", default_value_t = gpu_collide::bench::DEFAULT_FRAMES,
              value_parser = frames_count)]
        frames: usize,
        /// Write the JSON report here [default: DIR/bench.json]; `-` prints it on standard
        /// output, and the table on standard error.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Directory of the plot (frame_time.svg), the table and the JSON.
        #[arg(long, value_name = "DIR", default_value = gpu_collide::bench::DEFAULT_OUT)]
        out: PathBuf,
        /// Seed of the generated scenes, their motion and the query batches: another seed
        /// gives other scenes of the same kind.
        #[arg(long, value_name = "N", default_value_t = gpu_collide::bench::SEED)]
        seed: u64,
        /// Thread counts, comma-separated, each from 1 to 1024: the cpu backend (and the
        /// gpu backend's work on the host) and box2d run once per count, side by side,
        /// each on that many threads [default: once, a thread per hardware thread; box2d
        /// takes at most 32]. parry2d and rapier2d run once either way, on one thread.
        #[arg(
            long,
            value_name = "N[,N...]",
            value_delimiter = ',',
            value_parser = threads_count
        )]
        threads: Option<Vec<usize>>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Backend {
    /// WGSL compute shaders through wgpu (WGPU_BACKEND and WGPU_ADAPTER_NAME choose the adapter).
    Gpu,
    /// The CPU reference path.
    Cpu,
}

impl Command {
    /// Whether the command may open wgpu.
    fn may_use_gpu(&self) -> bool {
        match self {
            Command::Pairs { backend, .. }
            | Command::Draw { backend, .. }
            | Command::Contacts { backend, .. }
            | Command::Query { backend, .. } => matches!(backend, Backend::Gpu),
            Command::Adapters => true,
            Command::Shapes { .. } => false,
            Command::Bench { backend, .. } => backend
                .as_ref()
                .is_none_or(|b| b.contains(&gpu_collide::bench::Backend::Gpu)),
        }
    }
}

fn main() -> ExitCode {
    // Usage errors exit with 1 like every other refusal (clap's own choice would be 2);
    // --help and --version print to stdout and succeed.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    // Removed (if still empty) when it goes out of scope, at the end of main.
    let _runtime_dir = cli
        .command
        .may_use_gpu()
        .then(RuntimeDir::provide)
        .flatten();
    let result = match cli.command {
        Command::Pairs {
            scene,
            backend,
            out,
            max_pairs,
        } => pairs(&scene, backend, out.as_deref(), max_pairs),
        Command::Draw {
            scene,
            out,
            backend,
            view,
            pieces,
        } => draw(&scene, &out, backend, view, pieces),
        Command::Contacts {
            scene,
            backend,
            out,
            max_pairs,
        } => contacts(&scene, backend, out.as_deref(), max_pairs),
        Command::Query {
            scene,
            backend,
            out,
        } => query(&scene, backend, out.as_deref()),
        Command::Adapters => adapters(),
        Command::Shapes { scene, out } => shapes(&scene, out.as_deref()),
        Command::Bench {
            scene,
            bodies,
            backend,
            frames,
            json,
            out,
            seed,
            threads,
        } => bench(BenchOptions {
            scene: scene.map(|s| s.iter().map(|s| SceneChoice::parse(s)).collect()),
            bodies,
            backends: backend,
            frames,
            json,
            out,
            seed,
            threads,
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            note(&format!("error: {error}"));
            ExitCode::FAILURE
        }
    }
}

/// A private, empty directory standing in for `XDG_RUNTIME_DIR` while this process runs.
///
/// Why: Mesa's Vulkan device-select layer, loaded implicitly into every Vulkan instance,
/// asks libwayland for the compositor's GPU whenever the instance enables
/// VK_KHR_wayland_surface, which wgpu always does. With `XDG_RUNTIME_DIR` unset (a
/// container, ssh, cron, CI) libwayland then prints `error: XDG_RUNTIME_DIR is invalid
/// or not set in the environment.` on stderr, twice per wgpu instance, which a user reads
/// as this program failing. With the variable naming an empty directory, libwayland finds
/// no compositor socket there and fails quietly, as it failed (loudly) without it: the
/// layer's choice of devices is the same either way.
///
/// Only the binary does this: a library must not change the environment behind its
/// caller's back. A variable the user set (to an absolute path, as libwayland requires)
/// is left alone.
struct RuntimeDir(PathBuf);

impl RuntimeDir {
    /// Creates the directory (mode 0700, named after the process, so only this process
    /// uses it) and points `XDG_RUNTIME_DIR` at it, when the variable is unset or not
    /// absolute. `None` when nothing needed doing, or the directory could not be made (the
    /// message then appears, which is harmless).
    #[cfg(all(unix, not(target_vendor = "apple"), not(target_os = "android")))]
    fn provide() -> Option<Self> {
        use std::os::unix::fs::DirBuilderExt;
        if std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| Path::new(&d).is_absolute()) {
            return None;
        }
        let dir = std::env::temp_dir().join(format!("gpu-collide-runtime-{}", std::process::id()));
        // `create`, not `create_all`: a directory left there by someone else is not ours.
        std::fs::DirBuilder::new().mode(0o700).create(&dir).ok()?;
        // Before any thread exists (main has started none yet), so no one reads the
        // environment while it changes.
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
        Some(RuntimeDir(dir))
    }

    /// Nothing to do where there is no Wayland.
    #[cfg(not(all(unix, not(target_vendor = "apple"), not(target_os = "android"))))]
    fn provide() -> Option<Self> {
        None
    }
}

impl Drop for RuntimeDir {
    fn drop(&mut self) {
        // `remove_dir` only removes it empty: anything inside was not put there by us.
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// Writes a line to standard error. A failure to write it is ignored: there is nowhere
/// left to report it, and it must not turn a run that worked into a panic.
fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Writes `text` to standard output and flushes it. A broken pipe (the reader stopped
/// reading) is not an error, see the module's documentation; any other failure is.
fn print_out(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::Write {
            path: "standard output".into(),
            source: error,
        }),
        _ => Ok(()),
    }
}

/// The scene file's text, or standard input's for `-`, at most
/// [`gpu_collide::scene::MAX_SCENE_BYTES`].
fn read_text(path: &Path) -> Result<String, Error> {
    let limit = gpu_collide::scene::MAX_SCENE_BYTES;
    if path.as_os_str() == "-" {
        gpu_collide::scene::read_text(std::io::stdin().lock(), "standard input", limit)
    } else {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|source| Error::Io {
            path: name.clone(),
            source,
        })?;
        gpu_collide::scene::read_text(file, &name, limit)
    }
}

/// The scene of `path` and a collider over its shapes on `backend`, start-up timed and
/// noted on stderr, as every command that answers a scene starts.
fn open_scene(
    path: &Path,
    backend: Backend,
    max_pairs: u64,
) -> Result<(Scene, Box<dyn Collider>), CliError> {
    // Start-up (reading, the device, the pipelines) is timed apart from the answer,
    // which is what a game pays every frame.
    let reading = Instant::now();
    let parsed = Scene::from_json_with_warnings(&read_text(path)?)?;
    for warning in &parsed.warnings {
        note(&format!("warning: {warning}"));
    }
    let scene = parsed.scene;
    let library = scene.validate()?;
    let read_ms = reading.elapsed().as_secs_f64() * 1e3;
    let setting_up = Instant::now();
    let mut collider: Box<dyn Collider> = match backend {
        Backend::Cpu => Box::new(CpuCollider::new(library)),
        Backend::Gpu => Box::new(GpuCollider::new(&GpuContext::new()?, library)?),
    };
    collider.set_max_pairs(max_pairs);
    // Buffers made and kernels readied here, as a game would as a level loads, so the
    // answer's time is what a frame of these bodies costs.
    collider.reserve(scene.bodies.len())?;
    note(&format!("backend: {}", collider.describe()));
    note(&format!(
        "start-up: scene read in {read_ms:.1} ms, backend ready in {:.1} ms",
        setting_up.elapsed().as_secs_f64() * 1e3
    ));
    Ok((scene, collider))
}

fn pairs(
    path: &Path,
    backend: Backend,
    out: Option<&Path>,
    max_pairs: u64,
) -> Result<(), CliError> {
    let (scene, mut collider) = open_scene(path, backend, max_pairs)?;
    let start = Instant::now();
    // A scene with motion answers the swept question, with the times of impact beside
    // the pairs (format 1.1); one without prints exactly what version 1 prints.
    let (found, toi) = if gpu_collide::motion::any_moving(&scene.bodies) {
        let swept = collider.find_swept_pairs(&scene.bodies)?;
        let pairs: Vec<Pair> = swept.iter().map(|s| s.pair).collect();
        (
            pairs,
            Some(swept.iter().map(|s| number(s.toi)).collect::<Vec<_>>()),
        )
    } else {
        (collider.find_pairs(&scene.bodies)?, None)
    };
    note(&format!(
        "{} bodies, {} pairs in {:.1} ms",
        scene.bodies.len(),
        found.len(),
        start.elapsed().as_secs_f64() * 1e3
    ));
    let text = match toi {
        Some(toi) => serde_json::json!({ "pairs": found, "toi": toi }).to_string(),
        None => pairs_json(&found),
    };
    write_output(out, &(text + "\n"))
}

fn contacts(
    path: &Path,
    backend: Backend,
    out: Option<&Path>,
    max_pairs: u64,
) -> Result<(), CliError> {
    let (scene, mut collider) = open_scene(path, backend, max_pairs)?;
    let start = Instant::now();
    let found = collider.find_contacts(&scene.bodies)?;
    note(&format!(
        "{} bodies, {} contacts in {:.1} ms",
        scene.bodies.len(),
        found.len(),
        start.elapsed().as_secs_f64() * 1e3
    ));
    let contacts: Vec<serde_json::Value> = found
        .iter()
        .map(|c| {
            let mut entry = match c.kind {
                ContactKind::Penetration { normal, depth } => serde_json::json!({
                    "pair": c.pair,
                    "normal": [number(normal.x), number(normal.y)],
                    "depth": number(depth),
                }),
                ContactKind::Area(area) => serde_json::json!({ "pair": c.pair, "area": area }),
            };
            if let Some(parts) = c.parts {
                entry["parts"] = serde_json::json!(parts);
            }
            entry
        })
        .collect();
    let text = serde_json::json!({ "contacts": contacts }).to_string();
    write_output(out, &(text + "\n"))
}

fn shapes(path: &Path, out: Option<&Path>) -> Result<(), CliError> {
    let parsed = Scene::from_json_with_warnings(&read_text(path)?)?;
    for warning in &parsed.warnings {
        note(&format!("warning: {warning}"));
    }
    let library = parsed.scene.validate()?;
    let point = |p: glam::Vec2| serde_json::json!([number(p.x), number(p.y)]);
    let shapes: Vec<serde_json::Value> = (0..library.len())
        .map(|k| {
            let parts: Vec<serde_json::Value> = library
                .parts(k)
                .into_iter()
                .map(|part| match part {
                    ConvexPart::Polygon(vertices) => serde_json::json!({
                        "polygon": vertices.into_iter().map(point).collect::<Vec<_>>()
                    }),
                    ConvexPart::Circle { centre, radius } => serde_json::json!({
                        "circle": {"center": point(centre), "radius": number(radius)}
                    }),
                    ConvexPart::Capsule(c) => serde_json::json!({
                        "capsule": {"a": point(c.a), "b": point(c.b), "radius": number(c.radius)}
                    }),
                    ConvexPart::Bitmask => serde_json::json!({"bitmask": "whole"}),
                })
                .collect();
            serde_json::json!({ "parts": parts })
        })
        .collect();
    note(&format!("{} shapes", shapes.len()));
    let text = serde_json::json!({ "shapes": shapes }).to_string();
    write_output(out, &(text + "\n"))
}

fn query(path: &Path, backend: Backend, out: Option<&Path>) -> Result<(), CliError> {
    let (scene, mut collider) = open_scene(path, backend, gpu_collide::DEFAULT_MAX_PAIRS)?;
    let start = Instant::now();
    let answers = collider.query(&scene.bodies, &scene.queries)?;
    note(&format!(
        "{} bodies, {} rays, {} points, {} boxes answered in {:.1} ms",
        scene.bodies.len(),
        answers.rays.len(),
        answers.points.len(),
        answers.boxes.len(),
        start.elapsed().as_secs_f64() * 1e3
    ));
    let rays: Vec<serde_json::Value> = answers
        .rays
        .iter()
        .map(|hit| match hit {
            None => serde_json::Value::Null,
            Some(hit) => serde_json::json!({
                "body": hit.body,
                "t": number(hit.t),
                "normal": hit.normal.map(|n| [number(n.x), number(n.y)]),
            }),
        })
        .collect();
    let text = serde_json::json!({
        "rays": rays,
        "points": answers.points,
        "boxes": answers.boxes,
    })
    .to_string();
    write_output(out, &(text + "\n"))
}

/// Writes a command's answer to `out`, or to standard output.
fn write_output(out: Option<&Path>, text: &str) -> Result<(), CliError> {
    write_to(out, |writer| writer.write_all(text.as_bytes()))
}

/// Whether `out` names standard output: no `--out`, or `--out -`.
fn is_stdout(out: Option<&Path>) -> bool {
    out.is_none_or(|path| path.as_os_str() == "-")
}

/// Runs `write` on a buffered writer into the file `out`, or into standard output for
/// `-` or `None`, and flushes it. On standard output a broken pipe is not an error, as
/// [`print_out`] has it.
fn write_to(
    out: Option<&Path>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), CliError> {
    match out.filter(|_| !is_stdout(out)) {
        Some(file) => {
            let error = |source| CliError::Write {
                path: file.display().to_string(),
                source,
            };
            let mut writer = BufWriter::new(std::fs::File::create(file).map_err(error)?);
            write(&mut writer)
                .and_then(|()| writer.flush())
                .map_err(error)
        }
        None => {
            let mut writer = BufWriter::new(std::io::stdout().lock());
            match write(&mut writer).and_then(|()| writer.flush()) {
                Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(CliError::Write {
                        path: "standard output".into(),
                        source: error,
                    })
                }
                _ => Ok(()),
            }
        }
    }
}

fn draw(
    path: &Path,
    out: &Path,
    backend: Backend,
    view: Option<gpu_collide::draw::View>,
    pieces: bool,
) -> Result<(), CliError> {
    let parsed = Scene::from_json_with_warnings(&read_text(path)?)?;
    for warning in &parsed.warnings {
        note(&format!("warning: {warning}"));
    }
    let scene = parsed.scene;
    let library = scene.validate()?;
    let parts = pieces.then(|| (0..library.len()).map(|k| library.parts(k)).collect());
    let mut collider: Box<dyn Collider> = match backend {
        Backend::Cpu => Box::new(CpuCollider::new(library)),
        Backend::Gpu => Box::new(GpuCollider::new(&GpuContext::new()?, library)?),
    };
    let mut overlay = gpu_collide::draw::Overlay {
        parts,
        ..Default::default()
    };
    if gpu_collide::motion::any_moving(&scene.bodies) {
        overlay.swept = collider.find_swept_pairs(&scene.bodies)?;
    } else {
        overlay.pairs = collider.find_pairs(&scene.bodies)?;
    }
    if !scene.queries.is_empty() {
        match collider.query(&scene.bodies, &scene.queries) {
            Ok(answers) => overlay.answers = Some(answers),
            Err(Error::Unsupported { backend, what }) => note(&format!(
                "no query answers: the {backend} backend has no {what} yet"
            )),
            Err(error) => return Err(error.into()),
        }
    }
    // A backend without contacts yet still draws the rest.
    match collider.find_contacts(&scene.bodies) {
        Ok(contacts) => overlay.contacts = contacts,
        Err(Error::Unsupported { backend, what }) => note(&format!(
            "no contact normals: the {backend} backend has no {what} yet"
        )),
        Err(error) => return Err(error.into()),
    }
    write_to(Some(out), |writer| {
        gpu_collide::draw::write_svg(writer, &scene, &overlay, view)
    })?;
    let target = if is_stdout(Some(out)) {
        "standard output".to_string()
    } else {
        out.display().to_string()
    };
    note(&format!(
        "drew {} bodies, {} pairs and {} contacts to {target}",
        scene.bodies.len(),
        overlay.pairs.len() + overlay.swept.len(),
        overlay.contacts.len(),
    ));
    Ok(())
}

/// An f32 answer as JSON, see [`gpu_collide::scene::f32_json`].
fn number(value: f32) -> serde_json::Value {
    gpu_collide::scene::f32_json(value)
}

/// `{"pairs": [[i, j], ...]}`, as the format prescribes.
fn pairs_json(pairs: &[Pair]) -> String {
    serde_json::json!({ "pairs": pairs }).to_string()
}

fn adapters() -> Result<(), CliError> {
    let all = pollster::block_on(gpu_collide::gpu::all_adapters())?;
    let usable = pollster::block_on(gpu_collide::gpu::usable_adapters())?;
    let wanted = std::env::var("WGPU_ADAPTER_NAME").ok();
    let mut text = String::new();
    if all.is_empty() {
        text.push_str("no adapters found\n");
    }
    for adapter in &usable {
        let info = adapter.get_info();
        text += &format!("usable    {}\n", gpu_collide::gpu::describe_adapter(&info));
    }
    for adapter in &all {
        let info = adapter.get_info();
        if !usable.iter().any(|u| u.get_info() == info) {
            let why = match &wanted {
                Some(name) if !info.name.to_lowercase().contains(&name.to_lowercase()) => {
                    format!("its name does not contain WGPU_ADAPTER_NAME=`{name}`")
                }
                _ => "no compute shaders or indirect dispatch".to_string(),
            };
            text += &format!(
                "unusable  {} ({why})\n",
                gpu_collide::gpu::describe_adapter(&info)
            );
        }
    }
    print_out(&text)
}

/// A count option's value: a whole number from 1 to `max`.
fn count(text: &str, max: usize) -> Result<usize, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=max as u64).contains(&n) => Ok(n as usize),
        _ => Err(format!("`{text}` is not a whole number from 1 to {max}")),
    }
}

/// `--max-pairs`: a whole number of pairs, at least 1.
fn max_pairs(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{text}` is not a whole number of at least 1")),
    }
}

/// `--bodies`: see [`gpu_collide::bench::MAX_BODIES`].
fn bodies_count(text: &str) -> Result<usize, String> {
    count(text, gpu_collide::bench::MAX_BODIES)
}

/// `--threads`: see [`gpu_collide::bench::MAX_THREADS`].
fn threads_count(text: &str) -> Result<usize, String> {
    count(text, gpu_collide::bench::MAX_THREADS)
}

/// `--frames`: see [`gpu_collide::bench::MAX_FRAMES`].
fn frames_count(text: &str) -> Result<usize, String> {
    count(text, gpu_collide::bench::MAX_FRAMES)
}

/// Runs the benchmark, prints the table and writes the JSON, plot and table files.
/// Fails (after writing them) when some run failed, two backends disagreed on a pair
/// outside the 0.01 band, or the table could not be printed.
fn bench(options: BenchOptions) -> Result<(), CliError> {
    let bar = gpu_collide::bench::progress_bar();
    let report = gpu_collide::bench::run(&options, &bar)?;
    // The files are the results that last: written even when standard output fails.
    let printed = if options.json_on_stdout() {
        note(report.table().trim_end());
        report.to_json().and_then(|json| print_out(&(json + "\n")))
    } else {
        print_out(&report.table())
    };
    let outputs = gpu_collide::bench::write_outputs(&report, &options)?;
    let json = if options.json_on_stdout() {
        "standard output".to_string()
    } else {
        outputs.json.display().to_string()
    };
    note(&format!(
        "wrote {json}, {} and {}",
        outputs.plot.display(),
        outputs.table.display()
    ));
    printed?;
    // The baseline's wrong answers are reported, not failed on: they are not ours to fix.
    if report.disagreements_not_of_the_baseline() > 0 {
        return Err(CliError::Report(format!(
            "{} pairs differ between backends outside the 0.01 band; see DISAGREE above and \
             `disagreements` in {json}",
            report.disagreements(),
        )));
    }
    match report.failed.len() {
        0 => Ok(()),
        n => Err(CliError::Report(format!(
            "{n} run(s) failed; see FAILED above and `failed` in {json}"
        ))),
    }
}
