//! Scenes and the scene file format (`spec/scene-format.md`): reading JSON with an error
//! that names the shape or body, the field and the rule; writing it back.

use serde_json::{json, Map, Value};

use crate::body::Body;
use crate::error::{Location, SceneError};
use crate::library::{ShapeLibrary, MAX_BITMASK_COORDINATE};
use crate::shapes::{Bitmask, Circle, Polygon, Shape, MAX_BITMASK_SIDE};

/// A shape library and the bodies that use it.
///
/// ```
/// use gpu_collide::Scene;
/// let scene = Scene::from_json(r#"{"shapes": [{"circle": 1.0}], "bodies": [{"shape": 0, "x": 0, "y": 0}]}"#)?;
/// assert_eq!(scene.bodies.len(), 1);
/// # Ok::<(), gpu_collide::SceneError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scene {
    /// The shapes, shared by any number of bodies.
    pub shapes: Vec<Shape>,
    /// The bodies.
    pub bodies: Vec<Body>,
}

/// A scene read from JSON, with warnings about fields the format does not know.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedScene {
    /// The scene, valid.
    pub scene: Scene,
    /// One line per ignored field, e.g. `body 3: unknown field "angel" ignored`.
    pub warnings: Vec<String>,
}

impl Scene {
    /// Reads and validates a scene; any broken rule refuses the whole scene.
    pub fn from_json(text: &str) -> Result<Scene, SceneError> {
        Ok(Self::from_json_with_warnings(text)?.scene)
    }

    /// [`Scene::from_json`], also returning warnings about ignored fields.
    pub fn from_json_with_warnings(text: &str) -> Result<ParsedScene, SceneError> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            SceneError::new(Location::Scene, "json", format!("not valid JSON: {e}"))
        })?;
        let mut warnings = Vec::new();
        let scene = parse_scene(&value, &mut warnings)?;
        scene.validate()?;
        Ok(ParsedScene { scene, warnings })
    }

    /// Checks every rule of the format and packs the shapes.
    pub fn validate(&self) -> Result<ShapeLibrary, SceneError> {
        let library = ShapeLibrary::new(&self.shapes)?;
        library.check_bodies(&self.bodies)?;
        Ok(library)
    }

    /// The scene as JSON in the scene format.
    pub fn to_json(&self) -> String {
        let shapes: Vec<Value> = self.shapes.iter().map(shape_json).collect();
        let bodies: Vec<Value> = self.bodies.iter().map(body_json).collect();
        json!({ "shapes": shapes, "bodies": bodies }).to_string()
    }
}

fn shape_json(shape: &Shape) -> Value {
    match shape {
        Shape::Polygon(p) => {
            let vertices: Vec<Value> = p.vertices.iter().map(|v| json!([v.x, v.y])).collect();
            json!({ "polygon": vertices })
        }
        Shape::Circle(c) => json!({ "circle": c.radius }),
        Shape::Bitmask(m) => json!({
            "bitmask": { "width": m.width(), "height": m.height(), "rows": m.to_rows() }
        }),
    }
}

fn body_json(body: &Body) -> Value {
    let mut object = Map::new();
    object.insert("shape".into(), json!(body.shape));
    object.insert("x".into(), json!(body.position.x));
    object.insert("y".into(), json!(body.position.y));
    if body.angle != 0.0 {
        object.insert("angle".into(), json!(body.angle));
    }
    if body.layer != u32::MAX {
        object.insert("layer".into(), json!(body.layer));
    }
    if body.mask != u32::MAX {
        object.insert("mask".into(), json!(body.mask));
    }
    Value::Object(object)
}

/// Reads fields of one JSON object, each error naming `location`, and collects
/// warnings for the fields nobody asked for.
struct Fields<'a> {
    location: Location,
    object: &'a Map<String, Value>,
    known: &'static [&'static str],
}

