//! Independent double-precision collision oracle for the tests.
//!
//! It reads a scene file (the JSON of `docs/scene-format.md`) and decides, for every
//! pair of bodies, whether they collide and whether the pair lies in the spec's tolerance
//! band (boundaries within `BAND` of touching), where either answer is accepted.
//!
//! Why it can be trusted as a referee: it shares no code with the crate under test (only
//! `std` and `serde_json`), it works in `f64` straight from the JSON numbers, and it decides
//! overlap with different algorithms from the crate's separating-axis test: closed
//! segment-segment intersection and point-in-polygon for the yes/no question, point-segment
//! distances for gaps, and per-cell unit squares for bitmasks. Only the depth of an overlap
//! (used for nothing but the band) is measured by projections.

#![allow(dead_code)]

pub mod contact;
pub mod motion;
pub mod query;

use serde_json::Value;
use std::collections::BTreeSet;

/// Width of the tolerance band of the spec.
pub const BAND: f64 = 0.01;

/// How much every world box is grown in the broad phase. Two grown boxes overlap whenever
/// the shapes are within `4 * BAND`, well beyond the `BAND` that classification needs.
const MARGIN: f64 = 2.0 * BAND;

/// What the oracle says about a scene.
#[derive(Debug, Clone, Default)]
pub struct OracleResult {
    /// Pairs (i, j), i < j, that collide exactly in f64 (signed distance <= 0), filters agreeing.
    pub pairs: BTreeSet<(u32, u32)>,
    /// Pairs (i, j), i < j, filters agreeing, whose signed distance d has |d| <= BAND: these may be decided either way.
    /// Never includes bitmask-bitmask pairs (they are exact integer questions).
    pub band: BTreeSet<(u32, u32)>,
}

/// Reported pairs checked against the oracle.
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    /// Pairs outside the band that were reported but do not collide.
    pub false_positives: Vec<(u32, u32)>,
    /// Pairs outside the band that collide but were not reported.
    pub false_negatives: Vec<(u32, u32)>,
    /// Band pairs reported / not reported (counted, not errors).
    pub band_reported: usize,
    pub band_not_reported: usize,
}

impl Comparison {
    /// True when every pair outside the tolerance band was decided as the oracle decides it.
    pub fn is_exact_outside_band(&self) -> bool {
        self.false_positives.is_empty() && self.false_negatives.is_empty()
    }
}

/// Parses a valid scene (panics with a clear message on invalid input: this is test code) and decides every pair.
pub fn oracle(scene_json: &str) -> OracleResult {
    let value: Value = serde_json::from_str(scene_json)
        .unwrap_or_else(|e| panic!("oracle: scene is not valid JSON: {e}"));
    oracle_value(&value)
}

/// Same as [`oracle`], for a scene already parsed into a `serde_json::Value`.
pub fn oracle_value(scene_json_value: &Value) -> OracleResult {
    oracle_value_with_band(scene_json_value, BAND)
}

/// [`oracle_value`] with a band wider than the spec's, for scenes beyond the range where
/// the spec promises exactness (coordinates far past ±16384), where f32 rounding of the
/// backends grows with the coordinates. Bitmask-bitmask pairs stay exact whatever `band`.
///
/// The classification can only be looser than asked, never stricter: the depth of a shape
/// in a bitmask is measured cell by cell (at most a unit square deep) and its search stops
/// at the first cell deeper than `BAND`, so such overlaps may land in a wide band.
pub fn oracle_value_with_band(scene_json_value: &Value, band: f64) -> OracleResult {
    assert!(
        band >= BAND,
        "oracle: a band narrower than the spec's {BAND}"
    );
    let margin = MARGIN.max(2.0 * band);
    let scene = Scene::parse(scene_json_value);
    let placed: Vec<Placed> = (0..scene.bodies.len()).map(|i| scene.place(i)).collect();
    let boxes: Vec<Option<Aabb>> = placed.iter().map(Placed::aabb).collect();

    let mut result = OracleResult::default();
    sweep_and_prune(&boxes, margin, |i, j| {
        if !scene.filters_agree(i, j) {
            return;
        }
        let d = placed_distance(&placed[i], &placed[j], margin);
        let key = (i as u32, j as u32);
        if d <= 0.0 {
            result.pairs.insert(key);
        }
        let both_bitmasks = placed[i].is_bitmask() && placed[j].is_bitmask();
        if !both_bitmasks && d.abs() <= band {
            result.band.insert(key);
        }
    });
    result
}

/// Signed distance in f64 between two bodies of the scene (positive: gap, negative: -penetration depth, or any negative number of magnitude > BAND when deep); for bitmask-bitmask return -1.0 when a cell is shared, else +1.0. Useful for diagnostics.
///
/// Filters are ignored here: this is geometry only. A body whose bitmask has no set cell is
/// infinitely far from any polygon or circle.
pub fn signed_distance(scene_json_value: &Value, i: usize, j: usize) -> f64 {
    let scene = Scene::parse(scene_json_value);
    let n = scene.bodies.len();
    assert!(
        i < n && j < n,
        "oracle: body index out of range ({i}, {j}); scene has {n} bodies"
    );
    // Every cell of a bitmask is looked at, so that far gaps are true distances too.
    placed_distance(&scene.place(i), &scene.place(j), f64::INFINITY)
}

/// Checks a set of reported pairs against the oracle: returns a report.
///
/// Pairs are taken as given: a reversed pair `[j, i]` is not the pair `(i, j)`, so it shows
/// up as a false positive (the spec wants `i < j`). Repeated pairs count once.
pub fn compare(reported: &[[u32; 2]], oracle: &OracleResult) -> Comparison {
    let reported: BTreeSet<(u32, u32)> = reported.iter().map(|p| (p[0], p[1])).collect();
    let false_positives = reported
        .iter()
        .filter(|p| !oracle.band.contains(p) && !oracle.pairs.contains(p))
        .copied()
        .collect();
    let false_negatives = oracle
        .pairs
        .iter()
        .filter(|p| !oracle.band.contains(p) && !reported.contains(p))
        .copied()
        .collect();
    let band_reported = oracle.band.iter().filter(|p| reported.contains(p)).count();
    Comparison {
        false_positives,
        false_negatives,
        band_reported,
        band_not_reported: oracle.band.len() - band_reported,
    }
}

