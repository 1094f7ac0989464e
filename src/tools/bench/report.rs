//! The benchmark's results as a person and a program read them: the [`Report`] (written
//! as JSON), the aligned plain-text table printed at the end, and the per-run line
//! printed as each run ends.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::error::CliError;

/// Everything one `bench` invocation measured.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The machine the CPU backends ran on.
    pub machine: Machine,
    /// Seed of the generated scenes, the drift and the query batches (`--seed`, by
    /// default [`super::SEED`]).
    pub seed: u64,
    /// Timed frames asked for per run (`--frames`); a run's `frames` may be fewer.
    pub frames_requested: usize,
    /// The frame budget of the run, in milliseconds (see [`super::budget`]).
    pub frame_budget_ms: f64,
    /// One entry per scene, size and backend that ran.
    pub runs: Vec<Run>,
    /// Sizes a backend skipped, and why.
    pub dropped: Vec<Skipped>,
    /// Runs that failed with an error, and the error.
    pub failed: Vec<Skipped>,
    /// Whether every backend found the same pairs as the reference on every frame compared.
    pub all_agree: bool,
}

/// The host, for the record.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    /// `linux`, `macos`, ...
    pub os: String,
    /// `x86_64`, `aarch64`, ...
    pub arch: String,
    /// The CPU's model name, where the system says it.
    pub cpu: Option<String>,
    /// The CPU's family and model numbers and its widest vector extension, where the
    /// system says them: `family 23, model 49; avx2`. A virtual machine may show every
    /// host as `AMD EPYC`, while lavapipe's speed against a one-thread CPU library moves
    /// with the generation under it (1.5-2x between a Zen 5 and a Zen 2: BENCHMARKS.md,
    /// "The machines"), so figures are compared only where this matches.
    pub cpu_id: Option<String>,
    /// Threads the process may run at once.
    pub cpus: usize,
}

impl Machine {
    /// This machine.
    pub fn this() -> Self {
        // Linux says both in /proc/cpuinfo; elsewhere they stay unknown.
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        Machine {
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
            cpu: cpu_model(&cpuinfo),
            cpu_id: cpu_id(&cpuinfo),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// One line: `AMD EPYC (family 23, model 49; avx2), 2 threads, linux x86_64`.
    pub fn describe(&self) -> String {
        let cpu = self.cpu.as_deref().unwrap_or("unknown CPU");
        let cpu = match &self.cpu_id {
            Some(id) => format!("{cpu} ({id})"),
            None => cpu.to_string(),
        };
        format!("{cpu}, {} threads, {} {}", self.cpus, self.os, self.arch)
    }
}

/// The value of the first line of `/proc/cpuinfo` text whose key is `key`.
fn cpuinfo_field<'a>(cpuinfo: &'a str, key: &str) -> Option<&'a str> {
    cpuinfo
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, value)| value.trim())
}

/// The CPU model's name from `/proc/cpuinfo` text.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo_field(cpuinfo, "model name").map(str::to_string)
}

/// `family F, model M; EXT` from `/proc/cpuinfo` text (x86), EXT the widest of the
/// vector extensions whose width llvmpipe's code follows; `None` without a family.
fn cpu_id(cpuinfo: &str) -> Option<String> {
    let family = cpuinfo_field(cpuinfo, "cpu family")?;
    let model = cpuinfo_field(cpuinfo, "model").unwrap_or("?");
    let flags: Vec<&str> = cpuinfo_field(cpuinfo, "flags")
        .map(|f| f.split_whitespace().collect())
        .unwrap_or_default();
    let widest = ["avx512f", "avx2", "avx", "sse4_2"]
        .into_iter()
        .find(|ext| flags.contains(ext))
        .unwrap_or("no avx");
    Some(format!("family {family}, model {model}; {widest}"))
}

