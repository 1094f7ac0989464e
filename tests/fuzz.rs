//! Fuzzing with proptest: the scene reader over arbitrary text, arbitrary JSON and
//! mutations of valid scenes, and the library over arbitrary valid shapes and bodies on
//! every backend.
//!
//! - The reader (`Scene::from_json_with_warnings`) must never panic: it answers `Ok` or
//!   an error naming a location, a field and a rule; what it accepts validates, and
//!   written back with `Scene::to_json` reads again as the same scene.
//! - The library, given valid shapes and bodies built through its API (polygons from
//!   random convex hulls of 3 to 256 vertices, circles, bitmasks up to 8192 a side and
//!   4M pixels, sizes from 1e-3 to 1e3, positions near the origin, at ±16384 and far
//!   beyond, any angle, layer and mask), must answer within 120 s without panicking,
//!   and every backend must be exact outside the band as the oracle decides it (the band
//!   widens beyond ±16384, see `support::band_for`), as the cross-check holds its scenes.
//!
//! Each target also counts what its inputs reached (scenes accepted, the fields errors
//! named, pairs decided outside the band) and fails if a run of many cases reached too
//! little: a generator that drifted into producing nothing interesting would otherwise
//! pass for ever.
//!
//! Each run draws a new seed and prints the command that repeats it; a failure is shrunk
//! (for at most a minute) and printed with that command. The default case counts keep
//! the module to about half a minute of `cargo test` on two cores; to fuzz longer, set
//! the cases per target (`--release` is faster; the test profile keeps overflow checks):
//!
//! ```text
//! FUZZ_CASES=100000 cargo test --release fuzz -- --show-output
//! FUZZ_SEED=1234 FUZZ_CASES=300 cargo test fuzz::library_on_the_gpu -- --show-output
//! ```

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::f32::consts::{FRAC_PI_2, PI};
use std::time::Duration;

use gpu_collide::glam::Vec2;
use gpu_collide::{Bitmask, Body, Circle, Polygon, Scene, Shape, ShapeLibrary};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde_json::{json, Value};

use crate::support::{check_backends, gpu, within, Backends, SPEC_EXAMPLE, SPEC_EXAMPLE_1_1};

/// A runner for one target: `FUZZ_CASES` cases when set, else `default_cases`; the seed
/// from `FUZZ_SEED` when set, else a new one. Both are printed, so a run can be repeated.
fn runner(target: &str, default_cases: u32) -> (TestRunner, String) {
    let from_env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let cases = from_env("FUZZ_CASES").map_or(default_cases, |n| n as u32);
    let seed = from_env("FUZZ_SEED").unwrap_or_else(rand::random);
    let repeat = format!("FUZZ_SEED={seed} FUZZ_CASES={cases} cargo test fuzz::{target}");
    eprintln!("fuzz {target}: {cases} cases; to repeat: {repeat}");
    let config = Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        // The seed printed above is how a failure is kept; no files beside the tests.
        failure_persistence: None,
        // A failure is shrunk for at most a minute, so CI reports it in bounded time.
        max_shrink_time: 60_000,
        ..Config::default()
    };
    (TestRunner::new(config), repeat)
}

/// Runs `test` on `cases` of `strategy`; panics with the minimal failing case and the
/// command that repeats the run.
fn fuzz<S: Strategy>(
    target: &str,
    default_cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let (mut runner, repeat) = runner(target, default_cases);
    if let Err(failure) = runner.run(&strategy, test) {
        panic!("fuzz {target}: {failure}\nto repeat: {repeat}");
    }
}

// ---------------------------------------------------------------------------------------
// The scene reader.
// ---------------------------------------------------------------------------------------

/// What the reader answered over a run: how many scenes it accepted, and the fields its
/// errors named (which show how deep into the format the inputs reached).
#[derive(Debug, Default)]
struct Answers {
    accepted: usize,
    refused: usize,
    fields: BTreeSet<String>,
}