// ---------------------------------------------------------------------------------------
// Plane geometry in f64.
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct V {
    x: f64,
    y: f64,
}

impl V {
    fn new(x: f64, y: f64) -> V {
        V { x, y }
    }
    fn sub(self, o: V) -> V {
        V::new(self.x - o.x, self.y - o.y)
    }
    fn add(self, o: V) -> V {
        V::new(self.x + o.x, self.y + o.y)
    }
    fn scale(self, k: f64) -> V {
        V::new(self.x * k, self.y * k)
    }
    fn dot(self, o: V) -> f64 {
        self.x * o.x + self.y * o.y
    }
    fn cross(self, o: V) -> f64 {
        self.x * o.y - self.y * o.x
    }
    fn len(self) -> f64 {
        self.x.hypot(self.y)
    }
}

/// Twice the signed area of triangle abc: > 0 when c is left of a→b.
fn orient(a: V, b: V, c: V) -> f64 {
    b.sub(a).cross(c.sub(a))
}

/// Euclidean distance from p to the closed segment ab.
fn point_segment_distance(p: V, a: V, b: V) -> f64 {
    let ab = b.sub(a);
    let len2 = ab.dot(ab);
    let t = if len2 > 0.0 {
        (p.sub(a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.sub(a.add(ab.scale(t))).len()
}

/// For p known to be on the line ab: is it within the segment's bounding box?
fn within_box(p: V, a: V, b: V) -> bool {
    p.x >= a.x.min(b.x) && p.x <= a.x.max(b.x) && p.y >= a.y.min(b.y) && p.y <= a.y.max(b.y)
}

/// Do the closed segments p1p2 and q1q2 share a point? Classic orientation test, with the
/// collinear and touching cases handled so that touching counts.
fn segments_intersect(p1: V, p2: V, q1: V, q2: V) -> bool {
    let o1 = orient(p1, p2, q1);
    let o2 = orient(p1, p2, q2);
    let o3 = orient(q1, q2, p1);
    let o4 = orient(q1, q2, p2);
    let straddles = |a: f64, b: f64| (a > 0.0 && b < 0.0) || (a < 0.0 && b > 0.0);
    if straddles(o1, o2) && straddles(o3, o4) {
        return true;
    }
    (o1 == 0.0 && within_box(q1, p1, p2))
        || (o2 == 0.0 && within_box(q2, p1, p2))
        || (o3 == 0.0 && within_box(p1, q1, q2))
        || (o4 == 0.0 && within_box(p2, q1, q2))
}

/// Edges of a polygon as (start, end) pairs, closing the loop.
fn edges(poly: &[V]) -> impl Iterator<Item = (V, V)> + '_ {
    (0..poly.len()).map(move |k| (poly[k], poly[(k + 1) % poly.len()]))
}

/// Is p inside or on the convex counter-clockwise polygon? (Left of or on every edge.)
fn point_in_convex(p: V, poly: &[V]) -> bool {
    edges(poly).all(|(a, b)| orient(a, b, p) >= 0.0)
}

/// Distance from p to the boundary of the polygon (zero on it).
fn distance_to_boundary(p: V, poly: &[V]) -> f64 {
    edges(poly)
        .map(|(a, b)| point_segment_distance(p, a, b))
        .fold(f64::INFINITY, f64::min)
}

/// Do two convex polygons share a point? Either one has a vertex inside or on the other
/// (covers containment and touching at a vertex), or two edges meet (covers crossings such
/// as a plus sign, where no vertex is inside the other).
fn convex_polygons_meet(a: &[V], b: &[V]) -> bool {
    a.iter().any(|&p| point_in_convex(p, b))
        || b.iter().any(|&p| point_in_convex(p, a))
        || edges(a).any(|(p1, p2)| edges(b).any(|(q1, q2)| segments_intersect(p1, p2, q1, q2)))
}

/// Projection interval of a polygon on an axis.
fn project(poly: &[V], axis: V) -> (f64, f64) {
    poly.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            let t = p.dot(axis);
            (lo.min(t), hi.max(t))
        })
}

/// Penetration depth of two overlapping convex polygons: the shortest translation that
/// separates them. For convex shapes it is attained along an edge normal of one of them,
/// where it is the smaller of the two ways to push the projections apart.
fn penetration_depth(a: &[V], b: &[V]) -> f64 {
    edges(a)
        .chain(edges(b))
        .map(|(p, q)| {
            let e = q.sub(p);
            let axis = V::new(-e.y, e.x).scale(1.0 / e.len());
            let (a_lo, a_hi) = project(a, axis);
            let (b_lo, b_hi) = project(b, axis);
            (a_hi - b_lo).min(b_hi - a_lo)
        })
        .fold(f64::INFINITY, f64::min)
        .max(0.0)
}

/// Gap between two disjoint convex polygons: the nearest points always include a vertex of
/// one of them, so the minimum vertex-to-edge distance both ways is exact.
fn convex_gap(a: &[V], b: &[V]) -> f64 {
    let one_way = |from: &[V], to: &[V]| {
        from.iter()
            .map(|&p| distance_to_boundary(p, to))
            .fold(f64::INFINITY, f64::min)
    };
    one_way(a, b).min(one_way(b, a))
}

/// Signed distance between two convex counter-clockwise polygons.
fn polygon_polygon(a: &[V], b: &[V]) -> f64 {
    if convex_polygons_meet(a, b) {
        -penetration_depth(a, b)
    } else {
        convex_gap(a, b)
    }
}

/// Signed distance between a circle and a convex counter-clockwise polygon.
fn circle_polygon(centre: V, radius: f64, poly: &[V]) -> f64 {
    let e = distance_to_boundary(centre, poly);
    if point_in_convex(centre, poly) {
        -(e + radius)
    } else {
        e - radius
    }
}

fn circle_circle(c1: V, r1: f64, c2: V, r2: f64) -> f64 {
    c1.sub(c2).len() - r1 - r2
}

/// Twice the signed area (positive for counter-clockwise).
fn doubled_area(poly: &[V]) -> f64 {
    edges(poly).map(|(a, b)| a.cross(b)).sum()
}

