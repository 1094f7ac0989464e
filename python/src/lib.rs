//! `gpu_collide._native`: the Rust half of the `gpu_collide` Python package.
//!
//! The Python half (`python/gpu_collide/__init__.py`) checks numpy dtypes and shapes and hands
//! over arrays of exactly the types taken here; everything per body or per sprite runs
//! here, in Rust, so that a frame costs no Python loop. Every failure is a Python
//! exception carrying the library's message; nothing here panics on any input.

use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};

use gpu_collide::{
    glam::Vec2, Body, BoxQuery, Capsule as RsCapsule, Circle as RsCircle, Collider as _,
    Compound as RsCompound, Concave as RsConcave, ContactKind, CpuCollider, Error, GpuCollider,
    GpuContext, Location, Part, PointQuery, Polygon as RsPolygon, QueryBatch, Ray, Shape,
    ShapeLibrary,
};
use numpy::{
    PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{
    PyIndexError, PyNotImplementedError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;

mod bits;
mod runtime_dir;
mod sprites;

use bits::{MaskBits, RawMask};

/// The library's error as the Python exception that fits it: an unknown shape index is
/// an `IndexError`, any other refused input a `ValueError`, a question the backend does
/// not answer (none does now: kept for a backend that may lack a question) a
/// `NotImplementedError`, the rest (no adapter, a GPU failure, too many pairs) a
/// `RuntimeError`; the message is the library's own.
pub(crate) fn to_py(error: Error) -> PyErr {
    let message = error.to_string();
    match &error {
        Error::Scene(scene)
            if matches!(scene.location, Location::Body(_)) && scene.field == "shape" =>
        {
            PyIndexError::new_err(message)
        }
        Error::Scene(_) => PyValueError::new_err(message),
        Error::Unsupported { .. } => PyNotImplementedError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// The process's one GPU device, opened on first use and shared by every collider, so
/// that the shaders are compiled once (a software adapter takes seconds for that). An
/// adapter that failed to open is not retried: the message is kept. Without
/// `XDG_RUNTIME_DIR`, one is provided while the device opens (see [`runtime_dir`]).
fn gpu_context() -> Result<GpuContext, String> {
    static CONTEXT: OnceLock<Result<GpuContext, String>> = OnceLock::new();
    CONTEXT
        .get_or_init(|| {
            let _runtime_dir = runtime_dir::RuntimeDir::provide();
            GpuContext::new().map_err(|e| e.to_string())
        })
        .clone()
}

/// Which backend a collider runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    Cpu,
    Gpu,
}

impl Backend {
    /// `"gpu"` fails without an adapter; `"auto"` takes the GPU when a hardware adapter
    /// opens and the CPU otherwise. A software adapter (llvmpipe, lavapipe, WARP) runs
    /// the same stages on the same CPU cores as the cpu backend, with a driver between,
    /// so it is never the faster choice: on two cores, 5000 sprites took 21 ms a frame
    /// on lavapipe against 5.4 ms on the cpu backend (BENCHMARKS.md, "Python:
    /// group_collide against pygame"). `"gpu"` still
    /// takes a software adapter when asked for.
    pub(crate) fn choose(name: &str) -> PyResult<Self> {
        match name {
            "cpu" => Ok(Backend::Cpu),
            "gpu" => gpu_context()
                .map(|_| Backend::Gpu)
                .map_err(PyRuntimeError::new_err),
            "auto" => Ok(match gpu_context() {
                Ok(c) if c.adapter.device_type != gpu_collide::wgpu::DeviceType::Cpu => {
                    Backend::Gpu
                }
                _ => Backend::Cpu,
            }),
            other => Err(PyValueError::new_err(format!(
                "backend must be \"auto\", \"gpu\" or \"cpu\", not {other:?}"
            ))),
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
        }
    }
}

/// A collider of either backend over one shape library (an enum rather than a boxed
/// trait object so that it is `Send` and can run with the GIL released).
pub(crate) enum Engine {
    // Boxed: the two differ in size by kilobytes, and an Engine is moved around whole.
    Cpu(Box<CpuCollider>),
    Gpu(Box<GpuCollider>),
}

impl Engine {
    pub(crate) fn new(backend: Backend, library: ShapeLibrary) -> PyResult<Self> {
        Ok(match backend {
            Backend::Cpu => Engine::Cpu(Box::new(CpuCollider::new(library))),
            Backend::Gpu => {
                let context = gpu_context().map_err(PyRuntimeError::new_err)?;
                Engine::Gpu(Box::new(
                    GpuCollider::new(&context, library).map_err(to_py)?,
                ))
            }
        })
    }

    pub(crate) fn collider(&mut self) -> &mut dyn gpu_collide::Collider {
        match self {
            Engine::Cpu(c) => c.as_mut(),
            Engine::Gpu(g) => g.as_mut(),
        }
    }

    /// The pairs of `bodies`, computed with the GIL released so other Python threads run.
    pub(crate) fn find_pairs(
        &mut self,
        py: Python<'_>,
        bodies: &[Body],
    ) -> PyResult<Vec<[u32; 2]>> {
        self.run(py, |c| c.find_pairs(bodies))
    }

    /// `question` asked of the collider with the GIL released, its error as an exception.
    pub(crate) fn run<T: Send>(
        &mut self,
        py: Python<'_>,
        question: impl FnOnce(&mut dyn gpu_collide::Collider) -> Result<T, Error> + Send,
    ) -> PyResult<T> {
        py.detach(|| question(self.collider())).map_err(to_py)
    }
}

/// Locks a pyclass's state, or fails at once if another call holds it. Waiting would
/// deadlock: the holder releases the GIL during the frame and needs it back to finish,
/// while the waiter would hold the GIL; and a call that re-enters from Python code the
/// holder runs (a sprite's `rect` property) would wait for itself. A poisoned lock (a
/// panic elsewhere, which should not happen) is an exception too, not a second panic.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> PyResult<MutexGuard<'_, T>> {
    mutex.try_lock().map_err(|e| match e {
        TryLockError::WouldBlock => PyRuntimeError::new_err(
            "this collider is in use by another thread (or by a call on this thread that is \
             running Python code, such as a sprite's rect property): give each thread its \
             own collider, or take turns with a threading.Lock",
        ),
        TryLockError::Poisoned(_) => {
            PyRuntimeError::new_err("collider state poisoned by an earlier failure")
        }
    })
}

/// A convex polygon, vertices in either winding (checked when a collider is built).
#[pyclass(module = "gpu_collide._native", frozen)]
#[derive(Clone)]
pub struct Polygon {
    vertices: Vec<[f32; 2]>,
}

#[pymethods]
impl Polygon {
    /// `vertices`: an (N, 2) array of floats or integers, or a sequence of (x, y) pairs.
    #[new]
    fn new(vertices: &Bound<'_, PyAny>) -> PyResult<Self> {
        let array = float_rows(vertices, "polygon vertices")?;
        Ok(Polygon { vertices: array })
    }

    /// The vertices as given, as a list of (x, y).
    #[getter]
    fn vertices(&self) -> Vec<(f32, f32)> {
        self.vertices.iter().map(|v| (v[0], v[1])).collect()
    }

    fn __repr__(&self) -> String {
        format!("Polygon({} vertices)", self.vertices.len())
    }
}

/// A circle of `radius` centred on its body's position.
#[pyclass(module = "gpu_collide._native", frozen)]
#[derive(Clone)]
pub struct Circle {
    #[pyo3(get)]
    radius: f32,
}

#[pymethods]
impl Circle {
    #[new]
    fn new(radius: f32) -> Self {
        Circle { radius }
    }

    fn __repr__(&self) -> String {
        format!("Circle({})", self.radius)
    }
}

/// Every point within `radius` of the segment from `a` to `b` (format 1.2): a segment
/// with radius 0, a point with `a == b` too.
#[pyclass(module = "gpu_collide._native", frozen)]
#[derive(Clone)]
pub struct Capsule {
    a: [f32; 2],
    b: [f32; 2],
    #[pyo3(get)]
    radius: f32,
}

#[pymethods]
impl Capsule {
    #[new]
    #[pyo3(signature = (a, b, radius = 0.0))]
    fn new(a: (f32, f32), b: (f32, f32), radius: f32) -> Self {
        Capsule {
            a: [a.0, a.1],
            b: [b.0, b.1],
            radius,
        }
    }

    /// One end, (x, y).
    #[getter]
    fn a(&self) -> (f32, f32) {
        (self.a[0], self.a[1])
    }

    /// The other end, (x, y).
    #[getter]
    fn b(&self) -> (f32, f32) {
        (self.b[0], self.b[1])
    }

    fn __repr__(&self) -> String {
        format!("Capsule({:?}, {:?}, {})", self.a, self.b, self.radius)
    }
}

/// A simple polygon, convex or not (format 1.2), cut into convex pieces when a collider
/// is built.
#[pyclass(module = "gpu_collide._native", frozen)]
#[derive(Clone)]
pub struct Concave {
    vertices: Vec<[f32; 2]>,
}

#[pymethods]
impl Concave {
    /// `vertices`: the outline, an (N, 2) array of floats or integers, or a sequence of
    /// (x, y) pairs, in either winding.
    #[new]
    fn new(vertices: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Concave {
            vertices: float_rows(vertices, "concave vertices")?,
        })
    }

    /// The outline as given, as a list of (x, y).
    #[getter]
    fn vertices(&self) -> Vec<(f32, f32)> {
        self.vertices.iter().map(|v| (v[0], v[1])).collect()
    }

    fn __repr__(&self) -> String {
        format!("Concave({} vertices)", self.vertices.len())
    }
}

/// The union of other shapes of the same collider (format 1.2): `parts` a sequence of
/// `(shape, x, y, angle)`, each the index of a shape in the collider's list (not a
/// compound, not a bitmask) placed in the compound's frame.
#[pyclass(module = "gpu_collide._native", frozen)]
#[derive(Clone)]
pub struct Compound {
    parts: Vec<(u32, f32, f32, f32)>,
}

#[pymethods]
impl Compound {
    #[new]
    fn new(parts: Vec<(u32, f32, f32, f32)>) -> Self {
        Compound { parts }
    }

    /// The parts as given, as a list of (shape, x, y, angle).
    #[getter]
    fn parts(&self) -> Vec<(u32, f32, f32, f32)> {
        self.parts.clone()
    }

    fn __repr__(&self) -> String {
        format!("Compound({} parts)", self.parts.len())
    }
}

/// A 1-bit mask, `height` rows of `width` pixels; pixel (x, y) of a body at (px, py)
/// covers the unit square with top-left corner (px + x, py + y).
#[pyclass(module = "gpu_collide._native", frozen)]
#[derive(Clone)]
pub struct Bitmask {
    pub(crate) bits: MaskBits,
}

#[pymethods]
impl Bitmask {
    /// From a 2D numpy array of bool or uint8, shape (height, width), `array[y, x]` being
    /// pixel (x, y) and any non-zero value set; or from a `pygame.mask.Mask`.
    #[new]
    fn new(source: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(array) = source.cast::<PyUntypedArray>() {
            if array.ndim() != 2 {
                return Err(PyValueError::new_err(format!(
                    "a bitmask array must be 2D (height, width), not of shape {:?}",
                    array.shape()
                )));
            }
            let dtype = array.dtype();
            let (h, w) = (array.shape()[0], array.shape()[1]);
            let (width, height) = (
                u32::try_from(w).unwrap_or(u32::MAX),
                u32::try_from(h).unwrap_or(u32::MAX),
            );
            bits::check_side(width, height)?;
            let mut bits = MaskBits::new(width, height);
            let per_row = bits.words_per_row();
            let mut set = |y: usize, x: usize| bits.words[y * per_row + x / 64] |= 1 << (x % 64);
            if let Ok(a) = array.cast::<PyArray2<bool>>() {
                let a = a.readonly();
                for ((y, x), &v) in a.as_array().indexed_iter() {
                    if v {
                        set(y, x);
                    }
                }
            } else if let Ok(a) = array.cast::<PyArray2<u8>>() {
                let a = a.readonly();
                for ((y, x), &v) in a.as_array().indexed_iter() {
                    if v != 0 {
                        set(y, x);
                    }
                }
            } else {
                return Err(PyTypeError::new_err(format!(
                    "a bitmask array must have dtype bool or uint8, not {dtype}"
                )));
            }
            return Ok(Bitmask { bits });
        }
        Self::from_pygame(source)
    }

    /// From a `pygame.mask.Mask` (read through its buffer, without copying pixel by pixel).
    #[staticmethod]
    fn from_pygame(mask: &Bound<'_, PyAny>) -> PyResult<Self> {
        let raw = RawMask::read(mask)?;
        bits::check_side(raw.width, raw.height)?;
        Ok(Bitmask {
            bits: raw.to_bits(),
        })
    }

    #[getter]
    fn width(&self) -> u32 {
        self.bits.width
    }

    #[getter]
    fn height(&self) -> u32 {
        self.bits.height
    }

    /// Number of set pixels.
    fn count(&self) -> u64 {
        self.bits.words.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// The pixels as a (height, width) bool array, `array[y, x]` being pixel (x, y).
    fn to_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let (w, h) = (self.bits.width as usize, self.bits.height as usize);
        let per_row = self.bits.words_per_row();
        let mut out = Vec::with_capacity(w * h);
        for y in 0..h {
            for x in 0..w {
                out.push(self.bits.words[y * per_row + x / 64] >> (x % 64) & 1 == 1);
            }
        }
        PyArray1::from_vec(py, out).reshape([h, w])
    }

    fn __repr__(&self) -> String {
        format!(
            "Bitmask({}x{}, {} set)",
            self.bits.width,
            self.bits.height,
            self.count()
        )
    }
}

/// (x, y) rows of a numpy (N, 2) array of any real dtype, or of a sequence of pairs.
fn float_rows(object: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<[f32; 2]>> {
    if let Ok(array) = object.cast::<PyUntypedArray>() {
        if array.ndim() != 2 || array.shape()[1] != 2 {
            return Err(PyValueError::new_err(format!(
                "{what} must have shape (N, 2), not {:?}",
                array.shape()
            )));
        }
        let kind = array.dtype().kind();
        if !matches!(kind, b'f' | b'i' | b'u') {
            return Err(PyTypeError::new_err(format!(
                "{what} must be floats or integers, not {}",
                array.dtype()
            )));
        }
        // Any real dtype, converted by numpy itself.
        let converted = array.call_method1("astype", ("float32",))?;
        let converted = converted.cast::<PyArray2<f32>>()?.readonly();
        return Ok(converted
            .as_array()
            .rows()
            .into_iter()
            .map(|r| [r[0], r[1]])
            .collect());
    }
    // Each pair a tuple, a list or any other sequence of two numbers (a pygame Vector2).
    object.extract::<Vec<[f32; 2]>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be an (N, 2) numpy array or a sequence of (x, y) pairs, not {}",
            bits::type_name(object)
        ))
    })
}