/// One scene at one size on one backend.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// `bullet-hell`, `mixed`, `bitmask`, `swept-bullet-hell`, `queries`, or the scene
    /// file's name.
    pub scene: String,
    /// Bodies in the scene.
    pub bodies: usize,
    /// `gpu`, `cpu`, `parry2d`, `rapier2d` or `box2d`.
    pub backend: String,
    /// The threads of rayon's pool the run had, where `--threads` asked for them (the
    /// cpu backend, and the gpu backend's work on the host); `null` otherwise: rayon's
    /// default pool, or a baseline's one thread.
    pub threads: Option<usize>,
    /// The GPU adapter, for the gpu backend; `null` for the CPU ones.
    pub adapter: Option<Adapter>,
    /// Frames measured (the warm-up frame is not counted).
    pub frames: usize,
    /// Wall time of the measured frames.
    pub frame_ms: FrameMs,
    /// Median time per stage, where the backend measures stages (GPU timestamp queries).
    pub stages_ms: Option<StagesMs>,
    /// Pairs found in the first frame, which has the same bodies on every backend (swept
    /// scenes: swept pairs; the `queries` scene: answers, that is rays that hit plus the
    /// bodies listed for every point and box).
    pub pairs: usize,
    /// Candidate pairs tested exactly in the first frame, where the backend reports it.
    pub candidates: Option<u64>,
    /// How this backend's pairs compare with the reference backend's; `null` for the
    /// reference itself.
    pub agreement: Option<Agreement>,
    /// The gpu backend's frames that do not wait, run again over the same frames:
    /// `null` for the other backends.
    pub nonblocking: Option<NonBlocking>,
}

impl Run {
    /// The backend's name, with its threads where `--threads` asked for them: `cpu, 1
    /// thread`. What the table, the agreement and the dropped runs name it by.
    pub fn label(&self) -> String {
        match self.threads {
            None => self.backend.clone(),
            Some(1) => format!("{}, 1 thread", self.backend),
            Some(n) => format!("{}, {n} threads", self.backend),
        }
    }
}

/// Host time inside the collider per frame when frames do not wait
/// (`GpuCollider::submit`, then `collect` of the frame before), over the same frames as
/// the blocking run, each checked against it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct NonBlocking {
    /// Frames measured.
    pub frames: usize,
    /// Median milliseconds in `submit`: uploading the bodies and recording the frame.
    pub submit_ms: f64,
    /// Median milliseconds in `collect` of the frame before, waiting included: on a
    /// software adapter the GPU's work runs on the same cores, so the wait is most of it.
    pub collect_ms: f64,
}

/// The adapter a GPU run used.
#[derive(Debug, Clone, Serialize)]
pub struct Adapter {
    /// The adapter's name, e.g. `llvmpipe (LLVM 19.1.7, 256 bits)`.
    pub name: String,
    /// The wgpu backend: `Vulkan`, `Gl`, `Metal`, `Dx12`.
    pub backend: String,
    /// `DiscreteGpu`, `IntegratedGpu`, `VirtualGpu`, `Cpu` or `Other`.
    pub device_type: String,
    /// The driver's name and version.
    pub driver: String,
}

impl Adapter {
    /// From what wgpu says about the adapter.
    pub fn from_info(info: &wgpu::AdapterInfo) -> Self {
        Adapter {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: format!("{} {}", info.driver, info.driver_info)
                .trim()
                .to_string(),
        }
    }
}

/// Median, fastest and slowest frame, in milliseconds.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FrameMs {
    /// The median frame.
    pub median: f64,
    /// The fastest frame.
    pub min: f64,
    /// The slowest frame.
    pub max: f64,
}

/// Median milliseconds per stage over the measured frames.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct StagesMs {
    /// Packing and writing the transforms (host time).
    pub upload: f64,
    /// World bounds (GPU timestamps).
    pub bounds: f64,
    /// Candidate pairs: the grid's counting sort and query (GPU timestamps).
    pub broad: f64,
    /// Exact tests (GPU timestamps).
    pub narrow: f64,
    /// The rest of the frame on the host: submitting, copying and mapping the pairs
    /// back, and waiting.
    pub readback: f64,
}

