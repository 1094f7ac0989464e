//! `gpu-collide draw`: a picture of a scene and of its answer, as SVG, for a person
//! debugging a scene rather than reading index pairs. Bodies are outlined, colliding bodies
//! filled; the view fits the scene or a window of it.
//!
//! The picture is in world units (the SVG's `viewBox`, with y pointing up as in the scene
//! format), and every line keeps one pixel's width however far a viewer zooms in
//! (`vector-effect: non-scaling-stroke`), so that 10^4 bodies stay readable.

use std::fmt::Write;

use glam::DVec2;

use crate::collider::Pair;
use crate::scene::Scene;
use crate::shapes::Shape;

/// Width of the picture in pixels; the height follows the view's aspect.
const WIDTH_PX: f64 = 1200.0;

/// A window of the world, `min` to `max` corners.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// Lower-left corner.
    pub min: DVec2,
    /// Upper-right corner.
    pub max: DVec2,
}

impl View {
    /// Reads `x0,y0,x1,y1` with `x0 < x1` and `y0 < y1`, as `--view` takes it.
    pub fn parse(text: &str) -> Result<View, String> {
        let numbers: Vec<f64> = text
            .split(',')
            .map(|n| n.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("`{text}`: {e}; expected x0,y0,x1,y1"))?;
        let [x0, y0, x1, y1] = numbers[..] else {
            return Err(format!("`{text}`: expected four numbers x0,y0,x1,y1"));
        };
        if !numbers.iter().all(|n| n.is_finite()) || x0 >= x1 || y0 >= y1 {
            return Err(format!(
                "`{text}`: expected finite x0 < x1 and y0 < y1 (the lower-left and upper-right corners)"
            ));
        }
        Ok(View {
            min: DVec2::new(x0, y0),
            max: DVec2::new(x1, y1),
        })
    }

    fn overlaps(&self, (min, max): (DVec2, DVec2)) -> bool {
        min.x <= self.max.x && self.min.x <= max.x && min.y <= self.max.y && self.min.y <= max.y
    }
}

/// What to draw over the bodies: the answer of one command on the scene.
#[derive(Debug, Clone, Default)]
pub struct Overlay {
    /// Colliding pairs, whose bodies are filled.
    pub pairs: Vec<Pair>,
}

/// The scene and its overlay as an SVG document, seen through `view` (the whole scene,
/// with a margin, when `None`).
pub fn svg(scene: &Scene, overlay: &Overlay, view: Option<View>) -> String {
    let outlines: Vec<Outline> = scene
        .bodies
        .iter()
        .map(|body| Outline::of(&scene.shapes[body.shape as usize], body))
        .collect();
    let view = view.unwrap_or_else(|| fit(&outlines));
    let mut colliding = vec![false; scene.bodies.len()];
    for &[i, j] in &overlay.pairs {
        for k in [i, j] {
            if let Some(c) = colliding.get_mut(k as usize) {
                *c = true;
            }
        }
    }

    let size = view.max - view.min;
    let height_px = (WIDTH_PX * size.y / size.x).clamp(100.0, 4.0 * WIDTH_PX);
    let mut out = String::new();
    // Writing to a String cannot fail; the results are ignored for that reason.
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH_PX}" height="{height_px:.0}" viewBox="{} {} {} {}" preserveAspectRatio="xMidYMid meet">"#,
        num(view.min.x),
        num(-view.max.y),
        num(size.x),
        num(size.y)
    );
    let _ = writeln!(
        out,
        "<style>* {{ vector-effect: non-scaling-stroke; stroke-width: 1px; }} \
         .body {{ fill: none; stroke: #4a6fa5; }} \
         .hit {{ fill: #e4572e; fill-opacity: 0.45; stroke: #b8321a; }} \
         .pixels {{ fill: #4a6fa5; fill-opacity: 0.35; stroke: none; shape-rendering: crispEdges; }} \
         .pixels.hit {{ fill: #e4572e; fill-opacity: 0.55; }}</style>"
    );
    let _ = writeln!(
        out,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="white"/>"#,
        num(view.min.x),
        num(-view.max.y),
        num(size.x),
        num(size.y)
    );
    // y up, as the scene format has it.
    out.push_str("<g transform=\"scale(1,-1)\">\n");
    for (k, outline) in outlines.iter().enumerate() {
        if !view.overlaps(outline.bounds()) {
            continue;
        }
        let class = if colliding[k] { "hit" } else { "body" };
        outline.write(&mut out, class, k);
    }
    out.push_str("</g>\n</svg>\n");
    out
}

