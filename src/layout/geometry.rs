//! Geometry and filter helpers, the Rust twin of `shaders/geometry.wgsl`: rotating a
//! point, testing two filters or two boxes, entering a disc, the distance to a segment. Every stage uses them; they
//! are written once here for the CPU twins, operation for operation as the WGSL, so
//! that the two paths round alike.

use glam::Vec2;

use crate::layout::packed::Aabb;

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

/// Whether two closed boxes share a point; WGSL `aabbs_overlap`.
pub fn aabbs_overlap(a: &Aabb, b: &Aabb) -> bool {
    a.min[0] <= b.max[0] && b.min[0] <= a.max[0] && a.min[1] <= b.max[1] && b.min[1] <= a.max[1]
}

impl Aabb {
    /// Whether the two closed boxes share a point ([`aabbs_overlap`]).
    pub fn overlaps(&self, other: &Aabb) -> bool {
        aabbs_overlap(self, other)
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
/// point is off by a few ulp of `|start|` (about 0.005 at 32768 units), within the
/// format's band of 0.01.
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
    use proptest::prelude::*;

    /// The distance from `p` to the origin's circle of `radius` (negative inside), in f64.
    fn off_circle(p: [f64; 2], radius: f32) -> f64 {
        p[0].hypot(p[1]) - radius as f64
    }

    /// Where the f64 segment comes closest to the origin.
    fn closest(start: Vec2, delta: Vec2) -> f64 {
        let (s, d) = (start.as_dvec2(), delta.as_dvec2());
        let t = (-s.dot(d) / d.dot(d)).clamp(0.0, 1.0);
        (s + t * d).length()
    }

    proptest! {
        /// Over the format's range (starts up to the world's diagonal from the circle,
        /// radii from 0.05 to 512, segments up to twice the diagonal, aimed at the circle
        /// from head-on to past its edge), the entry point lies within 0.01 of the circle
        /// and a miss never passes deeper than 0.01 inside it.
        #[test]
        fn disc_entry_is_within_the_band_across_the_range(
            distance in 0.0f32..46341.0,
            heading in 0.0f32..std::f32::consts::TAU,
            radius_log in (0.05f32).ln()..(512.0f32).ln(),
            aim in -1.3f32..1.3,
            reach in 0.0f32..2.0,
        ) {
            let radius = radius_log.exp();
            let start = Vec2::from_angle(heading) * distance;
            let towards = -start.normalize_or(Vec2::X);
            let past = towards.perp() * (aim * radius);
            let delta = (towards * distance + past) * reach;
            prop_assume!(delta != Vec2::ZERO);
            match disc_entry(start, radius, delta) {
                Some((t, point)) => {
                    prop_assert!((0.0..=1.0).contains(&t));
                    let at = start.as_dvec2() + t as f64 * delta.as_dvec2();
                    let off = off_circle(at.to_array(), radius);
                    match point {
                        None => prop_assert!(t == 0.0 && off <= 0.01, "starts {off} off the circle"),
                        Some(p) => {
                            prop_assert!(off.abs() <= 0.01, "enters {off} off the circle (t {t})");
                            let between = (p.as_dvec2() - at).length();
                            prop_assert!(between <= 0.02, "entry point {p} is {between} from the segment's");
                        }
                    }
                }
                None => {
                    let nearest = closest(start, delta);
                    prop_assert!(nearest >= radius as f64 - 0.01, "missed, passing {nearest} from the centre");
                }
            }
        }
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
