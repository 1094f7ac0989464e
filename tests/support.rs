//! Shared test helpers: the one GPU device of the test run, running a scene on every
//! backend, holding the answers to the oracle (outside the band every backend must be
//! exact; band pairs are counted), and running something under a time limit.

use std::collections::BTreeSet;
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

use gpu_collide::cpu::ReferenceCollider;
use gpu_collide::{Collider, CpuCollider, GpuCollider, GpuContext, Pair, Scene, Shape};
use serde_json::{json, Value};

use crate::oracle::{self, OracleResult};

/// The device all GPU tests share, or `None` on a developer machine without an adapter,
/// in which case the calling test is reported as skipped, by name (the test harness names
/// each test's thread after the test) and with the reason. Under `CI=true` a missing
/// adapter fails the test instead: CI must really run the GPU tests.
pub fn gpu() -> Option<GpuContext> {
    static CONTEXT: OnceLock<Result<GpuContext, String>> = OnceLock::new();
    let context = CONTEXT.get_or_init(|| {
        let context = GpuContext::new().map_err(|e| e.to_string());
        match &context {
            Ok(c) => eprintln!("GPU tests run on adapter: {}", c.describe()),
            Err(e) => uncaptured(&format!(
                "\n!!!!!!!! NO GPU ADAPTER: GPU TESTS ARE SKIPPED ({e}) !!!!!!!!\n\
                 !!!!!!!! install one: apt-get install -y mesa-vulkan-drivers !!!!!!!!\n"
            )),
        }
        context
    });
    match context {
        Ok(c) => Some(c.clone()),
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("no GPU adapter under CI=true, so the GPU tests cannot run: {e}")
        }
        Err(e) => {
            let current = std::thread::current();
            let test = current
                .name()
                .unwrap_or("a GPU test (off its test's thread)");
            uncaptured(&format!(
                "SKIPPED on the GPU: {test}: no GPU adapter ({e}); under CI=true this fails"
            ));
            None
        }
    }
}

/// Writes `line` to the process's stderr past the test harness, which captures `eprintln!`
/// of a passing test and would hide that the test skipped its GPU part.
fn uncaptured(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Checks the format's promise: each pair once, as `[i, j]` with `i < j`, sorted ascending.
pub fn assert_well_formed(what: &str, pairs: &[Pair]) -> Vec<Pair> {
    for p in pairs {
        assert!(p[0] < p[1], "{what}: pair {p:?} is not [i, j] with i < j");
    }
    for w in pairs.windows(2) {
        assert!(
            w[0] < w[1],
            "{what}: pairs not strictly ascending (duplicate?) at {:?}",
            w
        );
    }
    pairs.to_vec()
}

/// Pairs from the readable CPU reference (all pairs, one thread).
pub fn reference_pairs(scene: &Scene) -> Vec<Pair> {
    let library = scene.validate().expect("test scene is valid");
    let pairs = ReferenceCollider::new(library)
        .find_pairs(&scene.bodies)
        .expect("reference runs");
    assert_well_formed("reference", &pairs)
}

/// Pairs from the cpu backend (grid broad phase, all cores).
pub fn cpu_pairs(scene: &Scene) -> Vec<Pair> {
    let library = scene.validate().expect("test scene is valid");
    let pairs = CpuCollider::new(library)
        .find_pairs(&scene.bodies)
        .expect("cpu backend runs");
    assert_well_formed("cpu", &pairs)
}

/// Pairs from the GPU.
pub fn gpu_pairs(context: &GpuContext, scene: &Scene) -> Vec<Pair> {
    let library = scene.validate().expect("test scene is valid");
    let pairs = GpuCollider::new(context, library)
        .expect("gpu collider builds")
        .find_pairs(&scene.bodies)
        .expect("gpu backend runs");
    assert_well_formed("gpu", &pairs)
}

/// The example scene of the format's spec, with a second bitmask overlapping the first
/// (pairs `[0, 3]` and `[2, 4]`), as the command-line tests feed it.
pub const SPEC_EXAMPLE: &str = r#######"{
  "shapes": [
    {"polygon": [[-9.0, -8.0], [9.0, -8.0], [0.0, 12.0]]},
    {"circle": 2.5},
    {"bitmask": {"width": 5, "height": 3, "rows": [".###.", "#####", ".#.#."]}}
  ],
  "bodies": [
    {"shape": 0, "x": 100.0, "y": 40.0, "angle": 0.5},
    {"shape": 1, "x": 104.0, "y": 52.0, "layer": 4, "mask": 2},
    {"shape": 2, "x": 90, "y": 35},
    {"shape": 1, "x": 101.0, "y": 41.0},
    {"shape": 2, "x": 88, "y": 36}
  ]
}"#######;

