//! `gpu-collide bench`: frame times of every backend on the same moving scenes, and
//! whether they found the same pairs.
//!
//! A frame is what a game pays each tick: [`Collider::find_pairs`] on the bodies where
//! they are now, which uploads the new transforms, runs every stage and reads the pairs
//! back. Bodies move between frames ([`workload`]), so no frame repeats the last. Each
//! run has one warm-up frame that is not timed, then up to `frames` timed ones.
//!
//! Each scene runs on the `gpu` backend ([`GpuCollider`]), the `cpu` reference
//! ([`CpuCollider`]) and three baselines, the CPU engines a game would otherwise use:
//! [`parry2d`](parry), a BVH built and traversed each frame, [`rapier2d`](rapier),
//! whose collision pipeline keeps its broad and narrow phases from one frame to the
//! next, and [`box2d`], a Box2D v3 world of sensors kept from frame to frame; smallest
//! size first. The [`budget`] drops a backend's larger sizes once one of
//! its frames gets too slow, and says so. Every backend's pairs are compared, frame by
//! frame, with those of the first backend that ran the same scene and size (the
//! reference: gpu, else cpu, else parry2d, else rapier2d, else box2d).
//!
//! Two scenes ask other questions than pairs at one instant, and are not in the default
//! suite (each is run by name with `--scene`): `swept-bullet-hell`, whose bullets move 5
//! to 40 units a frame and whose frames are [`Collider::find_swept_pairs`] (pairs with
//! their time of impact), and `queries`, a bullet-hell scene asked 10^4 rays, 10^3
//! points and 10^3 boxes a frame ([`Collider::query`]). A backend that cannot answer
//! them ([`Error::Unsupported`]: the rapier2d and Box2D baselines answer neither) is skipped with a
//! note.
//!
//! The results ([`report`]): a line per run as it ends under a progress bar, a table at
//! the end, JSON, and a log-log [`plot`] of frame time against bodies.

pub mod band;
#[cfg(test)]
mod baseline_checks;
pub mod box2d;
pub mod budget;
pub mod error;
pub mod parry;
pub mod plot;
pub mod rapier;
pub mod report;
pub mod shapes;
pub mod workload;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::answer::collider::{Collider, Pair, StageTimes};
use crate::answer::motion::SweptPair;
use crate::answer::query::{QueryAnswers, QueryBatch};
use crate::cpu::CpuCollider;
use crate::error::Error;
use crate::gpu::{GpuCollider, GpuContext};
use crate::input::library::ShapeLibrary;
use crate::input::scene::Scene;
use crate::tools::generate::{concave_scene, lasers_scene, random_scene, SceneKind};
use band::Verdict;
use box2d::Box2dCollider;
use budget::{median, History, FRAME_BUDGET, RUN_TIME_CAP};
pub use error::CliError;
use parry::ParryCollider;
use rapier::RapierCollider;
use report::{Adapter, Agreement, FrameMs, Machine, NonBlocking, Report, Run, Skipped, StagesMs};
use workload::Workload;

/// Seed of every generated scene (and, plus one, of the drift of non-game scenes; plus
/// two, of the query batches) unless `--seed` says otherwise, so that every machine
/// benchmarks the same frames.
pub const SEED: u64 = 4;

/// Timed frames per run unless `--frames` says otherwise.
pub const DEFAULT_FRAMES: usize = 10;

/// The most bodies a generated scene may have (`--bodies`): 2^24, sixteen times the
/// default suite's largest. A frame costs about 200 to 450 bytes a body at its peak (a
/// million bullet-hell bodies: 185 MB on cpu, 450 MB on gpu through lavapipe), so this
/// takes a few gigabytes. Past it, an extra digit typed by mistake ran the machine out
/// of memory and aborted the process instead of being refused.
pub const MAX_BODIES: usize = 1 << 24;

/// The most timed frames a run may ask for (`--frames`). Ten thousand frames give a
/// median as steady as it gets (and a large scene stops at [`budget::RUN_TIME_CAP`]
/// long before); past it, the frame times and the pairs of every frame that the
/// reference keeps would only grow memory, and `--frames 99999999999999` aborted the
/// process on its first allocation.
pub const MAX_FRAMES: usize = 10_000;

/// The most threads `--threads` may ask for: far more than any machine gives a process,
/// and few enough that a typo fails as a usage error rather than starting thousands of
/// threads.
pub const MAX_THREADS: usize = 1024;

/// Where the JSON, the plot and the table go unless `--out` says otherwise.
pub const DEFAULT_OUT: &str = "bench-results";

/// File name of the JSON report in the output directory, unless `--json` names one.
pub const JSON_FILE: &str = "bench.json";

/// File name of the table in the output directory.
pub const TABLE_FILE: &str = "table.txt";

/// A backend the benchmark can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum Backend {
    // Plain-text docs: clap shows them in `--help`.
    /// The WGSL pipeline through wgpu (GpuCollider).
    Gpu,
    /// The CPU backend (CpuCollider).
    Cpu,
    /// The parry2d baseline: BVH and intersection_test; cast_shapes and cast_ray for
    /// sweeps and queries (ParryCollider).
    #[value(name = "parry2d")]
    Parry2d,
    /// The rapier2d baseline: its collision pipeline, broad and narrow phases kept
    /// across frames, sensor colliders moved each frame (RapierCollider). Pairs only.
    #[value(name = "rapier2d")]
    Rapier2d,
    /// The Box2D v3 baseline: a world of kinematic bodies with sensor shapes kept across
    /// frames, the pairs from its sensor events (Box2dCollider), on Box2D's own worker
    /// threads. Pairs only.
    #[value(name = "box2d")]
    Box2d,
}

impl Backend {
    /// Every backend, in the order they run (the first to run is the reference).
    pub const ALL: [Backend; 5] = [
        Backend::Gpu,
        Backend::Cpu,
        Backend::Parry2d,
        Backend::Rapier2d,
        Backend::Box2d,
    ];