/// A body's shape in the world.
enum Outline {
    Polygon(Vec<DVec2>),
    Circle(DVec2, f64),
    /// The set pixels as runs along rows: (row's lower y, first x, length).
    Bitmask {
        runs: Vec<(f64, f64, f64)>,
        bounds: (DVec2, DVec2),
    },
}

impl Outline {
    fn of(shape: &Shape, body: &crate::body::Body) -> Outline {
        let origin = DVec2::new(body.position.x as f64, body.position.y as f64);
        match shape {
            Shape::Polygon(polygon) => {
                let (sin, cos) = (body.angle as f64).sin_cos();
                let points = polygon
                    .vertices
                    .iter()
                    .map(|v| {
                        let (x, y) = (v.x as f64, v.y as f64);
                        origin + DVec2::new(cos * x - sin * y, sin * x + cos * y)
                    })
                    .collect();
                Outline::Polygon(points)
            }
            Shape::Circle(circle) => Outline::Circle(origin, circle.radius as f64),
            Shape::Bitmask(mask) => {
                let mut runs = Vec::new();
                for row in 0..mask.height() {
                    let mut column = 0;
                    while column < mask.width() {
                        if !mask.get(column, row) {
                            column += 1;
                            continue;
                        }
                        let start = column;
                        while column < mask.width() && mask.get(column, row) {
                            column += 1;
                        }
                        runs.push((
                            origin.y + row as f64,
                            origin.x + start as f64,
                            (column - start) as f64,
                        ));
                    }
                }
                let size = DVec2::new(mask.width() as f64, mask.height() as f64);
                Outline::Bitmask {
                    runs,
                    bounds: (origin, origin + size),
                }
            }
        }
    }

    fn bounds(&self) -> (DVec2, DVec2) {
        match self {
            Outline::Polygon(points) => points.iter().fold(
                (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
                |(lo, hi), &p| (lo.min(p), hi.max(p)),
            ),
            Outline::Circle(centre, radius) => (
                *centre - DVec2::splat(*radius),
                *centre + DVec2::splat(*radius),
            ),
            Outline::Bitmask { bounds, .. } => *bounds,
        }
    }

    fn write(&self, out: &mut String, class: &str, index: usize) {
        let title = format!("<title>body {index}</title>");
        let _ = match self {
            Outline::Polygon(points) => {
                let list: Vec<String> = points
                    .iter()
                    .map(|p| format!("{},{}", num(p.x), num(p.y)))
                    .collect();
                writeln!(
                    out,
                    r#"<polygon class="{class}" points="{}">{title}</polygon>"#,
                    list.join(" ")
                )
            }
            Outline::Circle(centre, radius) => writeln!(
                out,
                r#"<circle class="{class}" cx="{}" cy="{}" r="{}">{title}</circle>"#,
                num(centre.x),
                num(centre.y),
                num(*radius)
            ),
            Outline::Bitmask { runs, .. } => {
                let mut path = String::new();
                for (y, x, length) in runs {
                    let _ = write!(
                        path,
                        "M{},{}h{}v1h-{}z",
                        num(*x),
                        num(*y),
                        num(*length),
                        num(*length)
                    );
                }
                // Pixels are filled, not outlined: outlines of every run would hide them.
                writeln!(
                    out,
                    r#"<path class="pixels {class}" d="{path}">{title}</path>"#
                )
            }
        };
    }
}

/// The scene's bounds with a margin of 5% (a unit square around an empty scene).
fn fit(outlines: &[Outline]) -> View {
    let (min, max) = outlines.iter().map(Outline::bounds).fold(
        (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
        |(lo, hi), (a, b)| (lo.min(a), hi.max(b)),
    );
    if !(min.is_finite() && max.is_finite()) {
        return View {
            min: DVec2::splat(-1.0),
            max: DVec2::splat(1.0),
        };
    }
    let margin = ((max - min) * 0.05).max(DVec2::splat(1.0));
    View {
        min: min - margin,
        max: max + margin,
    }
}

/// A coordinate as SVG takes it: short, and exact enough for any zoom a viewer offers.
fn num(x: f64) -> String {
    let text = format!("{x:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_are_read_and_refused_with_the_reason() {
        let view = View::parse("-10, 0, 5.5, 20").expect("valid");
        assert_eq!(view.min, DVec2::new(-10.0, 0.0));
        assert_eq!(view.max, DVec2::new(5.5, 20.0));
        for (text, words) in [
            ("1,2,3", "four numbers"),
            ("0,0,0,1", "x0 < x1"),
            ("0,0,1,nope", "expected x0,y0,x1,y1"),
            ("0,0,inf,1", "finite"),
        ] {
            let error = View::parse(text).expect_err(text);
            assert!(error.contains(words), "{text}: {error}");
        }
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(-0.00001), "0");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(1.0 / 3.0), "0.3333");
    }
}