/// The example scene of the spec of format 1.1 (motion, contacts and queries).
pub const SPEC_EXAMPLE_1_1: &str = r#######"{
  "shapes": [{"circle": 1.0}, {"polygon": [[-4, -1], [4, -1], [4, 1], [-4, 1]]}],
  "bodies": [
    {"shape": 0, "x": 0, "y": 0, "vx": 30, "vy": 0, "layer": 2, "mask": 1},
    {"shape": 1, "x": 15, "y": 0, "angle": 1.5707963, "layer": 1, "mask": 2}
  ],
  "rays":   [{"x": -10, "y": 0.5, "dx": 40, "dy": 0, "mask": 1}],
  "points": [{"x": 15, "y": 3}],
  "boxes":  [{"min": [-2, -2], "max": [2, 2], "mask": 4294967295}]
}"#######;

/// Whether two JSON values are equal, numbers within `tolerance`.
pub fn json_close(a: &Value, b: &Value, tolerance: f64) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => (x - y).abs() <= tolerance,
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_close(x, y, tolerance))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_close(v, w, tolerance)))
        }
        _ => a == b,
    }
}

/// What is wrong with `reported` outside the oracle's band, showing the offending pairs
/// with their distances and bodies; `None` when it is exact there.
pub fn outside_band_report(
    what: &str,
    value: &Value,
    reported: &[Pair],
    truth: &OracleResult,
) -> Option<String> {
    let comparison = oracle::compare(reported, truth);
    if comparison.is_exact_outside_band() {
        return None;
    }
    let show = |pairs: &[[u32; 2]]| -> Vec<String> {
        pairs
            .iter()
            .take(10)
            .map(|&[i, j]| {
                let d = oracle::signed_distance(value, i as usize, j as usize);
                format!(
                    "({i}, {j}) d={d:.5} {} / {}",
                    value["bodies"][i as usize], value["bodies"][j as usize]
                )
            })
            .collect()
    };
    Some(format!(
        "{what}: {} false positives, {} false negatives outside the band\nfalse positives: {:#?}\nfalse negatives: {:#?}",
        comparison.false_positives.len(),
        comparison.false_negatives.len(),
        show(&comparison.false_positives),
        show(&comparison.false_negatives),
    ))
}

/// Asserts `reported` matches the oracle outside the band, showing the offending pairs.
pub fn assert_exact_outside_band(what: &str, text: &str, reported: &[Pair], truth: &OracleResult) {
    if !oracle::compare(reported, truth).is_exact_outside_band() {
        let value: Value = serde_json::from_str(text).expect("json");
        if let Some(report) = outside_band_report(what, &value, reported, truth) {
            panic!("{report}");
        }
    }
}

/// Pairs as the oracle lists them.
pub type PairList = Vec<Pair>;

/// Pairs on which two answers differ, split into (inside the oracle's band, outside it).
pub fn differences(a: &[Pair], b: &[Pair], truth: &OracleResult) -> (PairList, PairList) {
    let a: BTreeSet<[u32; 2]> = a.iter().copied().collect();
    let b: BTreeSet<[u32; 2]> = b.iter().copied().collect();
    a.symmetric_difference(&b)
        .partition(|p| truth.band.contains(*p))
}

/// Asserts two answers differ only in the band; returns how many band pairs differ.
pub fn assert_differences_in_band(
    what: &str,
    a: &[Pair],
    b: &[Pair],
    truth: &OracleResult,
) -> usize {
    let (inside, outside) = differences(a, b, truth);
    assert!(
        outside.is_empty(),
        "{what}: differ outside the band on {outside:?}"
    );
    inside.len()
}