impl Answers {
    /// Asserts at least `accepted` hundredths of the inputs were accepted and the errors
    /// named at least the `fields` given (on runs of 2000 inputs or more: a short run by
    /// hand may be unlucky).
    fn assert_reached(&self, target: &str, accepted: usize, fields: &[&str]) {
        eprintln!("fuzz {target}: {self:?}");
        let total = self.accepted + self.refused;
        if total < 2000 {
            return;
        }
        assert!(
            self.accepted * 100 >= accepted * total,
            "fuzz {target}: only {} of {total} inputs accepted",
            self.accepted
        );
        let missing: Vec<&&str> = fields
            .iter()
            .filter(|f| !self.fields.contains(**f))
            .collect();
        assert!(
            missing.is_empty(),
            "fuzz {target}: no input reached an error on {missing:?}"
        );
    }
}

/// What the reader must do with any text: no panic; an error names a location and a
/// rule, and a field unless the error is about the object as a whole (the document is
/// not JSON, a shape is not an object or has no kind); an accepted scene validates and,
/// written back, reads again the same.
fn read(text: &str, answers: &RefCell<Answers>) -> Result<(), TestCaseError> {
    let parsed = match Scene::from_json_with_warnings(text) {
        Err(e) => {
            prop_assert!(!e.rule.is_empty(), "an error without a rule: {e:?}");
            prop_assert!(e.to_string().starts_with(&e.location.to_string()));
            let mut answers = answers.borrow_mut();
            answers.refused += 1;
            answers.fields.insert(e.field);
            return Ok(());
        }
        Ok(parsed) => parsed,
    };
    answers.borrow_mut().accepted += 1;
    let scene = parsed.scene;
    if let Err(e) = scene.validate() {
        return Err(TestCaseError::fail(format!(
            "accepted a scene that does not validate: {e}"
        )));
    }
    let written = scene.to_json();
    let again = Scene::from_json_with_warnings(&written).map_err(|e| {
        TestCaseError::fail(format!("the accepted scene, written back, is refused: {e}"))
    })?;
    prop_assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    prop_assert_eq!(&again.scene.shapes, &scene.shapes);
    prop_assert_eq!(again.scene.bodies.len(), scene.bodies.len());
    for (a, b) in again.scene.bodies.iter().zip(&scene.bodies) {
        let same_turn = {
            let d = (a.angle as f64 - b.angle as f64).rem_euclid(std::f64::consts::TAU);
            d < 1e-6 || std::f64::consts::TAU - d < 1e-6
        };
        prop_assert!(
            a.shape == b.shape
                && a.position == b.position
                && a.layer == b.layer
                && a.mask == b.mask
                && same_turn,
            "body read back as {a:?}, was {b:?}"
        );
    }
    Ok(())
}

/// Text: random bytes, bytes from JSON's alphabet, and deep nesting.
fn text() -> impl Strategy<Value = String> {
    let alphabet: &[u8] = b"{}[]\":,0123456789.-+eE#. \ntrufalsn\\";
    prop_oneof![
        vec(any::<u8>(), 0..400).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        vec(select(alphabet), 0..400).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        (
            1usize..3000,
            select(&["[", "{\"shapes\":", "{\"bodies\":[", "[{\"polygon\":"][..])
        )
            .prop_map(|(depth, open)| open.repeat(depth)),
        any::<String>(),
    ]
}

#[test]
fn reader_survives_arbitrary_text() {
    let answers = RefCell::new(Answers::default());
    fuzz("reader_survives_arbitrary_text", 50000, text(), |text| {
        read(&text, &answers)
    });
    // Arbitrary text is hardly ever a scene, but some of it is JSON.
    answers
        .into_inner()
        .assert_reached("reader_survives_arbitrary_text", 0, &["json", ""]);
}

/// The keys of the scene format, which generated objects use most of the time.
const KEYS: &[&str] = &[
    "shapes", "bodies", "polygon", "circle", "bitmask", "width", "height", "rows", "shape", "x",
    "y", "angle", "layer", "mask",
];