    /// `gpu`, `cpu`, `parry2d`, `rapier2d`, `box2d`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Gpu => "gpu",
            Backend::Cpu => "cpu",
            Backend::Parry2d => "parry2d",
            Backend::Rapier2d => "rapier2d",
            Backend::Box2d => "box2d",
        }
    }
}

/// A scene to benchmark: a generated one by name, or a scene file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SceneChoice {
    /// `bullet-hell`: [`crate::tools::generate::BulletHell`], the game moving its bodies.
    BulletHell,
    /// `mixed`: polygons, circles and bitmasks ([`SceneKind::Mixed`]), drifting.
    Mixed,
    /// `bitmask`: bitmasks only ([`SceneKind::Bitmasks`]), stepping a unit a frame.
    Bitmask,
    /// `swept-bullet-hell`: [`Workload::swept_bullet_hell`], answered with swept pairs.
    SweptBulletHell,
    /// `queries`: bullet-hell bodies asked [`workload::QUERIES`] queries a frame.
    Queries,
    /// `lasers`: [`crate::tools::generate::lasers_scene`], bullet-hell with lasers and
    /// compound ships, drifting.
    Lasers,
    /// `lasers-as-circles`: the same bodies with each laser a circle.
    LasersAsCircles,
    /// `concave`: [`crate::tools::generate::concave_scene`], crowded concave outlines,
    /// drifting.
    Concave,
    /// `concave-hulls`: the same bodies with each outline its convex hull.
    ConcaveHulls,
    /// `circles`: circles of six sizes ([`SceneKind::Circles`]), as crowded as `mixed`,
    /// drifting: a particle system.
    Circles,
    /// A scene file (`docs/scene-format.md`), its bodies drifting.
    File(PathBuf),
}

impl SceneChoice {
    /// The scenes of the default suite, in the order they run.
    pub const NAMED: [SceneChoice; 3] = [
        SceneChoice::BulletHell,
        SceneChoice::Mixed,
        SceneChoice::Bitmask,
    ];

    /// Named scenes run only when asked for: slower, and other questions than pairs.
    pub const EXTRA: [SceneChoice; 7] = [
        SceneChoice::SweptBulletHell,
        SceneChoice::Queries,
        SceneChoice::Lasers,
        SceneChoice::LasersAsCircles,
        SceneChoice::Concave,
        SceneChoice::ConcaveHulls,
        SceneChoice::Circles,
    ];

    /// A name of [`SceneChoice::NAMED`] or [`SceneChoice::EXTRA`], or else a file path.
    pub fn parse(text: &str) -> Self {
        Self::NAMED
            .into_iter()
            .chain(Self::EXTRA)
            .find(|s| s.name() == text)
            .unwrap_or_else(|| SceneChoice::File(PathBuf::from(text)))
    }

    /// The name in reports: the scene's name, or the file's name.
    pub fn name(&self) -> String {
        match self {
            SceneChoice::BulletHell => "bullet-hell".into(),
            SceneChoice::Mixed => "mixed".into(),
            SceneChoice::Bitmask => "bitmask".into(),
            SceneChoice::SweptBulletHell => "swept-bullet-hell".into(),
            SceneChoice::Queries => "queries".into(),
            SceneChoice::Lasers => "lasers".into(),
            SceneChoice::LasersAsCircles => "lasers-as-circles".into(),
            SceneChoice::Concave => "concave".into(),
            SceneChoice::ConcaveHulls => "concave-hulls".into(),
            SceneChoice::Circles => "circles".into(),
            SceneChoice::File(path) => path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into(),
            ),
        }
    }

    /// Sizes of the default suite: bullet-hell from a thousand to a million bodies, the
    /// denser random scenes a thousand and ten thousand; swept bullets and queries, when
    /// asked for without `--bodies`, a thousand to a hundred thousand.
    pub fn default_sizes(&self) -> Vec<usize> {
        match self {
            SceneChoice::BulletHell => vec![1_000, 10_000, 100_000, 1_000_000],
            SceneChoice::SweptBulletHell
            | SceneChoice::Queries
            | SceneChoice::Lasers
            | SceneChoice::LasersAsCircles => vec![1_000, 10_000, 100_000],
            _ => vec![1_000, 10_000],
        }
    }
}

/// What `gpu-collide bench` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchOptions {
    /// The scenes, run in this order (`--scene a,b`: bullet-hell and swept-bullet-hell
    /// side by side in one run); `None` runs the default suite, [`SceneChoice::NAMED`].
    pub scene: Option<Vec<SceneChoice>>,
    /// Body counts; `None` takes each scene's [`SceneChoice::default_sizes`].
    pub bodies: Option<Vec<usize>>,
    /// Backends; `None` runs all of them, skipping the gpu (with a warning) when no
    /// adapter exists. Named explicitly, a missing adapter is an error.
    pub backends: Option<Vec<Backend>>,
    /// Timed frames per run (at least one), after one warm-up frame.
    pub frames: usize,
    /// Where to write the JSON; `None` writes `out/bench.json`, `-` standard output
    /// (see [`BenchOptions::json_on_stdout`]).
    pub json: Option<PathBuf>,
    /// Directory of the plot, the table and (by default) the JSON.
    pub out: PathBuf,
    /// Seed of the generated scenes, the drift and the query batches ([`SEED`] by
    /// default): another seed gives scenes of the same kind that no one tuned for.
    pub seed: u64,
    /// Thread counts for the backends that run on threads of their own (the cpu
    /// backend and the gpu backend's work on the host on rayon's, Box2D on its
    /// scheduler's), each a run of its own, side by side; `None` runs them once, on a
    /// thread per hardware thread. parry2d and rapier2d run once either way, on one
    /// thread.
    pub threads: Option<Vec<usize>>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            scene: None,
            bodies: None,
            backends: None,
            frames: DEFAULT_FRAMES,
            json: None,
            out: PathBuf::from(DEFAULT_OUT),
            seed: SEED,
            threads: None,
        }
    }
}

impl BenchOptions {
    /// Whether the JSON goes to standard output (`--json -`), and the table, which
    /// would mix with it there, to standard error.
    pub fn json_on_stdout(&self) -> bool {
        self.json.as_ref().is_some_and(|j| j.as_os_str() == "-")
    }
}