/// Pairs compared with the reference backend (the first of gpu, cpu, parry2d that ran
/// this scene and size), frame by frame.
#[derive(Debug, Clone, Serialize)]
pub struct Agreement {
    /// The backend compared with.
    pub reference: String,
    /// Frames compared: the warm-up frame and the measured frames both backends ran.
    pub frames_compared: usize,
    /// Pairs found by one backend and not the other, summed over the frames compared.
    /// Pairs within 0.01 of touching may go either way, so a few are not an error.
    pub differing_pairs: u64,
    /// Those of them that a recomputation in f64 ([`super::band`]) does not place within
    /// 0.01 of touching: a wrong answer by one of the two backends.
    pub disagreements: u64,
    /// Of the disagreements, those on which the recomputation contradicts this run's
    /// backend (it left out a pair overlapping by more than 0.01, or reported one apart
    /// by more than 0.01).
    pub wrong_here: u64,
    /// Those on which it contradicts the reference. Two bitmasks are not recomputed, so
    /// the two counts may add up to fewer than `disagreements`.
    pub wrong_in_reference: u64,
    /// Swept scenes: pairs both backends found whose times of impact differ by more than
    /// the spec's `0.01 / |v_j - v_i| + 1e-4`. They are counted in `differing_pairs` and
    /// judged at the earlier time (apart there: the earlier is wrong; else the later).
    pub differing_toi: u64,
    /// Query scenes: rays whose hits differ (one missing, or `t` apart by more than
    /// `0.01 / |d|`), and bodies listed for a point or box by one backend only. Counted,
    /// not judged: they do not fail the benchmark.
    pub differing_answers: u64,
}

/// The backends that are not gpu-collide's: parry2d, rapier2d and box2d, the comparison.
pub const BASELINES: [&str; 3] = ["parry2d", "rapier2d", "box2d"];

/// A run that did not happen or did not finish.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    /// The scene.
    pub scene: String,
    /// Its size.
    pub bodies: usize,
    /// The backend.
    pub backend: String,
    /// Why.
    pub reason: String,
}

impl Report {
    /// The report as pretty JSON.
    pub fn to_json(&self) -> Result<String, CliError> {
        serde_json::to_string_pretty(self).map_err(|e| CliError::Report(e.to_string()))
    }

    /// Writes the JSON to `path`, creating its directory.
    pub fn write_json(&self, path: &Path) -> Result<(), CliError> {
        write_file(path, &(self.to_json()? + "\n"))
    }

