//! `gpu-collide draw`: a picture of a scene and of its answer, as SVG, for a person
//! debugging a scene rather than reading index pairs. Bodies are outlined, colliding bodies
//! filled; a moving body's end pose is ghosted (dashed) and, when it hits something, its
//! pose at the time of impact drawn dotted; contact normals are arrows; rays run to their
//! first hit (marked, with the surface's normal), points are crosses and boxes dashed,
//! purple when they found something. The view fits the scene or a window of it.
//!
//! The picture is in world units (the SVG's `viewBox`, with y pointing up as in the scene
//! format). Lines are one pixel wide at the picture's own size, whatever the view's
//! extent, so that 10^4 bodies stay readable: widths and dashes are written in world
//! units for that size, which every SVG viewer honours (`vector-effect` would do it at
//! any zoom, but renderers such as librsvg ignore it).
//!
//! A bitmask is drawn as an image, one PNG pixel per cell (set cells in the body's
//! colour, clear ones transparent), embedded as a data URL and scaled to its cells' size
//! in world units: a path per run of cells made an 8192² checkerboard a 600 MB file.
//! Each shape's image is encoded once per colour and shown by every body using it. The
//! picture is written as it is made, each image encoded straight into the output, so
//! memory stays at about one mask's size whatever the file's.

use std::collections::HashSet;
use std::io::{self, Write};

use base64::engine::general_purpose::STANDARD as BASE64;
use glam::DVec2;

use crate::answer::collider::Pair;
use crate::answer::contact::{Contact, ContactKind};
use crate::answer::motion::SweptPair;
use crate::answer::query::QueryAnswers;
use crate::error::f32_text;
use crate::input::library::ConvexPart;
use crate::input::scene::Scene;
use crate::input::shapes::{Bitmask, Shape};

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
        // The scene's coordinates are f32: a corner past f32's range is no place in it.
        if let Some(n) = numbers
            .iter()
            .find(|n| n.is_finite() && n.abs() > f32::MAX as f64)
        {
            return Err(format!(
                "`{text}`: {n:e} is beyond the range of the scene's 32-bit coordinates (±{})",
                f32_text(f32::MAX)
            ));
        }
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

/// What to draw over the bodies: the answers of the commands on the scene.
#[derive(Debug, Clone, Default)]
pub struct Overlay {
    /// Colliding pairs, whose bodies are filled.
    pub pairs: Vec<Pair>,
    /// For a scene with motion, its swept pairs: each moving body of one is drawn at its
    /// earliest time of impact too.
    pub swept: Vec<SweptPair>,
    /// Contacts at `t = 0`, drawn as normals from body `i` towards body `j`.
    pub contacts: Vec<Contact>,
    /// The answers to the scene's queries (`scene.queries`), in the same order.
    pub answers: Option<QueryAnswers>,
    /// For each shape, the convex parts the answers use ([`crate::ShapeLibrary::parts`]):
    /// when given, the pieces of concave and compound bodies are drawn as faint lines
    /// inside their outlines.
    pub parts: Option<Vec<Vec<ConvexPart>>>,
}

