//! The benchmark's picture: frame time against bodies, both axes logarithmic, one line
//! per backend, one panel per scene, drawn as SVG with plotters.
//!
//! plotters is built without its `ttf` feature, so drawing needs no system fonts
//! (fontconfig, freetype): the SVG holds `<text>` elements that the viewer renders,
//! and plotters only estimates their size for layout.

use std::path::Path;

use plotters::prelude::*;

use super::error::CliError;
use super::report::Run;

/// File name of the plot in the output directory.
pub const PLOT_FILE: &str = "frame_time.svg";

/// Colour of each backend's line, the same in every panel.
fn colour(backend: &str) -> RGBColor {
    match backend {
        "gpu" => RGBColor(214, 39, 40),
        "cpu" => RGBColor(31, 119, 180),
        "parry2d" => RGBColor(44, 160, 44),
        "rapier2d" => RGBColor(148, 103, 189),
        "box2d" => RGBColor(255, 127, 14),
        _ => RGBColor(100, 100, 100),
    }
}

/// `1k`, `10k`, `1M`.
fn bodies_label(bodies: f64) -> String {
    if bodies >= 1e6 {
        format!("{}M", bodies / 1e6)
    } else if bodies >= 1e3 {
        format!("{}k", bodies / 1e3)
    } else {
        format!("{bodies}")
    }
}

/// The value, when it is 1, 2 or 5 times a power of ten (within rounding).
fn round_value(value: f64) -> Option<f64> {
    if value <= 0.0 || !value.is_finite() {
        return None;
    }
    let decade = 10f64.powf(value.log10().floor());
    let mantissa = value / decade;
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .find(|m| (mantissa - m).abs() < 1e-6 * m)
        .map(|m| m * decade)
}

/// `0.1`, `2.5`, `40`, `1000`: no long tails of binary fractions.
fn milliseconds_label(ms: f64) -> String {
    if ms >= 10.0 {
        format!("{ms:.0}")
    } else {
        let text = format!("{ms:.3}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Draws the runs to `path` (an SVG file), one panel per scene in the order the
/// scenes first appear.
pub fn draw(runs: &[Run], path: &Path) -> Result<(), CliError> {
    let fail = |e: &dyn std::fmt::Display| CliError::Report(format!("{}: {e}", path.display()));
    // A scene of no bodies has no place on a log axis (and would hang plotters' ticks).
    let runs: Vec<&Run> = runs.iter().filter(|r| r.bodies > 0).collect();
    let mut scenes: Vec<&str> = Vec::new();
    for run in &runs {
        if !scenes.contains(&run.scene.as_str()) {
            scenes.push(&run.scene);
        }
    }
    let panels = scenes.len().max(1);
    let size = ((440 * panels) as u32, 400u32);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    if runs.is_empty() {
        root.draw(&Text::new(
            "no runs to plot",
            (20, 20),
            ("sans-serif", 16).into_font(),
        ))
        .map_err(|e| fail(&e))?;
    }
    for (area, scene) in root.split_evenly((1, panels)).iter().zip(&scenes) {
        let mine: Vec<&Run> = runs.iter().copied().filter(|r| r.scene == *scene).collect();
        // A single size or frame time would make an empty range: widen both by 2x.
        let (mut x_lo, mut x_hi, mut y_lo, mut y_hi) = (f64::MAX, 0.0f64, f64::MAX, 0.0f64);
        for r in &mine {
            x_lo = x_lo.min(r.bodies as f64);
            x_hi = x_hi.max(r.bodies as f64);
            y_lo = y_lo.min(r.frame_ms.median.max(1e-3));
            y_hi = y_hi.max(r.frame_ms.median.max(1e-3));
        }
        let mut chart = ChartBuilder::on(area)
            .caption(*scene, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(
                (x_lo / 2.0..x_hi * 2.0).log_scale(),
                (y_lo / 2.0..y_hi * 2.0).log_scale(),
            )
            .map_err(|e| fail(&e))?;
        // Labels only at 1, 2 and 5 times a power of ten, and no light grid: on a short
        // range plotters would crowd both.
        chart
            .configure_mesh()
            .x_desc("bodies")
            .y_desc("median frame (ms)")
            .x_label_formatter(&|x| round_value(*x).map(bodies_label).unwrap_or_default())
            .y_label_formatter(&|y| round_value(*y).map(milliseconds_label).unwrap_or_default())
            .max_light_lines(0)
            .draw()
            .map_err(|e| fail(&e))?;
        // A line per backend, or per backend and thread count (`--threads`): a
        // backend's first count in its colour, the others thinner.
        let mut lines: Vec<(String, &str)> = Vec::new();
        for r in &mine {
            if !lines.iter().any(|(label, _)| *label == r.label()) {
                lines.push((r.label(), &r.backend));
            }
        }
        for (k, (label, backend)) in lines.iter().enumerate() {
            let mut points: Vec<(f64, f64)> = mine
                .iter()
                .filter(|r| r.label() == *label)
                .map(|r| (r.bodies as f64, r.frame_ms.median.max(1e-3)))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let style = colour(backend);
            let first = !lines[..k].iter().any(|(_, b)| b == backend);
            let width = if first { 2 } else { 1 };
            chart
                .draw_series(LineSeries::new(points.clone(), style.stroke_width(width)))
                .map_err(|e| fail(&e))?
                .label(label.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], style.stroke_width(width))
                });
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, style.filled())))
                .map_err(|e| fail(&e))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(scene: &str, bodies: usize, backend: &str, median: f64) -> Run {
        Run {
            scene: scene.into(),
            bodies,
            backend: backend.into(),
            threads: None,
            adapter: None,
            frames: 1,
            frame_ms: super::super::report::FrameMs {
                median,
                min: median,
                max: median,
            },
            stages_ms: None,
            pairs: 0,
            candidates: None,
            nonblocking: None,
            agreement: None,
        }
    }

    #[test]
    fn draws_panels_and_survives_empty_scenes() {
        let dir = std::env::temp_dir().join(format!("gpu-collide-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(PLOT_FILE);
        let runs = [
            run("bullet-hell", 1000, "gpu", 3.0),
            run("bullet-hell", 10000, "gpu", 300.0),
            run("bullet-hell", 1000, "parry2d", 0.0), // faster than the clock
            run("empty.json", 0, "cpu", 0.0),
        ];
        draw(&runs, &path).expect("drawn");
        let svg = std::fs::read_to_string(&path).expect("written");
        assert!(svg.contains("bullet-hell") && svg.contains("parry2d"));
        assert!(
            !svg.contains("empty.json"),
            "no panel for a scene of no bodies"
        );
        draw(&runs[3..], &path).expect("drawn");
        let svg = std::fs::read_to_string(&path).expect("written");
        assert!(svg.contains("no runs to plot"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn labels() {
        assert_eq!(bodies_label(1000.0), "1k");
        assert_eq!(bodies_label(1_000_000.0), "1M");
        assert_eq!(bodies_label(500.0), "500");
        assert_eq!(milliseconds_label(0.1), "0.1");
        assert_eq!(milliseconds_label(0.30000000000000004), "0.3");
        assert_eq!(milliseconds_label(1.0), "1");
        assert_eq!(milliseconds_label(2000.0), "2000");
        assert_eq!(round_value(2000.0000001), Some(2000.0));
        assert_eq!(round_value(0.5), Some(0.5));
        assert_eq!(round_value(3000.0), None);
    }
}