/// The scene as the oracle reads it, every number written as the f64 equal to the f32
/// the backends compute with. (`Scene::to_json` writes the shortest decimal that reads
/// back as the same f32, which an f64 reader sees up to half an f32 step away: far from
/// the origin that step is no longer small next to the band.)
pub fn exact_json(scene: &Scene) -> Value {
    let shapes: Vec<Value> = scene
        .shapes
        .iter()
        .map(|shape| match shape {
            Shape::Polygon(p) => {
                let vertices: Vec<Value> = p
                    .vertices
                    .iter()
                    .map(|v| json!([v.x as f64, v.y as f64]))
                    .collect();
                json!({ "polygon": vertices })
            }
            Shape::Circle(c) => json!({ "circle": c.radius as f64 }),
            Shape::Capsule(c) => json!({ "capsule": {
                "a": [c.a.x as f64, c.a.y as f64],
                "b": [c.b.x as f64, c.b.y as f64],
                "radius": c.radius as f64,
            }}),
            Shape::Concave(c) => {
                let vertices: Vec<Value> = c
                    .vertices
                    .iter()
                    .map(|v| json!([v.x as f64, v.y as f64]))
                    .collect();
                json!({ "concave": vertices })
            }
            Shape::Compound(c) => {
                let parts: Vec<Value> = c
                    .parts
                    .iter()
                    .map(|p| {
                        json!({"shape": p.shape, "x": p.offset.x as f64, "y": p.offset.y as f64, "angle": p.angle as f64})
                    })
                    .collect();
                json!({ "compound": parts })
            }
            Shape::Bitmask(m) => json!({
                "bitmask": {"width": m.width(), "height": m.height(), "rows": m.to_rows()}
            }),
        })
        .collect();
    let bodies: Vec<Value> = scene
        .bodies
        .iter()
        .map(|b| {
            json!({
                "shape": b.shape,
                "x": b.position.x as f64,
                "y": b.position.y as f64,
                "angle": b.angle as f64,
                "layer": b.layer,
                "mask": b.mask,
            })
        })
        .collect();
    json!({ "shapes": shapes, "bodies": bodies })
}

/// Coordinates within which the format promises exactness outside the 0.01 band (for
/// shapes up to 1024 across, so a world point of such a scene is within this plus 1024).
pub const EXACT_RANGE: f64 = 16384.0;

/// The largest world coordinate any body reaches, in either axis (at least).
pub fn reach(scene: &Scene) -> f64 {
    scene
        .bodies
        .iter()
        .map(|b| {
            let (x, y) = (b.position.x as f64, b.position.y as f64);
            match scene.shapes.get(b.shape as usize) {
                // Unrotated: the box of its pixels.
                Some(Shape::Bitmask(m)) => [x, y, x + m.width() as f64, y + m.height() as f64]
                    .iter()
                    .fold(0.0f64, |r, v| r.max(v.abs())),
                _ => x.abs().max(y.abs()) + shape_radius(&scene.shapes, b.shape as usize),
            }
        })
        .fold(0.0, f64::max)
}

/// How far shape `k` reaches from its origin, whatever its turn (0 for a bitmask).
fn shape_radius(shapes: &[Shape], k: usize) -> f64 {
    let farthest = |vertices: &[glam::Vec2]| {
        vertices
            .iter()
            .map(|v| v.as_dvec2().length())
            .fold(0.0, f64::max)
    };
    match shapes.get(k) {
        Some(Shape::Polygon(p)) => farthest(&p.vertices),
        Some(Shape::Concave(c)) => farthest(&c.vertices),
        Some(Shape::Circle(c)) => c.radius as f64,
        Some(Shape::Capsule(c)) => farthest(&[c.a, c.b]) + c.radius as f64,
        Some(Shape::Compound(c)) => c
            .parts
            .iter()
            .filter(|p| !matches!(shapes.get(p.shape as usize), Some(Shape::Compound(_))))
            .map(|p| p.offset.as_dvec2().length() + shape_radius(shapes, p.shape as usize))
            .fold(0.0, f64::max),
        Some(Shape::Bitmask(_)) | None => 0.0,
    }
}