/// Numbers at the edges of what the format and its types allow, and ordinary ones.
fn number() -> impl Strategy<Value = Value> {
    let edges = vec![
        json!(0),
        json!(-0.0),
        json!(0.5),
        json!(1),
        json!(2),
        json!(-1),
        json!(3),
        json!(255),
        json!(256),
        json!(257),
        json!(8191),
        json!(8192),
        json!(8193),
        json!(16384),
        json!(-16384.5),
        json!(16_777_215),
        json!(16_777_216),
        json!(16_777_217),
        json!(-16_777_216),
        json!(16_777_216.5),
        json!(4_294_967_295u64),
        json!(4_294_967_296u64),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e20),
        json!(3.402_823_5e38),
        json!(3.402_823_6e38),
        json!(1e39),
        json!(f64::MAX),
        json!(f64::MIN_POSITIVE),
        json!(5e-324),
        json!(1e-45),
        json!(1e-46),
        json!(std::f64::consts::PI),
        json!(1e6),
        json!(-1e9),
    ];
    prop_oneof![
        4 => select(edges),
        2 => (-20i64..20).prop_map(Value::from),
        2 => (-100.0f64..100.0).prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    let words = &[
        "NaN",
        "Infinity",
        "-Infinity",
        "1e999",
        "",
        "#",
        "polygon",
        "0",
        "\u{0}",
        "é#.",
    ][..];
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        4 => number(),
        1 => "[#.]{0,12}".prop_map(Value::String),
        1 => select(words).prop_map(Value::from),
        1 => ".{0,8}".prop_map(Value::String),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => select(KEYS).prop_map(String::from),
        1 => "[a-z]{0,6}",
    ]
}

/// Any JSON value, nested a few levels, its objects mostly keyed as scenes are.
fn any_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            vec((key(), inner), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
        ]
    })
}

/// A number most of the time, anything else sometimes.
fn mostly_number() -> impl Strategy<Value = Value> {
    prop_oneof![5 => number(), 1 => any_json()]
}

/// A shape as the format writes it, often valid, often broken in one place.
fn shape_like() -> impl Strategy<Value = Value> {
    // Valid vertices of a convex polygon (a regular one), with one sometimes replaced.
    let regular = (
        3usize..20,
        0.001f64..1000.0,
        any::<Index>(),
        mostly_number(),
    )
        .prop_map(|(n, r, which, replacement)| {
            let mut vertices: Vec<Value> = (0..n)
                .map(|k| {
                    let a = std::f64::consts::TAU * k as f64 / n as f64;
                    json!([r * a.cos(), r * a.sin()])
                })
                .collect();
            if which.index(4) == 0 {
                let k = which.index(n);
                vertices[k] = json!([replacement, 0]);
            }
            json!({ "polygon": vertices })
        });
    let bitmask = (1usize..40, 1usize..8, any::<Index>(), mostly_number()).prop_flat_map(
        |(w, h, which, wrong)| {
            vec(vec(any::<bool>(), w), h).prop_map(move |cells| {
                let rows: Vec<String> = cells
                    .iter()
                    .map(|row| row.iter().map(|&c| if c { '#' } else { '.' }).collect())
                    .collect();
                let mut mask = json!({ "width": w, "height": h, "rows": rows });
                match which.index(6) {
                    0 => mask["width"] = wrong.clone(),
                    1 => mask["height"] = wrong.clone(),
                    2 => mask["rows"][0] = wrong.clone(),
                    _ => {}
                }
                json!({ "bitmask": mask })
            })
        },
    );
    prop_oneof![
        3 => regular,
        1 => vec(vec(mostly_number(), 0..3), 0..8).prop_map(|v| json!({ "polygon": v })),
        3 => mostly_number().prop_map(|r| json!({ "circle": r })),
        3 => bitmask,
        1 => (mostly_number(), mostly_number(), vec("[#.]{0,10}", 0..4))
            .prop_map(|(w, h, rows)| json!({"bitmask": {"width": w, "height": h, "rows": rows}})),
        1 => any_json(),
    ]
}

/// A body as the format writes it, each field present or not, often a fitting number.
fn body_like() -> impl Strategy<Value = Value> {
    let field = |value: BoxedStrategy<Value>| proptest::option::weighted(0.85, value);
    (
        field(prop_oneof![4 => (0u64..4).prop_map(Value::from), 1 => mostly_number()].boxed()),
        field(mostly_number().boxed()),
        field(mostly_number().boxed()),
        proptest::option::of(mostly_number()),
        proptest::option::of(mostly_number()),
        proptest::option::of(mostly_number()),
        proptest::option::weighted(0.1, (key(), any_json())),
    )
        .prop_map(|(shape, x, y, angle, layer, mask, extra)| {
            let mut body = serde_json::Map::new();
            for (name, value) in [
                ("shape", shape),
                ("x", x),
                ("y", y),
                ("angle", angle),
                ("layer", layer),
                ("mask", mask),
            ] {
                if let Some(value) = value {
                    body.insert(name.into(), value);
                }
            }
            if let Some((name, value)) = extra {
                body.insert(name, value);
            }
            Value::Object(body)
        })
}