// ---------------------------------------------------------------------------------------
// Scene parsing.
// ---------------------------------------------------------------------------------------

struct Bitmask {
    width: usize,
    height: usize,
    /// Row-major, `set[r * width + c]`.
    set: Vec<bool>,
    /// Bounds of the set cells as (c0, r0, c1, r1), ends exclusive; `None` when no cell is set.
    set_bounds: Option<(i64, i64, i64, i64)>,
}

impl Bitmask {
    fn is_set(&self, c: i64, r: i64) -> bool {
        c >= 0
            && r >= 0
            && (c as usize) < self.width
            && (r as usize) < self.height
            && self.set[r as usize * self.width + c as usize]
    }
}

enum Shape {
    /// Local vertices, counter-clockwise.
    Polygon(Vec<V>),
    Circle(f64),
    Bitmask(Bitmask),
}

struct Body {
    shape: usize,
    x: f64,
    y: f64,
    angle: f64,
    /// The displacement over the frame (format 1.1), zero when absent.
    vx: f64,
    vy: f64,
    layer: u32,
    mask: u32,
}

struct Scene {
    shapes: Vec<Shape>,
    bodies: Vec<Body>,
}

fn finite_number(v: Option<&Value>, what: &str) -> f64 {
    match v.and_then(Value::as_f64) {
        Some(x) if x.is_finite() => x,
        _ => panic!("oracle: {what} must be a finite number, got {v:?}"),
    }
}

fn optional_u32(v: Option<&Value>, what: &str) -> u32 {
    match v {
        None => u32::MAX,
        Some(x) => x
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or_else(|| panic!("oracle: {what} must be an integer in u32, got {x}")),
    }
}

fn parse_polygon(k: usize, v: &Value) -> Shape {
    let list = v
        .as_array()
        .unwrap_or_else(|| panic!("oracle: shape {k}: polygon must be a list of [x, y]"));
    assert!(
        list.len() >= 3,
        "oracle: shape {k}: polygon needs at least 3 vertices"
    );
    let mut poly: Vec<V> =
        list.iter()
            .enumerate()
            .map(|(n, p)| {
                let xy = p.as_array().filter(|a| a.len() == 2).unwrap_or_else(|| {
                    panic!("oracle: shape {k}: vertex {n} must be [x, y], got {p}")
                });
                let what = format!("shape {k}: vertex {n} coordinate");
                V::new(
                    finite_number(xy.first(), &what),
                    finite_number(xy.get(1), &what),
                )
            })
            .collect();
    let area2 = doubled_area(&poly);
    assert!(area2 != 0.0, "oracle: shape {k}: polygon has zero area");
    if area2 < 0.0 {
        poly.reverse();
    }
    check_convex(k, &poly);
    Shape::Polygon(poly)
}

/// Panics unless the counter-clockwise polygon is convex: every turn is a left turn (up to
/// rounding) and the turns add up to one full revolution (rules out star shapes).
fn check_convex(k: usize, poly: &[V]) {
    let n = poly.len();
    let mut turning = 0.0;
    for i in 0..n {
        let e1 = poly[(i + 1) % n].sub(poly[i]);
        let e2 = poly[(i + 2) % n].sub(poly[(i + 1) % n]);
        let cross = e1.cross(e2);
        assert!(
            cross >= -1e-12 * e1.len() * e2.len(),
            "oracle: shape {k}: polygon is not convex (vertex {})",
            (i + 1) % n
        );
        turning += cross.atan2(e1.dot(e2));
    }
    assert!(
        (turning - std::f64::consts::TAU).abs() < 1e-6,
        "oracle: shape {k}: polygon winds more than once"
    );
}

fn parse_circle(k: usize, v: &Value) -> Shape {
    let r = finite_number(Some(v), &format!("shape {k}: circle radius"));
    assert!(r > 0.0, "oracle: shape {k}: circle radius must be > 0");
    Shape::Circle(r)
}

fn parse_bitmask(k: usize, v: &Value) -> Shape {
    let size = |field: &str| {
        let n = v.get(field).and_then(Value::as_u64).unwrap_or_else(|| {
            panic!("oracle: shape {k}: bitmask `{field}` must be a positive integer")
        });
        assert!(n >= 1, "oracle: shape {k}: bitmask `{field}` must be >= 1");
        n as usize
    };
    let (width, height) = (size("width"), size("height"));
    let rows = v
        .get("rows")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("oracle: shape {k}: bitmask `rows` must be a list"));
    assert!(
        rows.len() == height,
        "oracle: shape {k}: bitmask has {} rows, height is {height}",
        rows.len()
    );
    let mut set = Vec::with_capacity(width * height);
    let mut bounds: Option<(i64, i64, i64, i64)> = None;
    for (r, row) in rows.iter().enumerate() {
        let row = row
            .as_str()
            .unwrap_or_else(|| panic!("oracle: shape {k}: bitmask row {r} must be a string"));
        assert!(
            row.chars().count() == width,
            "oracle: shape {k}: bitmask row {r} must have {width} characters"
        );
        for (c, ch) in row.chars().enumerate() {
            let on = match ch {
                '#' => true,
                '.' => false,
                _ => panic!("oracle: shape {k}: bitmask row {r} has {ch:?}, not '#' or '.'"),
            };
            set.push(on);
            if on {
                let (c, r) = (c as i64, r as i64);
                bounds = Some(match bounds {
                    None => (c, r, c + 1, r + 1),
                    Some((c0, r0, c1, r1)) => (c0.min(c), r0.min(r), c1.max(c + 1), r1.max(r + 1)),
                });
            }
        }
    }
    Shape::Bitmask(Bitmask {
        width,
        height,
        set,
        set_bounds: bounds,
    })
}

fn parse_shape(k: usize, v: &Value) -> Shape {
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("oracle: shape {k} must be an object"));
    assert!(
        obj.len() == 1,
        "oracle: shape {k} must have exactly one of polygon, circle, bitmask"
    );
    if let Some(p) = obj.get("polygon") {
        parse_polygon(k, p)
    } else if let Some(c) = obj.get("circle") {
        parse_circle(k, c)
    } else if let Some(b) = obj.get("bitmask") {
        parse_bitmask(k, b)
    } else {
        panic!("oracle: shape {k}: unknown kind {:?}", obj.keys().next())
    }
}