/// The library's shape of a Python shape object.
fn to_shape(object: &Bound<'_, PyAny>, index: usize) -> PyResult<Shape> {
    if let Ok(p) = object.cast::<Polygon>() {
        let vertices = p
            .get()
            .vertices
            .iter()
            .map(|v| Vec2::new(v[0], v[1]))
            .collect();
        Ok(Shape::Polygon(RsPolygon::new(vertices)))
    } else if let Ok(c) = object.cast::<Circle>() {
        Ok(Shape::Circle(RsCircle::new(c.get().radius)))
    } else if let Ok(c) = object.cast::<Capsule>() {
        let c = c.get();
        Ok(Shape::Capsule(RsCapsule::new(
            Vec2::from(c.a),
            Vec2::from(c.b),
            c.radius,
        )))
    } else if let Ok(c) = object.cast::<Concave>() {
        let vertices = c.get().vertices.iter().map(|&v| Vec2::from(v)).collect();
        Ok(Shape::Concave(RsConcave::new(vertices)))
    } else if let Ok(c) = object.cast::<Compound>() {
        let parts = c
            .get()
            .parts
            .iter()
            .map(|&(shape, x, y, angle)| Part::new(shape).at(Vec2::new(x, y)).turned(angle))
            .collect();
        Ok(Shape::Compound(RsCompound::new(parts)))
    } else if let Ok(b) = object.cast::<Bitmask>() {
        let mask = b
            .get()
            .bits
            .to_bitmask()
            .map_err(|rule| PyValueError::new_err(format!("shape {index}: bitmask: {rule}")))?;
        Ok(Shape::Bitmask(mask))
    } else {
        Err(PyTypeError::new_err(format!(
            "shape {index}: expected a Polygon, Circle, Capsule, Concave, Compound or Bitmask, not {}",
            bits::type_name(object)
        )))
    }
}