/// One scene and its sizes, ready to run.
struct Plan {
    name: String,
    source: Source,
    sizes: Vec<usize>,
}

enum Source {
    BulletHell,
    SweptBulletHell,
    Queries,
    Random(SceneKind),
    /// Lasers, or (true) their circles.
    Lasers(bool),
    /// Concave outlines, or (true) their hulls.
    Concave(bool),
    File(Scene),
}

impl Plan {
    fn workload(&self, bodies: usize, seed: u64) -> Workload {
        let drift = seed.wrapping_add(1);
        match &self.source {
            Source::BulletHell | Source::Queries => Workload::bullet_hell(bodies, seed),
            Source::SweptBulletHell => Workload::swept_bullet_hell(bodies, seed),
            Source::Random(kind) => Workload::drifting(random_scene(*kind, bodies, seed), drift),
            Source::Lasers(as_circles) => {
                Workload::drifting(lasers_scene(bodies, seed, *as_circles), drift)
            }
            Source::Concave(as_hulls) => {
                Workload::drifting(concave_scene(bodies, seed, *as_hulls), drift)
            }
            Source::File(scene) => Workload::drifting(scene.clone(), drift),
        }
    }
}

/// What a frame asks the backends.
enum Task {
    /// [`Collider::find_pairs`].
    Pairs,
    /// [`Collider::find_swept_pairs`].
    Swept,
    /// [`Collider::query`] with this batch.
    Queries(QueryBatch),
}

/// One frame's answer, kept by the reference backend for the others to match.
#[derive(Debug, Clone, PartialEq)]
enum Answer {
    Pairs(Vec<Pair>),
    Swept(Vec<SweptPair>),
    Queries(QueryAnswers),
}

impl Answer {
    /// Pairs found, or for queries the (query, body) answers: rays that hit, and the
    /// bodies each point and box holds.
    fn count(&self) -> usize {
        match self {
            Answer::Pairs(p) => p.len(),
            Answer::Swept(p) => p.len(),
            Answer::Queries(q) => {
                q.rays.iter().flatten().count()
                    + q.points.iter().chain(&q.boxes).map(Vec::len).sum::<usize>()
            }
        }
    }
}

/// Checks the options and loads the scene file, before any work is done.
fn plan(options: &BenchOptions, bar: &ProgressBar) -> Result<Vec<Plan>, CliError> {
    if !(1..=MAX_FRAMES).contains(&options.frames) {
        return Err(CliError::Usage(format!(
            "--frames must be from 1 to {MAX_FRAMES}, not {}",
            options.frames
        )));
    }
    if let Some(&n) = options
        .threads
        .iter()
        .flatten()
        .find(|&&n| !(1..=MAX_THREADS).contains(&n))
    {
        return Err(CliError::Usage(format!(
            "--threads: every count must be from 1 to {MAX_THREADS}, not {n}"
        )));
    }
    if let Some(&n) = options
        .bodies
        .iter()
        .flatten()
        .find(|&&n| !(1..=MAX_BODIES).contains(&n))
    {
        return Err(CliError::Usage(format!(
            "--bodies: every count must be from 1 to {MAX_BODIES}, not {n}"
        )));
    }
    let choices = match &options.scene {
        Some(choices) => choices.clone(),
        None => SceneChoice::NAMED.to_vec(),
    };
    let mut plans = Vec::new();
    for choice in choices {
        let name = choice.name();
        let (source, mut sizes) = match &choice {
            SceneChoice::File(path) => {
                let scene = read_scene(path, bar)?;
                if options.bodies.is_some() {
                    return Err(CliError::Usage(format!(
                        "--bodies does not apply to a scene file: {} has its own {} bodies",
                        path.display(),
                        scene.bodies.len()
                    )));
                }
                let n = scene.bodies.len();
                (Source::File(scene), vec![n])
            }
            named => {
                let source = match named {
                    SceneChoice::Mixed => Source::Random(SceneKind::Mixed),
                    SceneChoice::Bitmask => Source::Random(SceneKind::Bitmasks),
                    SceneChoice::SweptBulletHell => Source::SweptBulletHell,
                    SceneChoice::Queries => Source::Queries,
                    SceneChoice::Lasers => Source::Lasers(false),
                    SceneChoice::LasersAsCircles => Source::Lasers(true),
                    SceneChoice::Concave => Source::Concave(false),
                    SceneChoice::ConcaveHulls => Source::Concave(true),
                    SceneChoice::Circles => Source::Random(SceneKind::Circles),
                    _ => Source::BulletHell,
                };
                let sizes = options
                    .bodies
                    .clone()
                    .unwrap_or_else(|| named.default_sizes());
                (source, sizes)
            }
        };
        // Smallest first, so the budget can drop the sizes after a slow one.
        sizes.sort_unstable();
        sizes.dedup();
        plans.push(Plan {
            name,
            source,
            sizes,
        });
    }
    Ok(plans)
}

/// Reads a scene file, naming it in the error when it is missing and is not a scene name.
fn read_scene(path: &Path, bar: &ProgressBar) -> Result<Scene, Error> {
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: format!(
            "{} (not a scene name either: {})",
            path.display(),
            SceneChoice::NAMED
                .iter()
                .chain(&SceneChoice::EXTRA)
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        source,
    })?;
    let name = path.display().to_string();
    let text = crate::input::scene::read_text(file, &name, crate::input::scene::MAX_SCENE_BYTES)?;
    let parsed = Scene::from_json_with_warnings(&text)?;
    for warning in &parsed.warnings {
        say(bar, format!("warning: {name}: {warning}"));
    }
    Ok(parsed.scene)
}

/// Prints a line on standard error above the progress bar. A failure to print is
/// ignored: the benchmark's results are its files, and a closed or full standard error
/// must not abort a run of minutes.
fn say(bar: &ProgressBar, line: String) {
    bar.suspend(|| {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    });
}

