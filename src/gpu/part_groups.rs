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

/// Twin of `frame_boxes_meet` in `shaders/broad.wgsl`, in its f32 operations: whether two
/// parts' boxes overlap at one time in the frame, given each one's box over the whole
/// frame and its displacement; conservative, so that `cut_pair` drops only pairs of
/// parts that cannot meet. Held here to the exact answer at every scale.
#[cfg(test)]
fn frame_boxes_meet(a: &Aabb, va: glam::Vec2, b: &Aabb, vb: glam::Vec2) -> bool {
    use glam::Vec2;
    const BOX_MARGIN: f32 = 0.005;
    const BOX_SLACK: f32 = 1.0 / 1_048_576.0;
    let (a_min, a_max) = (Vec2::from(a.min), Vec2::from(a.max));
    let (b_min, b_max) = (Vec2::from(b.min), Vec2::from(b.max));
    let grow = Vec2::splat(2.0 * BOX_MARGIN)
        + BOX_SLACK * (a_min.abs() + a_max.abs() + b_min.abs() + b_max.abs() + va.abs() + vb.abs());
    let low = (a_min - va.min(Vec2::ZERO)) - (b_max - vb.max(Vec2::ZERO)) - grow;
    let high = (a_max - va.max(Vec2::ZERO)) - (b_min - vb.min(Vec2::ZERO)) + grow;
    let w = vb - va;
    let (mut enter, mut exit) = (0.0f32, 1.0f32);
    for axis in 0..2 {
        let speed = w[axis];
        if speed.abs() <= BOX_MARGIN {
            if low[axis] > speed.abs() || high[axis] < -speed.abs() {
                return false;
            }
        } else {
            let (first, last) = if speed > 0.0 {
                (low[axis], high[axis])
            } else {
                (high[axis], low[axis])
            };
            enter = enter.max(first / speed);
            exit = exit.min(last / speed);
        }
    }
    enter <= exit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::library::ShapeLibrary;
    use crate::input::shapes::{Polygon, Shape};
    use glam::Vec2;

    fn aabb(min: Vec2, max: Vec2) -> Aabb {
        Aabb {
            min: min.to_array(),
            max: max.to_array(),
        }
    }

    /// A box at `t = 0` stretched over a displacement, as the bounds kernel does.
    fn over_frame(box0: &Aabb, v: Vec2) -> Aabb {
        let (min, max) = (Vec2::from(box0.min), Vec2::from(box0.max));
        aabb(min.min(min + v), max.max(max + v))
    }

    /// Whether boxes `a` and `b` at `t = 0`, each grown by `grow`, overlap at one time in
    /// `[0, 1]` as they move by `va` and `vb`: the cpu backend's test in f64, given the
    /// relative motion without rounding.
    fn boxes_meet_f64(a: &Aabb, va: Vec2, b: &Aabb, vb: Vec2, grow: f64) -> bool {
        crate::cpu::boxes_meet_grown(a, b, vb.as_dvec2() - va.as_dvec2(), grow).is_some()
    }

    /// Hand-worked: parts that cross a still part's path at 400 units a frame, some
    /// level with it when they cross, some not.
    #[test]
    fn frame_boxes_meet_only_where_the_boxes_meet_at_one_time() {
        let still = aabb(Vec2::new(0.0, 0.0), Vec2::new(10.0, 10.0));
        let v = Vec2::new(400.0, 0.0);
        let check = |b0: &Aabb, vb: Vec2, expected: bool| {
            let (a, b) = (over_frame(&still, Vec2::ZERO), over_frame(b0, vb));
            assert_eq!(
                frame_boxes_meet(&a, Vec2::ZERO, &b, vb),
                expected,
                "{b0:?} by {vb}"
            );
            assert_eq!(
                frame_boxes_meet(&b, vb, &a, Vec2::ZERO),
                expected,
                "{b0:?} by {vb}, swapped"
            );
        };
        let row = |y: f32| aabb(Vec2::new(-200.0, y), Vec2::new(-190.0, y + 10.0));
        // Straight through, from t = 0.475 to 0.525; along its top side; 0.004 and 0.009
        // above it (within the margins); 0.5 above it.
        check(&row(0.0), v, true);
        check(&row(10.0), v, true);
        check(&row(10.004), v, true);
        check(&row(10.009), v, true);
        check(&row(10.5), v, false);
        // Coming down across its column: the box over the frame covers the still part,
        // but the part is 18.5 above it when level with it (y 28.5 at t = 0.525).
        let high = row(60.0);
        assert!(over_frame(&high, Vec2::new(400.0, -60.0)).overlaps(&still));
        check(&high, Vec2::new(400.0, -60.0), false);
        // Reaching its top right corner at t = 1, and stopping 0.1 short of it.
        let reaching = aabb(Vec2::new(-210.0, 60.0), Vec2::new(-200.0, 70.0));
        check(&reaching, Vec2::new(210.0, -50.0), true);
        check(&reaching, Vec2::new(210.0, -49.9), false);
        // Moving together, 1 apart all frame.
        let beside = aabb(Vec2::new(11.0, 0.0), Vec2::new(12.0, 1.0));
        let (a, b) = (over_frame(&still, v), over_frame(&beside, v));
        assert!(a.overlaps(&b));
        assert!(!frame_boxes_meet(&a, v, &b, v));
        // Touching at the start, moving apart by less than the margin (an axis taken as
        // still) and by 20.
        let touching = aabb(Vec2::new(10.0, 0.0), Vec2::new(11.0, 1.0));
        check(&touching, Vec2::new(0.004, 0.0), true);
        check(&touching, Vec2::new(20.0, 0.0), true);
        // 0.1 apart at the start, moving apart by less than the margin.
        check(
            &aabb(Vec2::new(10.1, 0.0), Vec2::new(11.0, 1.0)),
            Vec2::new(0.004, 0.0),
            false,
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(20000))]
        /// Two boxes that touch or overlap at some time in the frame, from the origin to
        /// 2^24 out, up to 2048 across, moving up to 2^17 a frame or not at all: the
        /// GPU's test on their boxes over the frame always says they may meet. And boxes
        /// that stay apart by more than the test's growth are told apart.
        #[test]
        fn frame_boxes_meet_never_drops_boxes_that_meet(
            exponent in 0i32..25,
            centre in (-1.0f32..1.0, -1.0f32..1.0),
            sizes in (0.0f32..2048.0, 0.0f32..2048.0, 0.0f32..2048.0, 0.0f32..2048.0),
            speeds in ((-17i32..18, -1.0f32..1.0), (-17i32..18, -1.0f32..1.0), (-17i32..18, -1.0f32..1.0), (-17i32..18, -1.0f32..1.0), 0usize..4),
            when in 0.0f32..=1.0,
            side in (0usize..4, 0.0f32..1.0),
            apart in proptest::prop_oneof![proptest::strategy::Just(0.0f32), 0.0f32..1.0, 1.0f32..10.0],
        ) {
            let scaled = |(e, x): (i32, f32)| x * (e as f32).exp2();
            let mut va = Vec2::new(scaled(speeds.0), scaled(speeds.1));
            let mut vb = Vec2::new(scaled(speeds.2), scaled(speeds.3));
            match speeds.4 {
                0 => va = Vec2::ZERO,
                1 => vb = va,
                2 => vb.y = va.y,
                _ => {}
            }
            let centre = Vec2::new(centre.0, centre.1) * (exponent as f32).exp2();
            let a_size = Vec2::new(sizes.0, sizes.1);
            let a0 = aabb(centre, centre + a_size);
            // Where b is at time `when`: beside a side of a (or `apart` from it), its
            // other coordinate anywhere along that side.
            let b_size = Vec2::new(sizes.2, sizes.3);
            let along = |k: usize| a0.min[k] - b_size[k] + side.1 * (a_size[k] + b_size[k]);
            let at = match side.0 {
                0 => Vec2::new(a0.max[0] + apart, along(1)),
                1 => Vec2::new(a0.min[0] - b_size.x - apart, along(1)),
                2 => Vec2::new(along(0), a0.max[1] + apart),
                _ => Vec2::new(along(0), a0.min[1] - b_size.y - apart),
            };
            let b_min = at - when * (vb - va);
            let b0 = aabb(b_min, b_min + b_size);
            let (a, b) = (over_frame(&a0, va), over_frame(&b0, vb));
            let meets = frame_boxes_meet(&a, va, &b, vb);
            if boxes_meet_f64(&a0, va, &b0, vb, 0.0) {
                proptest::prop_assert!(meets, "{a0:?} by {va} and {b0:?} by {vb}: over the frame {a:?} and {b:?}");
            }
            let reach = [a.min, a.max, b.min, b.max].iter().flatten().map(|c| c.abs() as f64).sum::<f64>()
                + [va, vb].iter().map(|v| (v.x.abs() + v.y.abs()) as f64).sum::<f64>();
            if !boxes_meet_f64(&a0, va, &b0, vb, 0.006 + reach / 262_144.0) {
                proptest::prop_assert!(!meets, "{a0:?} by {va} and {b0:?} by {vb}: over the frame {a:?} and {b:?}");
            }
        }
    }

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