/// The band the answers are held to: the format's 0.01 where it promises exactness, and
/// beyond that 16 f32 steps at the scene's reach, the rounding the backends' f32 world
/// boxes and positions make there (no promise is made, but the answers must not be
/// wrong by more than a few of those steps).
pub fn band_for(scene: &Scene) -> f64 {
    let reach = reach(scene);
    if reach <= EXACT_RANGE + 1024.0 {
        return oracle::BAND;
    }
    let step = 2f64.powi(reach.log2().floor() as i32 - 23);
    oracle::BAND.max(16.0 * step)
}

/// What every backend answered on one scene, each already held to the oracle.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The oracle, at the band the answers were held to.
    pub truth: OracleResult,
    /// That band.
    pub band: f64,
    /// The reference's pairs.
    pub reference: Vec<Pair>,
    /// The cpu backend's pairs.
    pub cpu: Vec<Pair>,
    /// The GPU's pairs, when there is an adapter.
    pub gpu: Option<Vec<Pair>>,
}

/// Pairs unique, `[i, j]` with `i < j`, ascending, or what breaks that.
pub fn well_formed(pairs: &[Pair]) -> Result<(), String> {
    if let Some(p) = pairs.iter().find(|p| p[0] >= p[1]) {
        return Err(format!("pair {p:?} is not [i, j] with i < j"));
    }
    if let Some(w) = pairs.windows(2).find(|w| w[0] >= w[1]) {
        return Err(format!(
            "pairs not strictly ascending (duplicate?) at {w:?}"
        ));
    }
    Ok(())
}

/// Runs `scene` on the reference, the cpu backend and the GPU, and holds each to the
/// oracle exactly as the cross-check does: outside the band every answer must be the
/// oracle's; band pairs are counted and printed. Within the range where the format
/// promises exactness, the cpu backend must find exactly the reference's pairs (same
/// narrow phase on the same data); beyond it, they may differ only in the (wider) band.
///
/// Every backend runs even when an earlier one is wrong, so the error lists all of them.
pub fn check_every_backend(what: &str, scene: &Scene) -> Result<Checked, String> {
    check_backends(what, scene, Backends::All)
}

/// Which backends [`check_backends`] runs, and whether it prints its summary line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backends {
    /// The reference, the cpu backend and the GPU (when there is an adapter), printing
    /// a summary line.
    All,
    /// The same, silently (for many small cases).
    AllQuiet,
    /// The reference and the cpu backend only, silently.
    CpuQuiet,
}