fn parse_body(i: usize, v: &Value, shapes: &[Shape]) -> Body {
    let field = |name: &str| v.get(name);
    let shape = field("shape")
        .and_then(Value::as_u64)
        .filter(|&s| (s as usize) < shapes.len())
        .unwrap_or_else(|| panic!("oracle: body {i}: `shape` must index one of the shapes"))
        as usize;
    let x = finite_number(field("x"), &format!("body {i}: `x`"));
    let y = finite_number(field("y"), &format!("body {i}: `y`"));
    let angle = match field("angle") {
        None => 0.0,
        a => finite_number(a, &format!("body {i}: `angle`")),
    };
    if let Shape::Bitmask(_) = shapes[shape] {
        assert!(
            x.fract() == 0.0 && y.fract() == 0.0,
            "oracle: body {i}: a bitmask body needs whole `x` and `y`"
        );
        assert!(
            angle == 0.0,
            "oracle: body {i}: a bitmask body needs angle 0"
        );
    }
    let velocity = |name: &str| match field(name) {
        None => 0.0,
        v => finite_number(v, &format!("body {i}: `{name}`")),
    };
    let (vx, vy) = (velocity("vx"), velocity("vy"));
    if let Shape::Bitmask(_) = shapes[shape] {
        assert!(
            vx == 0.0 && vy == 0.0,
            "oracle: body {i}: a bitmask body cannot move"
        );
    }
    Body {
        shape,
        x,
        y,
        angle,
        vx,
        vy,
        layer: optional_u32(field("layer"), &format!("body {i}: `layer`")),
        mask: optional_u32(field("mask"), &format!("body {i}: `mask`")),
    }
}

impl Scene {
    fn parse(v: &Value) -> Scene {
        let list = |name: &str| {
            v.get(name)
                .and_then(Value::as_array)
                .unwrap_or_else(|| panic!("oracle: scene needs a `{name}` list"))
        };
        let shapes: Vec<Shape> = list("shapes")
            .iter()
            .enumerate()
            .map(|(k, s)| parse_shape(k, s))
            .collect();
        let bodies = list("bodies")
            .iter()
            .enumerate()
            .map(|(i, b)| parse_body(i, b, &shapes))
            .collect();
        Scene { shapes, bodies }
    }

    fn filters_agree(&self, i: usize, j: usize) -> bool {
        let (a, b) = (&self.bodies[i], &self.bodies[j]);
        (a.layer & b.mask) != 0 && (b.layer & a.mask) != 0
    }

    /// The body's shape in world coordinates.
    fn place(&self, i: usize) -> Placed<'_> {
        let body = &self.bodies[i];
        let origin = V::new(body.x, body.y);
        match &self.shapes[body.shape] {
            Shape::Polygon(local) => {
                let (s, c) = body.angle.sin_cos();
                let world = local
                    .iter()
                    .map(|v| origin.add(V::new(c * v.x - s * v.y, s * v.x + c * v.y)))
                    .collect();
                Placed::Polygon(world)
            }
            Shape::Circle(radius) => Placed::Circle {
                centre: origin,
                radius: *radius,
            },
            Shape::Bitmask(bits) => Placed::Bitmask {
                ox: body.x as i64,
                oy: body.y as i64,
                bits,
            },
        }
    }
}

// ---------------------------------------------------------------------------------------
// Shapes in the world and their distances.
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
struct Aabb {
    min: V,
    max: V,
}

enum Placed<'s> {
    /// World vertices, counter-clockwise (rotation keeps the winding).
    Polygon(Vec<V>),
    Circle {
        centre: V,
        radius: f64,
    },
    Bitmask {
        ox: i64,
        oy: i64,
        bits: &'s Bitmask,
    },
}

impl Placed<'_> {
    fn is_bitmask(&self) -> bool {
        matches!(self, Placed::Bitmask { .. })
    }

    /// Exact world box (of the set cells, for a bitmask); `None` for an empty bitmask,
    /// which can never collide.
    fn aabb(&self) -> Option<Aabb> {
        match self {
            Placed::Polygon(poly) => {
                let (min, max) = poly.iter().fold(
                    (
                        V::new(f64::INFINITY, f64::INFINITY),
                        V::new(f64::NEG_INFINITY, f64::NEG_INFINITY),
                    ),
                    |(lo, hi), p| {
                        (
                            V::new(lo.x.min(p.x), lo.y.min(p.y)),
                            V::new(hi.x.max(p.x), hi.y.max(p.y)),
                        )
                    },
                );
                Some(Aabb { min, max })
            }
            Placed::Circle { centre, radius } => Some(Aabb {
                min: V::new(centre.x - radius, centre.y - radius),
                max: V::new(centre.x + radius, centre.y + radius),
            }),
            Placed::Bitmask { ox, oy, bits } => bits.set_bounds.map(|(c0, r0, c1, r1)| Aabb {
                min: V::new((ox + c0) as f64, (oy + r0) as f64),
                max: V::new((ox + c1) as f64, (oy + r1) as f64),
            }),
        }
    }
}

/// Signed distance between two placed shapes (see [`signed_distance`]). Bitmask cells
/// farther than `reach` from the box of the other shape are not looked at, so a result
/// above `reach` only means "farther than `reach`"; a result below `-BAND` only means "deep".
fn placed_distance(a: &Placed, b: &Placed, reach: f64) -> f64 {
    use Placed::*;
    match (a, b) {
        (Polygon(p), Polygon(q)) => polygon_polygon(p, q),
        (Circle { centre, radius }, Polygon(p)) | (Polygon(p), Circle { centre, radius }) => {
            circle_polygon(*centre, *radius, p)
        }
        (
            Circle {
                centre: c1,
                radius: r1,
            },
            Circle {
                centre: c2,
                radius: r2,
            },
        ) => circle_circle(*c1, *r1, *c2, *r2),
        (
            Bitmask {
                ox: ax,
                oy: ay,
                bits: a,
            },
            Bitmask {
                ox: bx,
                oy: by,
                bits: b,
            },
        ) => {
            if bitmasks_share_a_cell((*ax, *ay, a), (*bx, *by, b)) {
                -1.0
            } else {
                1.0
            }
        }
        (Bitmask { ox, oy, bits }, other) | (other, Bitmask { ox, oy, bits }) => {
            shape_bitmask(other, *ox, *oy, bits, reach)
        }
    }
}

