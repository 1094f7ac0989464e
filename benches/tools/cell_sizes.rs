//! What the broad phase reads with each base-cell size the colliders consider, for the
//! whole scene and as the sample used to choose estimates it, and which size is chosen
//! (`src/grid/cell_size.rs`): the figures behind BENCHMARKS.md, "The cell size, measured per
//! scene".
//!
//! ```text
//! cargo bench --bench cell_sizes -- level.json other.json bullet-hell
//! ```

use gpu_collide::cpu::bounds::bounds;
use gpu_collide::generate::BulletHell;
use gpu_collide::grid::cell_size::{choose_grid, reads, MULTIPLES, SAMPLE};
use gpu_collide::grid::{bucket_count, GridParams};
use gpu_collide::layout::bodies::{body_info, body_transform};
use gpu_collide::Scene;

fn main() {
    let names: Vec<String> = std::env::args()
        .filter(|a| a != "--bench")
        .skip(1)
        .collect();
    if names.is_empty() {
        eprintln!("usage: cell_sizes SCENE.json|bullet-hell ...");
        std::process::exit(2);
    }
    for name in names {
        let scene = if name == "bullet-hell" {
            BulletHell::new(100_000, 4).scene
        } else {
            let text = std::fs::read_to_string(&name).unwrap_or_else(|e| {
                eprintln!("cannot read {name}: {e}");
                std::process::exit(1)
            });
            Scene::from_json(&text).unwrap_or_else(|e| {
                eprintln!("{name}: {e}");
                std::process::exit(1)
            })
        };
        report(&name, &scene);
    }
}

fn report(name: &str, scene: &Scene) {
    let library = scene.validate().expect("a valid scene");
    let transforms: Vec<_> = scene.bodies.iter().map(body_transform).collect();
    let infos: Vec<_> = scene.bodies.iter().map(body_info).collect();
    let boxes = bounds(&library, &transforms, &infos);
    // Twice the median body is the size-only default.
    let median = GridParams::for_bodies(&library, &infos).base_cell / 2.0;
    let chosen = choose_grid(&library, &infos, &transforms);
    let stride = infos.len().div_ceil(SAMPLE).max(1);
    let sample_infos: Vec<_> = infos.iter().step_by(stride).copied().collect();
    let sample_boxes: Vec<_> = boxes.iter().step_by(stride).copied().collect();
    println!(
        "{name}: {} bodies, median body {median}, chosen base cell {} ({}x the median)",
        infos.len(),
        chosen.base_cell,
        chosen.base_cell / median
    );
    println!("  multiple  cells read  entries read  cells+entries  sample estimate");
    for multiple in MULTIPLES {
        let whole = GridParams {
            base_cell: multiple * median,
            bucket_count: bucket_count(infos.len()),
            waiter_layers: chosen.waiter_layers,
            layout: chosen.layout,
        };
        let (cells, entries) = reads(&whole, &infos, &boxes);
        let sample = GridParams {
            bucket_count: bucket_count(sample_infos.len()),
            ..whole
        };
        let (sample_cells, sample_entries) = reads(&sample, &sample_infos, &sample_boxes);
        let estimate = (sample_cells + sample_entries * stride as u64) * stride as u64;
        println!(
            "  {multiple:>8}  {cells:>10}  {entries:>12}  {:>13}  {estimate:>15}",
            cells + entries
        );
    }
}