struct ColliderState {
    engine: Engine,
    bodies: Vec<Body>,
}

/// A collider over a fixed list of shapes (`gpu_collide.Collider` wraps it).
#[pyclass(module = "gpu_collide._native", subclass)]
pub struct Collider {
    state: Mutex<ColliderState>,
    backend: Backend,
    shapes: usize,
    description: String,
}

#[pymethods]
impl Collider {
    #[new]
    #[pyo3(signature = (shapes, backend = "auto"))]
    fn new(shapes: Vec<Bound<'_, PyAny>>, backend: &str) -> PyResult<Self> {
        let backend = Backend::choose(backend)?;
        let shapes: Vec<Shape> = shapes
            .iter()
            .enumerate()
            .map(|(i, s)| to_shape(s, i))
            .collect::<PyResult<_>>()?;
        let library = ShapeLibrary::new(&shapes).map_err(|e| to_py(e.into()))?;
        let engine = Engine::new(backend, library)?;
        let description = match &engine {
            Engine::Cpu(c) => c.describe(),
            Engine::Gpu(g) => g.describe(),
        };
        Ok(Collider {
            state: Mutex::new(ColliderState {
                engine,
                bodies: Vec::new(),
            }),
            backend,
            shapes: shapes.len(),
            description,
        })
    }

