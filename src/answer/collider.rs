//! The one interface every backend implements, so tests, the benchmark and the
//! `pairs` command can run the same bodies on each and compare.

use crate::answer::contact::Contact;
use crate::answer::motion::{unsupported, SweptPair};
pub use crate::answer::pair::Pair;
use crate::answer::query::{QueryAnswers, QueryBatch};
use crate::error::Error;
use crate::input::body::Body;

/// The default of [`Collider::set_max_pairs`]: 2^26 box-overlapping pairs, 512 MiB of
/// pairs at 8 bytes each, far more than any game frame meets, far less than the
/// n²/2 pairs of a pile of a hundred thousand bodies on one point.
pub const DEFAULT_MAX_PAIRS: u64 = 1 << 26;

/// Something that finds the colliding pairs of a set of bodies over its shape library.
pub trait Collider {
    /// The colliding pairs, each once as `[i, j]` with `i < j`, sorted ascending.
    ///
    /// Call it every frame with the bodies' new positions: only what changed is uploaded.
    /// Bodies that break a rule (an unknown shape, a rotated bitmask, ...) are refused
    /// with an error naming the first one, before any work is done.
    ///
    /// When any body moves ([`Body::velocity`]), the pairs are those of
    /// [`Collider::find_swept_pairs`]: the bodies that meet at some time during the frame.
    /// A backend that cannot sweep refuses such a frame rather than ignore the motion
    /// (both of this crate's backends sweep).
    fn find_pairs(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error>;

    /// The pairs whose bodies meet at some time `t` in `[0, 1]` while each moves by `t`
    /// times its [`Body::velocity`], with the first such `t` (0 when they already meet),
    /// sorted by pair. Without motion, the pairs of [`Collider::find_pairs`], each at 0.
    fn find_swept_pairs(&mut self, bodies: &[Body]) -> Result<Vec<SweptPair>, Error> {
        let _ = bodies;
        Err(unsupported(&self.describe(), "swept pairs"))
    }

    /// The contact of every pair [`Collider::find_pairs`] gives at `t = 0` (velocities
    /// are ignored), in the same order: penetration depth and normal for polygons and
    /// circles, overlapping cells for a pair with a bitmask.
    fn find_contacts(&mut self, bodies: &[Body]) -> Result<Vec<Contact>, Error> {
        let _ = bodies;
        Err(unsupported(&self.describe(), "contacts"))
    }

    /// Answers a batch of ray, point and box queries against the bodies at `t = 0`. A
    /// batch that breaks a rule of the format is refused, naming the query.
    fn query(&mut self, bodies: &[Body], batch: &QueryBatch) -> Result<QueryAnswers, Error> {
        let _ = (bodies, batch);
        Err(unsupported(&self.describe(), "queries"))
    }

    /// Makes room for `bodies` bodies now, so that the first frame with that many costs
    /// about what the frames after it cost: call it when a level loads (`gpu-collide
    /// pairs` does as it starts). Frames make the room they need anyway, so this only
    /// moves that work earlier. The gpu backend makes and zeroes its buffers, has the
    /// driver ready every kernel of a frame and waits for the GPU; on a collider that
    /// has not yet seen bodies it also runs two frames of eight made-up bodies and
    /// forgets them (a software driver pays something on a kernel's first real work),
    /// so `last_frame` still says no frame ran. The cpu backend sizes
    /// its per-body arrays; a backend that keeps nothing between frames has nothing to
    /// do (the default). A count the backend cannot hold is refused with an error, as a
    /// frame of that many bodies would be ([`Error::TooLarge`] on the gpu backend).
    ///
    /// ```
    /// use gpu_collide::{Collider, CpuCollider, ShapeLibrary};
    /// let mut collider = CpuCollider::new(ShapeLibrary::default());
    /// collider.reserve(100_000)?;
    /// # Ok::<(), gpu_collide::Error>(())
    /// ```
    fn reserve(&mut self, bodies: usize) -> Result<(), Error> {
        let _ = bodies;
        Ok(())
    }

    /// A short description of the backend (and adapter), for logs.
    fn describe(&self) -> String;

    /// Refuse a frame with [`Error::TooManyPairs`] once more than `max` pairs of bodies
    /// (whose filters agree) have overlapping boxes, instead of holding them all: memory
    /// then stays bounded whatever the scene (a pile of n bodies on one point has
    /// n²/2 such pairs). The default is [`DEFAULT_MAX_PAIRS`]; every backend counts the
    /// same pairs, so they refuse the same scenes, except over concave or compound
    /// shapes: there the gpu backend counts pairs of parts, the cpu backend pairs of
    /// bodies, each boxed around its parts.
    fn set_max_pairs(&mut self, max: u64);

    /// Whether the frames that follow measure how long each stage takes
    /// ([`FrameStats::stages`]). Off by default, since the measuring costs every frame
    /// time: on lavapipe a gpu frame's timestamps took 0.3-0.8 ms, 8-12% of a crowded 10k
    /// frame (BENCHMARKS.md, "Few dispatches, and timestamps off by default"). A backend
    /// that cannot measure its stages (the cpu backend; the gpu backend on a device
    /// opened without `wgpu::Features::TIMESTAMP_QUERY`) ignores it, and its stats say
    /// `None`.
    ///
    /// ```
    /// use gpu_collide::{Body, Circle, Collider, CpuCollider, Shape, ShapeLibrary, glam::Vec2};
    ///
    /// let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))])?;
    /// // The same on the GPU: `GpuCollider::new(&GpuContext::new()?, library)?`, whose
    /// // frames then give their stage times.
    /// let mut collider = CpuCollider::new(library);
    /// collider.set_stage_timing(true);
    /// let bodies = [Body::new(0, Vec2::ZERO), Body::new(0, Vec2::new(1.5, 0.0))];
    /// assert_eq!(collider.find_pairs(&bodies)?, vec![[0, 1]]);
    /// // The cpu backend has no stage times to give.
    /// assert_eq!(collider.last_frame().stages, None);
    /// # Ok::<(), gpu_collide::Error>(())
    /// ```
    fn set_stage_timing(&mut self, on: bool) {
        let _ = on;
    }

    /// What the last call to [`Collider::find_pairs`] did, as far as the backend knows.
    fn last_frame(&self) -> FrameStats {
        FrameStats::default()
    }
}

/// Statistics of one frame, for benchmarks and logs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FrameStats {
    /// Candidate pairs the broad phase handed to the narrow phase.
    pub candidates: Option<u64>,
    /// Time per stage, where the backend can measure it (GPU timestamp queries) and
    /// was asked to ([`Collider::set_stage_timing`]).
    pub stages: Option<StageTimes>,
    /// Times the GPU pipeline ran to find the frame: more than once when a buffer had to
    /// grow, or when the candidates of each kind pair outgrew the bins an earlier frame
    /// laid out for them. `None` on backends that always run once.
    pub runs: Option<u32>,
}

/// Milliseconds spent per stage of one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StageTimes {
    /// Writing the frame's transforms (and changed body infos), measured on the host.
    pub upload: f64,
    /// World bounds (and, for the grid, cell assignment).
    pub bounds: f64,
    /// Candidate pairs.
    pub broad: f64,
    /// Exact tests.
    pub narrow: f64,
    /// The rest of the frame as the host sees it: submitting, copying and mapping the
    /// results back, and waiting (measured on the host, unlike the three GPU stages).
    pub readback: f64,
}

/// Pairs sorted ascending, as the format prints them.
pub fn sorted_pairs(mut pairs: Vec<Pair>) -> Vec<Pair> {
    crate::answer::pair_sort::sort_pairs(&mut pairs);
    pairs
}