/// A progress bar on standard error counting frames; hidden when standard error is
/// not a terminal (logs then get only the line printed as each run ends).
pub fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::new(0);
    let style = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:32.cyan/blue}] {pos}/{len} frames  {msg}",
    )
    .map(|s| s.progress_chars("=> "))
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// Runs the benchmark: every scene, size and backend the options ask for.
///
/// Progress goes to `bar` (lines printed above it as runs end). Before any run, once
/// the options are found good, the output directory is created and each output file
/// checked ([`prepare_outputs`]), so that a bad `--out` or `--json` fails in a second
/// rather than after the benchmark; the results are written by [`write_outputs`]. A
/// backend that fails on some size is reported in [`Report::failed`] and not run on
/// larger sizes of that scene; the others go on.
pub fn run(options: &BenchOptions, bar: &ProgressBar) -> Result<Report, CliError> {
    let plans = plan(options, bar)?;
    prepare_outputs(options)?;
    let say = |text: String| say(bar, text);

    let mut backends = options
        .backends
        .clone()
        .unwrap_or_else(|| Backend::ALL.to_vec());
    backends.sort_unstable();
    backends.dedup();
    let mut gpu = None;
    if backends.contains(&Backend::Gpu) {
        match GpuContext::new() {
            Ok(context) => {
                say(format!("gpu backend on {}", context.describe()));
                gpu = Some(context);
            }
            Err(error) if options.backends.is_some() => return Err(error.into()),
            Err(error) => {
                say(format!("warning: the gpu backend is skipped: {error}"));
                backends.retain(|&b| b != Backend::Gpu);
            }
        }
    }
    let machine = Machine::this();
    say(format!("machine: {}", machine.describe()));
    let lanes = lanes(&backends, options.threads.as_deref())?;

    let per_run = options.frames as u64 + 1;
    let total: u64 = plans
        .iter()
        .map(|p| p.sizes.len() as u64 * lanes.len() as u64 * per_run)
        .sum();
    bar.set_length(total);
    // Only now: opening the GPU above may print driver noise that a drawn bar would garble.
    bar.enable_steady_tick(Duration::from_millis(250));

    let mut runs = Vec::new();
    let mut dropped = Vec::new();
    let mut failed = Vec::new();
    for plan in &plans {
        let mut history: Vec<History> = vec![History::default(); lanes.len()];
        let mut failed_at: Vec<Option<usize>> = vec![None; lanes.len()];
        for &size in &plan.sizes {
            bar.set_message(format!("{}: generating {size} bodies", plan.name));
            let workload = plan.workload(size, options.seed);
            let library = workload.scene().validate().map_err(Error::from)?;
            let bodies = workload.bodies().len();
            let task = match plan.source {
                Source::SweptBulletHell => Task::Swept,
                Source::Queries => Task::Queries(workload::query_batch(
                    workload.bodies(),
                    workload::QUERIES,
                    options.seed.wrapping_add(2),
                )),
                _ => Task::Pairs,
            };
            // The first backend to run this size keeps its answers for the others to match.
            let mut reference: Option<(String, Vec<Answer>)> = None;
            for (slot, lane) in lanes.iter().enumerate() {
                let backend = lane.backend;
                let label = lane.label();
                let skip = |reason: String| Skipped {
                    scene: plan.name.clone(),
                    bodies,
                    backend: label.clone(),
                    reason,
                };
                let reason = match failed_at[slot] {
                    Some(n) => Some(format!("failed at {n} bodies")),
                    None => history[slot].reason_to_drop(bodies),
                };
                if let Some(reason) = reason {
                    say(format!(
                        "{} {bodies} bodies on {}: dropped: {reason}",
                        plan.name, label
                    ));
                    dropped.push(skip(reason));
                    bar.inc(per_run);
                    continue;
                }
                bar.set_message(format!("{} {bodies} bodies on {}", plan.name, label));
                let measured = lane.install(|| {
                    collider(backend, gpu.as_ref(), library.clone(), lane.workers()).and_then(
                        |mut c| {
                            measure(
                                c.as_mut(),
                                workload.clone(),
                                options.frames,
                                &task,
                                reference.as_ref().map(|(_, frames)| frames.as_slice()),
                                bar,
                            )
                        },
                    )
                });
                let measured = match measured {
                    Ok(m) => m,
                    Err(error @ Error::Unsupported { .. }) => {
                        // Not a failure: the backend says it cannot answer this yet.
                        say(format!(
                            "{} {bodies} bodies on {}: skipped: {error}",
                            plan.name, label
                        ));
                        dropped.push(skip(format!("skipped: {error}")));
                        bar.inc(per_run);
                        continue;
                    }
                    Err(error) => {
                        say(format!(
                            "{} {bodies} bodies on {}: FAILED: {error}",
                            plan.name, label
                        ));
                        failed.push(skip(error.to_string()));
                        failed_at[slot] = Some(bodies);
                        continue;
                    }
                };
                let frame_ms = measured.frame_ms();
                history[slot].record(bodies, Duration::from_secs_f64(frame_ms.median / 1e3));
                let agreement = reference.as_ref().map(|(name, _)| Agreement {
                    reference: name.clone(),
                    frames_compared: measured.frames_compared,
                    differing_pairs: measured.differing_pairs,
                    disagreements: measured.disagreements,
                    wrong_here: measured.wrong_here,
                    wrong_in_reference: measured.wrong_in_reference,
                    differing_toi: measured.differing_toi,
                    differing_answers: measured.differing_answers,
                });
                let run = Run {
                    scene: plan.name.clone(),
                    bodies,
                    backend: backend.name().into(),
                    threads: lane.threads(),
                    adapter: match backend {
                        Backend::Gpu => gpu.as_ref().map(|g| Adapter::from_info(&g.adapter)),
                        _ => None,
                    },
                    frames: measured.frame_ms.len(),
                    frame_ms,
                    stages_ms: measured.stages_ms(),
                    pairs: measured.first_pairs,
                    candidates: measured.first_candidates,
                    agreement,
                    nonblocking: None,
                };
                say(report::run_line(&run));
                let mut run = run;
                if let (Backend::Gpu, Some(context), Task::Pairs) = (backend, gpu.as_ref(), &task) {
                    let nonblocking = lane.install(|| {
                        pipelined(
                            context,
                            &library,
                            plan.workload(size, options.seed),
                            &measured.answers,
                        )
                    });
                    match nonblocking {
                        Ok(nonblocking) => {
                            say(format!(
                                "{} {bodies} bodies on {label}, frames that do not wait: submit \
                                 {:.2} ms, collect {:.2} ms a frame (median host time; the same pairs)",
                                plan.name, nonblocking.submit_ms, nonblocking.collect_ms
                            ));
                            run.nonblocking = Some(nonblocking);
                        }
                        Err(error) => {
                            say(format!(
                                "{} {bodies} bodies on {label}, frames that do not wait: FAILED: {error}",
                                plan.name
                            ));
                            failed.push(skip(format!("frames that do not wait: {error}")));
                        }
                    }
                }
                runs.push(run);
                if reference.is_none() {
                    reference = Some((label, measured.answers));
                }
            }
        }
    }
    bar.finish_and_clear();
    let all_agree = runs.iter().all(|r| {
        r.agreement
            .as_ref()
            .is_none_or(|a| a.differing_pairs == 0 && a.differing_answers == 0)
    });
    Ok(Report {
        machine,
        seed: options.seed,
        frames_requested: options.frames,
        frame_budget_ms: FRAME_BUDGET.as_secs_f64() * 1e3,
        runs,
        dropped,
        failed,
        all_agree,
    })
}

