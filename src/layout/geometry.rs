//! Geometry and filter helpers, the Rust twin of `shaders/geometry.wgsl`: rotating a
//! point, testing two filters or two boxes, entering a disc, the distance to a segment. Every stage uses them; they
//! are written once here for the CPU twins, operation for operation as the WGSL, so
//! that the two paths round alike.

use glam::Vec2;

use crate::layout::packed::{Aabb, NO_OWNER};
#[cfg(doc)]
use crate::layout::packed::BodyInfo;

/// The distance from `q` to the segment from `a` to `b` (a point when `a == b`); WGSL
/// `segment_distance`. The nearest point is found along the segment and the distance
/// taken from there, so a point on the segment is at a distance of a rounding or two.
pub fn segment_distance(a: Vec2, b: Vec2, q: Vec2) -> f32 {
    (q - segment_closest(a, b, q)).length()
}

/// The point of the segment from `a` to `b` nearest `q`; WGSL `segment_closest`.
pub fn segment_closest(a: Vec2, b: Vec2, q: Vec2) -> Vec2 {
    let ab = b - a;
    let length2 = ab.dot(ab);
    let t = if length2 > 0.0 {
        ((q - a).dot(ab) / length2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a + ab * t
}

/// Where the segment `start + t·delta`, `t` in `[0, 1]`, first comes within `radius` of
/// the segment `a b` (enters the capsule): `(t, the capsule's outward normal there)`,
/// the normal `None` when it starts inside (`t = 0`); `None` when it never enters. WGSL
/// `capsule_entry`. Swept capsules and rays against capsules both ask this.
///
/// A capsule is the rectangle its segment sweeps along its normal and the discs at its
/// ends, so the entry is the first of the discs' ([`disc_entry`]) and of the long sides':
/// the time the path closes the gap to the side it faces, if it is then alongside the
/// segment. Where the capsule has no width (a segment or a point) its normal there is
/// either way across, so the side faced is chosen, or at an end the way back along
/// `delta`.
pub fn capsule_entry(
    start: Vec2,
    delta: Vec2,
    a: Vec2,
    b: Vec2,
    radius: f32,
) -> Option<(f32, Option<Vec2>)> {
    if segment_distance(a, b, start) <= radius {
        return Some((0.0, None));
    }
    let back = -delta / scaled_length(delta);
    let mut best: Option<(f32, Option<Vec2>)> = None;
    for end in [a, b] {
        if let Some((t, point)) = disc_entry(start - end, radius, delta) {
            if best.is_none_or(|(b, _)| t < b) {
                let normal = point.map(|p| p / scaled_length(p)).filter(|n| n.is_finite());
                best = Some((t, Some(normal.unwrap_or(back))));
            }
        }
    }
    let along = b - a;
    let length = scaled_length(along);
    if length > 0.0 {
        let u = along / length;
        let across = Vec2::new(-u.y, u.x);
        let side = (start - a).dot(across);
        let facing = if side > 0.0 { across } else { -across };
        let gap = side.abs() - radius;
        let approach = -delta.dot(facing);
        if gap >= 0.0 && approach > 0.0 {
            let t = gap / approach;
            let reached = (start + delta * t - a).dot(u);
            if t <= 1.0 && (0.0..=length).contains(&reached) && best.is_none_or(|(b, _)| t < b) {
                best = Some((t, Some(facing)));
            }
        }
    }
    best
}

/// The distance between the segments `a0 a1` and `b0 b1`; WGSL `segments_distance`.
/// Segments that cross are 0 apart; otherwise the nearest points include an end of one,
/// so the distance is the least of the four ends' distances to the other segment.
pub fn segments_distance(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> f32 {
    if segments_cross(a0, a1, b0, b1) {
        return 0.0;
    }
    segment_distance(b0, b1, a0)
        .min(segment_distance(b0, b1, a1))
        .min(segment_distance(a0, a1, b0))
        .min(segment_distance(a0, a1, b1))
}

/// Whether the segments `a0 a1` and `b0 b1` cross, each end of one strictly on its own
/// side of the other's line; WGSL `segments_cross`. Segments that only touch are left
/// to the distances of their ends.
pub fn segments_cross(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> bool {
    let (da, db) = (a1 - a0, b1 - b0);
    let (s0, s1) = (da.perp_dot(b0 - a0), da.perp_dot(b1 - a0));
    let (s2, s3) = (db.perp_dot(a0 - b0), db.perp_dot(a1 - b0));
    let opposite = |x: f32, y: f32| (x < 0.0 && y > 0.0) || (x > 0.0 && y < 0.0);
    opposite(s0, s1) && opposite(s2, s3)
}

/// Rotates `v` by the rotation stored as `(cos, sin)`; WGSL `rotate`.
pub fn rotate(v: Vec2, rotation: Vec2) -> Vec2 {
    Vec2::new(
        rotation.x * v.x - rotation.y * v.y,
        rotation.y * v.x + rotation.x * v.y,
    )
}

/// Whether two bodies' filters let them collide: each must be in a group the other
/// accepts; WGSL `filters_agree`.
pub fn filters_agree(layer_a: u32, mask_a: u32, layer_b: u32, mask_b: u32) -> bool {
    layer_a & mask_b != 0 && layer_b & mask_a != 0
}

/// Whether two bodies are parts of one of the caller's bodies ([`BodyInfo::owner`]),
/// which are never a pair; WGSL `same_owner`.
pub fn same_owner(a: u32, b: u32) -> bool {
    a == b && a != NO_OWNER
}

/// Whether two closed boxes share a point; WGSL `aabbs_overlap`.
pub fn aabbs_overlap(a: &Aabb, b: &Aabb) -> bool {
    (a.min[0] <= b.max[0]) & (b.min[0] <= a.max[0]) & (a.min[1] <= b.max[1]) & (b.min[1] <= a.max[1])
}

impl Aabb {
    /// Whether the two closed boxes share a point ([`aabbs_overlap`]).
    pub fn overlaps(&self, other: &Aabb) -> bool {
        aabbs_overlap(self, other)
    }

    /// The smallest box holding both.
    pub fn join(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: [self.min[0].min(other.min[0]), self.min[1].min(other.min[1])],
            max: [self.max[0].max(other.max[0]), self.max[1].max(other.max[1])],
        }
    }
}

/// Where the segment `start + t·delta`, `t` in `[0, 1]`, first enters the closed disc of
/// `radius` about the origin: `(t, the point of the circle it enters by)`, the point
/// `None` when the segment starts in the disc (`t = 0`); `None` when it never enters.
/// WGSL `disc_entry`. Swept circles ([`crate::cpu::sweep`]) and rays against circles
/// ([`crate::cpu::query`]) both ask this.
///
/// Computed along the segment, not from the quadratic `|start + t·delta|² = r²`: with `u`
/// its direction, the segment passes the centre at the distance `side = start·perp(u)`
/// after running `along = -start·u`, and enters the disc `half = √((r - |side|)(r +
/// |side|))` before that. Each of these is a length of the scene, so nothing cancels
/// between terms of the size of `|delta|²` (the quadratic's discriminant lost every hit
/// once `|delta|` reached a few thousand) and nothing overflows for any finite input:
/// `delta` is scaled by its largest component before its length is taken. The entry
/// point is off by a few ulp of `|start|` (0.015 at 46341 units, past the format's band
/// of 0.01), so rays are brought near the disc first ([`approach`]); a swept circle's
/// start is within its motion, whose tolerance grows with it.
pub fn disc_entry(start: Vec2, radius: f32, delta: Vec2) -> Option<(f32, Option<Vec2>)> {
    if scaled_length(start) <= radius {
        return Some((0.0, None));
    }
    let largest = delta.x.abs().max(delta.y.abs());
    if largest == 0.0 {
        return None;
    }
    let d = delta / largest;
    let reach = d.length(); // |delta| / largest, in [1, √2]
    let u = d / reach;
    let across = Vec2::new(-u.y, u.x);
    let along = -start.dot(u);
    let side = start.dot(across);
    // Written so that a number that is not one (an input far past f32's range) misses.
    if !(along > 0.0 && side.abs() <= radius) {
        return None;
    }
    let half = ((radius - side.abs()) * (radius + side.abs())).sqrt();
    // The distance run to the entry, in units of `largest`.
    let run = (along - half).max(0.0) / largest;
    if run.is_nan() || run > reach {
        return None;
    }
    let t = (run / reach).min(1.0);
    let point = across * side - u * half;
    Some((t, Some(point)))
}

/// How far to bring a ray's start along it before testing a shape within `reach` of
/// the origin: `Some(t)`, the time at which `start + t·delta` comes within
/// [`APPROACH_MARGIN`] of that circle's reach along the ray (0 when it starts there), or
/// `None` when the segment, `t` in `[0, 1]`, ends before it could meet the shape. WGSL
/// `approach`.
///
/// An entry computed from a start far from the shape carries the rounding of the start's
/// distance, a few ulp of it: 0.015 at the 46341 units between opposite corners of the
/// format's range, and worse where that rounding tips a choice (a capsule's end disc
/// missed by a ray running along it). From the near start every length in the test is
/// at most the shape's size, and the only roundings at the scale of the world are the
/// near start's own (half an ulp of its coordinates) and the time's (`t + t'·(1 - t)`).
pub fn approach(start: Vec2, delta: Vec2, reach: f32) -> Option<f32> {
    let largest = delta.x.abs().max(delta.y.abs());
    if largest == 0.0 {
        return Some(0.0);
    }
    let d = delta / largest;
    let length = d.length(); // |delta| / largest, in [1, √2]
    // The distance run before the ray is at the margin of the reach, at its nearest.
    let run = (-start.dot(d / length) - (reach + APPROACH_MARGIN)) / largest;
    // A number that is not one (far past the format's range) starts here.
    if run.is_nan() || run <= 0.0 {
        return Some(0.0);
    }
    (run < length).then(|| run / length)
}

/// How far outside a shape's reach [`approach`] leaves a ray's start: far more than the
/// rounding of the run it skips (a few hundredths at the format's range), so that the
/// near start is outside the shape and the ray's first entry lies ahead of it.
pub const APPROACH_MARGIN: f32 = 1.0;

/// The first entry `entry(start, delta)` of the segment, `t` in `[0, 1]`, computed from
/// its start brought near the shape ([`approach`]): the entry of the rest of the
/// segment, `start + t0·delta` to its end, timed back on the whole segment.
pub fn entry_from_near<T>(
    start: Vec2,
    delta: Vec2,
    reach: f32,
    entry: impl FnOnce(Vec2, Vec2) -> Option<(f32, T)>,
) -> Option<(f32, T)> {
    let t0 = approach(start, delta, reach)?;
    let rest = 1.0 - t0;
    let (t, found) = entry(start + delta * t0, delta * rest)?;
    Some((t0 + t * rest, found))
}

/// `|v|` without overflow, `v` scaled by its largest component first. WGSL
/// `scaled_length`.
pub fn scaled_length(v: Vec2) -> f32 {
    let largest = v.x.abs().max(v.y.abs());
    if largest == 0.0 || !largest.is_finite() {
        return largest;
    }
    largest * (v / largest).length()
}

/// `x.floor() as i32` for `|x| < 2^23`: truncated, then one less where truncating
/// rounded up. WGSL's `floor` is one instruction; in Rust, on a portable x86-64 build
/// (no SSE4.1), `f32::floor` is a call into libm, which was 3% of the cpu backend's
/// mixed frame in the bitmask rows.
pub fn floor_i32(x: f32) -> i32 {
    let t = x as i32;
    t - ((t as f32) > x) as i32
}

/// `x.ceil() as i32` for `|x| < 2^23`: truncated, then one more where truncating rounded
/// down ([`floor_i32`] says why).
pub fn ceil_i32(x: f32) -> i32 {
    let t = x as i32;
    t + ((t as f32) < x) as i32
}

#[cfg(test)]
mod tests {
    use std::f32::consts::TAU;

    use super::*;

    #[test]
    fn floor_and_ceil_to_integers_are_the_standard_ones() {
        let mut xs: Vec<f32> = (-40_000..=40_000).map(|k| k as f32 * 0.125).collect();
        for k in -20..=20 {
            let k = k as f32;
            xs.extend([k.next_down(), k.next_up(), k - 1e-3, k + 1e-3]);
        }
        xs.extend([-0.0, 0.0, 8_388_607.0, -8_388_607.0, 8191.99, f32::NAN]);
        for x in xs {
            assert_eq!(floor_i32(x), x.floor() as i32, "floor {x}");
            assert_eq!(ceil_i32(x), x.ceil() as i32, "ceil {x}");
        }
    }
    use glam::DVec2;

    /// Numbers in `[0, 1)`, the same ones every run.
    struct Lcg(u64);

    impl Lcg {
        fn unit(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn between(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * self.unit()
        }
    }

    /// The distance from `p` to the segment `a b`, in f64.
    fn to_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
        let ab = b - a;
        let s = if ab == DVec2::ZERO {
            0.0
        } else {
            ((p - a).dot(ab) / ab.dot(ab)).clamp(0.0, 1.0)
        };
        (p - a - ab * s).length()
    }

    /// The first `t` in `[0, 1]` at which `start + t·delta` is within `radius` of the
    /// segment `a b`, in f64 and solved directly: 0 when it starts there, else the first
    /// entry into an end disc or across a long side.
    fn first_within(start: DVec2, delta: DVec2, a: DVec2, b: DVec2, radius: f64) -> Option<f64> {
        if radius < 0.0 {
            return None;
        }
        if to_segment(start, a, b) <= radius {
            return Some(0.0);
        }
        let (length, mut first) = (delta.length(), None::<f64>);
        let mut keep = |t: f64| {
            if (0.0..=1.0).contains(&t) && first.is_none_or(|f| t < f) {
                first = Some(t);
            }
        };
        let u = delta / length;
        for end in [a, b] {
            let (along, side) = (-(start - end).dot(u), (start - end).perp_dot(u));
            if side.abs() <= radius {
                keep((along - (radius * radius - side * side).sqrt()) / length);
            }
        }
        let ab = b - a;
        if ab != DVec2::ZERO {
            let n = ab.perp().normalize();
            for facing in [n, -n] {
                let (gap, approach) = ((start - a).dot(facing) - radius, -delta.dot(facing));
                if gap >= 0.0 && approach > 0.0 {
                    let t = gap / approach;
                    let reached = (start + delta * t - a).dot(ab) / ab.dot(ab);
                    if (0.0..=1.0).contains(&reached) {
                        keep(t);
                    }
                }
            }
        }
        first
    }

    /// What is wrong, by the format's rules for rays, with `found` as the entry of the
    /// segment into the capsule `a b` of `radius`: the point entered must be within 0.01
    /// of the boundary, and no later (by 0.01 along the segment) than the segment first
    /// lies 0.01 deep; a miss must never lie 0.01 deep; a start inside must be within 0.01
    /// of it.
    fn entry_problem(
        (start, delta): (Vec2, Vec2),
        (a, b, radius): (Vec2, Vec2, f32),
        found: Option<(f32, Option<Vec2>)>,
    ) -> Option<String> {
        let (s, d, a, b, r) = (
            start.as_dvec2(),
            delta.as_dvec2(),
            a.as_dvec2(),
            b.as_dvec2(),
            radius as f64,
        );
        let off = |t: f64| to_segment(s + d * t, a, b) - r;
        let deep = first_within(s, d, a, b, r - 0.01);
        match found {
            None => deep.map(|t| format!("missed, but it is 0.01 deep at {t}")),
            Some((t, None)) => (t != 0.0 || off(0.0) > 0.01)
                .then(|| format!("starts inside at t {t}, {} from the boundary", off(0.0))),
            Some((t, Some(_))) => {
                let (t, slack) = (t as f64, 0.01 / d.length());
                if off(t).abs() > 0.01 {
                    Some(format!("enters {} off the boundary at t {t}", off(t)))
                } else {
                    deep.filter(|&deep| t > deep + slack)
                        .map(|deep| format!("enters at {t}, but it is 0.01 deep at {deep}"))
                }
            }
        }
    }

    #[test]
    fn rays_brought_near_enter_within_the_band_across_the_range() {
        // Discs, capsules and segments of every size the format allows, about the
        // origin; segments from up to the diagonal of the range (46341) away, aimed at a
        // point by the shape (along its segment and past its ends, up to half its
        // radius again out), reaching half to one and a half times that far.
        let mut random = Lcg(17);
        let mut worst = 0.0f64;
        for case in 0..60_000 {
            let size = random.between(0.02f32.ln(), 512f32.ln()).exp();
            let a = Vec2::from_angle(random.between(0.0, TAU)) * size * random.unit();
            let b = match case % 3 {
                0 => a, // a disc
                _ => a + Vec2::from_angle(random.between(0.0, TAU)) * size * 2.0,
            };
            let radius = if case % 3 == 2 { 0.0 } else { size * random.unit() };
            let reach = (a.abs().max(b.abs()) + radius).length();
            let distance = if case % 2 == 0 {
                random.unit() * 46341.0
            } else {
                random.between(0.01f32.ln(), 46341f32.ln()).exp()
            };
            let start = Vec2::from_angle(random.between(0.0, TAU)) * distance;
            let towards = (b - a).normalize_or(Vec2::X).perp();
            let target = a.lerp(b, random.between(-0.2, 1.2))
                + towards * (radius * random.between(-1.5, 1.5));
            let delta = (target - start) * random.between(0.5, 1.5);
            if delta == Vec2::ZERO {
                continue;
            }
            let found = entry_from_near(start, delta, reach, |s, d| {
                if a == b {
                    disc_entry(s - a, radius, d)
                } else {
                    capsule_entry(s, d, a, b, radius)
                }
            });
            if let Some((t, Some(_))) = found {
                let at = start.as_dvec2() + delta.as_dvec2() * t as f64;
                worst = worst.max((to_segment(at, a.as_dvec2(), b.as_dvec2()) - radius as f64).abs());
            }
            let problem = entry_problem((start, delta), (a, b, radius), found);
            assert!(
                problem.is_none(),
                "start {start}, delta {delta}, ends {a} {b}, radius {radius}: {}",
                problem.unwrap_or_default()
            );
        }
        // Half the band, leaving the rest to the rounding of the ray's start into the
        // body's frame (half an ulp of a coordinate, 0.002 at the range's edge).
        assert!(worst <= 0.005, "entries up to {worst} off the boundary");
    }

    #[test]
    fn a_ray_is_brought_near_only_from_afar() {
        // From 100 units out towards a shape of reach 10: to 11 units from its centre.
        let t = approach(Vec2::new(-100.0, 5.0), Vec2::new(200.0, 0.0), 10.0);
        assert_eq!(t, Some((100.0 - 11.0) / 200.0));
        // Starting within the margin, or moving away: not moved.
        assert_eq!(approach(Vec2::new(-10.5, 0.0), Vec2::X, 10.0), Some(0.0));
        assert_eq!(approach(Vec2::new(-100.0, 0.0), -Vec2::X, 10.0), Some(0.0));
        // Ending before the reach: nothing to meet.
        assert_eq!(approach(Vec2::new(-100.0, 0.0), Vec2::new(80.0, 0.0), 10.0), None);
        // The time is taken back onto the whole ray.
        let hit = entry_from_near(Vec2::new(-100.0, 0.0), Vec2::new(200.0, 0.0), 10.0, |s, d| {
            disc_entry(s, 1.0, d)
        });
        assert_eq!(hit.map(|(t, _)| t), Some(99.0 / 200.0));
    }

    #[test]
    fn disc_entry_takes_any_finite_segment() {
        // A segment of length past f32's range still finds the disc at its start.
        let hit = disc_entry(Vec2::new(-10.0, 0.0), 1.0, Vec2::new(3e38, 3e38 * 1e-38));
        let (t, point) = hit.expect("hit");
        assert!((0.0..1e-37).contains(&t), "{t}");
        assert!((point.expect("entered") - Vec2::new(-1.0, 0.0)).length() < 1e-6);
        // |v|² would be 2.5e39, past f32's range.
        assert!((scaled_length(Vec2::new(3e19, 4e19)) / 5e19 - 1.0).abs() < 1e-6);
        assert_eq!(disc_entry(Vec2::new(5.0, 0.0), 1.0, Vec2::ZERO), None);
        assert_eq!(
            disc_entry(Vec2::new(0.5, 0.0), 1.0, Vec2::X),
            Some((0.0, None))
        );
    }
}