    /// `"gpu"` or `"cpu"`.
    #[getter]
    fn backend(&self) -> &'static str {
        self.backend.name()
    }

    /// The backend and adapter, for logs.
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn __len__(&self) -> usize {
        self.shapes
    }

    /// Refuse frames with more than `max` box-overlapping pairs (see the Rust docs).
    fn set_max_pairs(&self, max: u64) -> PyResult<()> {
        lock(&self.state)?.engine.collider().set_max_pairs(max);
        Ok(())
    }

    /// The pairs as a flat uint32 array [i0, j0, i1, j1, ...] (the wrapper reshapes it);
    /// swept pairs when any velocity is non-zero.
    #[pyo3(signature = (shapes, positions, angles = None, layers = None, masks = None, velocities = None))]
    #[allow(clippy::too_many_arguments)] // the Python wrapper passes them by name
    fn _find_pairs<'py>(
        &self,
        py: Python<'py>,
        shapes: PyReadonlyArray1<'py, u32>,
        positions: PyReadonlyArray2<'py, f32>,
        angles: Option<PyReadonlyArray1<'py, f32>>,
        layers: Option<PyReadonlyArray1<'py, u32>>,
        masks: Option<PyReadonlyArray1<'py, u32>>,
        velocities: Option<PyReadonlyArray2<'py, f32>>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let arrays = BodyArrays {
            shapes,
            positions,
            angles,
            layers,
            masks,
            velocities,
        };
        let mut state = lock(&self.state)?;
        let state = &mut *state;
        arrays.fill(&mut state.bodies)?;
        let pairs = state.engine.find_pairs(py, &state.bodies)?;
        Ok(PyArray1::from_vec(py, pairs.into_flattened()))
    }

    /// The swept pairs: flat uint32 pairs and their float32 times of impact.
    #[pyo3(signature = (shapes, positions, velocities, angles = None, layers = None, masks = None))]
    #[allow(clippy::too_many_arguments)]
    fn _find_swept_pairs<'py>(
        &self,
        py: Python<'py>,
        shapes: PyReadonlyArray1<'py, u32>,
        positions: PyReadonlyArray2<'py, f32>,
        velocities: PyReadonlyArray2<'py, f32>,
        angles: Option<PyReadonlyArray1<'py, f32>>,
        layers: Option<PyReadonlyArray1<'py, u32>>,
        masks: Option<PyReadonlyArray1<'py, u32>>,
    ) -> PyResult<SweptArrays<'py>> {
        let arrays = BodyArrays {
            shapes,
            positions,
            angles,
            layers,
            masks,
            velocities: Some(velocities),
        };
        let mut state = lock(&self.state)?;
        let state = &mut *state;
        arrays.fill(&mut state.bodies)?;
        let bodies = &state.bodies;
        let swept = state.engine.run(py, |c| c.find_swept_pairs(bodies))?;
        let mut pairs = Vec::with_capacity(2 * swept.len());
        let mut toi = Vec::with_capacity(swept.len());
        for s in &swept {
            pairs.extend(s.pair);
            toi.push(s.toi);
        }
        Ok((PyArray1::from_vec(py, pairs), PyArray1::from_vec(py, toi)))
    }

    /// The contacts: flat uint32 pairs, flat float32 normals and float32 depths (NaN for
    /// a pair with a bitmask), int64 areas (-1 for a pair without one).
    #[pyo3(signature = (shapes, positions, angles = None, layers = None, masks = None))]
    fn _find_contacts<'py>(
        &self,
        py: Python<'py>,
        shapes: PyReadonlyArray1<'py, u32>,
        positions: PyReadonlyArray2<'py, f32>,
        angles: Option<PyReadonlyArray1<'py, f32>>,
        layers: Option<PyReadonlyArray1<'py, u32>>,
        masks: Option<PyReadonlyArray1<'py, u32>>,
    ) -> PyResult<ContactArrays<'py>> {
        let arrays = BodyArrays {
            shapes,
            positions,
            angles,
            layers,
            masks,
            velocities: None,
        };
        let mut state = lock(&self.state)?;
        let state = &mut *state;
        arrays.fill(&mut state.bodies)?;
        let bodies = &state.bodies;
        let contacts = state.engine.run(py, |c| c.find_contacts(bodies))?;
        let m = contacts.len();
        let (mut pairs, mut normals) = (Vec::with_capacity(2 * m), Vec::with_capacity(2 * m));
        let (mut depths, mut areas) = (Vec::with_capacity(m), Vec::with_capacity(m));
        let mut parts = Vec::with_capacity(2 * m);
        for contact in &contacts {
            pairs.extend(contact.pair);
            parts.extend(contact.parts.map_or([-1, -1], |p| p.map(i64::from)));
            match contact.kind {
                ContactKind::Penetration { normal, depth } => {
                    normals.extend([normal.x, normal.y]);
                    depths.push(depth);
                    areas.push(-1);
                }
                ContactKind::Area(area) => {
                    normals.extend([f32::NAN, f32::NAN]);
                    depths.push(f32::NAN);
                    areas.push(i64::from(area));
                }
            }
        }
        Ok((
            PyArray1::from_vec(py, pairs),
            PyArray1::from_vec(py, normals),
            PyArray1::from_vec(py, depths),
            PyArray1::from_vec(py, areas),
            PyArray1::from_vec(py, parts),
        ))
    }

    /// A batch of queries against the bodies. Rays are (R, 4) rows x, y, dx, dy, points
    /// (P, 2), boxes (B, 4) rows min x, min y, max x, max y, each with optional masks.
    /// Answers: ray bodies (int64, -1 for none), ray t (NaN for none), flat ray normals
    /// (NaN for none or null), then points and boxes each as CSR offsets (int64, one
    /// more than the queries) and the bodies (uint32) they index.
    #[pyo3(signature = (
        shapes, positions, angles = None, layers = None, masks = None,
        rays = None, ray_masks = None, points = None, point_masks = None,
        boxes = None, box_masks = None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn _query<'py>(
        &self,
        py: Python<'py>,
        shapes: PyReadonlyArray1<'py, u32>,
        positions: PyReadonlyArray2<'py, f32>,
        angles: Option<PyReadonlyArray1<'py, f32>>,
        layers: Option<PyReadonlyArray1<'py, u32>>,
        masks: Option<PyReadonlyArray1<'py, u32>>,
        rays: Option<PyReadonlyArray2<'py, f32>>,
        ray_masks: Option<PyReadonlyArray1<'py, u32>>,
        points: Option<PyReadonlyArray2<'py, f32>>,
        point_masks: Option<PyReadonlyArray1<'py, u32>>,
        boxes: Option<PyReadonlyArray2<'py, f32>>,
        box_masks: Option<PyReadonlyArray1<'py, u32>>,
    ) -> PyResult<QueryArrays<'py>> {
        let rays = query_rows(rays.as_ref(), ray_masks.as_ref(), "rays", 4)?;
        let points = query_rows(points.as_ref(), point_masks.as_ref(), "points", 2)?;
        let boxes = query_rows(boxes.as_ref(), box_masks.as_ref(), "boxes", 4)?;
        let batch = QueryBatch {
            rays: rays
                .iter()
                .map(|(r, mask)| {
                    Ray::new(Vec2::new(r[0], r[1]), Vec2::new(r[2], r[3])).with_mask(*mask)
                })
                .collect(),
            points: points
                .iter()
                .map(|(p, mask)| PointQuery::new(Vec2::new(p[0], p[1])).with_mask(*mask))
                .collect(),
            boxes: boxes
                .iter()
                .map(|(b, mask)| {
                    BoxQuery::new(Vec2::new(b[0], b[1]), Vec2::new(b[2], b[3])).with_mask(*mask)
                })
                .collect(),
        };
        let arrays = BodyArrays {
            shapes,
            positions,
            angles,
            layers,
            masks,
            velocities: None,
        };
        let mut state = lock(&self.state)?;
        let state = &mut *state;
        arrays.fill(&mut state.bodies)?;
        let bodies = &state.bodies;
        let answers = state.engine.run(py, |c| c.query(bodies, &batch))?;
        let r = answers.rays.len();
        let (mut ray_body, mut ray_t) = (Vec::with_capacity(r), Vec::with_capacity(r));
        let mut ray_normal = Vec::with_capacity(2 * r);
        for hit in &answers.rays {
            match hit {
                Some(hit) => {
                    ray_body.push(i64::from(hit.body));
                    ray_t.push(hit.t);
                    let n = hit.normal.unwrap_or(Vec2::NAN);
                    ray_normal.extend([n.x, n.y]);
                }
                None => {
                    ray_body.push(-1);
                    ray_t.push(f32::NAN);
                    ray_normal.extend([f32::NAN, f32::NAN]);
                }
            }
        }
        let (point_offsets, point_bodies) = csr(&answers.points);
        let (box_offsets, box_bodies) = csr(&answers.boxes);
        Ok((
            PyArray1::from_vec(py, ray_body),
            PyArray1::from_vec(py, ray_t),
            PyArray1::from_vec(py, ray_normal),
            PyArray1::from_vec(py, point_offsets),
            PyArray1::from_vec(py, point_bodies),
            PyArray1::from_vec(py, box_offsets),
            PyArray1::from_vec(py, box_bodies),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "Collider({} shapes, backend={:?})",
            self.shapes,
            self.backend.name()
        )
    }
}