impl<'a> Fields<'a> {
    fn new(
        location: Location,
        value: &'a Value,
        what: &str,
        known: &'static [&'static str],
    ) -> Result<Self, SceneError> {
        let object = value.as_object().ok_or_else(|| {
            SceneError::new(
                location,
                what,
                format!("must be a JSON object, not {}", kind_of(value)),
            )
        })?;
        Ok(Fields {
            location,
            object,
            known,
        })
    }

    fn error(&self, field: &str, rule: impl Into<String>) -> SceneError {
        SceneError::new(self.location, field, rule)
    }

    fn warn_unknown(&self, warnings: &mut Vec<String>) {
        for key in self.object.keys() {
            if !self.known.contains(&key.as_str()) {
                warnings.push(format!("{}: unknown field {key:?} ignored", self.location));
            }
        }
    }

    /// A number, as f64, or `None` when absent.
    fn number(&self, field: &str) -> Result<Option<f64>, SceneError> {
        match self.object.get(field) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| self.error(field, format!("must be a number, not {}", kind_of(v)))),
        }
    }

    fn required_number(&self, field: &str) -> Result<f64, SceneError> {
        self.number(field)?
            .ok_or_else(|| self.error(field, "is required"))
    }

    /// A whole number in `0..=max`, or `None` when absent.
    fn integer(&self, field: &str, max: u64) -> Result<Option<u64>, SceneError> {
        let Some(v) = self.object.get(field) else {
            return Ok(None);
        };
        let whole = v.as_u64().or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= max as f64)
                .map(|f| f as u64)
        });
        match whole {
            Some(n) if n <= max => Ok(Some(n)),
            _ => Err(self.error(
                field,
                format!("must be a whole number from 0 to {max}, not {v}"),
            )),
        }
    }
}

/// A short name for the JSON type of `value`, for messages.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// An f64 from the file as the f32 every backend computes with, refusing what f32 cannot hold.
fn to_f32(fields: &Fields, field: &str, value: f64) -> Result<f32, SceneError> {
    let single = value as f32;
    if !single.is_finite() {
        return Err(fields.error(field, format!("{value} is too large for a 32-bit float")));
    }
    Ok(single)
}

fn parse_scene(value: &Value, warnings: &mut Vec<String>) -> Result<Scene, SceneError> {
    let top = Fields::new(Location::Scene, value, "scene", &["shapes", "bodies"])?;
    top.warn_unknown(warnings);
    let list = |field: &str| -> Result<&[Value], SceneError> {
        match top.object.get(field) {
            // An absent list is an empty one: `{}` is the empty scene.
            None => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(top.error(field, format!("must be a list, not {}", kind_of(other)))),
        }
    };
    let shapes = list("shapes")?
        .iter()
        .enumerate()
        .map(|(i, v)| parse_shape(Location::Shape(i), v, warnings))
        .collect::<Result<Vec<_>, _>>()?;
    let bodies = list("bodies")?
        .iter()
        .enumerate()
        .map(|(i, v)| parse_body(Location::Body(i), v, &shapes, warnings))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Scene { shapes, bodies })
}

const SHAPE_KINDS: &[&str] = &["polygon", "circle", "bitmask"];

fn parse_shape(
    location: Location,
    value: &Value,
    warnings: &mut Vec<String>,
) -> Result<Shape, SceneError> {
    let fields = Fields::new(location, value, "shape", SHAPE_KINDS)?;
    fields.warn_unknown(warnings);
    let present: Vec<&str> = SHAPE_KINDS
        .iter()
        .copied()
        .filter(|k| fields.object.contains_key(*k))
        .collect();
    let [kind] = present[..] else {
        return Err(fields.error(
            "shape",
            format!(
                "must have exactly one of `polygon`, `circle`, `bitmask` (found {})",
                if present.is_empty() {
                    "none".to_string()
                } else {
                    present.join(", ")
                }
            ),
        ));
    };
    let value = &fields.object[kind];
    match kind {
        "polygon" => {
            let Value::Array(items) = value else {
                return Err(fields.error(
                    "polygon",
                    format!("must be a list of [x, y] vertices, not {}", kind_of(value)),
                ));
            };
            let mut vertices = Vec::with_capacity(items.len());
            for (k, item) in items.iter().enumerate() {
                let xy = item
                    .as_array()
                    .filter(|a| a.len() == 2)
                    .and_then(|a| Some((a[0].as_f64()?, a[1].as_f64()?)));
                let Some((x, y)) = xy else {
                    return Err(fields.error(
                        "polygon",
                        format!("vertex {k} must be [x, y] with two numbers, not {item}"),
                    ));
                };
                vertices.push(glam::Vec2::new(
                    to_f32(&fields, "polygon", x)?,
                    to_f32(&fields, "polygon", y)?,
                ));
            }
            Ok(Shape::Polygon(Polygon::new(vertices)))
        }
        "circle" => {
            let radius = fields.required_number("circle")?;
            if !(radius.is_finite() && radius > 0.0) {
                return Err(fields.error(
                    "circle",
                    format!("radius {radius} must be finite and greater than 0"),
                ));
            }
            let single = to_f32(&fields, "circle", radius)?;
            Ok(Shape::Circle(Circle::new(single)))
        }
        _ => parse_bitmask(location, value, warnings).map(Shape::Bitmask),
    }
}