/// Is some world cell set in both bitmasks? Pure integer work over the overlap of their
/// set-cell bounds, so cells that only share an edge or corner never count.
fn bitmasks_share_a_cell(a: (i64, i64, &Bitmask), b: (i64, i64, &Bitmask)) -> bool {
    let (Some(ab), Some(bb)) = (a.2.set_bounds, b.2.set_bounds) else {
        return false;
    };
    let x0 = (a.0 + ab.0).max(b.0 + bb.0);
    let y0 = (a.1 + ab.1).max(b.1 + bb.1);
    let x1 = (a.0 + ab.2).min(b.0 + bb.2);
    let y1 = (a.1 + ab.3).min(b.1 + bb.3);
    (y0..y1).any(|wy| {
        (x0..x1).any(|wx| a.2.is_set(wx - a.0, wy - a.1) && b.2.is_set(wx - b.0, wy - b.1))
    })
}

/// Signed distance from a polygon or circle to the union of a bitmask's set cells: the
/// minimum over the cells near the shape, each cell being a closed unit square. Stops as
/// soon as one cell is penetrated deeper than the band (any such value will do). Only the
/// cells within `reach` of the shape's box are visited.
fn shape_bitmask(other: &Placed, ox: i64, oy: i64, bits: &Bitmask, reach: f64) -> f64 {
    let (Some(bounds), Some(near)) = (bits.set_bounds, other.aabb()) else {
        return f64::INFINITY;
    };
    // Cell c spans [ox + c, ox + c + 1]; keep those meeting the grown box of the shape.
    // (An infinite reach saturates the casts below, and the clamps keep every set cell.)
    let lo_x = near.min.x - reach - ox as f64;
    let hi_x = near.max.x + reach - ox as f64;
    let lo_y = near.min.y - reach - oy as f64;
    let hi_y = near.max.y + reach - oy as f64;
    let c0 = ((lo_x - 1.0).ceil() as i64).max(bounds.0);
    let c1 = (hi_x.floor() as i64).min(bounds.2 - 1);
    let r0 = ((lo_y - 1.0).ceil() as i64).max(bounds.1);
    let r1 = (hi_y.floor() as i64).min(bounds.3 - 1);

    let mut best = f64::INFINITY;
    for r in r0..=r1 {
        for c in c0..=c1 {
            if !bits.is_set(c, r) {
                continue;
            }
            let (x, y) = ((ox + c) as f64, (oy + r) as f64);
            let square = [
                V::new(x, y),
                V::new(x + 1.0, y),
                V::new(x + 1.0, y + 1.0),
                V::new(x, y + 1.0),
            ];
            let d = match other {
                Placed::Polygon(p) => polygon_polygon(p, &square),
                Placed::Circle { centre, radius } => circle_polygon(*centre, *radius, &square),
                Placed::Bitmask { .. } => unreachable!("bitmask pairs are handled apart"),
            };
            best = best.min(d);
            if best < -BAND {
                return best;
            }
        }
    }
    best
}

