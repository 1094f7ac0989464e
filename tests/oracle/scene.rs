//! The scene file read straight from its JSON numbers, in f64.

use super::*;

pub(crate) struct Bitmask {
    pub(crate) width: usize,
    pub(crate) height: usize,
    /// Row-major, `set[r * width + c]`.
    pub(crate) set: Vec<bool>,
    /// Bounds of the set cells as (c0, r0, c1, r1), ends exclusive; `None` when no cell is set.
    pub(crate) set_bounds: Option<(i64, i64, i64, i64)>,
}

impl Bitmask {
    pub(crate) fn is_set(&self, c: i64, r: i64) -> bool {
        c >= 0
            && r >= 0
            && (c as usize) < self.width
            && (r as usize) < self.height
            && self.set[r as usize * self.width + c as usize]
    }
}

pub(crate) enum Shape {
    /// Local vertices, counter-clockwise.
    Polygon(Vec<V>),
    Circle(f64),
    Bitmask(Bitmask),
    /// A shape of format 1.2 as the union of rounded convex pieces, in local coordinates:
    /// a capsule is one piece, a concave polygon the oracle's own triangles, a compound
    /// its parts' pieces placed in its frame.
    Rounded(Vec<Piece>),
}

/// A convex hull of 1 (point), 2 (segment) or more (polygon, counter-clockwise) points,
/// grown by `radius`.
#[derive(Clone, Debug)]
pub(crate) struct Piece {
    pub(crate) hull: Vec<V>,
    pub(crate) radius: f64,
}

impl Piece {
    /// The piece turned by `angle` and moved by `offset`.
    pub(crate) fn placed(&self, offset: V, angle: f64) -> Piece {
        let (s, c) = angle.sin_cos();
        Piece {
            hull: self
                .hull
                .iter()
                .map(|v| offset.add(V::new(c * v.x - s * v.y, s * v.x + c * v.y)))
                .collect(),
            radius: self.radius,
        }
    }
}

pub(crate) struct Body {
    pub(crate) shape: usize,
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) angle: f64,
    /// The displacement over the frame (format 1.1), zero when absent.
    pub(crate) vx: f64,
    pub(crate) vy: f64,
    pub(crate) layer: u32,
    pub(crate) mask: u32,
}

pub(crate) struct Scene {
    pub(crate) shapes: Vec<Shape>,
    pub(crate) bodies: Vec<Body>,
}

pub(crate) fn finite_number(v: Option<&Value>, what: &str) -> f64 {
    match v.and_then(Value::as_f64) {
        Some(x) if x.is_finite() => x,
        _ => panic!("oracle: {what} must be a finite number, got {v:?}"),
    }
}

pub(crate) fn optional_u32(v: Option<&Value>, what: &str) -> u32 {
    match v {
        None => u32::MAX,
        Some(x) => x
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or_else(|| panic!("oracle: {what} must be an integer in u32, got {x}")),
    }
}

