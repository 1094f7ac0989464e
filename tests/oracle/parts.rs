//! The convex parts an implementation answers contacts by (its `shapes` listing), held
//! to the rules of format 1.2 as a cut of each shape, and the contacts of pairs with a
//! concave or compound body, one per pair of touching parts, held to the oracle part by
//! part.
//!
//! The parts are the implementation's (the format leaves the cut of a concave outline to
//! it); the oracle checks that they are a valid cut, in its own f64 geometry: each piece
//! convex and inside the outline, their areas adding up to the outline's, a compound's
//! parts its listed shapes' parts placed as the compound says.

use serde_json::Value;

use super::contact::{placed_problem, placed_truth, ContactTruth, Reported};
use super::*;

/// A part in its shape's frame: a rounded convex piece, or a whole bitmask.
#[derive(Clone, Debug)]
enum LocalPart {
    Piece(Piece),
    Bitmask,
}

/// A scene and the parts of its shapes, checked.
pub struct PartsOracle {
    scene: Scene,
    parts: Vec<Vec<LocalPart>>,
    /// Whether shape `k` is concave or compound (its contacts name parts).
    in_parts: Vec<bool>,
}

/// One reported contact, in f64.
#[derive(Debug, Clone, Copy)]
pub struct PartContact {
    pub pair: [usize; 2],
    pub parts: Option<[usize; 2]>,
    pub reported: Reported,
}

fn point(v: &Value) -> V {
    let a = v.as_array().expect("[x, y]");
    V::new(a[0].as_f64().expect("x"), a[1].as_f64().expect("y"))
}

fn area(poly: &[V]) -> f64 {
    edges(poly).map(|(a, b)| a.cross(b)).sum::<f64>() / 2.0
}

/// Whether `p` is inside or within `eps` of the simple polygon `outline` (either winding).
fn in_outline(p: V, outline: &[V], eps: f64) -> bool {
    if distance_to_boundary(p, outline) <= eps {
        return true;
    }
    // Crossings of a ray to +x.
    let mut inside = false;
    for (a, b) in edges(outline) {
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
            if x > p.x {
                inside = !inside;
            }
        }
    }
    inside
}

/// A listed part in its shape's frame.
fn listed_part(k: usize, n: usize, v: &Value) -> Result<LocalPart, String> {
    let fail = |what: &str| Err(format!("shape {k} part {n}: {what}: {v}"));
    if let Some(list) = v.get("polygon").and_then(Value::as_array) {
        let mut hull: Vec<V> = list.iter().map(point).collect();
        if area(&hull) < 0.0 {
            hull.reverse();
        }
        let turns = (0..hull.len()).all(|i| {
            let (a, b, c) = (
                hull[i],
                hull[(i + 1) % hull.len()],
                hull[(i + 2) % hull.len()],
            );
            orient(a, b, c) >= -1e-9 * (1.0 + a.len() + b.len() + c.len()).powi(2)
        });
        if hull.len() < 3 || !turns || area(&hull) <= 0.0 {
            return fail("not a convex polygon");
        }
        return Ok(LocalPart::Piece(Piece { hull, radius: 0.0 }));
    }
    if let Some(c) = v.get("circle") {
        return Ok(LocalPart::Piece(Piece {
            hull: vec![point(&c["center"])],
            radius: c["radius"].as_f64().expect("radius"),
        }));
    }
    if let Some(c) = v.get("capsule") {
        let (a, b) = (point(&c["a"]), point(&c["b"]));
        let hull = if a.sub(b).len() == 0.0 {
            vec![a]
        } else {
            vec![a, b]
        };
        return Ok(LocalPart::Piece(Piece {
            hull,
            radius: c["radius"].as_f64().expect("radius"),
        }));
    }
    if v.get("bitmask").and_then(Value::as_str) == Some("whole") {
        return Ok(LocalPart::Bitmask);
    }
    fail("not a part")
}