/// Broad phase: sort the boxes grown by `margin` by their left edge and sweep, calling
/// `visit(i, j)` with i < j for every pair whose grown boxes overlap. Bodies without a box
/// are skipped.
fn sweep_and_prune(boxes: &[Option<Aabb>], margin: f64, mut visit: impl FnMut(usize, usize)) {
    let grown: Vec<(usize, Aabb)> = boxes
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            b.map(|b| {
                let m = V::new(margin, margin);
                (
                    i,
                    Aabb {
                        min: b.min.sub(m),
                        max: b.max.add(m),
                    },
                )
            })
        })
        .collect();
    let mut order: Vec<usize> = (0..grown.len()).collect();
    order.sort_by(|&a, &b| grown[a].1.min.x.total_cmp(&grown[b].1.min.x));
    for (k, &a) in order.iter().enumerate() {
        let (ia, ba) = grown[a];
        for &b in &order[k + 1..] {
            let (ib, bb) = grown[b];
            if bb.min.x > ba.max.x {
                break;
            }
            if bb.min.y <= ba.max.y && ba.min.y <= bb.max.y {
                visit(ia.min(ib), ia.max(ib));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Self-tests: hand-made cases with known answers.
// ---------------------------------------------------------------------------------------

#[cfg(test)]
mod self_tests {
    use super::*;
    use serde_json::json;
    use std::f64::consts::{FRAC_PI_2, SQRT_2};

    fn rect(hw: f64, hh: f64) -> Value {
        json!({"polygon": [[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]]})
    }

    fn run(scene: &Value) -> OracleResult {
        // Go through the text form too, as the tests of the crate will. serde_json's default
        // float parsing may be one ulp off, so touching pairs may flip, but only in the band.
        let by_text = oracle(&scene.to_string());
        let by_value = oracle_value(scene);
        let flipped: Vec<_> = by_text
            .pairs
            .symmetric_difference(&by_value.pairs)
            .collect();
        assert!(
            flipped
                .iter()
                .all(|p| by_text.band.contains(p) && by_value.band.contains(p)),
            "text and value disagree outside the band: {flipped:?}"
        );
        by_value
    }

    fn set(pairs: &[(u32, u32)]) -> BTreeSet<(u32, u32)> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn plus_sign_collides_without_any_vertex_inside() {
        let scene = json!({
            "shapes": [rect(5.0, 1.0), rect(1.0, 5.0)],
            "bodies": [{"shape": 0, "x": 0.0, "y": 0.0}, {"shape": 1, "x": 0.0, "y": 0.0}]
        });
        let r = run(&scene);
        assert_eq!(r.pairs, set(&[(0, 1)]));
        assert!(r.band.is_empty());
        assert!((signed_distance(&scene, 0, 1) + 6.0).abs() < 1e-12);
    }

    #[test]
    fn circle_off_square_corner_with_small_gap() {
        let off = 1.0 + 1.05 / SQRT_2;
        let scene = json!({
            "shapes": [rect(1.0, 1.0), {"circle": 1.0}],
            "bodies": [{"shape": 0, "x": 0.0, "y": 0.0}, {"shape": 1, "x": off, "y": off}]
        });
        let r = run(&scene);
        assert!(r.pairs.is_empty() && r.band.is_empty());
        assert!((signed_distance(&scene, 0, 1) - 0.05).abs() < 1e-12);
    }

    #[test]
    fn touching_edges_collide_and_are_in_band() {
        let scene = json!({
            "shapes": [rect(1.0, 1.0), {"circle": 0.5}],
            "bodies": [
                {"shape": 0, "x": 0.0, "y": 0.0},
                {"shape": 0, "x": 2.0, "y": 0.5},
                {"shape": 1, "x": 0.0, "y": -1.5}
            ]
        });
        let r = run(&scene);
        assert_eq!(r.pairs, set(&[(0, 1), (0, 2)]));
        assert_eq!(r.band, set(&[(0, 1), (0, 2)]));
    }

    #[test]
    fn signed_distance_of_sliding_squares_is_continuous() {
        // Squares of half-width 1, centres t apart along x and 0.3 along y: d = t - 2 both
        // sides of contact, until pushing apart along y (1.7) becomes the shorter way out.
        for step in 0..=40 {
            let t = step as f64 * 0.1;
            let expected = (t - 2.0).max(-1.7);
            let scene = json!({
                "shapes": [rect(1.0, 1.0)],
                "bodies": [{"shape": 0, "x": 0.0, "y": 0.0}, {"shape": 0, "x": t, "y": 0.3}]
            });
            let d = signed_distance(&scene, 0, 1);
            assert!((d - expected).abs() < 1e-12, "t = {t}: d = {d}");
        }
    }

    #[test]
    fn containment_collides() {
        let scene = json!({
            "shapes": [rect(10.0, 10.0), {"polygon": [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]}, {"circle": 0.2}],
            "bodies": [
                {"shape": 0, "x": 0.0, "y": 0.0},
                {"shape": 1, "x": 3.0, "y": 2.0},
                {"shape": 2, "x": -4.0, "y": 5.0}
            ]
        });
        let r = run(&scene);
        assert_eq!(r.pairs, set(&[(0, 1), (0, 2)]));
        assert!(r.band.is_empty());
        // Circle centre 5 from the top edge (y = 10), inside: -(5 + 0.2).
        assert!((signed_distance(&scene, 0, 2) + 5.2).abs() < 1e-12);
    }

    #[test]
    fn identical_bodies_collide() {
        let scene = json!({
            "shapes": [{"polygon": [[0.0, 0.0], [0.0, 2.0], [3.0, 1.0]]}, {"circle": 1.5}],
            "bodies": [
                {"shape": 0, "x": 7.0, "y": -3.0, "angle": 0.7},
                {"shape": 0, "x": 7.0, "y": -3.0, "angle": 0.7},
                {"shape": 1, "x": -20.0, "y": 0.0},
                {"shape": 1, "x": -20.0, "y": 0.0}
            ]
        });
        let r = run(&scene);
        assert_eq!(r.pairs, set(&[(0, 1), (2, 3)]));
        assert!(r.band.is_empty());
    }

    #[test]
    fn rotation_by_quarter_turn() {
        // A 10 x 1 bar turned by pi/2 stands upright: it misses a circle at (3, 0) that the
        // unturned bar would hit, and hits one at (0, 4).
        let scene = json!({
            "shapes": [rect(5.0, 0.5), {"circle": 1.0}, {"circle": 0.5}],
            "bodies": [
                {"shape": 0, "x": 0.0, "y": 0.0, "angle": FRAC_PI_2},
                {"shape": 1, "x": 3.0, "y": 0.0},
                {"shape": 2, "x": 0.0, "y": 4.0}
            ]
        });
        let r = run(&scene);
        assert_eq!(r.pairs, set(&[(0, 2)]));
        assert!((signed_distance(&scene, 0, 1) - 1.5).abs() < 1e-12);
        let mut unturned = scene.clone();
        unturned["bodies"][0]["angle"] = json!(0.0);
        assert_eq!(run(&unturned).pairs, set(&[(0, 1)]));
    }

    #[test]
    fn filters_must_agree_both_ways() {
        let scene = json!({
            "shapes": [{"circle": 1.0}],
            "bodies": [
                // 0 and 1: layer0 & mask1 = 1, layer1 & mask0 = 0 -> no pair.
                {"shape": 0, "x": 0.0, "y": 0.0, "layer": 1, "mask": 1},
                {"shape": 0, "x": 0.5, "y": 0.0, "layer": 2, "mask": 1},
                // 2 and 3: the other direction only -> no pair.
                {"shape": 0, "x": 10.0, "y": 0.0, "layer": 2, "mask": 1},
                {"shape": 0, "x": 10.5, "y": 0.0, "layer": 1, "mask": 4},
                // 4 and 5: both ways -> pair; 5 has default filters.
                {"shape": 0, "x": 20.0, "y": 0.0, "layer": 8, "mask": 16},
                {"shape": 0, "x": 20.5, "y": 0.0}
            ]
        });
        let r = run(&scene);
        assert_eq!(r.pairs, set(&[(4, 5)]));
    }

    #[test]
    fn bitmask_at_negative_offsets() {
        // Set cells (0,0) -> [-10,-9]x[-7,-6] and (2,2) -> [-8,-7]x[-5,-4].
        let scene = json!({
            "shapes": [
                {"bitmask": {"width": 3, "height": 3, "rows": ["#..", "...", "..#"]}},
                {"circle": 0.3}
            ],
            "bodies": [
                {"shape": 0, "x": -10, "y": -7},
                {"shape": 1, "x": -7.5, "y": -4.5},
                {"shape": 1, "x": -8.5, "y": -5.5},
                {"shape": 1, "x": -9.5, "y": -6.5}
            ]
        });
        let r = run(&scene);
        assert_eq!(r.pairs, set(&[(0, 1), (0, 3)]));
        assert!(r.band.is_empty());
        // Centre cell is clear: nearest set corner (-8, -5) is sqrt(0.5) away.
        assert!((signed_distance(&scene, 0, 2) - (0.5f64.sqrt() - 0.3)).abs() < 1e-12);
    }

    #[test]
    fn bitmasks_sharing_only_an_edge_or_corner_do_not_collide() {
        let scene = json!({
            "shapes": [{"bitmask": {"width": 2, "height": 2, "rows": ["##", "##"]}}],
            "bodies": [
                {"shape": 0, "x": 0, "y": 0},
                {"shape": 0, "x": 2, "y": 0},
                {"shape": 0, "x": 2, "y": 2},
                {"shape": 0, "x": 100, "y": 100},
                {"shape": 0, "x": 101, "y": 101}
            ]
        });
        let r = run(&scene);
        assert_eq!(r.pairs, set(&[(3, 4)]));
        assert!(r.band.is_empty(), "bitmask pairs are never in the band");
        assert_eq!(signed_distance(&scene, 0, 1), 1.0);
        assert_eq!(signed_distance(&scene, 3, 4), -1.0);
    }

    #[test]
    fn bitmasks_with_overlapping_frames_but_disjoint_cells() {
        let scene = json!({
            "shapes": [
                {"bitmask": {"width": 2, "height": 2, "rows": ["#.", ".#"]}},
                {"bitmask": {"width": 2, "height": 2, "rows": [".#", "#."]}}
            ],
            "bodies": [{"shape": 0, "x": 3, "y": 3}, {"shape": 1, "x": 3, "y": 3}]
        });
        assert!(run(&scene).pairs.is_empty());
    }

    #[test]
    fn circle_touching_bitmask_cell_from_a_diagonal() {
        // The only set cell is [0,1]x[0,1]; its clear neighbours must not count.
        let scene_with_circle = |radius: f64, x: f64, y: f64| {
            json!({
                "shapes": [
                    {"bitmask": {"width": 2, "height": 2, "rows": ["#.", ".."]}},
                    {"circle": radius}
                ],
                "bodies": [{"shape": 0, "x": 0, "y": 0}, {"shape": 1, "x": x, "y": y}]
            })
        };
        // Exactly touching the corner (1, 1) from (4, 5): a 3-4-5 triangle, no rounding.
        let r = run(&scene_with_circle(5.0, 4.0, 5.0));
        assert_eq!(r.pairs, set(&[(0, 1)]));
        assert_eq!(r.band, set(&[(0, 1)]));
        // Touching at 45 degrees: rounding may land either side, but it is in the band.
        let touch = 1.0 + 1.0 / SQRT_2;
        let r = run(&scene_with_circle(1.0, touch, touch));
        assert_eq!(r.band, set(&[(0, 1)]));
        // Same direction, 0.05 away: decided, no pair.
        let gap = 1.0 + 1.05 / SQRT_2;
        let scene = scene_with_circle(1.0, gap, gap);
        let r = run(&scene);
        assert!(r.pairs.is_empty() && r.band.is_empty());
        assert!((signed_distance(&scene, 0, 1) - 0.05).abs() < 1e-12);
    }

    #[test]
    fn polygon_inside_a_bitmask_hole_does_not_collide() {
        // Hole is the cell [6,7]x[6,7]; a square of half-size 0.3 at its centre leaves 0.2.
        let scene = json!({
            "shapes": [
                {"bitmask": {"width": 3, "height": 3, "rows": ["###", "#.#", "###"]}},
                rect(0.3, 0.3),
                rect(0.6, 0.6)
            ],
            "bodies": [
                {"shape": 0, "x": 5, "y": 5},
                {"shape": 1, "x": 6.5, "y": 6.5, "angle": 0.3},
                {"shape": 2, "x": 6.5, "y": 106.5}
            ]
        });
        let r = run(&scene);
        assert!(r.pairs.is_empty() && r.band.is_empty());
        // The same hole with a square larger than it does collide.
        let bigger = json!({
            "shapes": scene["shapes"],
            "bodies": [{"shape": 0, "x": 5, "y": 5}, {"shape": 2, "x": 6.5, "y": 6.5}]
        });
        assert_eq!(run(&bigger).pairs, set(&[(0, 1)]));
    }

    #[test]
    fn spec_example_scene() {
        let scene = json!({
            "shapes": [
                {"polygon": [[-9.0, -8.0], [9.0, -8.0], [0.0, 12.0]]},
                {"circle": 2.5},
                {"bitmask": {"width": 5, "height": 3, "rows": [".###.", "#####", ".#.#."]}}
            ],
            "bodies": [
                {"shape": 0, "x": 100.0, "y": 40.0, "angle": 0.5},
                {"shape": 1, "x": 104.0, "y": 52.0, "layer": 4, "mask": 2},
                {"shape": 2, "x": 90, "y": 35}
            ]
        });
        let text = scene.to_string();
        let r = oracle(&text);
        // The triangle's left edge passes about 0.29 right of the bitmask's cells, and
        // body 1 meets no one's filters (its layer 4 is in no mask of 2, its mask 2 in no layer 4).
        assert!(r.pairs.is_empty() && r.band.is_empty());
        let d = signed_distance(&scene, 0, 2);
        assert!((0.25..0.33).contains(&d), "d = {d}");
        // Nearest set cell corner to the circle centre (104, 52) is (94, 38).
        assert!((signed_distance(&scene, 1, 2) - (296f64.sqrt() - 2.5)).abs() < 1e-12);
    }

    #[test]
    fn compare_sorts_errors_from_band_pairs() {
        let r = OracleResult {
            pairs: set(&[(0, 1), (2, 3), (4, 5)]),
            band: set(&[(4, 5), (6, 7)]),
        };
        let c = compare(&[[0, 1], [0, 1], [4, 5], [8, 9], [7, 6]], &r);
        assert_eq!(c.false_positives, vec![(7, 6), (8, 9)]);
        assert_eq!(c.false_negatives, vec![(2, 3)]);
        assert_eq!((c.band_reported, c.band_not_reported), (1, 1));
        assert!(!c.is_exact_outside_band());
        let ok = compare(&[[0, 1], [2, 3], [6, 7]], &r);
        assert!(ok.is_exact_outside_band());
    }

    /// Small deterministic generator, so that the tests need no extra crate.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
        fn range(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * self.next()
        }
    }

    fn random_scene(n: usize, extent: f64, seed: u64) -> Value {
        let mut rng = Lcg(seed);
        let mut rows = Vec::new();
        for _ in 0..40 {
            rows.push(
                (0..40)
                    .map(|_| if rng.next() < 0.3 { '#' } else { '.' })
                    .collect::<String>(),
            );
        }
        let shapes = json!([
            {"polygon": [[-1.0, -0.5], [1.0, -0.5], [1.2, 0.4], [0.0, 1.0], [-1.1, 0.3]]},
            {"circle": 0.7},
            rect(2.0, 0.2),
            {"polygon": [[0.0, 0.0], [0.3, 0.0], [0.0, 0.3]]},
            {"bitmask": {"width": 40, "height": 40, "rows": rows}},
            {"bitmask": {"width": 3, "height": 2, "rows": ["#.#", "###"]}}
        ]);
        let bodies: Vec<Value> = (0..n)
            .map(|k| {
                let shape = if k % 97 == 5 { 4 } else { (rng.next() * 4.0) as usize + (k % 13 == 0) as usize * 5 };
                let shape = shape.min(5);
                let (x, y) = (rng.range(-extent, extent), rng.range(-extent, extent));
                let layer = 1u32 << (rng.next() * 3.0) as u32;
                let mask = if rng.next() < 0.8 { u32::MAX } else { layer };
                if shape >= 4 {
                    json!({"shape": shape, "x": x.floor(), "y": y.floor(), "layer": layer, "mask": mask})
                } else {
                    json!({"shape": shape, "x": x, "y": y, "angle": rng.range(-4.0, 4.0), "layer": layer, "mask": mask})
                }
            })
            .collect();
        json!({"shapes": shapes, "bodies": bodies})
    }

    /// Part of `subject` on the inner side of every edge of the convex counter-clockwise
    /// `clipper` (Sutherland-Hodgman): a route to "do they overlap" that shares nothing with
    /// the segment tests above.
    fn clip(subject: &[V], clipper: &[V]) -> Vec<V> {
        let mut out = subject.to_vec();
        for (a, b) in edges(clipper) {
            let input = std::mem::take(&mut out);
            for k in 0..input.len() {
                let (p, q) = (input[k], input[(k + 1) % input.len()]);
                let (sp, sq) = (orient(a, b, p), orient(a, b, q));
                if sp >= 0.0 {
                    out.push(p);
                }
                if (sp >= 0.0) != (sq >= 0.0) {
                    out.push(p.add(q.sub(p).scale(sp / (sp - sq))));
                }
            }
        }
        out
    }

    fn random_convex(rng: &mut Lcg, at: V) -> Vec<V> {
        let n = 3 + (rng.next() * 8.0) as usize;
        let (ax, ay, turn) = (
            rng.range(0.2, 3.0),
            rng.range(0.2, 3.0),
            rng.range(0.0, 6.3),
        );
        let mut angles: Vec<f64> = (0..n)
            .map(|_| rng.range(0.0, std::f64::consts::TAU))
            .collect();
        angles.sort_by(f64::total_cmp);
        let (s, c) = turn.sin_cos();
        // Points of an ellipse in angular order are convex and counter-clockwise.
        angles
            .iter()
            .map(|t| {
                let (x, y) = (ax * t.cos(), ay * t.sin());
                at.add(V::new(c * x - s * y, s * x + c * y))
            })
            .collect()
    }

    #[test]
    fn polygon_verdicts_agree_with_clipping() {
        let mut rng = Lcg(3);
        let (mut apart, mut overlapping) = (0, 0);
        for _ in 0..20_000 {
            let a = random_convex(&mut rng, V::new(0.0, 0.0));
            let at = V::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0));
            let b = random_convex(&mut rng, at);
            if doubled_area(&a) < 1e-3 || doubled_area(&b) < 1e-3 {
                continue;
            }
            let d = polygon_polygon(&a, &b);
            assert_eq!(d, polygon_polygon(&b, &a));
            let common = doubled_area(&clip(&a, &b)).abs() / 2.0;
            if d > BAND {
                apart += 1;
                assert!(
                    common < 1e-9,
                    "d = {d} but they share area {common}: {a:?} {b:?}"
                );
            } else if d < -BAND {
                overlapping += 1;
                assert!(common > 0.0, "d = {d} but they share no area: {a:?} {b:?}");
            }
        }
        assert!(
            apart > 1000 && overlapping > 1000,
            "{apart} apart, {overlapping} overlapping"
        );
    }

    #[test]
    fn broad_phase_misses_nothing_and_distance_is_symmetric() {
        let scene_value = random_scene(400, 25.0, 7);
        let fast = oracle_value(&scene_value);
        let scene = Scene::parse(&scene_value);
        let placed: Vec<Placed> = (0..scene.bodies.len()).map(|i| scene.place(i)).collect();
        let mut pairs = BTreeSet::new();
        let mut band = BTreeSet::new();
        for i in 0..placed.len() {
            for j in i + 1..placed.len() {
                let d = placed_distance(&placed[i], &placed[j], MARGIN);
                let d_swapped = placed_distance(&placed[j], &placed[i], MARGIN);
                assert!(
                    d == d_swapped || (d < -BAND && d_swapped < -BAND),
                    "{i} {j}: {d} vs {d_swapped}"
                );
                if !scene.filters_agree(i, j) {
                    continue;
                }
                if d <= 0.0 {
                    pairs.insert((i as u32, j as u32));
                }
                if !(placed[i].is_bitmask() && placed[j].is_bitmask()) && d.abs() <= BAND {
                    band.insert((i as u32, j as u32));
                }
            }
        }
        assert!(
            pairs.len() > 50,
            "scene too sparse to test anything: {}",
            pairs.len()
        );
        assert_eq!(fast.pairs, pairs);
        assert_eq!(fast.band, band);
    }

    #[test]
    fn hundred_thousand_bodies_finish() {
        let scene = random_scene(100_000, 800.0, 11);
        let start = std::time::Instant::now();
        let r = oracle_value(&scene);
        let took = start.elapsed();
        assert!(!r.pairs.is_empty());
        eprintln!(
            "100k bodies: {} pairs, {} band, {took:?}",
            r.pairs.len(),
            r.band.len()
        );
    }
}
