//! The crate's one error type, [`Error`], and the scene-validation error it wraps,
//! [`SceneError`], which names the shape or body, the field and the rule broken.

use std::fmt;

/// Where in a scene a problem was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// The scene as a whole (its JSON syntax or top-level fields).
    Scene,
    /// The shape with this index in the shape list.
    Shape(usize),
    /// The body with this index in the body list.
    Body(usize),
    /// The ray with this index in the scene's `rays` (format 1.1).
    Ray(usize),
    /// The point query with this index in the scene's `points` (format 1.1).
    Point(usize),
    /// The box query with this index in the scene's `boxes` (format 1.1).
    Box(usize),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Scene => write!(f, "scene"),
            Location::Shape(i) => write!(f, "shape {i}"),
            Location::Body(i) => write!(f, "body {i}"),
            Location::Ray(i) => write!(f, "ray {i}"),
            Location::Point(i) => write!(f, "point {i}"),
            Location::Box(i) => write!(f, "box {i}"),
        }
    }
}

/// A scene that breaks a rule of the scene format; the whole scene is refused.
///
/// Displays as `shape 3: polygon: not convex (turns the other way at vertex 2)`:
/// location, field, rule; or as `body 2: must be a JSON object, not a list` when the
/// field is empty, the rule being about the shape, body or scene as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SceneError {
    /// The shape or body (or the scene itself) at fault.
    pub location: Location,
    /// The field at fault, as spelled in the scene format (`polygon`, `x`, `mask`, ...);
    /// empty when the rule is about the object at `location` itself.
    pub field: String,
    /// The rule that was broken, in words.
    pub rule: String,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // An empty field would print `scene: : rule`, and naming the location again as
        // the field would print `scene: scene: rule`.
        if self.field.is_empty() {
            write!(f, "{}: {}", self.location, self.rule)
        } else {
            write!(f, "{}: {}: {}", self.location, self.field, self.rule)
        }
    }
}

impl std::error::Error for SceneError {}

impl SceneError {
    /// Builds an error for `location`, `field` and `rule`.
    pub fn new(location: Location, field: impl Into<String>, rule: impl Into<String>) -> Self {
        SceneError {
            location,
            field: field.into(),
            rule: rule.into(),
        }
    }
}