/// The same frames as a blocking gpu run (`blocking`, warm-up first), on a new collider
/// whose frames do not wait: each frame submitted, then the frame before collected. The
/// warm-up frame is blocking, as in the blocking run, so the buffers have their size.
fn pipelined(
    context: &GpuContext,
    library: &ShapeLibrary,
    mut workload: Workload,
    blocking: &[Answer],
) -> Result<NonBlocking, CliError> {
    let mut collider = GpuCollider::new(context, library.clone())?;
    let mut frames = blocking.iter();
    let first = collider.find_pairs(workload.bodies())?;
    let check = |pairs: Vec<Pair>, expected: Option<&Answer>| match expected {
        Some(Answer::Pairs(e)) if *e == pairs => Ok(()),
        _ => Err(CliError::Report(
            "a frame that did not wait gave other pairs than the blocking one".into(),
        )),
    };
    check(first, frames.next())?;
    let (mut submit_ms, mut collect_ms) = (Vec::new(), Vec::new());
    let mut last = None;
    for _ in 1..blocking.len() {
        workload.step();
        let start = Instant::now();
        let next = collider.submit(workload.bodies())?;
        submit_ms.push(start.elapsed().as_secs_f64() * 1e3);
        if let Some(frame) = last.take() {
            let start = Instant::now();
            let pairs = collider.collect(frame)?;
            collect_ms.push(start.elapsed().as_secs_f64() * 1e3);
            check(pairs, frames.next())?;
        }
        last = Some(next);
    }
    if let Some(frame) = last {
        check(collider.collect(frame)?, frames.next())?;
    }
    Ok(NonBlocking {
        frames: submit_ms.len(),
        submit_ms: median(&submit_ms).unwrap_or(0.0),
        collect_ms: median(&collect_ms).unwrap_or(0.0),
    })
}

/// A collider of `backend` over `library`.
/// A backend as it runs: on a pool of threads of its own (`--threads`), or as it is.
struct Lane {
    backend: Backend,
    /// The pool, with the thread count asked for.
    pool: Option<(usize, rayon::ThreadPool)>,
}

impl Lane {
    /// The thread count asked for, where one was.
    fn threads(&self) -> Option<usize> {
        self.pool.as_ref().map(|(n, _)| *n)
    }

    /// The threads a backend with threads of its own (Box2D) gets: those asked for, or
    /// one per hardware thread.
    fn workers(&self) -> usize {
        self.threads().unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })
    }

    /// The backend's name, with its thread count where one was asked for: `cpu, 1 thread`.
    fn label(&self) -> String {
        match self.threads() {
            None => self.backend.name().to_string(),
            Some(1) => format!("{}, 1 thread", self.backend.name()),
            Some(n) => format!("{}, {n} threads", self.backend.name()),
        }
    }

    /// Runs `work` on the lane's pool, or where it is called.
    fn install<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T {
        match &self.pool {
            Some((_, pool)) => pool.install(work),
            None => work(),
        }
    }
}

/// The runs of each size: each backend once, the ones on threads of their own (cpu, gpu,
/// box2d) once per thread count of `threads` where it is given, each on a pool of its
/// own (Box2D's workers are its own; its pool stands idle).
fn lanes(backends: &[Backend], threads: Option<&[usize]>) -> Result<Vec<Lane>, CliError> {
    let mut lanes = Vec::new();
    for &backend in backends {
        match threads {
            Some(counts) if matches!(backend, Backend::Cpu | Backend::Gpu | Backend::Box2d) => {
                for &n in counts {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(n)
                        .build()
                        .map_err(|e| CliError::Usage(format!("--threads {n}: {e}")))?;
                    lanes.push(Lane {
                        backend,
                        pool: Some((n, pool)),
                    });
                }
            }
            _ => lanes.push(Lane {
                backend,
                pool: None,
            }),
        }
    }
    Ok(lanes)
}

fn collider(
    backend: Backend,
    gpu: Option<&GpuContext>,
    library: ShapeLibrary,
    threads: usize,
) -> Result<Box<dyn Collider>, Error> {
    Ok(match backend {
        Backend::Gpu => {
            let context =
                gpu.ok_or_else(|| Error::NoAdapter("no GPU context was opened".into()))?;
            Box::new(GpuCollider::new(context, library)?)
        }
        Backend::Cpu => Box::new(CpuCollider::new(library)),
        Backend::Parry2d => Box::new(ParryCollider::new(library)?),
        Backend::Rapier2d => Box::new(RapierCollider::new(library)?),
        Backend::Box2d => Box::new(Box2dCollider::new(library, threads)?),
    })
}

