//! Swept bodies (scene format 1.1): a body with a non-zero [`crate::Body::velocity`]
//! slides over the frame, and a pair collides when its shapes meet at some time `t` in
//! `[0, 1]`. [`crate::Collider::find_swept_pairs`] answers with the first such time.

use crate::answer::pair::Pair;
use crate::error::Error;
use crate::input::body::Body;

/// A pair of bodies that meet during the frame, and when they first do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweptPair {
    /// The bodies `[i, j]`, `i < j`.
    pub pair: Pair,
    /// The time of impact: the first `t` in `[0, 1]` at which the shapes, each moved by
    /// `t` times its velocity, intersect (touching counts); 0 when they already do at
    /// the start of the frame.
    pub toi: f32,
}

/// Whether any body of the frame moves, which makes `find_pairs` a swept question.
pub fn any_moving(bodies: &[Body]) -> bool {
    bodies.iter().any(Body::moves)
}

/// [`Error::Unsupported`] for `what` on the backend described by `describe` (its first
/// word names it: `gpu on ...` is the gpu backend).
pub fn unsupported(describe: &str, what: &str) -> Error {
    let backend = describe.split_whitespace().next().unwrap_or("this");
    Error::Unsupported {
        backend: backend.to_string(),
        what: what.to_string(),
    }
}

/// Refuses a frame in which a body moves, on a backend that does not sweep yet: it
/// would otherwise answer for `t = 0` and miss every pair that meets later, silently.
pub fn refuse_motion(describe: &str, bodies: &[Body]) -> Result<(), Error> {
    if any_moving(bodies) {
        return Err(unsupported(
            describe,
            "finding pairs among moving bodies (swept pairs)",
        ));
    }
    Ok(())
}