/// JSON shaped like a scene most of the time, anything sometimes.
fn json_scene() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (vec(shape_like(), 0..5), vec(body_like(), 0..8))
            .prop_map(|(shapes, bodies)| json!({ "shapes": shapes, "bodies": bodies })),
        1 => any_json(),
    ]
}

#[test]
fn reader_survives_arbitrary_json() {
    let answers = RefCell::new(Answers::default());
    fuzz(
        "reader_survives_arbitrary_json",
        20000,
        json_scene(),
        |value| read(&value.to_string(), &answers),
    );
    // Since a scene must name both `shapes` and `bodies`, about 3% of these are scenes.
    answers.into_inner().assert_reached(
        "reader_survives_arbitrary_json",
        2,
        &[
            "", "shapes", "bodies", "shape", "polygon", "circle", "bitmask", "width", "height",
            "rows", "x", "y", "angle", "layer", "mask",
        ],
    );
}

/// Numbers and almost-numbers to put in place of a number of a valid scene.
const EXTREME_TOKENS: &[&str] = &[
    "1e39",
    "-1e39",
    "3.4028235e38",
    "3.4028236e38",
    "1e-46",
    "-0",
    "-0.0",
    "0",
    "8192",
    "8193",
    "0.5",
    "16777216",
    "16777217",
    "16777216.5",
    "-16777217",
    "4294967295",
    "4294967296",
    "-1",
    "1e20",
    "1e308",
    "1e400",
    "-1e400",
    "1e-400",
    "9007199254740993",
    "18446744073709551616",
    "NaN",
    "Infinity",
    "256",
    "257",
    "2",
    "00",
    "1.",
    "-",
    "1e",
    "0x10",
    "[]",
    "{}",
    "null",
    "\"3\"",
];

/// Where in a sequence, as a fraction of its length (`u64::MAX` is the end), so that the
/// same pick means something whatever the length after earlier mutations.
#[derive(Debug, Clone, Copy)]
struct Pick(u64);

impl Pick {
    /// An index in `0..len` (`len` > 0).
    fn of(self, len: usize) -> usize {
        ((self.0 as u128 * len as u128) >> 64) as usize
    }
}

fn pick() -> impl Strategy<Value = Pick> {
    any::<u64>().prop_map(Pick)
}