/// What one backend did on one scene and size.
struct Measured {
    /// Milliseconds of each timed frame.
    frame_ms: Vec<f64>,
    /// Stage times of each timed frame, where measured.
    stages: Vec<Option<StageTimes>>,
    first_pairs: usize,
    first_candidates: Option<u64>,
    /// The answers of every frame, warm-up first: kept for the backends compared with
    /// this one.
    answers: Vec<Answer>,
    frames_compared: usize,
    differing_pairs: u64,
    /// Differing pairs that the f64 recomputation does not place within 0.01 of touching.
    disagreements: u64,
    /// Of those, the ones this backend got wrong by the recomputation, and the ones the
    /// reference got wrong.
    wrong_here: u64,
    wrong_in_reference: u64,
    /// Swept pairs both found whose times of impact differ beyond the spec's tolerance
    /// (also counted in `differing_pairs`, and judged like them).
    differing_toi: u64,
    /// Query answers that differ (rays, points and boxes).
    differing_answers: u64,
}

impl Measured {
    fn frame_ms(&self) -> FrameMs {
        let min = self.frame_ms.iter().copied().fold(f64::INFINITY, f64::min);
        let max = self.frame_ms.iter().copied().fold(0.0, f64::max);
        FrameMs {
            median: median(&self.frame_ms).unwrap_or(0.0),
            min: if min.is_finite() { min } else { 0.0 },
            max,
        }
    }

    /// The median of each stage, when every timed frame measured its stages.
    fn stages_ms(&self) -> Option<StagesMs> {
        let stages: Vec<StageTimes> = self.stages.iter().copied().collect::<Option<_>>()?;
        let of = |pick: fn(&StageTimes) -> f64| {
            median(&stages.iter().map(pick).collect::<Vec<_>>()).unwrap_or(0.0)
        };
        (!stages.is_empty()).then(|| StagesMs {
            upload: of(|s| s.upload),
            bounds: of(|s| s.bounds),
            broad: of(|s| s.broad),
            narrow: of(|s| s.narrow),
            readback: of(|s| s.readback),
        })
    }
}

/// One warm-up frame, then up to `frames` timed frames, moving the bodies before each,
/// comparing every frame's answer with `reference`'s frame of the same number.
fn measure(
    collider: &mut dyn Collider,
    mut workload: Workload,
    frames: usize,
    task: &Task,
    reference: Option<&[Answer]>,
    bar: &ProgressBar,
) -> Result<Measured, Error> {
    let mut measured = Measured {
        frame_ms: Vec::with_capacity(frames),
        stages: Vec::with_capacity(frames),
        first_pairs: 0,
        first_candidates: None,
        answers: Vec::new(),
        frames_compared: 0,
        differing_pairs: 0,
        disagreements: 0,
        wrong_here: 0,
        wrong_in_reference: 0,
        differing_toi: 0,
        differing_answers: 0,
    };
    let keep = reference.is_none();
    let mut spent = Duration::ZERO;
    // The warm-up frame is timed by stage, to learn whether the backend can be. The
    // measured frames are not (timing costs a gpu frame on lavapipe 0.3-0.8 ms, which a
    // game does not pay): where it can, each is followed by the same frame again, timed,
    // whose stage times are kept and whose own time and answer are not.
    collider.set_stage_timing(true);
    let mut times_stages = false;
    for frame in 0..=frames {
        if frame > 1 && spent >= RUN_TIME_CAP {
            bar.inc((frames + 1 - frame) as u64);
            break;
        }
        if frame > 0 {
            workload.step();
        }
        let bodies = workload.bodies();
        let start = Instant::now();
        let answer = run_task(collider, task, bodies)?;
        let elapsed = start.elapsed();
        let stats = collider.last_frame();
        if frame == 0 {
            measured.first_pairs = answer.count();
            measured.first_candidates = stats.candidates;
            times_stages = stats.stages.is_some();
            collider.set_stage_timing(false);
        } else {
            spent += elapsed;
            measured.frame_ms.push(elapsed.as_secs_f64() * 1e3);
            measured.stages.push(if times_stages {
                collider.set_stage_timing(true);
                run_task(collider, task, bodies)?;
                collider.set_stage_timing(false);
                collider.last_frame().stages
            } else {
                None
            });
        }
        if let Some(theirs) = reference.and_then(|r| r.get(frame)) {
            measured.frames_compared += 1;
            let shapes = &workload.scene().shapes;
            match (theirs, &answer) {
                (Answer::Pairs(theirs), Answer::Pairs(ours)) => {
                    compare_pairs(&mut measured, shapes, bodies, theirs, ours)
                }
                (Answer::Swept(theirs), Answer::Swept(ours)) => {
                    compare_swept(&mut measured, shapes, bodies, theirs, ours)
                }
                (Answer::Queries(theirs), Answer::Queries(ours)) => {
                    measured.differing_answers += differing_answers(task, theirs, ours)
                }
                _ => {}
            }
        }
        if keep {
            measured.answers.push(answer);
        }
        bar.inc(1);
    }
    Ok(measured)
}

/// One frame of `task` on `bodies`.
fn run_task(
    collider: &mut dyn Collider,
    task: &Task,
    bodies: &[crate::input::body::Body],
) -> Result<Answer, Error> {
    Ok(match task {
        Task::Pairs => Answer::Pairs(collider.find_pairs(bodies)?),
        Task::Swept => Answer::Swept(collider.find_swept_pairs(bodies)?),
        Task::Queries(batch) => Answer::Queries(collider.query(bodies, batch)?),
    })
}

/// Counts the pairs on which `ours` and `theirs` (the reference's) differ, and judges
/// each by the f64 recomputation ([`band::verdict`]).
fn compare_pairs(
    measured: &mut Measured,
    shapes: &[crate::input::shapes::Shape],
    bodies: &[crate::input::body::Body],
    theirs: &[Pair],
    ours: &[Pair],
) {
    let differ = differing(theirs, ours);
    measured.differing_pairs += differ.len() as u64;
    for pair in &differ {
        let (a, b) = (&bodies[pair[0] as usize], &bodies[pair[1] as usize]);
        let verdict = band::verdict(shapes, a, b).unwrap_or(Verdict::Undecided);
        let found_here = ours.binary_search(pair).is_ok();
        judge(measured, verdict, found_here);
    }
}