fn parse_bitmask(
    location: Location,
    value: &Value,
    warnings: &mut Vec<String>,
) -> Result<Bitmask, SceneError> {
    let fields = Fields::new(location, value, "bitmask", &["width", "height", "rows"])?;
    fields.warn_unknown(warnings);
    let side = |field: &str| -> Result<u64, SceneError> {
        let n = fields
            .integer(field, u32::MAX as u64)?
            .ok_or_else(|| fields.error(field, "is required"))?;
        if n == 0 || n > MAX_BITMASK_SIDE as u64 {
            return Err(fields.error(field, format!("{n} is outside 1..={MAX_BITMASK_SIDE}")));
        }
        Ok(n)
    };
    let (width, height) = (side("width")?, side("height")?);
    let rows = match fields.object.get("rows") {
        Some(Value::Array(rows)) => rows,
        Some(other) => {
            return Err(fields.error(
                "rows",
                format!("must be a list of strings, not {}", kind_of(other)),
            ))
        }
        None => return Err(fields.error("rows", "is required")),
    };
    if rows.len() as u64 != height {
        return Err(fields.error(
            "rows",
            format!("has {} rows, but height is {height}", rows.len()),
        ));
    }
    let mut texts = Vec::with_capacity(rows.len());
    for (r, row) in rows.iter().enumerate() {
        match row.as_str() {
            Some(text) => texts.push(text),
            None => {
                return Err(fields.error(
                    "rows",
                    format!("row {r} must be a string, not {}", kind_of(row)),
                ))
            }
        }
    }
    let mask = Bitmask::from_rows(&texts).map_err(|rule| fields.error("rows", rule))?;
    if mask.width() as u64 != width {
        return Err(fields.error(
            "rows",
            format!(
                "row 0 has {} characters, but width is {width}",
                mask.width()
            ),
        ));
    }
    Ok(mask)
}

fn parse_body(
    location: Location,
    value: &Value,
    shapes: &[Shape],
    warnings: &mut Vec<String>,
) -> Result<Body, SceneError> {
    let fields = Fields::new(
        location,
        value,
        "body",
        &["shape", "x", "y", "angle", "layer", "mask"],
    )?;
    fields.warn_unknown(warnings);
    let shape = fields
        .integer("shape", u32::MAX as u64)?
        .ok_or_else(|| fields.error("shape", "is required"))?;
    let Some(kind) = shapes.get(shape as usize) else {
        return Err(fields.error(
            "shape",
            format!(
                "{shape} is not a shape index (the scene has {} shapes)",
                shapes.len()
            ),
        ));
    };
    let (x, y) = (fields.required_number("x")?, fields.required_number("y")?);
    let angle = fields.number("angle")?.unwrap_or(0.0);
    if let Shape::Bitmask(_) = kind {
        // Checked here in f64: rounding to f32 could make 3.0000001 look whole.
        for (field, v) in [("x", x), ("y", y)] {
            if v.fract() != 0.0 || v.abs() > MAX_BITMASK_COORDINATE as f64 {
                return Err(fields.error(field, format!("a bitmask body must sit on a whole number within ±{MAX_BITMASK_COORDINATE}, not {v}")));
            }
        }
        if angle != 0.0 {
            return Err(fields.error(
                "angle",
                format!("a bitmask body cannot be rotated (angle {angle})"),
            ));
        }
    }
    // Reduce the angle to [-pi, pi] in f64 first, so a large angle keeps its precision in f32.
    let tau = std::f64::consts::TAU;
    let angle = angle - tau * (angle / tau).round();
    let filter = |field: &str| -> Result<u32, SceneError> {
        Ok(fields
            .integer(field, u32::MAX as u64)?
            .unwrap_or(u32::MAX as u64) as u32)
    };
    Ok(Body {
        shape: shape as u32,
        position: glam::Vec2::new(to_f32(&fields, "x", x)?, to_f32(&fields, "y", y)?),
        angle: to_f32(&fields, "angle", angle)?,
        layer: filter("layer")?,
        mask: filter("mask")?,
    })
}