/// Swept pairs as flat pairs and their times of impact.
type SweptArrays<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<f32>>);

/// Contacts as flat pairs, flat normals, depths and areas.
type ContactArrays<'py> = (
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
);

/// Query answers: ray bodies, ray t, flat ray normals, point offsets and bodies, box
/// offsets and bodies.
type QueryArrays<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<u32>>,
);

/// A frame's bodies as the arrays the Python wrapper checked and converted.
struct BodyArrays<'py> {
    shapes: PyReadonlyArray1<'py, u32>,
    positions: PyReadonlyArray2<'py, f32>,
    angles: Option<PyReadonlyArray1<'py, f32>>,
    layers: Option<PyReadonlyArray1<'py, u32>>,
    masks: Option<PyReadonlyArray1<'py, u32>>,
    velocities: Option<PyReadonlyArray2<'py, f32>>,
}

impl BodyArrays<'_> {
    /// Replaces `bodies` with these, after checking that every array has one entry per
    /// shape id (the library checks the values).
    fn fill(&self, bodies: &mut Vec<Body>) -> PyResult<()> {
        let n = self.shapes.len();
        for (name, shape) in [
            ("positions", Some(self.positions.shape())),
            ("velocities", self.velocities.as_ref().map(|v| v.shape())),
        ] {
            if let Some(shape) = shape {
                if shape != [n, 2] {
                    return Err(PyValueError::new_err(format!(
                        "{name} must have shape ({n}, 2) for {n} shape ids, not {shape:?}"
                    )));
                }
            }
        }
        for (name, len) in [
            ("angles", self.angles.as_ref().map(|a| a.len())),
            ("layers", self.layers.as_ref().map(|a| a.len())),
            ("masks", self.masks.as_ref().map(|a| a.len())),
        ] {
            if let Some(len) = len {
                if len != n {
                    return Err(PyValueError::new_err(format!(
                        "{name} must have shape ({n},) for {n} shape ids, not ({len},)"
                    )));
                }
            }
        }
        let shapes = self.shapes.as_array();
        let positions = self.positions.as_array();
        let angles = self.angles.as_ref().map(|a| a.as_array());
        let layers = self.layers.as_ref().map(|a| a.as_array());
        let masks = self.masks.as_ref().map(|a| a.as_array());
        let velocities = self.velocities.as_ref().map(|v| v.as_array());
        bodies.clear();
        bodies.extend((0..n).map(|i| {
            let mut body = Body::new(shapes[i], Vec2::new(positions[[i, 0]], positions[[i, 1]]));
            if let Some(a) = &angles {
                body.angle = a[i];
            }
            if let Some(l) = &layers {
                body.layer = l[i];
            }
            if let Some(m) = &masks {
                body.mask = m[i];
            }
            if let Some(v) = &velocities {
                body.velocity = Vec2::new(v[[i, 0]], v[[i, 1]]);
            }
            body
        }));
        Ok(())
    }
}