    /// The table printed at the end of a run: one aligned line per run, then the
    /// dropped and failed runs. The agreement column says `reference` for the backend
    /// the others were compared with, and `alone` when no other backend ran that size.
    pub fn table(&self) -> String {
        let header = [
            "scene",
            "bodies",
            "backend",
            "frames",
            "median ms",
            "min ms",
            "max ms",
            "pairs",
            "candidates",
            "agreement",
        ];
        let rows: Vec<[String; 10]> = self
            .runs
            .iter()
            .map(|r| {
                [
                    r.scene.clone(),
                    r.bodies.to_string(),
                    r.label(),
                    r.frames.to_string(),
                    milliseconds(r.frame_ms.median),
                    milliseconds(r.frame_ms.min),
                    milliseconds(r.frame_ms.max),
                    r.pairs.to_string(),
                    r.candidates.map_or("-".to_string(), |c| c.to_string()),
                    if r.agreement.is_none() && !self.compared_with(r) {
                        "alone".to_string()
                    } else {
                        agreement_text(r)
                    },
                ]
            })
            .collect();
        let mut widths = header.map(str::len);
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        // Text columns to the left, numbers to the right.
        let left = [
            true, false, true, false, false, false, false, false, false, true,
        ];
        let line = |cells: &[String]| {
            let mut text = String::new();
            for (k, cell) in cells.iter().enumerate() {
                let pad = widths[k].saturating_sub(cell.chars().count());
                if k > 0 {
                    text.push_str("  ");
                }
                if left[k] {
                    text.push_str(cell);
                    if k + 1 < cells.len() {
                        text.push_str(&" ".repeat(pad));
                    }
                } else {
                    text.push_str(&" ".repeat(pad));
                    text.push_str(cell);
                }
            }
            text
        };
        let mut out = String::new();
        let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
        let _ = writeln!(out, "{}", line(&header));
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        let _ = writeln!(out, "{}", line(&rule));
        for row in &rows {
            let _ = writeln!(out, "{}", line(row));
        }
        for d in &self.dropped {
            let _ = writeln!(
                out,
                "dropped: {} {} bodies on {}: {}",
                d.scene, d.bodies, d.backend, d.reason
            );
        }
        for f in &self.failed {
            let _ = writeln!(
                out,
                "FAILED: {} {} bodies on {}: {}",
                f.scene, f.bodies, f.backend, f.reason
            );
        }
        let differing: u64 = self
            .runs
            .iter()
            .filter_map(|r| r.agreement.as_ref())
            .map(|a| a.differing_pairs)
            .sum();
        let disagreements = self.disagreements();
        let answers: u64 = self
            .runs
            .iter()
            .filter_map(|r| r.agreement.as_ref())
            .map(|a| a.differing_answers)
            .sum();
        if answers > 0 {
            let _ = writeln!(
                out,
                "query answers differ on {answers} queries or listed bodies in all (counted, \
                 not judged by a recomputation)"
            );
        }
        if self.all_agree {
            let _ = writeln!(out, "all backends agreed on every frame compared");
        } else if differing == 0 {
            let _ = writeln!(out, "all backends agreed on every pair compared");
        } else if disagreements == 0 {
            let _ = writeln!(
                out,
                "backends differ on {differing} pairs in all (see the agreement column), every \
                 one within 0.01 of touching when recomputed in f64, which the scene format \
                 lets go either way"
            );
        } else {
            let wrong = self.wrong_by_backend();
            let mut blame: Vec<String> = wrong
                .iter()
                .map(|(backend, n)| format!("{backend} is wrong on {n}"))
                .collect();
            let undecided = disagreements - wrong.values().sum::<u64>();
            if undecided > 0 {
                blame.push(format!(
                    "on {undecided} (two bitmasks) it cannot say which backend is"
                ));
            }
            let _ = writeln!(
                out,
                "DISAGREEMENT: backends differ on {disagreements} pairs that are not within \
                 0.01 of touching when recomputed in f64; by that recomputation {} (and \
                 they differ on {} more within 0.01)",
                blame.join(", "),
                differing - disagreements
            );
        }
        out
    }

    /// The disagreements the f64 recomputation lays at each backend's door, over every
    /// run (backends it never contradicts are left out).
    pub fn wrong_by_backend(&self) -> std::collections::BTreeMap<String, u64> {
        let mut wrong = std::collections::BTreeMap::new();
        for run in &self.runs {
            if let Some(a) = &run.agreement {
                for (backend, n) in [
                    (run.label(), a.wrong_here),
                    (a.reference.clone(), a.wrong_in_reference),
                ] {
                    if n > 0 {
                        *wrong.entry(backend).or_insert(0) += n;
                    }
                }
            }
        }
        wrong
    }

    /// Disagreements not laid at a baseline's door (parry2d, rapier2d or box2d, which are not
    /// this project's): a wrong answer of gpu-collide's, or one the recomputation cannot
    /// attribute. The benchmark fails on these.
    pub fn disagreements_not_of_the_baseline(&self) -> u64 {
        let wrong = self.wrong_by_backend();
        // By label: `box2d, 2 threads` is box2d's.
        let of_baselines: u64 = wrong
            .iter()
            .filter(|(label, _)| {
                let backend = label.split(',').next().unwrap_or_default();
                BASELINES.contains(&backend)
            })
            .map(|(_, n)| n)
            .sum();
        self.disagreements().saturating_sub(of_baselines)
    }

    /// Differing pairs outside the tolerance band, over every run.
    pub fn disagreements(&self) -> u64 {
        self.runs
            .iter()
            .filter_map(|r| r.agreement.as_ref())
            .map(|a| a.disagreements)
            .sum()
    }