/// [`check_every_backend`] on the chosen backends.
pub fn check_backends(what: &str, scene: &Scene, backends: Backends) -> Result<Checked, String> {
    let started = Instant::now();
    let library = scene
        .validate()
        .map_err(|e| format!("{what}: test scene is invalid: {e}"))?;
    let value = exact_json(scene);
    let band = band_for(scene);
    let truth = oracle::oracle_value_with_band(&value, band);
    let oracle_time = started.elapsed();
    let mut problems = Vec::new();
    let mut run = |backend: &str, collider: Result<Box<dyn Collider>, gpu_collide::Error>| {
        let started = Instant::now();
        let found = collider.and_then(|mut c| c.find_pairs(&scene.bodies));
        let time = started.elapsed();
        match found {
            Err(e) => {
                problems.push(format!("{what} {backend}: error {e}"));
                (Vec::new(), time)
            }
            Ok(pairs) => {
                if let Err(e) = well_formed(&pairs) {
                    problems.push(format!("{what} {backend}: {e}"));
                }
                let name = format!("{what} {backend}");
                problems.extend(outside_band_report(&name, &value, &pairs, &truth));
                (pairs, time)
            }
        }
    };
    let (reference, reference_time) = run(
        "reference",
        Ok(Box::new(ReferenceCollider::new(library.clone()))),
    );
    let (cpu, cpu_time) = run("cpu", Ok(Box::new(CpuCollider::new(library.clone()))));
    let with_gpu = backends != Backends::CpuQuiet;
    let gpu = gpu().filter(|_| with_gpu).map(|context| {
        run(
            "gpu",
            GpuCollider::new(&context, library).map(|c| Box::new(c) as Box<dyn Collider>),
        )
    });
    let (inside, outside) = differences(&reference, &cpu, &truth);
    if band == oracle::BAND && !(inside.is_empty() && outside.is_empty()) {
        problems.push(format!(
            "{what}: the cpu backend and the reference differ on {:?} (same narrow phase: they must agree exactly)",
            inside.iter().chain(&outside).take(20).collect::<Vec<_>>()
        ));
    } else if !outside.is_empty() {
        problems.push(format!(
            "{what}: the cpu backend and the reference differ outside the band on {:?}",
            outside.iter().take(20).collect::<Vec<_>>()
        ));
    }
    let mut gpu_line = "no GPU".to_string();
    if let Some((on_gpu, gpu_time)) = &gpu {
        let (inside, outside) = differences(&cpu, on_gpu, &truth);
        if !outside.is_empty() {
            problems.push(format!(
                "{what}: gpu and cpu differ outside the band on {} pairs, first {:?}",
                outside.len(),
                outside.iter().take(20).collect::<Vec<_>>()
            ));
        }
        gpu_line = format!(
            "gpu {} band pairs reported in {gpu_time:.2?}, differs from cpu on {} band pairs",
            oracle::compare(on_gpu, &truth).band_reported,
            inside.len()
        );
    }
    if backends == Backends::All {
        eprintln!(
            "{what}: {} bodies, {} pairs, {} band pairs (band {band}); oracle {oracle_time:.2?}, reference {} band pairs reported in {reference_time:.2?}, cpu {} in {cpu_time:.2?}, {gpu_line}",
            scene.bodies.len(),
            truth.pairs.len(),
            truth.band.len(),
            oracle::compare(&reference, &truth).band_reported,
            oracle::compare(&cpu, &truth).band_reported,
        );
    }
    if problems.is_empty() {
        Ok(Checked {
            truth,
            band,
            reference,
            cpu,
            gpu: gpu.map(|(pairs, _)| pairs),
        })
    } else {
        Err(problems.join("\n"))
    }
}

/// [`check_every_backend`], panicking with every problem found.
pub fn assert_every_backend(what: &str, scene: &Scene) -> Checked {
    check_every_backend(what, scene).unwrap_or_else(|problems| panic!("{problems}"))
}

/// Runs `work` on a thread of its own and waits at most `limit` for it: `None` when it
/// has not answered by then (the thread is left running, so a hang fails the test that
/// asked instead of blocking the suite). A panic in `work` is passed on.
///
/// The work's parallel loops (the cpu backend's) run on a thread pool of their own too:
/// a hang on the global pool would stall every later test that uses it.
pub fn within<T: Send + 'static>(
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (send, receive) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a thread pool");
        // The receiver is gone only when the wait timed out; nobody wants the answer then.
        let _ = send.send(pool.install(work));
    });
    match receive.recv_timeout(limit) {
        Ok(answer) => Some(answer),
        Err(mpsc::RecvTimeoutError::Timeout) => None,
        Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the worker sends before it ends"),
        },
    }
}

/// Runs `pipeline` with `bind` over `groups` workgroups (along x), then reads the first
/// `size` bytes of `out` back: for the tests of a kernel of their own.
pub fn dispatch_and_read<T: bytemuck::Pod>(
    context: &GpuContext,
    pipeline: &gpu_collide::wgpu::ComputePipeline,
    bind: &gpu_collide::wgpu::BindGroup,
    groups: u32,
    out: &gpu_collide::wgpu::Buffer,
    size: u64,
) -> Vec<T> {
    use gpu_collide::wgpu;
    let read = context.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = context.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    }
    encoder.copy_buffer_to_buffer(out, 0, &read, 0, size);
    context.queue.submit([encoder.finish()]);
    read.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    context
        .device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("the test kernel finishes");
    let mapped = read
        .slice(..)
        .get_mapped_range()
        .expect("the readback maps");
    bytemuck::cast_slice(&mapped).to_vec()
}

