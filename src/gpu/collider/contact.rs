//! [`GpuCollider`]'s contact frames (`find_contacts`); the pass itself, its pipelines,
//! buffers and readback layout, is `gpu::contact`, which knows nothing of the collider.

use super::GpuCollider;
use crate::answer::contact::{Contact, ContactKind};
use crate::error::Error;
use crate::gpu::contact::depth_of;
use crate::input::body::Body;
use crate::input::shapes::ShapeKind;

impl GpuCollider {
    /// The contact of every pair `find_pairs` gives at `t = 0`, sorted by pair.
    pub(crate) fn contacts_checked(&mut self, bodies: &[Body]) -> Result<Vec<Contact>, Error> {
        // Velocities are ignored: the frame is the bodies at t = 0.
        let still: Vec<Body>;
        let bodies = if crate::answer::motion::any_moving(bodies) {
            still = bodies
                .iter()
                .map(|b| b.with_velocity(glam::Vec2::ZERO))
                .collect();
            &still
        } else {
            bodies
        };
        self.contacts = true;
        let found = self.find_frame(bodies);
        self.contacts = false;
        let (pairs, raw) = found?;
        let shapes = &self.library().shapes;
        let is_mask = |body: u32| {
            shapes[bodies[body as usize].shape as usize].shape_kind() == ShapeKind::Bitmask
        };
        let mut contacts: Vec<Contact> = pairs
            .iter()
            .zip(&raw)
            .map(|(&pair, c)| Contact {
                parts: None,
                pair,
                kind: if is_mask(pair[0]) || is_mask(pair[1]) {
                    ContactKind::Area(c.area)
                } else {
                    ContactKind::Penetration {
                        normal: glam::Vec2::from(c.normal),
                        depth: depth_of(c.depth),
                    }
                },
            })
            .collect();
        contacts.sort_unstable_by_key(|c| c.pair);
        Ok(contacts)
    }
}
