//! `gpu-collide`: colliding pairs of a scene file, the adapters wgpu can see, and the
//! benchmark of every backend.
//!
//! ```text
//! gpu-collide pairs SCENE.json [--backend gpu|cpu] [--out FILE]
//! gpu-collide adapters
//! gpu-collide bench [--scene FILE|NAME] [--bodies N[,N...]] [--backend gpu,cpu,parry2d]
//!                   [--frames K] [--json FILE] [--out DIR]
//! ```
//!
//! Every command exits with 0 on success and 1 on refused input (options included) or
//! any failure, with the message on stderr.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use gpu_collide::bench::{BenchOptions, SceneChoice};
use gpu_collide::{Collider, CpuCollider, Error, GpuCollider, GpuContext, Pair, Scene};

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
        /// The scene file (JSON, see spec/scene-format.md); `-` reads standard input.
        scene: PathBuf,
        /// Where to compute.
        #[arg(long, value_enum, default_value_t = Backend::Gpu)]
        backend: Backend,
        /// Write the pairs to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Lists the adapters wgpu can see, best first, and whether each can run the pipeline.
    Adapters,
    /// Measures frame times on moving scenes on every backend and checks they find the
    /// same pairs; prints a table, writes JSON and a log-log plot to the output directory.
    ///
    /// With no options: bullet-hell at 1k, 10k, 100k and 1M bodies, mixed and bitmask at
    /// 1k and 10k, each on gpu, cpu and parry2d. A backend whose median frame exceeds 2 s
    /// is not run on the larger sizes of that scene (the run says so).
    Bench {
        /// A scene name (bullet-hell, mixed, bitmask) or a scene file [default: all three names].
        #[arg(long, value_name = "FILE|NAME")]
        scene: Option<String>,
        /// Body counts, comma-separated [default: 1000,10000,100000,1000000 for
        /// bullet-hell, 1000,10000 for the others]. Not for a scene file.
        #[arg(
            long,
            value_name = "N[,N...]",
            value_delimiter = ',',
            value_parser = count
        )]
        bodies: Option<Vec<u64>>,
        /// Backends to run, comma-separated [default: all; the gpu is skipped with a
        /// warning when there is no adapter].
        #[arg(
            long,
            value_enum,
            value_name = "gpu,cpu,parry2d",
            value_delimiter = ','
        )]
        backend: Option<Vec<gpu_collide::bench::Backend>>,
        /// Timed frames per run, after one warm-up frame; a run stops early once its
        /// timed frames add up to 10 s.
        #[arg(long, value_name = "K", default_value_t = gpu_collide::bench::DEFAULT_FRAMES as u64,
              value_parser = count)]
        frames: u64,
        /// Write the JSON report here [default: DIR/bench.json].
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Directory of the plot (frame_time.svg), the table and the JSON.
        #[arg(long, value_name = "DIR", default_value = gpu_collide::bench::DEFAULT_OUT)]
        out: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Backend {
    /// WGSL compute shaders through wgpu (WGPU_BACKEND and WGPU_ADAPTER_NAME choose the adapter).
    Gpu,
    /// The CPU reference path.
    Cpu,
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
    let result = match cli.command {
        Command::Pairs {
            scene,
            backend,
            out,
        } => pairs(&scene, backend, out.as_ref()),
        Command::Adapters => adapters(),
        Command::Bench {
            scene,
            bodies,
            backend,
            frames,
            json,
            out,
        } => bench(BenchOptions {
            scene: scene.as_deref().map(SceneChoice::parse),
            bodies: bodies.map(|b| b.into_iter().map(|n| n as usize).collect()),
            backends: backend,
            frames: frames as usize,
            json,
            out,
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn read_text(path: &PathBuf) -> Result<String, Error> {
    let io_error = |source| Error::Io {
        path: path.display().to_string(),
        source,
    };
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(io_error)?;
        Ok(text)
    } else {
        std::fs::read_to_string(path).map_err(io_error)
    }
}

fn pairs(path: &PathBuf, backend: Backend, out: Option<&PathBuf>) -> Result<(), Error> {
    let parsed = Scene::from_json_with_warnings(&read_text(path)?)?;
    for warning in &parsed.warnings {
        eprintln!("warning: {warning}");
    }
    let scene = parsed.scene;
    let library = scene.validate()?;
    let mut collider: Box<dyn Collider> = match backend {
        Backend::Cpu => Box::new(CpuCollider::new(library)),
        Backend::Gpu => Box::new(GpuCollider::new(&GpuContext::new()?, library)?),
    };
    eprintln!("backend: {}", collider.describe());
    let start = Instant::now();
    let found = collider.find_pairs(&scene.bodies)?;
    eprintln!(
        "{} bodies, {} pairs in {:.1} ms",
        scene.bodies.len(),
        found.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
    let text = pairs_json(&found);
    match out {
        Some(file) => std::fs::write(file, text + "\n").map_err(|source| Error::Write {
            path: file.display().to_string(),
            source,
        }),
        None => {
            println!("{text}");
            Ok(())
        }
    }
}

/// `{"pairs": [[i, j], ...]}`, as the format prescribes.
fn pairs_json(pairs: &[Pair]) -> String {
    serde_json::json!({ "pairs": pairs }).to_string()
}

fn adapters() -> Result<(), Error> {
    let all = pollster::block_on(gpu_collide::gpu::all_adapters());
    let usable = pollster::block_on(gpu_collide::gpu::usable_adapters());
    if all.is_empty() {
        println!("no adapters found");
    }
    for adapter in &usable {
        println!(
            "usable    {}",
            gpu_collide::gpu::describe_adapter(&adapter.get_info())
        );
    }
    for adapter in &all {
        let info = adapter.get_info();
        if !usable.iter().any(|u| u.get_info() == info) {
            println!(
                "unusable  {} (no compute shaders or indirect dispatch, or not WGPU_ADAPTER_NAME)",
                gpu_collide::gpu::describe_adapter(&info)
            );
        }
    }
    Ok(())
}

/// A count option's value: a whole number, at least 1.
fn count(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{text}` is not a whole number of at least 1")),
    }
}

/// Runs the benchmark, prints the table and writes the JSON, plot and table files.
/// Fails (after writing them) when some run failed.
fn bench(options: BenchOptions) -> Result<(), Error> {
    let bar = gpu_collide::bench::progress_bar();
    let report = gpu_collide::bench::run(&options, &bar)?;
    print!("{}", report.table());
    let outputs = gpu_collide::bench::write_outputs(&report, &options)?;
    eprintln!(
        "wrote {}, {} and {}",
        outputs.json.display(),
        outputs.plot.display(),
        outputs.table.display()
    );
    match report.failed.len() {
        0 => Ok(()),
        n => Err(Error::Report(format!(
            "{n} run(s) failed; see FAILED above and `failed` in {}",
            outputs.json.display()
        ))),
    }
}