/// A small deterministic generator for the tests' scenes, which must not change between
/// runs.
pub struct Lcg(pub u64);

impl Lcg {
    /// A number in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in `[lo, hi)`.
    pub fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// A whole number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.unit() * n as f64) as usize).min(n - 1)
    }
}

/// `x` to whole hundredths, so that the oracle reads the numbers the backends do.
pub fn hundredths(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Where the tests' crowded scenes sit: the origin, and out to the edge of the range the
/// format promises exactness in (±16384).
pub const CENTRES: [[f64; 2]; 3] = [[0.0, 0.0], [9000.5, -700.25], [-16000.0, 15800.0]];

/// A scene's JSON text: `bodies` bodies of `shapes` (the last of them a bitmask, placed
/// on whole numbers and still) within `spread` of `centre`, turned at random; with
/// `speed` above 0, two bodies in three move by up to `speed` on each axis.
pub fn crowded_scene(
    random: &mut Lcg,
    shapes: Vec<Value>,
    bodies: usize,
    centre: [f64; 2],
    spread: f64,
    speed: f64,
) -> String {
    let mask = shapes.len() - 1;
    let list: Vec<Value> = (0..bodies)
        .map(|k| {
            let shape = random.below(shapes.len());
            let x = hundredths(centre[0] + random.between(-spread, spread));
            let y = hundredths(centre[1] + random.between(-spread, spread));
            if shape == mask {
                return json!({"shape": shape, "x": x.round(), "y": y.round()});
            }
            let mut body = json!({
                "shape": shape, "x": x, "y": y,
                "angle": hundredths(random.between(-3.2, 3.2)),
            });
            if speed > 0.0 && k % 3 != 0 {
                body["vx"] = json!(hundredths(random.between(-speed, speed)));
                body["vy"] = json!(hundredths(random.between(-speed, speed)));
            }
            body
        })
        .collect();
    json!({"shapes": shapes, "bodies": list}).to_string()
}

/// Pairs held to the oracle on every backend ([`assert_every_backend`]) for the scenes
/// `scene_text(seed, centre)` gives at each of [`CENTRES`], seeds 1 and 2 (11 and 12,
/// 21 and 22 further out), each with more than `min_pairs` pairs to test.
pub fn pairs_across_the_range(
    what: &str,
    scene_text: impl Fn(u64, [f64; 2]) -> String,
    min_pairs: usize,
) {
    for (k, centre) in CENTRES.iter().enumerate() {
        for seed in [1, 2] {
            let text = scene_text(seed + 10 * k as u64, *centre);
            let scene = Scene::from_json(&text).expect("valid scene");
            let what = format!("{what} at {centre:?} seed {seed}");
            let checked = assert_every_backend(&what, &scene);
            assert!(
                checked.truth.pairs.len() > min_pairs,
                "{what}: too few pairs to test: {}",
                checked.truth.pairs.len()
            );
        }
    }
}

/// 600 random rays, points and boxes against the scenes `scene_text(seed, centre)`
/// gives at each of [`CENTRES`] (seeds 6, 16, 26), answered by the cpu backend against
/// the reference and the oracle, and by the gpu against both (`queries::answers`).
pub fn queries_across_the_range(what: &str, scene_text: impl Fn(u64, [f64; 2]) -> String) {
    for (k, centre) in CENTRES.iter().enumerate() {
        let what = format!("{what} at {centre:?}");
        let mut scene =
            Scene::from_json(&scene_text(6 + 10 * k as u64, *centre)).expect("valid scene");
        scene.queries = crate::queries::random_batch(&scene, 600, 7 + k as u64);
        let found = crate::queries::answers(&what, &scene);
        let hits = found.rays.iter().flatten().count();
        let listed: usize = found.points.iter().chain(&found.boxes).map(Vec::len).sum();
        assert!(
            hits > 50 && listed > 100,
            "{what}: too few answers to test ({hits} hits, {listed} listed)"
        );
    }
}