/// Writes the scene and its overlay as an SVG document to `out`, seen through `view`
/// (the whole scene, with a margin, when `None`). The document goes out as it is made:
/// give `out` a buffer (`BufWriter`), as it is written to in small pieces.
pub fn write_svg<W: Write + ?Sized>(
    out: &mut W,
    scene: &Scene,
    overlay: &Overlay,
    view: Option<View>,
) -> io::Result<()> {
    let outlines: Vec<Outline> = scene
        .bodies
        .iter()
        .map(|body| Outline::of(&scene.shapes, body))
        .collect();
    // The whole scene, with the end poses of moving bodies and the queries.
    let view = view.unwrap_or_else(|| {
        let d = |v: glam::Vec2| DVec2::new(v.x as f64, v.y as f64);
        let bodies = outlines.iter().zip(&scene.bodies).map(|(outline, body)| {
            let (min, max) = outline.bounds();
            let v = d(body.velocity);
            (min.min(min + v), max.max(max + v))
        });
        let q = &scene.queries;
        let rays = q.rays.iter().map(|r| {
            let (a, b) = (d(r.origin), d(r.origin + r.delta));
            (a.min(b), a.max(b))
        });
        let points = q.points.iter().map(|p| (d(p.point), d(p.point)));
        let boxes = q.boxes.iter().map(|b| (d(b.min), d(b.max)));
        fit(bodies.chain(rays).chain(points).chain(boxes))
    });
    let mut colliding = vec![false; scene.bodies.len()];
    // The earliest time of impact of each body, for the pose drawn dotted.
    let mut first_hit = vec![f32::INFINITY; scene.bodies.len()];
    let swept = overlay.swept.iter().map(|s| (s.pair, s.toi));
    let still = overlay.pairs.iter().map(|&p| (p, 0.0));
    for ([i, j], toi) in still.chain(swept) {
        for k in [i as usize, j as usize] {
            if k < colliding.len() {
                colliding[k] = true;
                first_hit[k] = first_hit[k].min(toi);
            }
        }
    }

    let size = view.max - view.min;
    let height_px = (WIDTH_PX * size.y / size.x).clamp(100.0, 4.0 * WIDTH_PX);
    writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH_PX}" height="{height_px:.0}" viewBox="{} {} {} {}" preserveAspectRatio="xMidYMid meet">"#,
        num(view.min.x),
        num(-view.max.y),
        num(size.x),
        num(size.y)
    )?;
    // One pixel, in world units.
    let px = size.x / WIDTH_PX;
    let (line, dash, gap, dot) = (num(1.2 * px), num(4.0 * px), num(3.0 * px), num(1.5 * px));
    writeln!(
        out,
        "<style>* {{ stroke-width: {line}; }} \
         .body {{ fill: none; stroke: #4a6fa5; }} \
         .hit {{ fill: #e4572e; fill-opacity: 0.45; stroke: #b8321a; }} \
         .end {{ fill: none; stroke: #7a8ca8; stroke-dasharray: {dash} {gap}; }} \
         .impact {{ fill: none; stroke: #b8321a; stroke-dasharray: {dot} {dot}; }} \
         .path {{ stroke: #7a8ca8; stroke-dasharray: {dot} {gap}; }} \
         .normal {{ stroke: #1b7f3b; fill: #1b7f3b; }} \
         .query {{ fill: none; stroke: #9a9a9a; stroke-dasharray: {dash} {gap}; }} \
         .query.found {{ stroke: #7b2cbf; }} \
         .mark {{ fill: #7b2cbf; stroke: none; }} \
         .piece {{ fill: none; stroke: #4a6fa5; stroke-opacity: 0.35; stroke-dasharray: {dot} {dot}; }}</style>"
    )?;
    writeln!(
        out,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="white"/>"#,
        num(view.min.x),
        num(-view.max.y),
        num(size.x),
        num(size.y)
    )?;
    // y up, as the scene format has it.
    out.write_all(b"<g transform=\"scale(1,-1)\">\n")?;
    let mut images = MaskImages::default();
    for (k, outline) in outlines.iter().enumerate() {
        if !view.overlaps(outline.bounds()) {
            continue;
        }
        let title = format!("body {k}");
        match outline {
            Outline::Bitmask {
                shape,
                mask,
                origin,
            } => images.write_use(out, *shape, mask, colliding[k], *origin, &title)?,
            _ => outline.write(out, if colliding[k] { "hit" } else { "body" }, &title)?,
        }
        if let Some(parts) = &overlay.parts {
            write_pieces(out, scene, parts, k)?;
        }
    }
    for (k, body) in scene.bodies.iter().enumerate() {
        if !body.moves() {
            continue;
        }
        let v = DVec2::new(body.velocity.x as f64, body.velocity.y as f64);
        let outline = &outlines[k];
        let (min, max) = outline.bounds();
        if !view.overlaps((min.min(min + v), max.max(max + v))) {
            continue;
        }
        let from = (min + max) * 0.5;
        writeln!(
            out,
            r#"<line class="path" x1="{}" y1="{}" x2="{}" y2="{}"/>"#,
            num(from.x),
            num(from.y),
            num(from.x + v.x),
            num(from.y + v.y)
        )?;
        outline
            .moved(v)
            .write(out, "end", &format!("body {k} at the frame's end"))?;
        if first_hit[k] > 0.0 && first_hit[k] <= 1.0 {
            let toi = first_hit[k];
            outline.moved(v * toi as f64).write(
                out,
                "impact",
                &format!("body {k} at its first impact, t = {}", f32_text(toi)),
            )?;
        }
    }
    for contact in &overlay.contacts {
        let ContactKind::Penetration { normal, depth } = contact.kind else {
            continue; // an area has no direction to show
        };
        let [i, j] = contact.pair.map(|k| k as usize);
        let (Some(a), Some(b)) = (outlines.get(i), outlines.get(j)) else {
            continue;
        };
        let (a, b) = (a.bounds(), b.bounds());
        if !view.overlaps(a) && !view.overlaps(b) {
            continue;
        }
        // From between the two bodies, as long as the smaller one is wide, pointing from
        // i towards j.
        let from = ((a.0 + a.1) * 0.5 + (b.0 + b.1) * 0.5) * 0.5;
        let size = (a.1 - a.0).min_element().min((b.1 - b.0).min_element());
        let length = (0.5 * size).max(1e-3);
        let n = DVec2::new(normal.x as f64, normal.y as f64);
        let tip = from + n * length;
        let side = DVec2::new(-n.y, n.x) * length * 0.2;
        let back = tip - n * length * 0.3;
        writeln!(
            out,
            r#"<g class="normal"><title>bodies {i} and {j}: depth {}</title><line x1="{}" y1="{}" x2="{}" y2="{}"/><polygon points="{},{} {},{} {},{}"/></g>"#,
            f32_text(depth),
            num(from.x),
            num(from.y),
            num(tip.x),
            num(tip.y),
            num(tip.x),
            num(tip.y),
            num(back.x + side.x),
            num(back.y + side.y),
            num(back.x - side.x),
            num(back.y - side.y)
        )?;
    }
    if let Some(answers) = &overlay.answers {
        write_queries(out, scene, answers, px)?;
    }
    out.write_all(b"</g>\n</svg>\n")
}