    /// Whether some other backend was compared with `reference` (same scene and size).
    fn compared_with(&self, reference: &Run) -> bool {
        self.runs.iter().any(|r| {
            r.scene == reference.scene
                && r.bodies == reference.bodies
                && r.agreement
                    .as_ref()
                    .is_some_and(|a| a.reference == reference.label())
        })
    }
}

/// The line printed as a run ends.
pub fn run_line(run: &Run) -> String {
    format!(
        "{} {} bodies on {}: median {} ms over {} frames, {} pairs, {}",
        run.scene,
        run.bodies,
        run.label(),
        milliseconds(run.frame_ms.median),
        run.frames,
        run.pairs,
        agreement_text(run)
    )
}

/// `agree`, `3 differ from gpu`, or `reference`.
fn agreement_text(run: &Run) -> String {
    match &run.agreement {
        None => "reference".to_string(),
        Some(a) if a.differing_answers > 0 => format!(
            "{} answers differ from {} (not judged)",
            a.differing_answers, a.reference
        ),
        Some(a) if a.differing_pairs == 0 => format!("agree with {}", a.reference),
        Some(a) if a.disagreements == 0 => format!(
            "{} within 0.01 differ from {}",
            a.differing_pairs, a.reference
        ),
        Some(a) => format!(
            "{} DISAGREE with {} ({} within 0.01; by f64, {} wrong on {}, {} on {})",
            a.disagreements,
            a.reference,
            a.differing_pairs - a.disagreements,
            run.label(),
            a.wrong_here,
            a.reference,
            a.wrong_in_reference
        ),
    }
}

/// Three significant digits or so, without a wall of decimals.
fn milliseconds(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else if ms >= 10.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.2}")
    }
}

