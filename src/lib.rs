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

// The modules marked `doc(hidden)` below (the GPU data layout, the grid, the shader
// sources, the command line's benchmark and drawing) are public only so that the
// `gpu-collide` command, the test suite and the benchmarks can reach them; they are not
// part of the API and may change in any release.

#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod bench;
pub mod body;
#[doc(hidden)]
pub mod cell_size;
pub mod collider;
pub mod contact;
pub mod cpu;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod draw;
pub mod error;
#[cfg(feature = "generate")]
pub mod generate;
#[doc(hidden)]
pub mod geometry;
pub mod gpu;
#[doc(hidden)]
pub mod grid;
pub mod library;
pub mod motion;
#[doc(hidden)]
pub mod packed;
pub mod pair;
#[doc(hidden)]
pub mod pair_sort;
pub mod query;
pub mod scene;
#[doc(hidden)]
pub mod shaders;
pub mod shapes;
pub mod touch;

pub use body::Body;
pub use collider::{Collider, FrameStats, StageTimes, DEFAULT_MAX_PAIRS};
pub use contact::{Contact, ContactKind};
pub use cpu::CpuCollider;
pub use error::{Error, Location, SceneError};
pub use glam;
pub use gpu::{GpuCollider, GpuContext, PendingFrame, MAX_FRAMES_IN_FLIGHT};
pub use library::ShapeLibrary;
pub use motion::SweptPair;
pub use pair::Pair;
pub use query::{BoxQuery, PointQuery, QueryAnswers, QueryBatch, Ray, RayHit};
pub use scene::Scene;
pub use shapes::{Bitmask, Circle, Polygon, Shape, ShapeKind};
pub use touch::{TouchEvent, TouchTracker};
/// The wgpu this crate is built against (version 30), for callers who hand it their
/// own device ([`GpuContext::from_device`]): a device of another wgpu major version is
/// another type.
pub use wgpu;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