/// The rows of one kind of query (`width` numbers each) with their masks (all bits when
/// none are given), after checking the shapes.
fn query_rows(
    rows: Option<&PyReadonlyArray2<'_, f32>>,
    masks: Option<&PyReadonlyArray1<'_, u32>>,
    name: &str,
    width: usize,
) -> PyResult<Vec<([f32; 4], u32)>> {
    let Some(rows) = rows else {
        return match masks {
            Some(m) if !m.is_empty() => Err(PyValueError::new_err(format!(
                "{} masks given without {name}",
                m.len()
            ))),
            _ => Ok(Vec::new()),
        };
    };
    let shape = rows.shape();
    if shape[1] != width {
        return Err(PyValueError::new_err(format!(
            "{name} must have shape (K, {width}), not {shape:?}"
        )));
    }
    let k = shape[0];
    if let Some(m) = masks {
        if m.len() != k {
            return Err(PyValueError::new_err(format!(
                "the masks of {name} must have shape ({k},) for {k} {name}, not ({},)",
                m.len()
            )));
        }
    }
    let rows = rows.as_array();
    let masks = masks.map(|m| m.as_array());
    Ok((0..k)
        .map(|i| {
            let mut row = [0.0; 4];
            for (c, value) in row.iter_mut().enumerate().take(width) {
                *value = rows[[i, c]];
            }
            (row, masks.as_ref().map_or(u32::MAX, |m| m[i]))
        })
        .collect())
}

