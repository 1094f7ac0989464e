//! Scenes and the scene file format (`docs/scene-format.md`): reading JSON with an error
//! that names the shape or body, the field and the rule; writing it back.
//!
//! Messages quote values from the file cut to [`QUOTE_CHARS`] characters, so that a
//! 400 KB string or a 309-digit number makes a one-line error, not a screenful.

use std::cell::RefCell;
use std::fmt;
use std::io::Read;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Map, Number, Value};

use crate::answer::query::{BoxQuery, PointQuery, QueryBatch, Ray};
use crate::error::{f32_text, Error, Location, SceneError};
use crate::input::body::Body;
use crate::input::library::{ShapeLibrary, MAX_BITMASK_COORDINATE, MAX_DISPLACEMENT};
use crate::input::shapes::{
    Bitmask, Capsule, Circle, Compound, Concave, Part, Polygon, Shape, MAX_BITMASK_SIDE,
};

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
    /// The scene's queries (format 1.1: `rays`, `points`, `boxes`), empty when it has none.
    pub queries: QueryBatch,
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
    ///
    /// A key given twice in one object is refused: serde_json would keep the last one
    /// silently, and the file's author meant one of them.
    pub fn from_json_with_warnings(text: &str) -> Result<ParsedScene, SceneError> {
        let value = parse_json(text)?;
        let mut warnings = Vec::new();
        let scene = parse_scene(&value, &mut warnings)?;
        scene.validate()?;
        Ok(ParsedScene { scene, warnings })
    }

    /// Checks every rule of the format and packs the shapes.
    pub fn validate(&self) -> Result<ShapeLibrary, SceneError> {
        let library = ShapeLibrary::new(&self.shapes)?;
        library.check_bodies(&self.bodies)?;
        self.queries.validate()?;
        Ok(library)
    }

    /// The scene as JSON in the scene format.
    pub fn to_json(&self) -> String {
        let shapes: Vec<Value> = self.shapes.iter().map(shape_json).collect();
        let bodies: Vec<Value> = self.bodies.iter().map(body_json).collect();
        let mut top = Map::new();
        top.insert("shapes".into(), json!(shapes));
        top.insert("bodies".into(), json!(bodies));
        // A scene without queries stays a version 1 file.
        let q = &self.queries;
        if !q.rays.is_empty() {
            let rays: Vec<Value> = q.rays.iter().map(ray_json).collect();
            top.insert("rays".into(), json!(rays));
        }
        if !q.points.is_empty() {
            let points: Vec<Value> = q.points.iter().map(point_json).collect();
            top.insert("points".into(), json!(points));
        }
        if !q.boxes.is_empty() {
            let boxes: Vec<Value> = q.boxes.iter().map(box_json).collect();
            top.insert("boxes".into(), json!(boxes));
        }
        Value::Object(top).to_string()
    }
}

/// Adds `mask` to a query's object unless it is the default.
fn with_mask(mut object: Map<String, Value>, mask: u32) -> Value {
    if mask != u32::MAX {
        object.insert("mask".into(), json!(mask));
    }
    Value::Object(object)
}

fn ray_json(ray: &Ray) -> Value {
    let mut object = Map::new();
    object.insert("x".into(), f32_json(ray.origin.x));
    object.insert("y".into(), f32_json(ray.origin.y));
    object.insert("dx".into(), f32_json(ray.delta.x));
    object.insert("dy".into(), f32_json(ray.delta.y));
    with_mask(object, ray.mask)
}

fn point_json(point: &PointQuery) -> Value {
    let mut object = Map::new();
    object.insert("x".into(), f32_json(point.point.x));
    object.insert("y".into(), f32_json(point.point.y));
    with_mask(object, point.mask)
}

fn box_json(query: &BoxQuery) -> Value {
    let mut object = Map::new();
    object.insert(
        "min".into(),
        json!([f32_json(query.min.x), f32_json(query.min.y)]),
    );
    object.insert(
        "max".into(),
        json!([f32_json(query.max.x), f32_json(query.max.y)]),
    );
    with_mask(object, query.mask)
}

