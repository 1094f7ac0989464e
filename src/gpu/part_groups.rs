//! Groups of parts for the GPU's broad phase ([`GROUP_SHIFT`] says what and why): here,
//! on the host, each part's group code, which the body infos carry, and each group's
//! box, uploaded with the transforms.
//!
//! A group's box must hold every box the bounds kernel gives its parts, or a pair of
//! parts could be missed: the grid knows the group by that box alone. It is made from the parts' positions
//! alone, without the kernel's rounding to lean on: each part's shape reaches no farther
//! from its position than its local bounds' farthest corner, however it turns, and the
//! box is grown by a margin far above the kernel's rounding (its f32 rotation and sums
//! err by a few units in the last place of the coordinates).

use crate::answer::parts::Expansion;
use crate::input::body::Body;
#[cfg(doc)]
use crate::layout::packed::GROUP_SHIFT;
use crate::layout::packed::{Aabb, PackedShape, GROUP_FOLLOWS, GROUP_LIMIT};

/// The margin added around a group's box, relative to its largest coordinate and
/// reach: 2^-16, about 500 times an f32's relative rounding.
const MARGIN: f64 = 1.0 / 65536.0;

/// One group: its parts are bodies `first .. first + parts` of the frame, all of the
/// caller's body `owner`.
#[derive(Debug, Clone, Copy)]
struct Group {
    first: u32,
    parts: u32,
    owner: u32,
}

/// The groups of the frame's parts, and the buffers' worth of their boxes.
#[derive(Debug, Default)]
pub(crate) struct PartGroups {
    /// How far each of the library's packed shapes reaches from its position.
    reach: Vec<f64>,
    /// Each part's group code (see [`GROUP_SHIFT`]); empty where the frame's bodies are
    /// the caller's own.
    codes: Vec<u32>,
    groups: Vec<Group>,
    /// The caller's bodies, whose indices the boxes take.
    owners: u32,
    boxes: Vec<Aabb>,
}

impl PartGroups {
    pub(crate) fn new(shapes: &[PackedShape]) -> Self {
        let reach = shapes
            .iter()
            .map(|s| {
                let far = |axis: usize| {
                    (s.bounds_min[axis].abs() as f64).max(s.bounds_max[axis].abs() as f64)
                };
                far(0).hypot(far(1))
            })
            .collect();
        PartGroups {
            reach,
            ..Default::default()
        }
    }

    /// The groups of the parts of `parts`' bodies; none where the bodies are the
    /// caller's own.
    pub(crate) fn set(&mut self, parts: Option<&Expansion>) {
        self.codes.clear();
        self.groups.clear();
        self.owners = 0;
        let Some(parts) = parts else {
            return;
        };
        self.owners = parts.owners() as u32;
        self.codes.resize(parts.bodies.len(), 0);
        for owner in 0..parts.owners() {
            let range = parts.parts_of(owner);
            let count = range.len() as u32;
            if (2..=GROUP_LIMIT).contains(&count) {
                self.codes[range.start] = count;
                self.codes[range.start + 1..range.end].fill(GROUP_FOLLOWS);
                self.groups.push(Group {
                    first: range.start as u32,
                    parts: count,
                    owner: owner as u32,
                });
            }
        }
    }

    /// Body `k`'s group code in a frame of `bodies` bodies: 0 where the groups are of
    /// another frame's bodies.
    pub(crate) fn code(&self, k: usize, bodies: usize) -> u32 {
        if self.codes.len() == bodies {
            self.codes[k]
        } else {
            0
        }
    }

    /// Room the buffer of group boxes needs: two boxes for each of the caller's bodies
    /// (the group's, and its first part's own, which the bounds kernel writes).
    pub(crate) fn room(&self) -> u32 {
        self.owners.max(1).saturating_mul(2)
    }

    /// Each group's box for the frame's `bodies` (the parts), at twice its owner's
    /// index; `None` when no body of the frame is in a group. A box covers each part at
    /// its position and after its displacement (zero but in frames with motion).
    pub(crate) fn boxes(&mut self, bodies: &[Body]) -> Option<&[Aabb]> {
        if self.groups.is_empty() || self.codes.len() != bodies.len() {
            return None;
        }
        let empty = Aabb {
            min: [0.0; 2],
            max: [0.0; 2],
        };
        self.boxes.clear();
        self.boxes.resize(2 * self.owners as usize, empty);
        for group in &self.groups {
            let parts = &bodies[group.first as usize..(group.first + group.parts) as usize];
            let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
            let mut size = 0.0f64;
            for part in parts {
                let reach = self.reach.get(part.shape as usize).copied().unwrap_or(0.0);
                size = size.max(reach);
                let at = part.position.as_dvec2();
                for end in [at, at + part.velocity.as_dvec2()] {
                    for axis in 0..2 {
                        lo[axis] = lo[axis].min(end[axis] - reach);
                        hi[axis] = hi[axis].max(end[axis] + reach);
                        size = size.max(end[axis].abs());
                    }
                }
            }
            let margin = size * MARGIN;
            self.boxes[2 * group.owner as usize] = Aabb {
                min: [(lo[0] - margin) as f32, (lo[1] - margin) as f32],
                max: [(hi[0] + margin) as f32, (hi[1] + margin) as f32],
            };
        }
        Some(&self.boxes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::library::ShapeLibrary;
    use crate::input::shapes::{Polygon, Shape};
    use glam::Vec2;

    /// The GPU's placement needs every part's box inside its group's: checked here for
    /// parts turned every which way, far from the origin and moving.
    #[test]
    fn a_group_box_holds_its_parts() {
        let shapes = [Shape::Polygon(Polygon::new(vec![
            Vec2::new(-3.0, -1.0),
            Vec2::new(40.0, -2.0),
            Vec2::new(41.0, 5.0),
        ]))];
        let library = ShapeLibrary::new(&shapes).expect("a valid triangle");
        let mut groups = PartGroups::new(&library.shapes);
        groups.codes = vec![3, GROUP_FOLLOWS, GROUP_FOLLOWS];
        groups.groups = vec![Group {
            first: 0,
            parts: 3,
            owner: 0,
        }];
        groups.owners = 1;
        let bodies: Vec<Body> = (0..3)
            .map(|k| {
                let mut body = Body::new(0, Vec2::new(16000.0 + k as f32, -9000.5));
                body.angle = 1.1 * k as f32;
                body.velocity = Vec2::new(-30.0 * k as f32, 7.0);
                body
            })
            .collect();
        let boxes = groups.boxes(&bodies).map(<[Aabb]>::to_vec);
        let Some([group, _]) = boxes.as_deref() else {
            panic!("one group's two boxes: {boxes:?}");
        };
        let vertices = &library.polygon_vertices;
        assert_eq!(vertices.len(), 3);
        for body in &bodies {
            let (sin, cos) = (body.angle as f64).sin_cos();
            for v in vertices {
                let [vx, vy] = v.position.map(f64::from);
                for t in [0.0, 1.0] {
                    let x = body.position.x as f64 + cos * vx - sin * vy;
                    let y = body.position.y as f64 + sin * vx + cos * vy;
                    let (x, y) = (
                        x + t * body.velocity.x as f64,
                        y + t * body.velocity.y as f64,
                    );
                    assert!(
                        group.min[0] as f64 <= x && x <= group.max[0] as f64,
                        "x {x} outside {group:?}"
                    );
                    assert!(
                        group.min[1] as f64 <= y && y <= group.max[1] as f64,
                        "y {y} outside {group:?}"
                    );
                }
            }
        }
    }
}