/// Counts a pair outside the band as a disagreement and lays it at the door of the
/// backend the recomputation contradicts: `found_here` says whether this backend (not
/// the reference) claims the bodies meet.
fn judge(measured: &mut Measured, verdict: Verdict, found_here: bool) {
    if verdict == Verdict::InBand {
        return;
    }
    measured.disagreements += 1;
    match (verdict, found_here) {
        (Verdict::Colliding, false) | (Verdict::Apart, true) => measured.wrong_here += 1,
        (Verdict::Colliding, true) | (Verdict::Apart, false) => measured.wrong_in_reference += 1,
        _ => {}
    }
}

/// The bodies of `pair` moved to time `t` of the frame.
fn at_time(
    bodies: &[crate::input::body::Body],
    pair: Pair,
    t: f32,
) -> [crate::input::body::Body; 2] {
    pair.map(|k| {
        let body = bodies[k as usize];
        crate::input::body::Body {
            position: body.position + body.velocity * t,
            ..body
        }
    })
}

/// The spec's tolerance on a time of impact: `0.01 / |v_j - v_i| + 1e-4`.
fn toi_tolerance(bodies: &[crate::input::body::Body], [i, j]: Pair) -> f64 {
    let relative = (bodies[j as usize].velocity - bodies[i as usize].velocity).as_dvec2();
    band::BAND / relative.length() + 1e-4
}

/// Compares swept pairs: a pair one backend finds and the other does not is judged by
/// the f64 recomputation at the finder's time of impact (the bodies must be within the
/// band of touching or overlapping there); a pair both find with times of impact apart
/// by more than the tolerance is judged at the earlier time: apart there by more than
/// the band, the earlier time is wrong; overlapping by more, the later one missed the
/// first touch; within the band, either may go.
fn compare_swept(
    measured: &mut Measured,
    shapes: &[crate::input::shapes::Shape],
    bodies: &[crate::input::body::Body],
    theirs: &[SweptPair],
    ours: &[SweptPair],
) {
    let (mut i, mut j) = (0, 0);
    let verdict_at = |pair: Pair, t: f32| {
        let [a, b] = at_time(bodies, pair, t);
        band::verdict(shapes, &a, &b).unwrap_or(Verdict::Undecided)
    };
    // A pair one side found: it claims the bodies meet at its time.
    let alone = |measured: &mut Measured, found: &SweptPair, found_here: bool| {
        measured.differing_pairs += 1;
        judge(measured, verdict_at(found.pair, found.toi), found_here);
    };
    while i < theirs.len() || j < ours.len() {
        let order = match (theirs.get(i), ours.get(j)) {
            (Some(a), Some(b)) => a.pair.cmp(&b.pair),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                alone(measured, &theirs[i], false);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                alone(measured, &ours[j], true);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let (a, b) = (&theirs[i], &ours[j]);
                let gap = (a.toi as f64 - b.toi as f64).abs();
                if gap > toi_tolerance(bodies, a.pair) {
                    measured.differing_pairs += 1;
                    measured.differing_toi += 1;
                    let ours_earlier = b.toi < a.toi;
                    // Apart at the earlier time: the earlier is wrong. Overlapping by
                    // more than the band: the later one missed the first touch. Within
                    // the band: the earlier time is a touch, and the later may be too (a
                    // grazing sweep closes the gap slowly), so either may go.
                    match verdict_at(a.pair, a.toi.min(b.toi)) {
                        Verdict::InBand => {}
                        Verdict::Undecided => measured.disagreements += 1,
                        verdict => {
                            measured.disagreements += 1;
                            if (verdict == Verdict::Apart) == ours_earlier {
                                measured.wrong_here += 1;
                            } else {
                                measured.wrong_in_reference += 1;
                            }
                        }
                    }
                }
                i += 1;
                j += 1;
            }
        }
    }
}

/// Query answers that differ: a ray whose hit is missing on one side, or whose `t`
/// differs by more than `0.01 / |d|` (another body hit at the same `t` is a tie, not a
/// difference), and each body one side lists for a point or box and the other does not.
fn differing_answers(task: &Task, theirs: &QueryAnswers, ours: &QueryAnswers) -> u64 {
    let Task::Queries(batch) = task else {
        return 0;
    };
    let mut differ = 0u64;
    for ((ray, a), b) in batch.rays.iter().zip(&theirs.rays).zip(&ours.rays) {
        let tolerance = band::BAND / ray.delta.as_dvec2().length();
        let same = match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => (a.t as f64 - b.t as f64).abs() <= tolerance,
            _ => false,
        };
        differ += u64::from(!same);
    }
    let lists = |a: &[Vec<u32>], b: &[Vec<u32>]| -> u64 {
        a.iter()
            .zip(b)
            .map(|(a, b)| {
                let pairs = |v: &[u32]| v.iter().map(|&k| [k, 0]).collect::<Vec<Pair>>();
                differing(&pairs(a), &pairs(b)).len() as u64
            })
            .sum()
    };
    let lengths = |a: &QueryAnswers| (a.rays.len(), a.points.len(), a.boxes.len());
    if lengths(theirs) != lengths(ours) {
        differ += 1;
    }
    differ + lists(&theirs.points, &ours.points) + lists(&theirs.boxes, &ours.boxes)
}

/// Pairs in one list and not the other. Both lists are sorted without repeats, as
/// [`Collider::find_pairs`] promises; they are sorted here again if not.
fn differing(a: &[Pair], b: &[Pair]) -> Vec<Pair> {
    let sorted = |p: &[Pair]| {
        let mut v = p.to_vec();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (a, b) = if a.is_sorted() && b.is_sorted() {
        (std::borrow::Cow::Borrowed(a), std::borrow::Cow::Borrowed(b))
    } else {
        (sorted(a).into(), sorted(b).into())
    };
    let (mut i, mut j, mut differ) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                differ.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                differ.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    differ.extend_from_slice(&a[i..]);
    differ.extend_from_slice(&b[j..]);
    differ
}

/// Where the outputs of a run went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outputs {
    /// The JSON report.
    pub json: PathBuf,
    /// The log-log plot.
    pub plot: PathBuf,
    /// The table, as printed.
    pub table: PathBuf,
}