/// Whether two pieces are the same within `eps` (same points in the same order, up to
/// where the loop starts, and the same radius).
fn same_piece(a: &Piece, b: &Piece, eps: f64) -> bool {
    let n = a.hull.len();
    if n != b.hull.len() || (a.radius - b.radius).abs() > eps {
        return false;
    }
    let segment_either_way =
        n == 2 && a.hull[0].sub(b.hull[1]).len() <= eps && a.hull[1].sub(b.hull[0]).len() <= eps;
    segment_either_way
        || (0..n).any(|start| (0..n).all(|i| a.hull[i].sub(b.hull[(start + i) % n]).len() <= eps))
}

impl PartsOracle {
    /// Reads a valid scene's JSON and the implementation's parts of its shapes (the
    /// `shapes` command's JSON), or says how the parts break the format's rules.
    pub fn new(scene_json: &Value, shapes_json: &Value) -> Result<Self, String> {
        let scene = Scene::parse(scene_json);
        let shapes = scene_json["shapes"].as_array().expect("shapes");
        let listed = shapes_json["shapes"].as_array().ok_or("no shapes listed")?;
        if listed.len() != shapes.len() {
            return Err(format!(
                "{} shapes listed for {}",
                listed.len(),
                shapes.len()
            ));
        }
        let mut parts = Vec::new();
        for (k, entry) in listed.iter().enumerate() {
            let list = entry["parts"]
                .as_array()
                .ok_or(format!("shape {k}: no parts"))?;
            parts.push(
                list.iter()
                    .enumerate()
                    .map(|(n, v)| listed_part(k, n, v))
                    .collect::<Result<Vec<_>, _>>()?,
            );
        }
        let mut in_parts = Vec::new();
        for (k, shape) in shapes.iter().enumerate() {
            in_parts.push(shape.get("concave").is_some() || shape.get("compound").is_some());
            if let Some(outline) = shape.get("concave").and_then(Value::as_array) {
                let outline: Vec<V> = outline.iter().map(point).collect();
                check_cut(k, &outline, &parts[k])?;
            }
            if let Some(list) = shape.get("compound").and_then(Value::as_array) {
                // The parts' own parts, placed as the compound places them, in order.
                let mut expected = Vec::new();
                for part in list {
                    let index = part["shape"].as_u64().expect("shape") as usize;
                    let field = |name: &str| part.get(name).and_then(Value::as_f64).unwrap_or(0.0);
                    let (offset, angle) = (V::new(field("x"), field("y")), field("angle"));
                    for own in &parts[index] {
                        let LocalPart::Piece(piece) = own else {
                            return Err(format!("shape {k}: a compound part is a bitmask"));
                        };
                        expected.push(piece.placed(offset, angle));
                    }
                }
                let got = &parts[k];
                if got.len() != expected.len() {
                    return Err(format!(
                        "shape {k}: {} parts listed, its parts have {}",
                        got.len(),
                        expected.len()
                    ));
                }
                for (n, (got, want)) in got.iter().zip(&expected).enumerate() {
                    let LocalPart::Piece(got) = got else {
                        return Err(format!("shape {k} part {n}: a bitmask"));
                    };
                    if !same_piece(got, want, 1e-3) {
                        return Err(format!("shape {k} part {n}: {got:?}, not {want:?}"));
                    }
                }
            }
        }
        Ok(PartsOracle {
            scene,
            parts,
            in_parts,
        })
    }

