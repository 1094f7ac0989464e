//! # gpu-collide
//!
//! Exact 2D collision pairs for scenes of thousands to millions of bodies, computed by
//! WGSL compute shaders through wgpu, with a CPU reference path that gives the same answer.
//!
//! A scene is a [`ShapeLibrary`] (convex polygons, circles and bitmasks, uploaded once)
//! and bodies that place those shapes in the world (their positions uploaded each frame).
//! Each frame, [`Collider::find_pairs`] returns every pair of bodies that touch or
//! overlap and whose layer/mask filters agree, as sorted `[i, j]` with `i < j`.
//!
//! The pipeline, the same on both backends (see `shaders/` and [`cpu`]):
//! 1. **bounds**: the world box of every body;
//! 2. **broad**: candidate pairs, whose filters agree and whose boxes overlap;
//! 3. **narrow**: the exact test of each candidate (separating axis test for polygons
//!    and circles, row spans and word-wide ANDs for bitmasks), appending hits to a
//!    counted buffer that grows and reruns rather than drop anything.
//!
//! ```
//! use gpu_collide::{Body, Circle, Collider, CpuCollider, Polygon, Shape, ShapeLibrary, glam::Vec2};
//!
//! let library = ShapeLibrary::new(&[
//!     Shape::Polygon(Polygon::rectangle(10.0, 1.0)),
//!     Shape::Circle(Circle::new(0.5)),
//! ])?;
//! let bodies = [
//!     Body::new(0, Vec2::new(0.0, 0.0)),
//!     Body::new(0, Vec2::new(0.0, 0.0)).with_angle(std::f32::consts::FRAC_PI_2),
//!     Body::new(1, Vec2::new(4.0, 1.2)),
//! ];
//! // The same code runs on the GPU with `GpuCollider::new(&GpuContext::new()?, library)?`.
//! let mut collider = CpuCollider::new(library);
//! assert_eq!(collider.find_pairs(&bodies)?, vec![[0, 1]]);
//! # Ok::<(), gpu_collide::Error>(())
//! ```
//!
//! Scenes can also be read from the JSON format of `docs/scene-format.md` with [`Scene::from_json`].
//!
//! Format 1.1 adds, on both backends: bodies that move during the frame
//! ([`Body::velocity`], [`Collider::find_swept_pairs`] with times of impact), contacts
//! ([`Collider::find_contacts`]: depth and normal, or overlapping cells) and batched ray,
//! point and box queries ([`Collider::query`]).
//!
//! Inside a game: [`GpuContext::from_device`] wraps the game's own wgpu device;
//! [`GpuCollider::submit`] and [`GpuCollider::collect`] run frames without waiting for
//! them; [`GpuCollider::record_from_buffer`] records a frame into the game's own encoder,
//! reading positions from the game's own buffer and leaving the pairs on the GPU for its
//! passes ([`gpu::PAIRS_WGSL`]); [`TouchTracker`] turns pairs into began/ended events.

#![warn(missing_docs)]

/// Declares modules that are the crate's insides: crate-private, and public (hidden from the
/// docs) only with the `internals` feature, which the crate's own tests and benchmarks
/// turn on through a dev-dependency on the crate itself. No release promises anything
/// about them.
macro_rules! internal_mods {
    ($($name:ident),* $(,)?) => {
        $(
            #[cfg(feature = "internals")]
            #[doc(hidden)]
            pub mod $name;
            #[cfg(not(feature = "internals"))]
            pub(crate) mod $name;
        )*
    };
}

// The source is grouped by concern; the public modules keep their short paths
// (`gpu_collide::query`, not `gpu_collide::answer::query`) through the re-exports below.
//
// - `answer/`: what a frame or query returns, and the `Collider` trait that returns it;
// - `input/`: what the caller hands in: bodies, shapes, the library, scene files;
// - `layout/`: the GPU data layout shared with WGSL, and the shader sources;
// - `grid/`: the hierarchical grid of the broad phase and its cell size;
// - `cpu/`, `gpu/`: the two backends, a module per stage;
// - `tools/`: clients of the API: scene generators, the benchmark, drawing.
mod answer;
pub mod cpu;
pub mod error;
pub mod gpu;
mod input;
internal_mods!(grid, layout);
mod tools;

#[cfg(feature = "internals")]
#[doc(hidden)]
pub use answer::pair_sort;
pub use answer::{collider, contact, motion, pair, query, touch};
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use input::concave;
pub use input::{body, library, scene, shapes};
#[cfg(feature = "generate")]
pub use tools::generate;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub use tools::{bench, draw};

pub use body::Body;
pub use collider::{Collider, FrameStats, StageTimes, DEFAULT_MAX_PAIRS};
pub use contact::{Contact, ContactKind};
pub use cpu::CpuCollider;
pub use error::{Error, Location, SceneError};
pub use glam;
pub use gpu::{GpuCollider, GpuContext, PendingFrame, MAX_FRAMES_IN_FLIGHT};
pub use library::{ConvexPart, ShapeLibrary};
pub use motion::SweptPair;
pub use pair::Pair;
pub use query::{BoxQuery, PointQuery, QueryAnswers, QueryBatch, Ray, RayHit};
pub use scene::Scene;
pub use shapes::{Bitmask, Capsule, Circle, Compound, Concave, Part, Polygon, Shape, ShapeKind};
pub use touch::{TouchEvent, TouchTracker};
/// The wgpu this crate is built against (version 30), for callers who hand it their
/// own device ([`GpuContext::from_device`]): a device of another wgpu major version is
/// another type.
pub use wgpu;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
