//! `gpu-collide`: colliding pairs of a scene file, and the adapters wgpu can see.
//!
//! ```text
//! gpu-collide pairs SCENE.json [--backend gpu|cpu] [--out FILE]
//! gpu-collide adapters
//! ```

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
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
}

#[derive(Clone, Copy, ValueEnum)]
enum Backend {
    /// WGSL compute shaders through wgpu (WGPU_BACKEND and WGPU_ADAPTER_NAME choose the adapter).
    Gpu,
    /// The CPU reference path.
    Cpu,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Pairs {
            scene,
            backend,
            out,
        } => pairs(&scene, backend, out.as_ref()),
        Command::Adapters => adapters(),
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
        Some(file) => std::fs::write(file, text + "\n").map_err(|source| Error::Io {
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