fn shape_json(shape: &Shape) -> Value {
    match shape {
        Shape::Polygon(p) => json!({ "polygon": vertices_json(&p.vertices) }),
        Shape::Circle(c) => json!({ "circle": f32_json(c.radius) }),
        Shape::Capsule(c) => json!({
            "capsule": {
                "a": [f32_json(c.a.x), f32_json(c.a.y)],
                "b": [f32_json(c.b.x), f32_json(c.b.y)],
                "radius": f32_json(c.radius),
            }
        }),
        Shape::Concave(c) => json!({ "concave": vertices_json(&c.vertices) }),
        Shape::Compound(c) => {
            let parts: Vec<Value> = c
                .parts
                .iter()
                .map(|part| {
                    let mut object = Map::new();
                    object.insert("shape".into(), json!(part.shape));
                    object.insert("x".into(), f32_json(part.offset.x));
                    object.insert("y".into(), f32_json(part.offset.y));
                    if part.angle != 0.0 {
                        object.insert("angle".into(), f32_json(part.angle));
                    }
                    Value::Object(object)
                })
                .collect();
            json!({ "compound": parts })
        }
        Shape::Bitmask(m) => json!({
            "bitmask": { "width": m.width(), "height": m.height(), "rows": m.to_rows() }
        }),
    }
}

fn vertices_json(vertices: &[glam::Vec2]) -> Vec<Value> {
    vertices
        .iter()
        .map(|v| json!([f32_json(v.x), f32_json(v.y)]))
        .collect()
}

fn body_json(body: &Body) -> Value {
    let mut object = Map::new();
    object.insert("shape".into(), json!(body.shape));
    object.insert("x".into(), f32_json(body.position.x));
    object.insert("y".into(), f32_json(body.position.y));
    if body.angle != 0.0 {
        object.insert("angle".into(), f32_json(body.angle));
    }
    if body.velocity.x != 0.0 {
        object.insert("vx".into(), f32_json(body.velocity.x));
    }
    if body.velocity.y != 0.0 {
        object.insert("vy".into(), f32_json(body.velocity.y));
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

    /// The fields the format does not know, quoted for a message.
    fn unknown(&self) -> Vec<String> {
        self.object
            .keys()
            .filter(|key| !self.known.contains(&key.as_str()))
            .map(|key| quote(&format!("{key:?}")))
            .collect()
    }

    fn warn_unknown(&self, warnings: &mut Vec<String>) {
        for key in self.unknown() {
            warnings.push(format!("{}: unknown field {key} ignored", self.location));
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
                format!("must be a whole number from 0 to {max}, not {}", quote(v)),
            )),
        }
    }
}

/// `[x, y]`, two numbers, as a pair; `None` for anything else.
fn xy(item: &Value) -> Option<(f64, f64)> {
    item.as_array()
        .filter(|a| a.len() == 2)
        .and_then(|a| Some((a[0].as_f64()?, a[1].as_f64()?)))
}