/// One change to the bytes of a scene.
#[derive(Debug, Clone)]
enum Mutation {
    /// Flip one bit of one byte.
    Flip(Pick, u8),
    /// Insert a byte.
    Insert(Pick, u8),
    /// Delete up to 8 bytes.
    Delete(Pick, usize),
    /// Repeat up to 40 bytes in place.
    Repeat(Pick, usize),
    /// Replace one number with an extreme one.
    Number(Pick, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => (pick(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip(at, bit)),
        1 => (pick(), select(&b"{}[]\":,-.e0123456789# "[..]))
            .prop_map(|(at, byte)| Mutation::Insert(at, byte)),
        1 => (pick(), 1usize..8).prop_map(|(at, n)| Mutation::Delete(at, n)),
        1 => (pick(), 1usize..40).prop_map(|(at, n)| Mutation::Repeat(at, n)),
        3 => (pick(), select(EXTREME_TOKENS)).prop_map(|(at, t)| Mutation::Number(at, t)),
    ]
}

/// Where the numbers of a JSON text are, as byte ranges.
fn numbers_in(text: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut spans = Vec::new();
    let mut k = 0;
    while k < text.len() {
        let starts = text[k].is_ascii_digit()
            || (text[k] == b'-' && text.get(k + 1).is_some_and(u8::is_ascii_digit));
        if !starts {
            k += 1;
            continue;
        }
        let start = k;
        k += 1;
        while k < text.len() && matches!(text[k], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
            k += 1;
        }
        spans.push(start..k);
    }
    spans
}

fn mutate(mut bytes: Vec<u8>, mutations: &[Mutation]) -> String {
    for m in mutations {
        // A place between bytes, the end included.
        let at = |pick: &Pick| pick.of(bytes.len() + 1);
        match m {
            Mutation::Flip(i, bit) if !bytes.is_empty() => {
                let k = i.of(bytes.len());
                bytes[k] ^= 1 << bit;
            }
            Mutation::Insert(i, byte) => {
                let k = at(i);
                bytes.insert(k, *byte);
            }
            Mutation::Delete(i, n) => {
                let k = at(i).min(bytes.len());
                bytes.drain(k..(k + n).min(bytes.len()));
            }
            Mutation::Repeat(i, n) => {
                let k = at(i).min(bytes.len());
                let piece = bytes[k..(k + n).min(bytes.len())].to_vec();
                bytes.splice(k..k, piece);
            }
            Mutation::Number(i, token) => {
                let spans = numbers_in(&bytes);
                if !spans.is_empty() {
                    let span = spans[i.of(spans.len())].clone();
                    bytes.splice(span, token.bytes());
                }
            }
            Mutation::Flip(..) => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Valid scenes to start from: the examples of the spec's two versions (1.1 with motion
/// and queries) and small generated ones.
fn valid_scenes() -> Vec<String> {
    use gpu_collide::generate::{random_scene, SceneKind};
    let mut scenes = vec![SPEC_EXAMPLE.to_string(), SPEC_EXAMPLE_1_1.to_string()];
    for (k, kind) in SceneKind::ALL.iter().enumerate() {
        scenes.push(random_scene(*kind, 6, k as u64).to_json());
    }
    for scene in &scenes {
        Scene::from_json(scene).expect("the seeds of the mutations are valid");
    }
    scenes
}

#[test]
fn reader_survives_mutations_of_valid_scenes() {
    let answers = RefCell::new(Answers::default());
    let scenes = valid_scenes();
    let count = scenes.len();
    fuzz(
        "reader_survives_mutations_of_valid_scenes",
        50000,
        (0..count, vec(mutation(), 1..6)),
        |(k, mutations)| read(&mutate(scenes[k].as_bytes().to_vec(), &mutations), &answers),
    );
    answers.into_inner().assert_reached(
        "reader_survives_mutations_of_valid_scenes",
        2,
        &["json", "polygon", "circle", "x", "y", "angle", "rows"],
    );
}

#[test]
fn mutations_do_what_they_say() {
    let text = br#"{"x": 12.5, "y": -3}"#.to_vec();
    assert_eq!(numbers_in(&text), vec![6..10, 17..19]);
    let (first, last) = (Pick(0), Pick(u64::MAX));
    assert_eq!(
        mutate(text.clone(), &[Mutation::Number(last, "1e400")]),
        r#"{"x": 12.5, "y": 1e400}"#
    );
    assert_eq!(
        mutate(text.clone(), &[Mutation::Delete(first, 3)]),
        r#"": 12.5, "y": -3}"#
    );
    assert_eq!(
        mutate(text.clone(), &[Mutation::Flip(first, 0)]),
        r#"z"x": 12.5, "y": -3}"#
    );
    assert_eq!(
        mutate(text, &[Mutation::Insert(last, b']')]),
        r#"{"x": 12.5, "y": -3}]"#
    );
}

// ---------------------------------------------------------------------------------------
// The library on every backend.
// ---------------------------------------------------------------------------------------

/// How to build a shape; kept as the few numbers that decide it, so a failing case
/// prints short and shrinks well.
#[derive(Debug, Clone)]
enum ShapeRecipe {
    /// The convex hull of `vertices` points on an ellipse `size` across (`aspect` times
    /// longer than wide), turned and moved off the origin by `offset` times its size.
    Polygon {
        vertices: usize,
        size: f32,
        aspect: f32,
        jitter: bool,
        offset: (f32, f32),
        seed: u64,
    },
    Circle {
        radius: f32,
    },
    /// `density` of the pixels set at random (at least one).
    Bitmask {
        width: u32,
        height: u32,
        density: f64,
        seed: u64,
    },
}

/// Most pixels a fuzzed bitmask may have: the oracle reads every one of them.
const MAX_FUZZ_PIXELS: u64 = 1 << 22;

impl ShapeRecipe {
    fn build(&self) -> Shape {
        match *self {
            ShapeRecipe::Polygon {
                vertices,
                size,
                aspect,
                jitter,
                offset,
                seed,
            } => {
                let mut rng = Pcg64::seed_from_u64(seed);
                let turn = rng.random_range(-PI..PI) as f64;
                let (a, b) = (size as f64 / 2.0, size as f64 / 2.0 / aspect as f64);
                let points: Vec<[f64; 2]> = (0..vertices)
                    .map(|_| {
                        let t = rng.random_range(0.0..std::f64::consts::TAU);
                        let r = if jitter {
                            rng.random_range(0.8..1.0)
                        } else {
                            1.0
                        };
                        let (x, y) = (r * a * t.cos(), r * b * t.sin());
                        let (x, y) = (
                            x * turn.cos() - y * turn.sin() + offset.0 as f64 * size as f64,
                            x * turn.sin() + y * turn.cos() + offset.1 as f64 * size as f64,
                        );
                        // The hull is taken of the points as the library will hold them.
                        [x as f32 as f64, y as f32 as f64]
                    })
                    .collect();
                let hull = convex_hull(points);
                Shape::Polygon(Polygon::new(
                    hull.iter()
                        .map(|p| Vec2::new(p[0] as f32, p[1] as f32))
                        .collect(),
                ))
            }
            ShapeRecipe::Circle { radius } => Shape::Circle(Circle::new(radius)),
            ShapeRecipe::Bitmask {
                width,
                height,
                density,
                seed,
            } => {
                let height = height.min((MAX_FUZZ_PIXELS / width as u64) as u32).max(1);
                let mut mask = Bitmask::new(width, height).expect("sides in range");
                let mut rng = Pcg64::seed_from_u64(seed);
                let pixels = width as u64 * height as u64;
                if density >= 0.05 {
                    for r in 0..height {
                        for c in 0..width {
                            mask.set(c, r, rng.random_bool(density));
                        }
                    }
                } else {
                    for _ in 0..((pixels as f64 * density) as u64).max(1) {
                        let (c, r) = (rng.random_range(0..width), rng.random_range(0..height));
                        mask.set(c, r, true);
                    }
                }
                mask.set(
                    rng.random_range(0..width),
                    rng.random_range(0..height),
                    true,
                );
                Shape::Bitmask(mask)
            }
        }
    }

    /// About how large the shape is, to crowd bodies enough that they touch.
    fn size(&self) -> f32 {
        match *self {
            ShapeRecipe::Polygon { size, .. } => size,
            ShapeRecipe::Circle { radius } => 2.0 * radius,
            ShapeRecipe::Bitmask { width, height, .. } => width.max(height).min(64) as f32,
        }
    }
}

/// The convex hull, counter-clockwise, without collinear points (Andrew's monotone chain).
fn convex_hull(mut points: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    points.sort_by(|p, q| p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1])));
    points.dedup();
    let turn = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let chain = |points: &mut dyn Iterator<Item = [f64; 2]>| {
        let mut half: Vec<[f64; 2]> = Vec::new();
        for p in points {
            while half.len() >= 2 && turn(half[half.len() - 2], half[half.len() - 1], p) <= 0.0 {
                half.pop();
            }
            half.push(p);
        }
        half.pop();
        half
    };
    if points.len() < 3 {
        return points;
    }
    let mut hull = chain(&mut points.iter().copied());
    hull.extend(chain(&mut points.iter().rev().copied()));
    hull
}

/// Sizes from 1e-3 to 1e3, most of them from 0.1 to 100.
fn size() -> impl Strategy<Value = f32> {
    prop_oneof![
        12 => (-1.0f32..2.0).prop_map(|e| 10f32.powf(e)),
        4 => (-3.0f32..3.0).prop_map(|e| 10f32.powf(e)),
        // Now and then far beyond the 1024 across of the promise, up to a million.
        1 => (3.0f32..6.0).prop_map(|e| 10f32.powf(e)),
    ]
}

fn polygon_recipe() -> impl Strategy<Value = ShapeRecipe> {
    let vertices = prop_oneof![
        3 => 3usize..=12,
        2 => 3usize..=256,
        1 => select(&[127usize, 128, 255, 256][..]),
    ];
    (
        vertices,
        size(),
        prop_oneof![3 => Just(1.0f32), 1 => 1.0f32..40.0],
        any::<bool>(),
        prop_oneof![3 => Just((0.0f32, 0.0f32)), 1 => (-1.0f32..1.0, -1.0f32..1.0)],
        any::<u64>(),
    )
        .prop_map(
            |(vertices, size, aspect, jitter, offset, seed)| ShapeRecipe::Polygon {
                vertices,
                size,
                aspect,
                jitter,
                offset,
                seed,
            },
        )
        // Rare hulls of nearly collinear points are refused by the library, rightly.
        .prop_filter("a valid polygon", |recipe| {
            ShapeLibrary::new(&[recipe.build()]).is_ok()
        })
}

fn bitmask_recipe() -> impl Strategy<Value = ShapeRecipe> {
    let side = || {
        prop_oneof![
            4 => 1u32..=40,
            1 => 1u32..=8192,
            1 => select(&[1u32, 31, 32, 33, 8191, 8192][..]),
        ]
    };
    let density = select(&[1.0, 0.5, 0.1, 0.01, 0.0001][..]);
    (side(), side(), density, any::<u64>()).prop_map(|(width, height, density, seed)| {
        ShapeRecipe::Bitmask {
            width,
            height,
            density,
            seed,
        }
    })
}

fn shape_recipe() -> impl Strategy<Value = ShapeRecipe> {
    prop_oneof![
        3 => polygon_recipe(),
        2 => size().prop_map(|s| ShapeRecipe::Circle { radius: s / 2.0 }),
        2 => bitmask_recipe(),
    ]
}

/// A body: which shape, where in the crowd (from -1 to 1 across it), turned how, in
/// which groups.
#[derive(Debug, Clone)]
struct BodyRecipe {
    shape: Index,
    at: (f32, f32),
    angle: f32,
    filter: Option<(u32, u32)>,
}

fn body_recipe() -> impl Strategy<Value = BodyRecipe> {
    (
        any::<Index>(),
        (-1.0f32..1.0, -1.0f32..1.0),
        prop_oneof![
            2 => Just(0.0f32),
            4 => -PI..PI,
            1 => Just(FRAC_PI_2),
            1 => -1000.0f32..1000.0,
        ],
        proptest::option::weighted(0.3, (0u32..4, 0u32..16)),
    )
        .prop_map(|(shape, at, angle, filter)| BodyRecipe {
            shape,
            at,
            angle,
            filter: filter.map(|(layer, mask)| (1 << layer, mask)),
        })
}

/// A scene: its shapes, where its crowd is, how tightly packed, and its bodies.
#[derive(Debug, Clone)]
struct SceneRecipe {
    shapes: Vec<ShapeRecipe>,
    centre: (f32, f32),
    crowding: f32,
    bodies: Vec<BodyRecipe>,
}

impl SceneRecipe {
    fn build(&self) -> Scene {
        let shapes: Vec<Shape> = self.shapes.iter().map(ShapeRecipe::build).collect();
        let typical = self.shapes.iter().map(ShapeRecipe::size).sum::<f32>() / shapes.len() as f32;
        let spread = typical * self.crowding;
        let centre = Vec2::from(self.centre);
        let edge = gpu_collide::library::MAX_BITMASK_COORDINATE;
        let bodies = self
            .bodies
            .iter()
            .map(|b| {
                let shape = b.shape.index(shapes.len());
                let mut body =
                    Body::new(shape as u32, centre + Vec2::from(b.at) * spread).with_angle(b.angle);
                if let Some((layer, mask)) = b.filter {
                    body = body.with_filter(layer, mask);
                }
                if let Shape::Bitmask(_) = shapes[shape] {
                    // Whole coordinates within the format's range, unrotated.
                    body.position = body
                        .position
                        .round()
                        .clamp(Vec2::splat(-edge), Vec2::splat(edge));
                    body.angle = 0.0;
                }
                body
            })
            .collect();
        Scene {
            shapes,
            bodies,
            ..Scene::default()
        }
    }
}

fn scene_recipe(max_bodies: usize) -> impl Strategy<Value = SceneRecipe> {
    let centre = prop_oneof![
        6 => Just((0.0f32, 0.0f32)),
        1 => Just((16000.0, -16000.0)),
        1 => Just((-16384.0, 16384.0)),
        1 => (-1e6f32..1e6, -1e6f32..1e6),
        1 => Just((-1e9, 3e8)),
    ];
    (
        vec(shape_recipe(), 1..6),
        centre,
        prop_oneof![1.0f32..4.0, 0.1f32..1.0],
        vec(body_recipe(), 0..max_bodies),
    )
        .prop_map(|(shapes, centre, crowding, bodies)| SceneRecipe {
            shapes,
            centre,
            crowding,
            bodies,
        })
}

/// What the fuzzed scenes held, to show they test something.
#[derive(Debug, Default)]
struct Tally {
    scenes: usize,
    with_pairs: usize,
    pairs: usize,
    decided: usize,
    band: usize,
}

/// Builds the scene and checks it on `backends` against the oracle, within two minutes.
/// The bound catches a hang, not slowness (speed is the benchmarks' business): the oracle
/// reads every pixel of a bitmask pair in f64, and a few dense 4M-pixel masks checked on
/// every backend, on two cores shared with the GPU tests, took over 30 s
/// (`FUZZ_SEED=711509495047496124 FUZZ_CASES=800`, before and after the half-forward grid).
fn check_recipe(
    recipe: SceneRecipe,
    backends: Backends,
    tally: &RefCell<Tally>,
) -> Result<(), TestCaseError> {
    let scene = recipe.build();
    prop_assert!(
        scene.validate().is_ok(),
        "the recipe built an invalid scene"
    );
    let answer = within(Duration::from_secs(120), move || {
        check_backends("fuzzed scene", &scene, backends)
    });
    match answer {
        None => Err(TestCaseError::fail("no answer within 120 s")),
        Some(Err(problems)) => Err(TestCaseError::fail(problems)),
        Some(Ok(checked)) => {
            let truth = &checked.truth;
            let mut tally = tally.borrow_mut();
            tally.scenes += 1;
            tally.with_pairs += usize::from(!truth.pairs.is_empty());
            tally.pairs += truth.pairs.len();
            tally.decided += truth.pairs.difference(&truth.band).count();
            tally.band += truth.band.len();
            Ok(())
        }
    }
}

/// Fuzzes the library on `backends`; the scenes must have held enough pairs decided
/// outside the band for the run to mean something.
fn fuzz_library(target: &str, default_cases: u32, max_bodies: usize, backends: Backends) {
    let tally = RefCell::new(Tally::default());
    fuzz(target, default_cases, scene_recipe(max_bodies), |recipe| {
        check_recipe(recipe, backends, &tally)
    });
    let tally = tally.into_inner();
    eprintln!("fuzz {target}: {tally:?}");
    // (Not on runs of a few cases by hand, which may be unlucky.)
    assert!(
        tally.scenes < 50 || (tally.with_pairs * 3 >= tally.scenes && tally.decided * 2 >= tally.pairs),
        "fuzz {target}: too few pairs, or too many of them in the band, to test anything: {tally:?}"
    );
}

#[test]
fn library_on_the_reference_and_cpu_backends() {
    fuzz_library(
        "library_on_the_reference_and_cpu_backends",
        800,
        40,
        Backends::CpuQuiet,
    );
}

#[test]
fn library_on_the_gpu() {
    if gpu().is_none() {
        return;
    }
    fuzz_library("library_on_the_gpu", 300, 30, Backends::AllQuiet);
}

#[test]
fn recipes_build_what_they_say() {
    // The hull of points on an ellipse keeps them all, counter-clockwise and convex.
    let polygon = ShapeRecipe::Polygon {
        vertices: 256,
        size: 20.0,
        aspect: 1.0,
        jitter: false,
        offset: (0.0, 0.0),
        seed: 1,
    };
    let Shape::Polygon(p) = polygon.build() else {
        panic!("a polygon recipe builds a polygon")
    };
    assert!(p.vertices.len() > 200, "{} vertices", p.vertices.len());
    ShapeLibrary::new(&[Shape::Polygon(p)]).expect("a valid polygon");
    let square = convex_hull(vec![
        [0.0, 0.0],
        [1.0, 0.0],
        [0.5, 0.5],
        [1.0, 1.0],
        [0.0, 1.0],
        [0.5, 0.0],
    ]);
    assert_eq!(square, vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]);
    // Bitmasks are capped in pixels and never empty.
    let mask = ShapeRecipe::Bitmask {
        width: 8192,
        height: 8192,
        density: 0.0001,
        seed: 2,
    };
    let Shape::Bitmask(m) = mask.build() else {
        panic!("a bitmask recipe builds a bitmask")
    };
    assert_eq!((m.width(), m.height()), (8192, 512));
    assert!(m.words().iter().any(|&w| w != 0));
}
