//! How a body is packed for the stages: its per-frame transform (position and rotation,
//! the rotation computed as the GPU computes it) and its rarely changing info (shape,
//! filter), kept up to date frame after frame without recomputing what did not change.

use crate::input::body::Body;
use crate::layout::packed::{BodyInfo, BodyTransform, NO_OWNER};

/// Angles (radians) up to which [`body_transform`] takes its rotation from
/// [`source_rotation`]: there it is within 1e-6 of the f64 rotation (a unit test holds it
/// to that), 0.001 at 1000 units from a body's origin, a tenth of the format's band.
/// Past it, the f32 reduction loses that, and the rotation is computed in f64.
pub const FAST_ROTATION_LIMIT: f32 = 8192.0;

/// The per-frame part of a body, with its rotation as `(cos, sin)`.
///
/// The rotation is [`source_rotation`]'s, the one the GPU computes for angles it reads from
/// a caller's buffer, for angles within [`FAST_ROTATION_LIMIT`]: f64 `sin_cos` branches
/// on its argument, and on a body list's scattered angles its mispredictions took a fifth
/// of the cpu backend's frame on bullet-hell 100k when every body turned.
pub fn body_transform(body: &Body) -> BodyTransform {
    let rotation = if body.angle.abs() <= FAST_ROTATION_LIMIT {
        source_rotation(body.angle)
    } else {
        let (sin, cos) = (body.angle as f64).sin_cos();
        [cos as f32, sin as f32]
    };
    BodyTransform {
        position: body.position.to_array(),
        rotation,
    }
}

/// `(cos, sin)` of `angle` computed in f32 the way `read_bodies` (shaders/bounds.wgsl)
/// computes it for angles read from a caller's buffer, operation for operation: within a
/// few f32 ulps of the f64 rotation for angles up to thousands of radians, where WGSL's
/// own `sin` and `cos` may be off by 2^-11.
// The literals are written as in the WGSL, digit for digit, so that the two are easy to
// compare; they round to the same f32s.
#[allow(clippy::excessive_precision)]
pub fn source_rotation(angle: f32) -> [f32; 2] {
    // angle = k pi/2 + r, |r| <= pi/4, pi/2 split in three (Cody and Waite).
    let k = round_ties_even(angle * std::f32::consts::FRAC_2_PI); // as WGSL rounds
    let r = ((angle - k * 1.570_312_5) - k * 4.838_267_9e-4) - k * 2.563_282_9e-12;
    let r2 = r * r;
    let s = r + r
        * r2
        * (-1.666_666_7e-1 + r2 * (8.333_333_3e-3 + r2 * (-1.984_127e-4 + r2 * 2.755_731_9e-6)));
    let c = 1.0
        + r2 * (-0.5
            + r2 * (4.166_666_7e-2
                + r2 * (-1.388_888_9e-3 + r2 * (2.480_158_7e-5 - r2 * 2.755_731_9e-7))));
    // The quadrant, chosen without branches: for a body list's random angles a `match`
    // on it mispredicted, and the cpu backend's rotations of bullet-hell 100k took 0.84
    // ms instead of 0.3. Quadrants 1 and 3 swap the pair to (-s, c); 2 and 3 negate it.
    let quadrant = k as i32;
    let (x, y) = if quadrant & 1 == 0 { (c, s) } else { (-s, c) };
    let negate = ((quadrant & 2) as u32) << 30;
    [
        f32::from_bits(x.to_bits() ^ negate),
        f32::from_bits(y.to_bits() ^ negate),
    ]
}

/// `x` rounded to the nearest whole number, ties to even, as WGSL's `round`. Below 2^22,
/// adding and taking away 1.5 * 2^23 rounds it in the FPU's default mode without the
/// libm call `f32::round_ties_even` makes on targets without SSE4.1.
fn round_ties_even(x: f32) -> f32 {
    const SHIFT: f32 = 12_582_912.0; // 1.5 * 2^23
    if x.abs() < 4_194_304.0 {
        (x + SHIFT) - SHIFT
    } else {
        x.round_ties_even()
    }
}