pub(crate) fn parse_polygon(k: usize, v: &Value) -> Shape {
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
pub(crate) fn check_convex(k: usize, poly: &[V]) {
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

pub(crate) fn parse_circle(k: usize, v: &Value) -> Shape {
    let r = finite_number(Some(v), &format!("shape {k}: circle radius"));
    assert!(r > 0.0, "oracle: shape {k}: circle radius must be > 0");
    Shape::Circle(r)
}

pub(crate) fn parse_bitmask(k: usize, v: &Value) -> Shape {
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

fn point(k: usize, v: Option<&Value>, what: &str) -> V {
    let xy = v
        .and_then(Value::as_array)
        .filter(|a| a.len() == 2)
        .unwrap_or_else(|| panic!("oracle: shape {k}: {what} must be [x, y], got {v:?}"));
    let what = format!("shape {k}: {what}");
    V::new(
        finite_number(xy.first(), &what),
        finite_number(xy.get(1), &what),
    )
}

pub(crate) fn parse_capsule(k: usize, v: &Value) -> Shape {
    let (a, b) = (
        point(k, v.get("a"), "capsule a"),
        point(k, v.get("b"), "capsule b"),
    );
    let radius = finite_number(v.get("radius"), &format!("shape {k}: capsule radius"));
    assert!(
        radius >= 0.0,
        "oracle: shape {k}: capsule radius must be >= 0"
    );
    let hull = if a == b { vec![a] } else { vec![a, b] };
    Shape::Rounded(vec![Piece { hull, radius }])
}

/// A concave (or convex) simple outline as the oracle's own triangles. Checks what the
/// oracle relies on: 3 or more vertices, no repeats, non-zero area, no two edges meeting
/// but neighbours at their shared vertex.
pub(crate) fn parse_concave(k: usize, v: &Value) -> Shape {
    let list = v
        .as_array()
        .unwrap_or_else(|| panic!("oracle: shape {k}: concave must be a list of [x, y]"));
    let mut outline: Vec<V> = (0..list.len())
        .map(|n| point(k, list.get(n), &format!("concave vertex {n}")))
        .collect();
    let n = outline.len();
    assert!(
        n >= 3,
        "oracle: shape {k}: concave needs at least 3 vertices"
    );
    for i in 0..n {
        for j in i + 1..n {
            assert!(
                outline[i] != outline[j],
                "oracle: shape {k}: vertex {j} repeats {i}"
            );
            let neighbours = j == i + 1 || (i == 0 && j == n - 1);
            let (p, q) = (
                (outline[i], outline[(i + 1) % n]),
                (outline[j], outline[(j + 1) % n]),
            );
            assert!(
                neighbours || !segments_intersect(p.0, p.1, q.0, q.1),
                "oracle: shape {k}: concave edges {i} and {j} meet"
            );
        }
    }
    let area2 = doubled_area(&outline);
    assert!(area2 != 0.0, "oracle: shape {k}: concave has zero area");
    if area2 < 0.0 {
        outline.reverse();
    }
    let pieces = triangulate(&outline)
        .into_iter()
        .map(|t| Piece {
            hull: t.to_vec(),
            radius: 0.0,
        })
        .collect();
    Shape::Rounded(pieces)
}

/// A compound's parts, each a shape of the file that is neither a compound nor a
/// bitmask, as pieces in the compound's frame.
pub(crate) fn parse_compound(k: usize, v: &Value, shapes: &[Option<Shape>]) -> Shape {
    let parts = v
        .as_array()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| panic!("oracle: shape {k}: compound must be a list of parts"));
    let mut pieces = Vec::new();
    for (n, part) in parts.iter().enumerate() {
        let what = |field: &str| format!("shape {k}: part {n}: `{field}`");
        let shape = part
            .get("shape")
            .and_then(Value::as_u64)
            .and_then(|s| shapes.get(s as usize))
            .unwrap_or_else(|| panic!("oracle: {} must index a shape", what("shape")));
        let number = |field: &str| match part.get(field) {
            None => 0.0,
            x => finite_number(x, &what(field)),
        };
        let (offset, angle) = (V::new(number("x"), number("y")), number("angle"));
        let local = match shape {
            Some(Shape::Polygon(p)) => vec![Piece {
                hull: p.clone(),
                radius: 0.0,
            }],
            Some(Shape::Circle(r)) => vec![Piece {
                hull: vec![V::new(0.0, 0.0)],
                radius: *r,
            }],
            Some(Shape::Rounded(p)) => p.clone(),
            Some(Shape::Bitmask(_)) | None => {
                panic!("oracle: {} is a bitmask or a compound", what("shape"))
            }
        };
        pieces.extend(local.iter().map(|p| p.placed(offset, angle)));
    }
    Shape::Rounded(pieces)
}

pub(crate) fn parse_shape(k: usize, v: &Value) -> Shape {
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
    } else if let Some(c) = obj.get("capsule") {
        parse_capsule(k, c)
    } else if let Some(c) = obj.get("concave") {
        parse_concave(k, c)
    } else {
        panic!("oracle: shape {k}: unknown kind {:?}", obj.keys().next())
    }
}

pub(crate) fn parse_body(i: usize, v: &Value, shapes: &[Shape]) -> Body {
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
    pub(crate) fn parse(v: &Value) -> Scene {
        let list = |name: &str| {
            v.get(name)
                .and_then(Value::as_array)
                .unwrap_or_else(|| panic!("oracle: scene needs a `{name}` list"))
        };
        // Compounds refer to other shapes, before or after them: they are read last.
        fn compound(s: &Value) -> Option<&Value> {
            s.get("compound")
        }
        let mut read: Vec<Option<Shape>> = list("shapes")
            .iter()
            .enumerate()
            .map(|(k, s)| compound(s).is_none().then(|| parse_shape(k, s)))
            .collect();
        for (k, s) in list("shapes").iter().enumerate() {
            if let Some(parts) = compound(s) {
                read[k] = Some(parse_compound(k, parts, &read));
            }
        }
        let shapes: Vec<Shape> = read
            .into_iter()
            .map(|s| s.expect("every shape read"))
            .collect();
        let bodies = list("bodies")
            .iter()
            .enumerate()
            .map(|(i, b)| parse_body(i, b, &shapes))
            .collect();
        Scene { shapes, bodies }
    }

    pub(crate) fn filters_agree(&self, i: usize, j: usize) -> bool {
        let (a, b) = (&self.bodies[i], &self.bodies[j]);
        (a.layer & b.mask) != 0 && (b.layer & a.mask) != 0
    }

    /// The body's shape in world coordinates.
    pub(crate) fn place(&self, i: usize) -> Placed<'_> {
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
            Shape::Rounded(pieces) => Placed::Rounded(
                pieces
                    .iter()
                    .map(|p| p.placed(origin, body.angle))
                    .collect(),
            ),
        }
    }
}
