//! Touch events: "began touching" and "stopped touching" between consecutive frames,
//! keyed by the caller's own body ids rather than by positions in the body list, which
//! shift whenever a game removes a bullet.
//!
//! ```
//! use gpu_collide::{Body, TouchEvent, TouchTracker, glam::Vec2};
//! let ship = Body::new(0, Vec2::ZERO).with_id(7);
//! let bullet = Body::new(0, Vec2::new(1.0, 0.0)).with_id(1000);
//! let mut touches = TouchTracker::new();
//! // Frame 1: the collider found pair [0, 1] among [ship, bullet].
//! assert_eq!(touches.update(&[[0, 1]], &[ship, bullet]), &[TouchEvent::Began(7, 1000)]);
//! // Frame 2: the bullet is first in the list now, and still touching: no event.
//! assert!(touches.update(&[[0, 1]], &[bullet, ship]).is_empty());
//! // Frame 3: apart.
//! assert_eq!(touches.update(&[], &[bullet, ship]), &[TouchEvent::Ended(7, 1000)]);
//! ```

use std::collections::HashSet;

use crate::answer::collider::Pair;
use crate::input::body::Body;

/// A change in whether two bodies touch, as the ids of the two bodies (lower first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TouchEvent {
    /// The two bodies touch in this frame and did not in the last.
    Began(u64, u64),
    /// The two bodies touched in the last frame and do not in this one.
    Ended(u64, u64),
}

/// Turns each frame's pairs into [`TouchEvent`]s, from whichever backend found them.
///
/// Bodies are told apart by [`Body::id`]; a body without an id
/// ([`crate::input::body::NO_ID`]) is known by its index in the frame's body list, which is
/// only right while bodies keep their places. Ids should be unique: two bodies with one
/// id are one body to the tracker. The work per frame is linear in the pairs of this
/// frame and the last, plus sorting the events.
#[derive(Debug, Clone, Default)]
pub struct TouchTracker {
    touching: HashSet<(u64, u64)>,
    now: HashSet<(u64, u64)>,
    events: Vec<TouchEvent>,
}

impl TouchTracker {
    /// A tracker for which nothing touched before the first frame.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes this frame's `pairs` (indices into `bodies`, as every collider returns
    /// them) and gives the events since the last call, sorted: every `Ended` first
    /// (by ids), then every `Began`. A pair whose index is past the end of `bodies` is
    /// skipped.
    pub fn update(&mut self, pairs: &[Pair], bodies: &[Body]) -> &[TouchEvent] {
        let key = |i: u32| {
            bodies.get(i as usize).map(|b| {
                if b.id == crate::input::body::NO_ID {
                    i as u64
                } else {
                    b.id
                }
            })
        };
        self.now.clear();
        self.now.extend(pairs.iter().filter_map(|&[i, j]| {
            let (a, b) = (key(i)?, key(j)?);
            (a != b).then_some((a.min(b), a.max(b)))
        }));
        self.events.clear();
        self.events.extend(
            self.touching
                .difference(&self.now)
                .map(|&(a, b)| TouchEvent::Ended(a, b)),
        );
        self.events.extend(
            self.now
                .difference(&self.touching)
                .map(|&(a, b)| TouchEvent::Began(a, b)),
        );
        self.events.sort_unstable_by_key(|e| match *e {
            TouchEvent::Ended(a, b) => (0, a, b),
            TouchEvent::Began(a, b) => (1, a, b),
        });
        std::mem::swap(&mut self.touching, &mut self.now);
        &self.events
    }

    /// The pairs of ids touching as of the last frame, in no particular order.
    pub fn touching(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.touching.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    fn bodies(ids: &[u64]) -> Vec<Body> {
        ids.iter()
            .map(|&id| Body::new(0, Vec2::ZERO).with_id(id))
            .collect()
    }

    #[test]
    fn events_follow_ids_when_bodies_move_in_the_list() {
        let mut t = TouchTracker::new();
        let frame1 = bodies(&[10, 20, 30]);
        assert_eq!(
            t.update(&[[0, 1], [1, 2]], &frame1),
            &[TouchEvent::Began(10, 20), TouchEvent::Began(20, 30)]
        );
        // Body 10 is removed: 20 and 30 move up; 20-30 still touch, 10-20 ended.
        let frame2 = bodies(&[20, 30]);
        assert_eq!(t.update(&[[0, 1]], &frame2), &[TouchEvent::Ended(10, 20)]);
        // A new body 40 touches 30, and 20-30 part.
        let frame3 = bodies(&[20, 30, 40]);
        assert_eq!(
            t.update(&[[1, 2]], &frame3),
            &[TouchEvent::Ended(20, 30), TouchEvent::Began(30, 40)]
        );
        let mut now: Vec<_> = t.touching().collect();
        now.sort();
        assert_eq!(now, vec![(30, 40)]);
    }

    #[test]
    fn without_ids_bodies_are_their_indices_and_bad_indices_are_skipped() {
        let plain = vec![Body::new(0, Vec2::ZERO); 3];
        let mut t = TouchTracker::new();
        assert_eq!(
            t.update(&[[0, 2], [1, 7]], &plain),
            &[TouchEvent::Began(0, 2)]
        );
        assert!(t.update(&[[0, 2]], &plain).is_empty());
    }

    #[test]
    fn the_same_pairs_twice_give_no_events_and_an_empty_frame_ends_all() {
        let mut t = TouchTracker::new();
        let b = bodies(&[1, 2, 3, 4]);
        let pairs = [[0, 1], [0, 2], [2, 3]];
        assert_eq!(t.update(&pairs, &b).len(), 3);
        assert!(t.update(&pairs, &b).is_empty());
        assert_eq!(
            t.update(&[], &b),
            &[
                TouchEvent::Ended(1, 2),
                TouchEvent::Ended(1, 3),
                TouchEvent::Ended(3, 4)
            ]
        );
    }
}