/// Writes `text` to `path`, creating the directory it is in.
pub fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    let write_error = |source| CliError::Write {
        path: path.display().to_string(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
            path: dir.display().to_string(),
            source,
        })?;
    }
    std::fs::write(path, text).map_err(write_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(backend: &str, median: f64, agreement: Option<Agreement>) -> Run {
        Run {
            scene: "bullet-hell".into(),
            bodies: 1000,
            backend: backend.into(),
            threads: None,
            adapter: None,
            frames: 10,
            frame_ms: FrameMs {
                median,
                min: median,
                max: median,
            },
            stages_ms: None,
            pairs: 7,
            candidates: None,
            agreement,
            nonblocking: None,
        }
    }

    #[test]
    fn cpu_is_named_with_its_family_model_and_widest_vector_extension() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\n\
                       model\t\t: 49\nmodel name\t: AMD EPYC\n\
                       flags\t\t: fpu sse4_2 avx fma avx2\n\nprocessor\t: 1\n\
                       cpu family\t: 23\nmodel\t\t: 49\nmodel name\t: AMD EPYC\n";
        assert_eq!(cpu_model(cpuinfo).as_deref(), Some("AMD EPYC"));
        assert_eq!(
            cpu_id(cpuinfo).as_deref(),
            Some("family 23, model 49; avx2")
        );
        let wider = cpuinfo.replace("avx2", "avx2 avx512f").replace("49", "17");
        assert_eq!(
            cpu_id(&wider).as_deref(),
            Some("family 23, model 17; avx512f")
        );
        // An aarch64 cpuinfo has neither a model name nor a family.
        let arm = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU part\t: 0xd0c\n";
        assert_eq!(cpu_model(arm), None);
        assert_eq!(cpu_id(arm), None);
        let machine = Machine {
            os: "linux".into(),
            arch: "x86_64".into(),
            cpu: cpu_model(cpuinfo),
            cpu_id: cpu_id(cpuinfo),
            cpus: 2,
        };
        assert_eq!(
            machine.describe(),
            "AMD EPYC (family 23, model 49; avx2), 2 threads, linux x86_64"
        );
    }

    #[test]
    fn table_columns_line_up() {
        let report = Report {
            machine: Machine::this(),
            seed: 4,
            frames_requested: 10,
            frame_budget_ms: 2000.0,
            runs: vec![
                run("cpu", 1.234, None),
                run(
                    "parry2d",
                    123.4,
                    Some(Agreement {
                        reference: "cpu".into(),
                        frames_compared: 11,
                        differing_pairs: 2,
                        disagreements: 0,
                        wrong_here: 0,
                        wrong_in_reference: 0,
                        differing_toi: 0,
                        differing_answers: 0,
                    }),
                ),
            ],
            dropped: vec![],
            failed: vec![],
            all_agree: false,
        };
        let mut report = report;
        let mut lone = run("parry2d", 900.0, None);
        lone.bodies = 1_000_000;
        report.runs.push(lone);
        let table = report.table();
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("scene"), "{table}");
        // The median column ends at the same place on every row.
        let end = lines[0].find("median ms").expect("header") + "median ms".len();
        assert_eq!(&lines[2][end - 4..end], "1.23", "{table}");
        assert_eq!(&lines[3][end - 3..end], "123", "{table}");
        assert!(
            lines[3].contains("2 within 0.01 differ from cpu"),
            "{table}"
        );
        assert!(table.contains("differ on 2 pairs"), "{table}");
        assert!(lines[2].ends_with("reference"), "{table}");
        assert!(lines[4].ends_with("alone"), "{table}");
    }

    #[test]
    fn differences_outside_the_band_are_called_disagreements() {
        let compared = |backend: &str, differing_pairs, disagreements, wrong_here| {
            run(
                backend,
                2.0,
                Some(Agreement {
                    reference: "cpu".into(),
                    frames_compared: 3,
                    differing_pairs,
                    disagreements,
                    wrong_here,
                    wrong_in_reference: 0,
                    differing_toi: 0,
                    differing_answers: 0,
                }),
            )
        };
        let report = |runs| Report {
            machine: Machine::this(),
            seed: 4,
            frames_requested: 2,
            frame_budget_ms: 2000.0,
            runs,
            dropped: vec![],
            failed: vec![],
            all_agree: false,
        };
        let excused = report(vec![run("cpu", 1.0, None), compared("gpu", 3, 0, 0)]);
        assert_eq!(excused.disagreements(), 0);
        assert!(excused.table().contains("3 within 0.01 differ from cpu"));
        assert!(!excused.table().contains("DISAGREE"));
        let wrong = report(vec![run("cpu", 1.0, None), compared("gpu", 3, 1, 1)]);
        assert_eq!(wrong.disagreements(), 1);
        assert_eq!(wrong.disagreements_not_of_the_baseline(), 1);
        let table = wrong.table();
        assert!(
            table.contains("1 DISAGREE with cpu (2 within 0.01; by f64, gpu wrong on 1, cpu on 0)"),
            "{table}"
        );
        assert!(
            table.contains("DISAGREEMENT: backends differ on 1 pairs"),
            "{table}"
        );
        assert!(table.contains("gpu is wrong on 1"), "{table}");
        // The baseline's wrong answers are named and do not fail the benchmark.
        let baseline = report(vec![run("cpu", 1.0, None), compared("parry2d", 3, 2, 2)]);
        assert_eq!(baseline.disagreements(), 2);
        assert_eq!(baseline.disagreements_not_of_the_baseline(), 0);
        assert!(baseline.table().contains("parry2d is wrong on 2"));
        let rapier = report(vec![run("cpu", 1.0, None), compared("rapier2d", 3, 2, 2)]);
        assert_eq!(rapier.disagreements_not_of_the_baseline(), 0);
        assert!(rapier.table().contains("rapier2d is wrong on 2"));
        // Two bitmasks are not recomputed: unattributed, and counted against us.
        let undecided = report(vec![run("cpu", 1.0, None), compared("parry2d", 1, 1, 0)]);
        assert_eq!(undecided.disagreements_not_of_the_baseline(), 1);
        assert!(undecided.table().contains("cannot say which"));
    }
}