/// Lists as compressed rows: offsets (one more than the lists) and the values they index.
fn csr(lists: &[Vec<u32>]) -> (Vec<i64>, Vec<u32>) {
    let mut offsets = Vec::with_capacity(lists.len() + 1);
    let mut values = Vec::with_capacity(lists.iter().map(Vec::len).sum());
    offsets.push(0);
    for list in lists {
        values.extend_from_slice(list);
        offsets.push(values.len() as i64);
    }
    (offsets, values)
}

/// Ended and began pairs of ids, each a flat array [a0, b0, a1, b1, ...].
type IdPairs<'py> = (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u64>>);

/// "Began touching" and "stopped touching" between consecutive frames, keyed by the
/// caller's ids (`gpu_collide.TouchTracker` wraps it).
#[pyclass(module = "gpu_collide._native", subclass)]
pub struct TouchTracker {
    state: Mutex<(gpu_collide::TouchTracker, Vec<Body>)>,
}

#[pymethods]
impl TouchTracker {
    #[new]
    fn new() -> Self {
        TouchTracker {
            state: Mutex::new((gpu_collide::TouchTracker::new(), Vec::new())),
        }
    }

    /// This frame's pairs (flat [i0, j0, i1, j1, ...]) and the bodies' ids; returns the
    /// ended and the began pairs of ids, each flat, lower id first, sorted.
    fn _update<'py>(
        &self,
        py: Python<'py>,
        pairs: PyReadonlyArray2<'py, u32>,
        ids: PyReadonlyArray1<'py, u64>,
    ) -> PyResult<IdPairs<'py>> {
        if pairs.shape()[1] != 2 {
            return Err(PyValueError::new_err(format!(
                "pairs must have shape (M, 2), not {:?}",
                pairs.shape()
            )));
        }
        let n = ids.len();
        let pairs: Vec<[u32; 2]> = pairs
            .as_array()
            .rows()
            .into_iter()
            .map(|r| [r[0], r[1]])
            .collect();
        if let Some((k, p)) = pairs
            .iter()
            .enumerate()
            .find(|(_, p)| p[0] as usize >= n || p[1] as usize >= n)
        {
            return Err(PyIndexError::new_err(format!(
                "pair {k}: [{}, {}] is not a pair of indices into the {n} ids",
                p[0], p[1]
            )));
        }
        let mut state = lock(&self.state)?;
        let (tracker, bodies) = &mut *state;
        bodies.clear();
        bodies.extend(
            ids.as_array()
                .iter()
                .map(|&id| Body::new(0, Vec2::ZERO).with_id(id)),
        );
        let (mut ended, mut began) = (Vec::new(), Vec::new());
        for event in tracker.update(&pairs, bodies) {
            match *event {
                gpu_collide::TouchEvent::Ended(a, b) => ended.extend([a, b]),
                gpu_collide::TouchEvent::Began(a, b) => began.extend([a, b]),
            }
        }
        Ok((PyArray1::from_vec(py, ended), PyArray1::from_vec(py, began)))
    }
}