/// Rays to their first hit, points as crosses, boxes dashed; `px` is a pixel in world units.
fn write_queries<W: Write + ?Sized>(
    out: &mut W,
    scene: &Scene,
    answers: &QueryAnswers,
    px: f64,
) -> io::Result<()> {
    let point = |v: glam::Vec2| DVec2::new(v.x as f64, v.y as f64);
    for (k, (ray, hit)) in scene.queries.rays.iter().zip(&answers.rays).enumerate() {
        let (from, delta) = (point(ray.origin), point(ray.delta));
        writeln!(
            out,
            r#"<line class="query" x1="{}" y1="{}" x2="{}" y2="{}"><title>ray {k}</title></line>"#,
            num(from.x),
            num(from.y),
            num(from.x + delta.x),
            num(from.y + delta.y)
        )?;
        let Some(hit) = hit else { continue };
        let at = from + delta * hit.t as f64;
        let title = format!("ray {k}: body {} at t = {}", hit.body, f32_text(hit.t));
        writeln!(
            out,
            r#"<g class="query found"><title>{title}</title><line x1="{}" y1="{}" x2="{}" y2="{}" stroke-dasharray="none"/><circle class="mark" cx="{}" cy="{}" r="{}"/></g>"#,
            num(from.x),
            num(from.y),
            num(at.x),
            num(at.y),
            num(at.x),
            num(at.y),
            num(3.0 * px)
        )?;
        if let Some(normal) = hit.normal {
            let tip = at + point(normal) * 14.0 * px;
            writeln!(
                out,
                r#"<line class="normal" x1="{}" y1="{}" x2="{}" y2="{}"><title>{title}: normal</title></line>"#,
                num(at.x),
                num(at.y),
                num(tip.x),
                num(tip.y)
            )?;
        }
    }
    for (k, (query, found)) in scene.queries.points.iter().zip(&answers.points).enumerate() {
        let (p, arm) = (point(query.point), 5.0 * px);
        let class = if found.is_empty() {
            "query"
        } else {
            "query found"
        };
        writeln!(
            out,
            r#"<path class="{class}" stroke-dasharray="none" d="M{},{}h{}M{},{}v{}"><title>point {k}: bodies {found:?}</title></path>"#,
            num(p.x - arm),
            num(p.y),
            num(2.0 * arm),
            num(p.x),
            num(p.y - arm),
            num(2.0 * arm)
        )?;
    }
    for (k, (query, found)) in scene.queries.boxes.iter().zip(&answers.boxes).enumerate() {
        let (min, max) = (point(query.min), point(query.max));
        let class = if found.is_empty() {
            "query"
        } else {
            "query found"
        };
        // A degenerate box (a segment or a point) still shows as a line or a dot.
        let size = (max - min).max(DVec2::splat(px));
        writeln!(
            out,
            r#"<rect class="{class}" x="{}" y="{}" width="{}" height="{}"><title>box {k}: bodies {found:?}</title></rect>"#,
            num(min.x),
            num(min.y),
            num(size.x),
            num(size.y)
        )?;
    }
    Ok(())
}