impl Outputs {
    /// Where `options` send the outputs.
    pub fn of(options: &BenchOptions) -> Self {
        Outputs {
            json: options
                .json
                .clone()
                .unwrap_or_else(|| options.out.join(JSON_FILE)),
            plot: options.out.join(plot::PLOT_FILE),
            table: options.out.join(TABLE_FILE),
        }
    }
}

/// Creates the output directory (and the JSON file's) and checks that each output file
/// can be written, without changing one that exists: a file that did not exist is
/// created and removed again. `--out -` is refused: standard output is no directory.
pub fn prepare_outputs(options: &BenchOptions) -> Result<Outputs, CliError> {
    if options.out.as_os_str() == "-" {
        return Err(CliError::Usage(format!(
            "--out -: --out is the directory of {}, {TABLE_FILE} and {JSON_FILE}, which \
             standard output cannot be (the table is printed there anyway; `--json -` \
             prints the JSON there instead of the table)",
            plot::PLOT_FILE
        )));
    }
    let outputs = Outputs::of(options);
    let json_dir = outputs
        .json
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && !options.json_on_stdout());
    let json = ("--json", outputs.json.as_path(), json_dir);
    let out = ("--out", options.out.as_path(), Some(options.out.as_path()));
    for (option, value, dir) in [out, json] {
        let Some(dir) = dir else { continue };
        // create_dir_all where a file is in the way says only "File exists" or "Not a
        // directory": name the file.
        if let Some(file) = dir.ancestors().find(|a| a.exists()).filter(|a| !a.is_dir()) {
            return Err(CliError::Usage(format!(
                "{option} {}: {} is not a directory",
                value.display(),
                file.display()
            )));
        }
        std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
            path: dir.display().to_string(),
            source,
        })?;
    }
    let json_file = (!options.json_on_stdout()).then_some(&outputs.json);
    for file in json_file.into_iter().chain([&outputs.plot, &outputs.table]) {
        let checked = if file.is_dir() {
            Err(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "is a directory",
            ))
        } else if file.exists() {
            // Opened for writing but not truncated: the old results stay until replaced.
            std::fs::OpenOptions::new().write(true).open(file).map(drop)
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(file)
                .and_then(|_| std::fs::remove_file(file))
        };
        checked.map_err(|source| CliError::Write {
            path: file.display().to_string(),
            source,
        })?;
    }
    Ok(outputs)
}

/// Writes the JSON (to `--json`, or the output directory), the plot and the table; the
/// JSON not when it goes to standard output, which is the caller's to write.
pub fn write_outputs(report: &Report, options: &BenchOptions) -> Result<Outputs, CliError> {
    let outputs = Outputs::of(options);
    if !options.json_on_stdout() {
        report.write_json(&outputs.json)?;
    }
    report::write_file(&outputs.table, &report.table())?;
    plot::draw(&report.runs, &outputs.plot)?;
    Ok(outputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differing_lists_the_symmetric_difference() {
        assert!(differing(&[[0, 1], [2, 3]], &[[0, 1], [2, 3]]).is_empty());
        assert_eq!(
            differing(&[[0, 1], [2, 3]], &[[0, 1], [4, 5]]),
            vec![[2, 3], [4, 5]]
        );
        assert_eq!(differing(&[], &[[0, 1]]), vec![[0, 1]]);
        assert_eq!(differing(&[[2, 3], [0, 1]], &[[0, 1]]), vec![[2, 3]]);
    }

    #[test]
    fn scene_names_and_files() {
        assert_eq!(SceneChoice::parse("bullet-hell"), SceneChoice::BulletHell);
        assert_eq!(SceneChoice::parse("bitmask"), SceneChoice::Bitmask);
        assert_eq!(
            SceneChoice::parse("swept-bullet-hell"),
            SceneChoice::SweptBulletHell
        );
        assert_eq!(SceneChoice::parse("queries"), SceneChoice::Queries);
        assert!(!SceneChoice::NAMED.contains(&SceneChoice::Queries));
        assert_eq!(
            SceneChoice::parse("scenes/a.json"),
            SceneChoice::File("scenes/a.json".into())
        );
        assert_eq!(SceneChoice::parse("scenes/a.json").name(), "a.json");
    }

    #[test]
    fn bad_options_are_refused_before_any_work() {
        let bar = ProgressBar::hidden();
        let zero_frames = BenchOptions {
            frames: 0,
            ..Default::default()
        };
        assert!(matches!(plan(&zero_frames, &bar), Err(CliError::Usage(_))));
        let too_many = [
            BenchOptions {
                frames: MAX_FRAMES + 1,
                ..Default::default()
            },
            BenchOptions {
                bodies: Some(vec![1000, MAX_BODIES + 1]),
                ..Default::default()
            },
        ];
        for options in too_many {
            let message = plan(&options, &bar).err().map(|e| e.to_string());
            assert!(
                message
                    .as_deref()
                    .is_some_and(|m| m.contains("must be from 1 to")),
                "{message:?}"
            );
        }
        let missing = BenchOptions {
            scene: Some(vec![SceneChoice::parse("/missing/scene.json")]),
            ..Default::default()
        };
        let message = plan(&missing, &bar).err().map(|e| e.to_string());
        assert!(
            message
                .as_deref()
                .is_some_and(|m| m.contains("/missing/scene.json") && m.contains("bullet-hell")),
            "{message:?}"
        );
    }

    #[test]
    fn the_default_suite_runs_large_bullet_hell_and_small_random_scenes() {
        let plans = plan(&BenchOptions::default(), &ProgressBar::hidden()).expect("plans");
        let sizes: Vec<(&str, &[usize])> = plans
            .iter()
            .map(|p| (p.name.as_str(), p.sizes.as_slice()))
            .collect();
        assert_eq!(
            sizes,
            [
                ("bullet-hell", &[1_000, 10_000, 100_000, 1_000_000][..]),
                ("mixed", &[1_000, 10_000][..]),
                ("bitmask", &[1_000, 10_000][..]),
            ]
        );
    }
}