/// Describes the GPU adapter the gpu backend uses, or raises RuntimeError saying why
/// there is none.
#[pyfunction]
fn gpu_adapter() -> PyResult<String> {
    gpu_context()
        .map(|c| c.describe())
        .map_err(PyRuntimeError::new_err)
}

/// `mask_a.overlap_area(mask_b, offset)`: set pixels of `mask_a` on set pixels of
/// `mask_b` placed with its top-left at `offset` in `mask_a`'s pixels.
#[pyfunction]
fn overlap_area(
    mask_a: &Bound<'_, PyAny>,
    mask_b: &Bound<'_, PyAny>,
    offset: (i64, i64),
) -> PyResult<u64> {
    let a = any_mask_bits(mask_a)?;
    let b = any_mask_bits(mask_b)?;
    Ok(a.overlap_area(&b, offset))
}

/// The pixels of a `gpu_collide.Bitmask` or a pygame mask.
fn any_mask_bits(object: &Bound<'_, PyAny>) -> PyResult<MaskBits> {
    if let Ok(b) = object.cast::<Bitmask>() {
        return Ok(b.get().bits.clone());
    }
    Ok(RawMask::read(object)?.to_bits())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Polygon>()?;
    m.add_class::<Circle>()?;
    m.add_class::<Capsule>()?;
    m.add_class::<Concave>()?;
    m.add_class::<Compound>()?;
    m.add_class::<Bitmask>()?;
    m.add_class::<Collider>()?;
    m.add_class::<sprites::SpriteCollider>()?;
    m.add_class::<TouchTracker>()?;
    m.add_function(wrap_pyfunction!(gpu_adapter, m)?)?;
    m.add_function(wrap_pyfunction!(overlap_area, m)?)?;
    Ok(())
}