impl Fields<'_> {
    /// The required `[x, y]` of field `field`, named `name` in errors.
    fn required_xy(&self, field: &str, name: &str) -> Result<(f64, f64), SceneError> {
        let Some(item) = self.object.get(field) else {
            return Err(self.error(name, "is required"));
        };
        xy(item).ok_or_else(|| {
            self.error(
                name,
                format!("must be [x, y] with two numbers, not {}", quote(item)),
            )
        })
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

/// Most characters of a value from the file that a message quotes; longer ones are cut
/// and end in `…`.
pub const QUOTE_CHARS: usize = 40;

/// `value` as text for a message, cut to [`QUOTE_CHARS`] characters.
fn quote(value: &(impl fmt::Display + ?Sized)) -> String {
    let text = value.to_string();
    match text.char_indices().nth(QUOTE_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// A number from the file for a message: Rust prints `1e300` as 301 digits, so large and
/// tiny magnitudes are written with an exponent.
fn number_text(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-6..1e16).contains(&magnitude) {
        quote(&format!("{value:e}"))
    } else {
        quote(&value)
    }
}

/// An f32 as a JSON number written with the digits that identify the f32 (`1e-30`,
/// `0.43333334`), not those of its f64 widening (`9.999999999999999e-31`,
/// `0.4333333373069763`), which claim a precision the f32 does not have. Read back as
/// f32, it is the same f32. Not finite, it is `null`, as serde_json has it.
pub fn f32_json(value: f32) -> Value {
    // `Display` gives the shortest decimal that reads back as the same f32; that decimal
    // read as f64 is the f64 that serde_json writes as the same digits.
    let shortest: f64 = value.to_string().parse().unwrap_or(f64::from(value));
    Value::from(shortest)
}

/// An f64 from the file as the f32 every backend computes with, refusing what f32 cannot hold.
fn to_f32(fields: &Fields, field: &str, value: f64) -> Result<f32, SceneError> {
    let single = value as f32;
    if !single.is_finite() {
        return Err(fields.error(
            field,
            format!("{} is too large for a 32-bit float", number_text(value)),
        ));
    }
    Ok(single)
}

/// Parses JSON text into a [`Value`], refusing a key repeated within one object, with
/// an error naming the key and the shape or body it is in.
fn parse_json(text: &str) -> Result<Value, SceneError> {
    let duplicate = RefCell::new(None);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    // serde_json's own recursion limit (128 levels) still applies: it counts in the
    // deserializer, whatever builds the values.
    let value = ValueSeed {
        path: &JsonPath::Top,
        duplicate: &duplicate,
    }
    .deserialize(&mut deserializer)
    .and_then(|value| deserializer.end().map(|()| value));
    value.map_err(|e| {
        duplicate.take().unwrap_or_else(|| {
            SceneError::new(Location::Scene, "json", format!("not valid JSON: {e}"))
        })
    })
}

/// Where a JSON value sits: the keys and list indices leading to it from the top,
/// each step pointing to its parent (no allocation while all goes well).
enum JsonPath<'a> {
    Top,
    Key(&'a JsonPath<'a>, &'a str),
    Index(&'a JsonPath<'a>, usize),
}

impl JsonPath<'_> {
    /// The steps from the top down.
    fn steps(&self) -> Vec<&JsonPath<'_>> {
        let mut steps = Vec::new();
        let mut at = self;
        loop {
            match at {
                JsonPath::Top => break,
                JsonPath::Key(parent, _) | JsonPath::Index(parent, _) => {
                    steps.push(at);
                    at = parent;
                }
            }
        }
        steps.reverse();
        steps
    }

    /// The error for `key`, given twice in the object at this path: located at the shape
    /// or body the object is (or is inside of), else at the scene; naming the object
    /// within it when it is not the shape or body itself.
    fn duplicate(&self, key: &str) -> SceneError {
        let steps = self.steps();
        let (location, inner) = match steps.as_slice() {
            [JsonPath::Key(_, "shapes"), JsonPath::Index(_, i), rest @ ..] => {
                (Location::Shape(*i), rest)
            }
            [JsonPath::Key(_, "bodies"), JsonPath::Index(_, i), rest @ ..] => {
                (Location::Body(*i), rest)
            }
            [JsonPath::Key(_, "rays"), JsonPath::Index(_, i), rest @ ..] => {
                (Location::Ray(*i), rest)
            }
            [JsonPath::Key(_, "points"), JsonPath::Index(_, i), rest @ ..] => {
                (Location::Point(*i), rest)
            }
            [JsonPath::Key(_, "boxes"), JsonPath::Index(_, i), rest @ ..] => {
                (Location::Box(*i), rest)
            }
            all => (Location::Scene, all),
        };
        let within: Vec<String> = inner
            .iter()
            .map(|step| match step {
                JsonPath::Key(_, key) => quote(key),
                JsonPath::Index(_, i) => format!("[{i}]"),
                JsonPath::Top => String::new(),
            })
            .collect();
        let rule = if within.is_empty() {
            "is given more than once; each key may appear once".to_string()
        } else {
            format!(
                "is given more than once in `{}`; each key may appear once",
                within.join(".").replace(".[", "[")
            )
        };
        SceneError::new(location, quote(key), rule)
    }
}

/// Builds a [`Value`] as serde_json's own `Deserialize` does, but fails on a repeated
/// key, leaving the error (which knows where) in `duplicate`.
#[derive(Clone, Copy)]
struct ValueSeed<'a> {
    path: &'a JsonPath<'a>,
    duplicate: &'a RefCell<Option<SceneError>>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let path = JsonPath::Index(self.path, items.len());
            let seed = ValueSeed {
                path: &path,
                duplicate: self.duplicate,
            };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                let error = self.path.duplicate(&key);
                let message = error.to_string();
                self.duplicate.replace(Some(error));
                return Err(de::Error::custom(message));
            }
            let path = JsonPath::Key(self.path, &key);
            let value = map.next_value_seed(ValueSeed {
                path: &path,
                duplicate: self.duplicate,
            })?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Most bytes of a scene file [`read_text`] reads by default: 1 GiB, some twenty