/// A body's shape in the world.
enum Outline<'a> {
    Polygon(Vec<DVec2>),
    Circle(DVec2, f64),
    /// A compound's parts.
    Group(Vec<Outline<'a>>),
    /// Shape `shape`, whose cell `(0, 0)` has its lower-left corner at `origin`.
    Bitmask {
        shape: u32,
        mask: &'a Bitmask,
        origin: DVec2,
    },
}

impl<'a> Outline<'a> {
    /// The outline of `body`, whose shape is one of `shapes`.
    fn of(shapes: &'a [Shape], body: &crate::input::body::Body) -> Outline<'a> {
        let origin = DVec2::new(body.position.x as f64, body.position.y as f64);
        let Some(shape) = shapes.get(body.shape as usize) else {
            return Outline::Group(Vec::new());
        };
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
            Shape::Capsule(capsule) => {
                let (sin, cos) = (body.angle as f64).sin_cos();
                let place = |v: glam::Vec2| {
                    let (x, y) = (v.x as f64, v.y as f64);
                    origin + DVec2::new(cos * x - sin * y, sin * x + cos * y)
                };
                Outline::Polygon(capsule_outline(
                    place(capsule.a),
                    place(capsule.b),
                    capsule.radius as f64,
                ))
            }
            Shape::Concave(concave) => {
                let (sin, cos) = (body.angle as f64).sin_cos();
                Outline::Polygon(
                    concave
                        .vertices
                        .iter()
                        .map(|v| {
                            let (x, y) = (v.x as f64, v.y as f64);
                            origin + DVec2::new(cos * x - sin * y, sin * x + cos * y)
                        })
                        .collect(),
                )
            }
            // Each part placed by the body, then by the part (a compound of compounds
            // is refused by the library; drawn as nothing here).
            Shape::Compound(compound) => {
                let (sin, cos) = (body.angle as f64).sin_cos();
                Outline::Group(
                    compound
                        .parts
                        .iter()
                        .filter(|part| {
                            !matches!(shapes.get(part.shape as usize), Some(Shape::Compound(_)))
                        })
                        .map(|part| {
                            let (x, y) = (part.offset.x as f64, part.offset.y as f64);
                            let at = origin + DVec2::new(cos * x - sin * y, sin * x + cos * y);
                            let placed = crate::input::body::Body {
                                shape: part.shape,
                                position: glam::Vec2::new(at.x as f32, at.y as f32),
                                angle: body.angle + part.angle,
                                ..*body
                            };
                            Outline::of(shapes, &placed)
                        })
                        .collect(),
                )
            }
            Shape::Bitmask(mask) => Outline::Bitmask {
                shape: body.shape,
                mask,
                origin,
            },
        }
    }

    /// The same outline moved by `offset`.
    fn moved(&self, offset: DVec2) -> Outline<'a> {
        match self {
            Outline::Polygon(points) => {
                Outline::Polygon(points.iter().map(|&p| p + offset).collect())
            }
            Outline::Circle(centre, radius) => Outline::Circle(*centre + offset, *radius),
            Outline::Group(parts) => {
                Outline::Group(parts.iter().map(|p| p.moved(offset)).collect())
            }
            Outline::Bitmask {
                shape,
                mask,
                origin,
            } => Outline::Bitmask {
                shape: *shape,
                mask,
                origin: *origin + offset,
            },
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
            Outline::Group(parts) => parts.iter().map(Outline::bounds).fold(
                (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
                |(lo, hi), (l, h)| (lo.min(l), hi.max(h)),
            ),
            Outline::Bitmask { mask, origin, .. } => (
                *origin,
                *origin + DVec2::new(mask.width() as f64, mask.height() as f64),
            ),
        }
    }