/// Brings `transforms` up to date with `bodies`, where `angles` holds the angle each
/// transform's rotation was computed from (both as the last call left them). A rotation
/// is a function of the angle's bits alone, so it is reused wherever those did not change,
/// whatever body now sits at that index: the rotations were once most of the host's work
/// in a frame (`sin_cos` in f64: 1.7 to 2.3 ms for 100k bodies on two cores, before
/// [`body_transform`] used [`source_rotation`]), and in many games most bodies do not turn
/// from one frame to the next.
pub fn update_transforms(
    bodies: &[Body],
    transforms: &mut Vec<BodyTransform>,
    angles: &mut Vec<f32>,
) {
    use rayon::prelude::*;
    // Also when the count changed: a game removes the bodies that were hit every frame,
    // and recomputing every rotation then took the cpu backend's 100k bullet-hell frame
    // from 2.9 ms to 4.8-7.4 (the bodies after a removed one shift down an index, and
    // most of them, bullets, share their angle with the one they replace).
    let kept = bodies.len().min(transforms.len()).min(angles.len());
    transforms.truncate(kept);
    angles.truncate(kept);
    transforms
        .par_iter_mut()
        .zip(angles.par_iter_mut())
        .zip(bodies[..kept].par_iter())
        .with_min_len(8192)
        .for_each(|((transform, angle), body)| refresh_transform(body, transform, angle));
    let added = &bodies[kept..];
    transforms.par_extend(added.par_iter().with_min_len(8192).map(body_transform));
    angles.par_extend(added.par_iter().map(|b| b.angle));
}

/// Brings one body's transform up to date, where `angle` is the angle its rotation was
/// computed from: the rotation is reused when the body's angle has the same bits. See
/// [`update_transforms`].
#[inline]
pub fn refresh_transform(body: &Body, transform: &mut BodyTransform, angle: &mut f32) {
    if angle.to_bits() == body.angle.to_bits() {
        transform.position = body.position.to_array();
    } else {
        *transform = body_transform(body);
        *angle = body.angle;
    }
}

/// The rarely changing part of a body: the caller's own, not a part of one.
pub fn body_info(body: &Body) -> BodyInfo {
    BodyInfo {
        shape: body.shape,
        layer: body.layer,
        mask: body.mask,
        kind: 0,
        owner: NO_OWNER,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_the_standard_librarys_ties_to_even() {
        let mut xs: Vec<f32> = (-20_000..=20_000).map(|k| k as f32 * 0.25).collect();
        xs.extend([
            0.499_999_97,
            -0.499_999_97,
            4_194_303.5,
            4_194_304.0,
            8_388_609.0,
            1e30,
        ]);
        for x in xs.iter().flat_map(|&x| [x, -x]) {
            // By value: -0.4 rounds to +0 here and to -0 there, which `source_rotation`
            // cannot tell apart (k only multiplies and picks the quadrant).
            assert_eq!(round_ties_even(x), x.round_ties_even(), "{x}");
        }
    }

    #[test]
    fn source_rotation_is_within_a_few_ulps_of_f64() {
        // Every quadrant, both signs, the reduction's edges, and angles a game that keeps
        // adding to an angle reaches.
        let mut angles: Vec<f32> = (-4000..=4000).map(|k| k as f32 * 0.001_234_5).collect();
        angles.extend((-200..=200).map(|k| k as f32 * std::f32::consts::FRAC_PI_4));
        angles.extend([0.0, -0.0, 1e-30, 1000.0, -2500.5, 6283.0]);
        // Up to the limit below which `body_transform` uses it.
        angles.extend((0..=2000).map(|k| FAST_ROTATION_LIMIT - k as f32 * 0.123));
        angles.extend([-FAST_ROTATION_LIMIT, FAST_ROTATION_LIMIT]);
        let mut worst = 0.0f64;
        for angle in angles {
            let [c, s] = source_rotation(angle);
            let (sin, cos) = (angle as f64).sin_cos();
            worst = worst
                .max((c as f64 - cos).abs())
                .max((s as f64 - sin).abs());
        }
        // 1e-6 rad at 1000 units from a body's origin is 0.001, a tenth of the format's band.
        assert!(worst < 1e-6, "worst error {worst:e}");
    }

    #[test]
    fn updated_transforms_equal_fresh_ones_frame_after_frame() {
        use glam::Vec2;
        let mut bodies: Vec<Body> = (0..20_000)
            .map(|k| Body::new(0, Vec2::new(k as f32, 1.0)).with_angle(k as f32 * 0.001))
            .collect();
        let (mut transforms, mut angles) = (Vec::new(), Vec::new());
        for frame in 0..4 {
            for (k, body) in bodies.iter_mut().enumerate() {
                body.position.y += 0.5;
                if k % (frame + 2) == 0 {
                    body.angle += 0.25; // some turn, most do not
                }
            }
            if frame == 2 {
                bodies.truncate(15_000); // fewer bodies
                bodies.swap(3, 4_000); // a different body at an index
                bodies.remove(7); // the rest shift down an index
            }
            if frame == 3 {
                // more bodies than before, some turned as the last ones are
                let more = (0..3_000).map(|k| Body::new(0, Vec2::ZERO).with_angle(k as f32));
                bodies.extend(more);
            }
            update_transforms(&bodies, &mut transforms, &mut angles);
            let fresh: Vec<BodyTransform> = bodies.iter().map(body_transform).collect();
            assert!(transforms == fresh, "frame {frame}");
        }
    }
}