/// million bodies, past what the benchmark's generators make; a larger input is more
/// likely a device or a wrong file than a scene.
pub const MAX_SCENE_BYTES: u64 = 1 << 30;

/// Reads the text of a scene file (named `name` in errors) from `reader`, at most
/// `limit` bytes. Stops at the first byte that is not whitespace if it is not `{`: a
/// scene is a JSON object, and `/dev/zero` or a binary file must not be read to the
/// end (or to the limit) before being refused.
pub fn read_text(reader: impl Read, name: &str, limit: u64) -> Result<String, Error> {
    let io_error = |source| Error::Io {
        path: name.to_string(),
        source,
    };
    let mut reader = reader.take(limit.saturating_add(1));
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut started = false;
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_error(e)),
        };
        let new = &chunk[..n];
        if !started {
            if let Some(k) = new.iter().position(|b| !b" \t\n\r".contains(b)) {
                if new[k] != b'{' {
                    return Err(SceneError::new(
                        Location::Scene,
                        "",
                        format!(
                            "must be a JSON object, which starts with `{{`, but byte {} is {}",
                            bytes.len() + k,
                            byte_text(new[k])
                        ),
                    )
                    .into());
                }
                started = true;
            }
        }
        bytes.extend_from_slice(new);
        if bytes.len() as u64 > limit {
            return Err(io_error(std::io::Error::other(format!(
                "larger than {}, the most a scene may be",
                bytes_text(limit)
            ))));
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        io_error(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text (byte {at})"),
        ))
    })
}

/// A byte for a message: `'['` when printable ASCII, else `0x00`.
fn byte_text(byte: u8) -> String {
    if byte.is_ascii_graphic() {
        format!("'{}'", byte as char)
    } else {
        format!("0x{byte:02X}")
    }
}

/// `1 GiB`, `512 KiB`, or bytes.
fn bytes_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