    /// The parts of body `i`, placed in the world.
    fn placed_parts(&self, i: usize) -> Vec<Placed<'_>> {
        let body = &self.scene.bodies[i];
        let whole = self.scene.place(i);
        self.parts[body.shape]
            .iter()
            .map(|part| match part {
                LocalPart::Piece(piece) => {
                    Placed::Rounded(vec![piece.placed(V::new(body.x, body.y), body.angle)])
                }
                LocalPart::Bitmask => match &whole {
                    Placed::Bitmask { ox, oy, bits } => Placed::Bitmask {
                        ox: *ox,
                        oy: *oy,
                        bits,
                    },
                    _ => panic!("oracle: a bitmask part of a shape that is not a bitmask"),
                },
            })
            .collect()
    }

    /// The problems of a frame's contacts: each contact held to the oracle for its pair
    /// of parts; for a pair with a concave or compound body, every pair of parts that
    /// collides deeper than the band reported, each once, sorted by parts; for two
    /// convex bodies one contact, without parts or with parts 0 and 0.
    pub fn problems(&self, contacts: &[PartContact]) -> Vec<String> {
        let mut problems = Vec::new();
        let mut k = 0;
        while k < contacts.len() {
            let pair = contacts[k].pair;
            let end = (k..contacts.len())
                .find(|&e| contacts[e].pair != pair)
                .unwrap_or(contacts.len());
            let group = &contacts[k..end];
            problems.extend(
                self.pair_problems(pair, group)
                    .into_iter()
                    .map(|p| format!("{pair:?}: {p}")),
            );
            k = end;
        }
        problems
    }

    fn pair_problems(&self, [i, j]: [usize; 2], group: &[PartContact]) -> Vec<String> {
        let (si, sj) = (self.scene.bodies[i].shape, self.scene.bodies[j].shape);
        let (pi, pj) = (self.placed_parts(i), self.placed_parts(j));
        let mut problems = Vec::new();
        if !(self.in_parts[si] || self.in_parts[sj]) {
            if group.len() != 1 {
                problems.push(format!("{} contacts for two convex bodies", group.len()));
            }
            for c in group {
                if c.parts.is_some_and(|p| p != [0, 0]) {
                    problems.push(format!("parts {:?} for two convex bodies", c.parts));
                }
                problems.extend(placed_problem(&pi[0], &pj[0], c.reported));
            }
            return problems;
        }
        let mut seen = Vec::new();
        for c in group {
            let Some([k, l]) = c.parts else {
                problems.push("no parts for a concave or compound body".into());
                continue;
            };
            if k >= pi.len() || l >= pj.len() {
                problems.push(format!("parts [{k}, {l}] out of range"));
                continue;
            }
            if seen.last().is_some_and(|&last| last >= [k, l]) {
                problems.push(format!("parts [{k}, {l}] out of order or repeated"));
            }
            seen.push([k, l]);
            if let Some(p) = placed_problem(&pi[k], &pj[l], c.reported) {
                problems.push(format!("parts [{k}, {l}]: {p}"));
            }
        }
        // Every pair of parts that collides beyond doubt is there.
        for (k, a) in pi.iter().enumerate() {
            for (l, b) in pj.iter().enumerate() {
                let deep = match placed_truth(a, b) {
                    ContactTruth::Depth(Ok((depth, _))) => depth > BAND,
                    ContactTruth::Depth(Err(_)) => false,
                    ContactTruth::Area { min, .. } => min > 0,
                };
                if deep && !seen.contains(&[k, l]) {
                    problems.push(format!("parts [{k}, {l}] collide but are not reported"));
                }
            }
        }
        problems
    }

    /// How many parts shape `k` is listed with.
    pub fn part_count(&self, k: usize) -> usize {
        self.parts[k].len()
    }
}

/// Checks that `pieces` are a cut of the simple polygon `outline` as the format asks:
/// convex polygons inside it whose areas add up to its area (to 1e-5 of it).
fn check_cut(k: usize, outline: &[V], pieces: &[LocalPart]) -> Result<(), String> {
    let scale = outline.iter().map(|v| v.len()).fold(1.0, f64::max);
    let mut total = 0.0;
    for (n, piece) in pieces.iter().enumerate() {
        let LocalPart::Piece(Piece { hull, radius }) = piece else {
            return Err(format!("shape {k} piece {n}: a bitmask"));
        };
        if *radius != 0.0 || hull.len() < 3 {
            return Err(format!("shape {k} piece {n}: not a polygon"));
        }
        let centre = hull
            .iter()
            .fold(V::new(0.0, 0.0), |s, v| s.add(*v))
            .scale(1.0 / hull.len() as f64);
        if let Some(v) = hull
            .iter()
            .chain([&centre])
            .find(|v| !in_outline(**v, outline, 1e-5 * scale))
        {
            return Err(format!("shape {k} piece {n}: {v:?} is outside the outline"));
        }
        total += area(hull);
    }
    let whole = area(outline).abs();
    if (total - whole).abs() > 1e-5 * whole {
        return Err(format!(
            "shape {k}: the pieces' areas add up to {total}, the outline's is {whole}"
        ));
    }
    Ok(())
}