/// Everything that can go wrong in gpu-collide.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The scene breaks a rule of the format; nothing was computed.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// wgpu found no adapter at all on the backends tried: the one case where installing
    /// a (software) driver is the answer.
    #[error("no GPU adapter found ({0}); on a machine without a GPU install a software one, e.g. `apt-get install mesa-vulkan-drivers` for lavapipe, or use the cpu backend")]
    NoAdapter(String),
    /// `WGPU_BACKEND` names something that is not a backend (wgpu itself would skip the
    /// name with a log line nobody sees, and then find no adapter).
    #[error("WGPU_BACKEND=`{value}`: {problem}; it takes backend names, comma-separated, in any case: vulkan (or vk), gl (or gles, opengl), metal (or mtl), dx12 (or d3d12), webgpu, noop")]
    UnknownBackend {
        /// The variable's value.
        value: String,
        /// What is wrong with it, e.g. ``"`bogus` is not a backend"``.
        problem: String,
    },
    /// `WGPU_ADAPTER_NAME` is part of no adapter's name.
    #[error("WGPU_ADAPTER_NAME=`{wanted}` is part of no adapter's name (case-insensitive); the adapters are: {}", .adapters.join("; "))]
    AdapterNotFound {
        /// The variable's value.
        wanted: String,
        /// Every adapter found, described (name, backend, type, driver).
        adapters: Vec<String>,
    },
    /// Adapters exist (and match `WGPU_ADAPTER_NAME`, if set), but none can run the
    /// pipeline: it needs compute shaders and indirect dispatch.
    #[error("no adapter can run compute shaders with indirect dispatch, which the gpu backend needs (use the cpu backend); the adapters are: {}", .adapters.join("; "))]
    NoUsableAdapter {
        /// The adapters considered, described.
        adapters: Vec<String>,
    },
    /// Every usable adapter refused to open a device.
    #[error("no adapter could open a device: {0}")]
    NoDevice(String),
    /// The adapter refused to open a device.
    #[error("could not open a device on adapter `{adapter}`: {reason}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// What wgpu said.
        reason: String,
    },
    /// The adapter is Mesa's llvmpipe running more invocations in lockstep than the
    /// kernels' loop budgets allow for (`supported`).
    #[error("adapter `{adapter}` runs {lanes} invocations in lockstep, and llvmpipe counts its cap of 65535 loop iterations over them together; gpu-collide's kernels are budgeted for at most {supported}, so answers could be cut short silently. Set LP_NATIVE_VECTOR_WIDTH=256 in the environment before the device is opened, or use the cpu backend")]
    TooManyLanes {
        /// The adapter's name.
        adapter: String,
        /// Invocations per lockstep group, from the vector width in the adapter's name.
        lanes: u32,
        /// The most the kernels' loop budgets allow for.
        supported: u32,
    },
    /// A device handed to [`crate::GpuContext::from_device`] was opened with a limit
    /// below what the kernels need.
    #[error("the device's `{limit}` is {has}, and gpu-collide's kernels need at least {needed}: request it when opening the device (wgpu::Limits::default() has enough)")]
    DeviceLimit {
        /// The field of `wgpu::Limits`.
        limit: &'static str,
        /// What the kernels need.
        needed: u64,
        /// What the device has.
        has: u64,
    },
    /// Something a frame or a query batch needs is larger than the device allows in one
    /// buffer (or than the kernels can number), and the work cannot be split any
    /// further: nothing was computed. Displays as `too large for the gpu backend: the
    /// bodies' grid cells for 10000000 bodies would need 240000000 bytes, and this device
    /// allows a storage buffer of at most 134217728 bytes; ...`, the hint last.
    #[error("too large for the gpu backend: {what} would need {needed} {unit}, and {allowed} at most {limit} {unit}{}", hint_suffix(.hint))]
    TooLarge {
        /// What would not fit, and for how many items, e.g. `the bodies' grid cells for
        /// 10000000 bodies`.
        what: String,
        /// How much it would need, in `unit`.
        needed: u64,
        /// The most allowed, in `unit`.
        limit: u64,
        /// The unit of `needed` and `limit`: `bytes`, or `body indices`.
        unit: &'static str,
        /// Whose limit it is and on what, e.g. `this device allows a storage buffer of`.
        allowed: &'static str,
        /// What the caller can do about it (a smaller batch, the cpu backend); may be empty.
        hint: String,
    },
    /// The bodies' boxes overlap in more pairs than the collider's limit allows, so the
    /// frame was refused before its memory could grow without bound (a dense pile of
    /// bodies on one point has n²/2 such pairs). Raise the limit with
    /// `set_max_pairs` on the collider (`--max-pairs` on the command line) if the
    /// memory is there: each pair held costs 8 bytes.
    #[error("more than {limit} pairs of bodies have overlapping boxes ({found} found so far); the limit bounds memory (8 bytes a pair): raise it with set_max_pairs, or --max-pairs on the command line")]
    TooManyPairs {
        /// Box-overlapping pairs found before the frame stopped (at least this many exist).
        found: u64,
        /// The limit in force.
        limit: u64,
    },
    /// wgpu reported an error (validation, out of memory, internal) or the device was lost.
    #[error("GPU error: {0}")]
    Gpu(String),
    /// Reading a file failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The API was used in a way it does not allow (for example frames collected out of
    /// the order they were submitted); the message says what to do instead.
    #[error("{0}")]
    InvalidUse(String),
    /// The backend does not answer this question yet (swept pairs, contacts or queries
    /// on the gpu backend): nothing was computed, and another backend can answer it.
    #[error("{what} is not implemented on the {backend} backend yet; use the cpu backend")]
    Unsupported {
        /// The backend's name (`gpu`).
        backend: String,
        /// What was asked, e.g. `contacts`.
        what: String,
    },
    /// A [`crate::Collider`] implemented outside this crate failed (the benchmark's
    /// parry2d baseline, when a shape is beyond it): the backend's name and what it said.
    #[error("{backend}: {message}")]
    Backend {
        /// The backend's name.
        backend: &'static str,
        /// What went wrong.
        message: String,
    },
}

/// `; hint`, or nothing for an empty hint.
fn hint_suffix(hint: &str) -> String {
    if hint.is_empty() {
        String::new()
    } else {
        format!("; {hint}")
    }
}

impl Error {
    /// [`Error::TooLarge`] for a storage buffer: `what` would need `needed` bytes, and
    /// this device binds at most `limit` bytes of storage at once.
    pub(crate) fn buffer_too_large(
        what: impl Into<String>,
        needed: u64,
        limit: u64,
        hint: impl Into<String>,
    ) -> Self {
        Error::TooLarge {
            what: what.into(),
            needed,
            limit,
            unit: "bytes",
            allowed: "this device allows a storage buffer of",
            hint: hint.into(),
        }
    }
}

/// An f32 for a person to read, in a message or a label: the shortest text that reads
/// back as the same f32 (never its f64 widening's digits), with an exponent when the
/// magnitude is tiny or huge (`1e-30` rather than 31 digits, most of them zeros).
pub fn f32_text(value: f32) -> String {
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-6..1e16).contains(&magnitude) {
        format!("{value:e}")
    } else {
        value.to_string()
    }
}