fn parse_scene(value: &Value, warnings: &mut Vec<String>) -> Result<Scene, SceneError> {
    let top = Fields::new(
        Location::Scene,
        value,
        "",
        &["shapes", "bodies", "rays", "points", "boxes"],
    )?;
    top.warn_unknown(warnings);
    let list = |field: &str| -> Result<&[Value], SceneError> {
        match top.object.get(field) {
            // Both lists are required, empty or not: an absent one is more likely a
            // misspelt key (`boKies`) than a wish for no bodies.
            None => {
                let unknown = top.unknown();
                Err(top.error(
                    field,
                    if unknown.is_empty() {
                        "is required (a list, which may be empty)".to_string()
                    } else {
                        format!(
                            "is required (a list, which may be empty); the scene has unknown field {}: misspelt?",
                            unknown.join(", ")
                        )
                    },
                ))
            }
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
    // The query lists of format 1.1 are optional: absent means none.
    let optional_list = |field: &str| -> Result<&[Value], SceneError> {
        match top.object.get(field) {
            None => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(top.error(field, format!("must be a list, not {}", kind_of(other)))),
        }
    };
    let rays = optional_list("rays")?
        .iter()
        .enumerate()
        .map(|(i, v)| parse_ray(Location::Ray(i), v, warnings))
        .collect::<Result<Vec<_>, _>>()?;
    let points = optional_list("points")?
        .iter()
        .enumerate()
        .map(|(i, v)| parse_point(Location::Point(i), v, warnings))
        .collect::<Result<Vec<_>, _>>()?;
    let boxes = optional_list("boxes")?
        .iter()
        .enumerate()
        .map(|(i, v)| parse_box(Location::Box(i), v, warnings))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Scene {
        shapes,
        bodies,
        queries: QueryBatch {
            rays,
            points,
            boxes,
        },
    })
}

/// A required coordinate of a query, as f32.
fn query_number(fields: &Fields, field: &str) -> Result<f32, SceneError> {
    let value = fields.required_number(field)?;
    to_f32(fields, field, value)
}

/// A query's `mask`: a u32, every bit set when absent.
fn query_mask(fields: &Fields) -> Result<u32, SceneError> {
    Ok(fields
        .integer("mask", u32::MAX as u64)?
        .unwrap_or(u32::MAX as u64) as u32)
}

fn parse_ray(
    location: Location,
    value: &Value,
    warnings: &mut Vec<String>,
) -> Result<Ray, SceneError> {
    let fields = Fields::new(location, value, "", &["x", "y", "dx", "dy", "mask"])?;
    fields.warn_unknown(warnings);
    let origin = glam::Vec2::new(query_number(&fields, "x")?, query_number(&fields, "y")?);
    let delta = glam::Vec2::new(query_number(&fields, "dx")?, query_number(&fields, "dy")?);
    let ray = Ray::new(origin, delta).with_mask(query_mask(&fields)?);
    // Here rather than only in `QueryBatch::validate`, so the message quotes the file's
    // numbers: a delta of 1e-50 is not zero in the file but is in f32.
    if delta == glam::Vec2::ZERO {
        let (dx, dy) = (fields.required_number("dx")?, fields.required_number("dy")?);
        let why = if dx == 0.0 && dy == 0.0 {
            "zero length: a ray must go somewhere".to_string()
        } else {
            format!(
                "zero length as 32-bit floats ({}, {}): a ray must go somewhere",
                number_text(dx),
                number_text(dy)
            )
        };
        return Err(fields.error("dx, dy", why));
    }
    Ok(ray)
}

fn parse_point(
    location: Location,
    value: &Value,
    warnings: &mut Vec<String>,
) -> Result<PointQuery, SceneError> {
    let fields = Fields::new(location, value, "", &["x", "y", "mask"])?;
    fields.warn_unknown(warnings);
    let point = glam::Vec2::new(query_number(&fields, "x")?, query_number(&fields, "y")?);
    Ok(PointQuery::new(point).with_mask(query_mask(&fields)?))
}

fn parse_box(
    location: Location,
    value: &Value,
    warnings: &mut Vec<String>,
) -> Result<BoxQuery, SceneError> {
    let fields = Fields::new(location, value, "", &["min", "max", "mask"])?;
    fields.warn_unknown(warnings);
    let corner = |field: &str| fields.required_xy(field, field);
    let (min, max) = (corner("min")?, corner("max")?);
    for (axis, lo, hi) in [("x", min.0, max.0), ("y", min.1, max.1)] {
        if lo > hi {
            return Err(fields.error(
                "min, max",
                format!(
                    "min is greater than max on {axis} ({} > {})",
                    number_text(lo),
                    number_text(hi)
                ),
            ));
        }
    }
    let min = glam::Vec2::new(
        to_f32(&fields, "min", min.0)?,
        to_f32(&fields, "min", min.1)?,
    );
    let max = glam::Vec2::new(
        to_f32(&fields, "max", max.0)?,
        to_f32(&fields, "max", max.1)?,
    );
    Ok(BoxQuery::new(min, max).with_mask(query_mask(&fields)?))
}

const SHAPE_KINDS: &[&str] = &[
    "polygon", "circle", "capsule", "concave", "compound", "bitmask",
];

fn parse_shape(
    location: Location,
    value: &Value,
    warnings: &mut Vec<String>,
) -> Result<Shape, SceneError> {
    let fields = Fields::new(location, value, "", SHAPE_KINDS)?;
    fields.warn_unknown(warnings);
    let present: Vec<&str> = SHAPE_KINDS
        .iter()
        .copied()
        .filter(|k| fields.object.contains_key(*k))
        .collect();
    let [kind] = present[..] else {
        return Err(fields.error(
            "",
            format!(
                "must have exactly one of `polygon`, `circle`, `capsule`, `concave`, `compound`, `bitmask` (found {})",
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
        "polygon" => Ok(Shape::Polygon(Polygon::new(vertex_list(
            &fields, "polygon", value,
        )?))),
        "concave" => Ok(Shape::Concave(Concave::new(vertex_list(
            &fields, "concave", value,
        )?))),
        "compound" => parse_compound(&fields, value, warnings).map(Shape::Compound),
        "circle" => {
            let radius = fields.required_number("circle")?;
            if !(radius.is_finite() && radius > 0.0) {
                return Err(fields.error(
                    "circle",
                    format!(
                        "radius {} must be finite and greater than 0",
                        number_text(radius)
                    ),
                ));
            }
            let single = to_f32(&fields, "circle", radius)?;
            Ok(Shape::Circle(Circle::new(single)))
        }
        "capsule" => parse_capsule(location, value, warnings).map(Shape::Capsule),
        _ => parse_bitmask(location, value, warnings).map(Shape::Bitmask),
    }
}

/// A list of `[x, y]` vertices, the value of field `field`.
fn vertex_list(fields: &Fields, field: &str, value: &Value) -> Result<Vec<glam::Vec2>, SceneError> {
    let Value::Array(items) = value else {
        return Err(fields.error(
            field,
            format!("must be a list of [x, y] vertices, not {}", kind_of(value)),
        ));
    };
    let mut vertices = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        let Some((x, y)) = xy(item) else {
            return Err(fields.error(
                field,
                format!(
                    "vertex {k} must be [x, y] with two numbers, not {}",
                    quote(item)
                ),
            ));
        };
        vertices.push(glam::Vec2::new(
            to_f32(fields, field, x)?,
            to_f32(fields, field, y)?,
        ));
    }
    Ok(vertices)
}

/// A compound's list of parts `{"shape", "x", "y", "angle"}` (`x`, `y` and `angle`
/// 0 when absent); what the parts name is the library's to check.
fn parse_compound(
    fields: &Fields,
    value: &Value,
    warnings: &mut Vec<String>,
) -> Result<Compound, SceneError> {
    let Value::Array(items) = value else {
        return Err(fields.error(
            "compound",
            format!("must be a list of parts, not {}", kind_of(value)),
        ));
    };
    let mut parts = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        let name = format!("compound: part {k}");
        let part = Fields::new(fields.location, item, &name, &["shape", "x", "y", "angle"])?;
        for key in part.unknown() {
            warnings.push(format!(
                "{}: {name}: unknown field {key} ignored",
                fields.location
            ));
        }
        let in_part = |field: &str| format!("{name}: {field}");
        let shape = part
            .integer("shape", u32::MAX as u64)
            .map_err(|e| fields.error(&in_part("shape"), e.rule))?
            .ok_or_else(|| fields.error(&in_part("shape"), "is required"))?;
        let number = |field: &str| -> Result<f32, SceneError> {
            let value = part
                .number(field)
                .map_err(|e| fields.error(&in_part(field), e.rule))?
                .unwrap_or(0.0);
            to_f32(fields, &in_part(field), value)
        };
        let offset = glam::Vec2::new(number("x")?, number("y")?);
        let angle = number("angle")?;
        parts.push(Part {
            shape: shape as u32,
            offset,
            angle,
        });
    }
    Ok(Compound::new(parts))
}

fn parse_capsule(
    location: Location,
    value: &Value,
    warnings: &mut Vec<String>,
) -> Result<Capsule, SceneError> {
    let fields = Fields::new(location, value, "capsule", &["a", "b", "radius"])?;
    fields.warn_unknown(warnings);
    let end = |field: &str| -> Result<glam::Vec2, SceneError> {
        let name = format!("capsule: {field}");
        let (x, y) = fields.required_xy(field, &name)?;
        Ok(glam::Vec2::new(
            to_f32(&fields, &name, x)?,
            to_f32(&fields, &name, y)?,
        ))
    };
    let (a, b) = (end("a")?, end("b")?);
    let radius = match fields.object.get("radius") {
        None => return Err(fields.error("capsule: radius", "is required")),
        Some(v) => v
            .as_f64()
            .filter(|r| r.is_finite() && *r >= 0.0)
            .ok_or_else(|| {
                fields.error(
                    "capsule: radius",
                    format!("must be finite and >= 0, not {}", quote(v)),
                )
            })?,
    };
    let radius = to_f32(&fields, "capsule: radius", radius)?;
    Ok(Capsule::new(a, b, radius))
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
        "",
        &["shape", "x", "y", "angle", "vx", "vy", "layer", "mask"],
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
    let (vx, vy) = (
        fields.number("vx")?.unwrap_or(0.0),
        fields.number("vy")?.unwrap_or(0.0),
    );
    // The displacement as the frame uses it: a value that rounds to 0 in f32 is no
    // motion, for a bitmask as for any other body.
    let velocity = glam::Vec2::new(to_f32(&fields, "vx", vx)?, to_f32(&fields, "vy", vy)?);
    for (field, v, single) in [("vx", vx, velocity.x), ("vy", vy, velocity.y)] {
        if single.abs() > MAX_DISPLACEMENT {
            return Err(fields.error(
                field,
                format!(
                    "a displacement of {} is beyond ±{MAX_DISPLACEMENT:e}",
                    number_text(v)
                ),
            ));
        }
    }
    if let Shape::Bitmask(_) = kind {
        for (field, v) in [("vx", velocity.x), ("vy", velocity.y)] {
            if v != 0.0 {
                return Err(fields.error(
                    field,
                    format!("a bitmask body cannot move ({field} {})", f32_text(v)),
                ));
            }
        }
        // Checked here in f64: rounding to f32 could make 3.0000001 look whole.
        for (field, v) in [("x", x), ("y", y)] {
            if v.fract() != 0.0 || v.abs() > MAX_BITMASK_COORDINATE as f64 {
                return Err(fields.error(
                    field,
                    format!(
                        "a bitmask body must sit on a whole number within ±{MAX_BITMASK_COORDINATE}, not {}",
                        number_text(v)
                    ),
                ));
            }
        }
        if angle != 0.0 {
            return Err(fields.error(
                "angle",
                format!(
                    "a bitmask body cannot be rotated (angle {})",
                    number_text(angle)
                ),
            ));
        }
    }
    // Reduce the angle to [-pi, pi] in f64 first, so a large angle keeps its precision in
    // f32. The remainder is exact in floating point, where `angle - tau * round(angle /
    // tau)` is not: for an angle of 1e43 that left 1.2e27, which read again gave another.
    let (tau, pi) = (std::f64::consts::TAU, std::f64::consts::PI);
    let turned = angle % tau;
    let angle = if turned > pi {
        turned - tau
    } else if turned < -pi {
        turned + tau
    } else {
        turned
    };
    let filter = |field: &str| -> Result<u32, SceneError> {
        Ok(fields
            .integer(field, u32::MAX as u64)?
            .unwrap_or(u32::MAX as u64) as u32)
    };
    Ok(Body {
        shape: shape as u32,
        position: glam::Vec2::new(to_f32(&fields, "x", x)?, to_f32(&fields, "y", y)?),
        angle: to_f32(&fields, "angle", angle)?,
        velocity,
        layer: filter("layer")?,
        mask: filter("mask")?,
        // Scene files carry no ids: a body is its index there.
        id: crate::input::body::NO_ID,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8], limit: u64) -> Result<String, String> {
        read_text(bytes, "input", limit).map_err(|e| e.to_string())
    }

    #[test]
    fn reading_stops_at_a_first_byte_that_cannot_start_a_scene() {
        assert_eq!(read(b" \n\t{}", 100).as_deref(), Ok(" \n\t{}"));
        let message = read(b"\n  [1, 2]", 100).expect_err("a list is not a scene");
        assert!(message.contains("byte 3 is '['"), "{message}");
        // An endless source of zeros is refused after the first read, not at the limit.
        let message = read_text(std::io::repeat(0), "zeros", u64::MAX)
            .expect_err("zeros are not a scene")
            .to_string();
        assert!(message.contains("byte 0 is 0x00"), "{message}");
    }

    #[test]
    fn reading_stops_past_the_limit_naming_it() {
        assert!(read(b"{}          ", 12).is_ok());
        let message = read(b"{}           ", 12).expect_err("one byte too many");
        assert!(
            message.contains("input") && message.contains("larger than 12 bytes"),
            "{message}"
        );
        // Endless whitespace: the first byte is never known, the limit still holds.
        let message = read_text(std::io::repeat(b' '), "spaces", 1 << 20)
            .expect_err("endless")
            .to_string();
        assert!(message.contains("larger than 1 MiB"), "{message}");
    }

    #[test]
    fn reading_refuses_text_that_is_not_utf8() {
        let message = read(b"{\"a\": \"\xff\"}", 100).expect_err("not UTF-8");
        assert!(
            message.contains("UTF-8") && message.contains("byte 7"),
            "{message}"
        );
    }

    #[test]
    fn quotes_are_cut_and_numbers_short() {
        assert_eq!(quote("short"), "short");
        let long = "é".repeat(100);
        assert_eq!(quote(&long), format!("{}…", "é".repeat(QUOTE_CHARS)));
        assert_eq!(number_text(1e300), "1e300");
        assert_eq!(number_text(-2.5), "-2.5");
        assert_eq!(number_text(3.0), "3");
        assert_eq!(number_text(1e-300), "1e-300");
    }

    #[test]
    fn f32_values_are_printed_with_their_own_shortest_digits() {
        use crate::error::f32_text;
        assert_eq!(f32_text(1e-30), "1e-30");
        assert_eq!(f32_text(-3e38), "-3e38");
        assert_eq!(f32_text(13.0 / 30.0), "0.43333334");
        assert_eq!(f32_text(2.5), "2.5");
        assert_eq!(f32_text(0.0), "0");
        assert_eq!(f32_text(f32::INFINITY), "inf");
        assert_eq!(f32_json(1e-30).to_string(), "1e-30");
        assert_eq!(f32_json(13.0 / 30.0).to_string(), "0.43333334");
        assert_eq!(f32_json(f32::NAN), Value::Null);
        // A scene written back says the numbers it was given, not their f64 widening.
        let scene = Scene::from_json(
            r#"{"shapes": [{"circle": 1e-30}, {"polygon": [[0, 0], [0.1, 0], [0, 0.3]]}],
                "bodies": [{"shape": 0, "x": 0.1, "y": 1e-30, "angle": 0.7}],
                "rays": [{"x": 0.1, "y": 0, "dx": 0.3, "dy": 0}]}"#,
        )
        .expect("valid");
        let text = scene.to_json();
        for written in [
            r#"{"circle":1e-30}"#,
            "[0.1,0.0]",
            "[0.0,0.3]",
            r#""x":0.1"#,
            r#""y":1e-30"#,
            r#""angle":0.7"#,
            r#""dx":0.3"#,
        ] {
            assert!(text.contains(written), "{written} in {text}");
        }
        assert_eq!(Scene::from_json(&text).expect("valid"), scene);
    }

    #[test]
    fn motion_and_queries_are_written_back_as_read() {
        let text = r#"{"shapes": [{"circle": 1.0}], "bodies": [
            {"shape": 0, "x": 0, "y": 0, "vx": 30, "vy": -2.5, "layer": 2, "mask": 1},
            {"shape": 0, "x": 5, "y": 0}],
            "rays": [{"x": -10, "y": 0.5, "dx": 40, "dy": 0, "mask": 1}],
            "points": [{"x": 15, "y": 3}],
            "boxes": [{"min": [-2, -2], "max": [2, 2]}]}"#;
        let scene = Scene::from_json(text).expect("valid");
        assert_eq!(scene.bodies[0].velocity, glam::Vec2::new(30.0, -2.5));
        assert_eq!(scene.bodies[1].velocity, glam::Vec2::ZERO);
        assert_eq!(scene.queries.rays[0].mask, 1);
        assert_eq!(scene.queries.points[0].mask, u32::MAX);
        assert_eq!(scene.queries.boxes[0].max, glam::Vec2::new(2.0, 2.0));
        assert_eq!(Scene::from_json(&scene.to_json()).expect("valid"), scene);
        // A version 1 scene is written as version 1: no new keys.
        let still = Scene::from_json(
            r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "x": 0, "y": 0}]}"#,
        )
        .expect("valid")
        .to_json();
        for key in ["vx", "vy", "rays", "points", "boxes"] {
            assert!(!still.contains(key), "{still}");
        }
    }

    #[test]
    fn angles_are_reduced_once_and_for_all() {
        let angle_of = |angle: &str| {
            let text = format!(
                r#"{{"shapes": [{{"circle": 1}}], "bodies": [{{"shape": 0, "x": 0, "y": 0, "angle": {angle}}}]}}"#
            );
            Scene::from_json(&text).expect("valid").bodies[0].angle
        };
        for angle in ["1e43", "1.2379401e27", "-3e300", "7", "-3.2", "3.14159"] {
            let once = angle_of(angle);
            assert!(once.abs() <= std::f32::consts::PI, "{angle} read as {once}");
            // Written back and read again, the body turns the same way.
            assert_eq!(angle_of(&once.to_string()), once, "{angle}");
        }
        assert_eq!(angle_of("7"), (7.0 - std::f64::consts::TAU) as f32);
    }
}