    /// The outline as a line drawing; a bitmask shows as the rectangle of its cells (the
    /// cells themselves are [`MaskImages`]' work). An empty `title` writes none: a
    /// compound's parts and a body's pieces are titled by the group or body around them.
    fn write<W: Write + ?Sized>(&self, out: &mut W, class: &str, title: &str) -> io::Result<()> {
        let title = if title.is_empty() {
            String::new()
        } else {
            format!("<title>{title}</title>")
        };
        match self {
            Outline::Polygon(points) => {
                write!(out, r#"<polygon class="{class}" points=""#)?;
                for (k, p) in points.iter().enumerate() {
                    let space = if k == 0 { "" } else { " " };
                    write!(out, "{space}{},{}", num(p.x), num(p.y))?;
                }
                writeln!(out, r#"">{title}</polygon>"#)
            }
            Outline::Group(parts) => {
                writeln!(out, r#"<g class="{class}">{title}"#)?;
                for part in parts {
                    part.write(out, class, "")?;
                }
                writeln!(out, "</g>")
            }
            Outline::Circle(centre, radius) => writeln!(
                out,
                r#"<circle class="{class}" cx="{}" cy="{}" r="{}">{title}</circle>"#,
                num(centre.x),
                num(centre.y),
                num(*radius)
            ),
            Outline::Bitmask { .. } => {
                let (min, max) = self.bounds();
                writeln!(
                    out,
                    r#"<rect class="{class}" x="{}" y="{}" width="{}" height="{}">{title}</rect>"#,
                    num(min.x),
                    num(min.y),
                    num(max.x - min.x),
                    num(max.y - min.y)
                )
            }
        }
    }
}

/// The convex polygon pieces of body `k`, when its shape is concave or compound, each
/// placed by the body as the stages place it, as faint outlines.
fn write_pieces<W: Write + ?Sized>(
    out: &mut W,
    scene: &Scene,
    parts: &[Vec<ConvexPart>],
    k: usize,
) -> io::Result<()> {
    let body = &scene.bodies[k];
    let many = matches!(
        scene.shapes.get(body.shape as usize),
        Some(Shape::Concave(_) | Shape::Compound(_))
    );
    let Some(own) = parts.get(body.shape as usize).filter(|_| many) else {
        return Ok(());
    };
    let origin = DVec2::new(body.position.x as f64, body.position.y as f64);
    let (sin, cos) = (body.angle as f64).sin_cos();
    for part in own {
        if let ConvexPart::Polygon(vertices) = part {
            let points = vertices
                .iter()
                .map(|v| {
                    let (x, y) = (v.x as f64, v.y as f64);
                    origin + DVec2::new(cos * x - sin * y, sin * x + cos * y)
                })
                .collect();
            Outline::Polygon(points).write(out, "piece", "")?;
        }
    }
    Ok(())
}

/// A capsule's outline as a polygon: each end's half circle in `CAP_STEPS` steps, joined
/// by its long sides; a segment (radius 0) is its two ends, drawn as a line.
fn capsule_outline(a: DVec2, b: DVec2, radius: f64) -> Vec<DVec2> {
    const CAP_STEPS: usize = 12;
    if radius == 0.0 {
        return vec![a, b];
    }
    let along = (b - a).try_normalize().unwrap_or(DVec2::X);
    let mut points = Vec::with_capacity(2 * (CAP_STEPS + 1));
    for (centre, facing) in [(b, along), (a, -along)] {
        for k in 0..=CAP_STEPS {
            let turn = std::f64::consts::PI * (k as f64 / CAP_STEPS as f64 - 0.5);
            points.push(centre + radius * DVec2::from_angle(turn).rotate(facing));
        }
    }
    points
}

/// The colour of a bitmask's set cells, `(red, green, blue, alpha)`, as a body's fill
/// and a colliding body's.
const MASK_COLOUR: [u8; 4] = [0x4a, 0x6f, 0xa5, 89];
const MASK_HIT_COLOUR: [u8; 4] = [0xe4, 0x57, 0x2e, 140];

/// The bitmask images written so far, by shape and whether drawn as colliding: each is
/// encoded once, as a `<defs>` entry before the first body that shows it, and every body
/// refers to it with a `<use>`.
#[derive(Default)]
struct MaskImages {
    written: HashSet<(u32, bool)>,
}

impl MaskImages {
    /// The id of shape `shape`'s image in the plain or the colliding colour.
    fn id(shape: u32, hit: bool) -> String {
        if hit {
            format!("bitmask-{shape}-hit")
        } else {
            format!("bitmask-{shape}")
        }
    }

    /// A body of bitmask shape `shape`, its cell `(0, 0)` at `origin`, titled `title`;
    /// the shape's image first, if no body before showed it in this colour.
    ///
    /// In the picture's y-up group the image's first row lies at the lowest y, so PNG
    /// row `r` is the mask's row `r`, as the format places it at `y + r`.
    fn write_use<W: Write + ?Sized>(
        &mut self,
        out: &mut W,
        shape: u32,
        mask: &Bitmask,
        hit: bool,
        origin: DVec2,
        title: &str,
    ) -> io::Result<()> {
        let id = Self::id(shape, hit);
        if self.written.insert((shape, hit)) {
            write!(
                out,
                r#"<defs><image id="{id}" width="{}" height="{}" preserveAspectRatio="none" image-rendering="optimizeSpeed" style="image-rendering: crisp-edges; image-rendering: pixelated" href="data:image/png;base64,"#,
                mask.width(),
                mask.height()
            )?;
            let colour = if hit { MASK_HIT_COLOUR } else { MASK_COLOUR };
            let mut base64 = base64::write::EncoderWriter::new(&mut *out, &BASE64);
            write_png(&mut base64, mask, colour)?;
            base64.finish()?;
            drop(base64);
            writeln!(out, r#""/></defs>"#)?;
        }
        let class = if hit { "pixels hit" } else { "pixels body" };
        writeln!(
            out,
            r##"<use class="{class}" href="#{id}" x="{}" y="{}"><title>{title}</title></use>"##,
            num(origin.x),
            num(origin.y)
        )
    }
}

/// Encodes `mask` as a PNG of one pixel per cell into `out`, row by row: set cells in
/// `colour` (RGBA), clear cells transparent. A two-colour palette at one bit a pixel, so
/// the image is the mask's own size before compression.
fn write_png<W: Write>(out: W, mask: &Bitmask, colour: [u8; 4]) -> io::Result<()> {
    let io_error = |error: png::EncodingError| match error {
        png::EncodingError::IoError(error) => error,
        other => io::Error::other(other),
    };
    let mut encoder = png::Encoder::new(out, mask.width(), mask.height());
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::One);
    encoder.set_palette(vec![0, 0, 0, colour[0], colour[1], colour[2]]);
    encoder.set_trns(vec![0, colour[3]]);
    let mut writer = encoder.write_header().map_err(io_error)?;
    let mut stream = writer.stream_writer().map_err(io_error)?;
    let words = crate::input::shapes::words_per_row(mask.width()) as usize;
    let mut row = vec![0u8; mask.width().div_ceil(8) as usize];
    for row_words in mask.words().chunks_exact(words) {
        // The mask keeps column `c` in bit `c % 32` of its word (the lowest first); a
        // one-bit PNG keeps the leftmost pixel of a byte in its highest bit.
        for (k, byte) in row.iter_mut().enumerate() {
            *byte = ((row_words[k / 4] >> (8 * (k % 4))) as u8).reverse_bits();
        }
        stream.write_all(&row)?;
    }
    stream.finish().map_err(io_error)?;
    writer.finish().map_err(io_error)
}

/// The boxes' bounds with a margin of 5% (a unit square around an empty scene).
fn fit(boxes: impl Iterator<Item = (DVec2, DVec2)>) -> View {
    let (min, max) = boxes.fold(
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
    if x != 0.0 && x.abs() < 0.01 {
        // Widths and dashes of a view a few units wide: kept significant.
        return format!("{x:.3e}");
    }
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
            ("0,0,1e39,1", "1e39 is beyond the range"),
            ("-1e39,0,1,1", "-1e39 is beyond the range"),
            ("0,0,1,1e300", "(±3.4028235e38)"),
            ("0,0,1,NaN", "finite"),
        ] {
            let error = View::parse(text).expect_err(text);
            assert!(error.contains(words), "{text}: {error}");
        }
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(0.00001234), "1.234e-5");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(1.0 / 3.0), "0.3333");
    }
}
