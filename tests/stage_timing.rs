//! `Collider::set_stage_timing`: frames give their stage times only when asked (and the
//! device has timestamps), on blocking and on submitted frames, and timing changes no
//! answer.

use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::{Collider, CpuCollider, GpuCollider, StageTimes};

use crate::support::gpu;

/// Whether every stage time is a finite, non-negative number of milliseconds, and the
/// GPU's three together are more than nothing (a frame of 2000 bodies does work).
fn plausible(t: &StageTimes) -> bool {
    let all = [t.upload, t.bounds, t.broad, t.narrow, t.readback];
    all.iter().all(|ms| ms.is_finite() && *ms >= 0.0) && t.bounds + t.broad + t.narrow > 0.0
}

/// Checks that the collider's last frame gave stage times exactly when `timed`, and
/// plausible ones.
fn assert_timed(collider: &GpuCollider, timed: bool, what: &str) {
    let stages = collider.last_frame().stages;
    assert_eq!(stages.is_some(), timed, "{what}: expected timed {timed}");
    if let Some(t) = stages {
        assert!(plausible(&t), "{what}: {t:?}");
    }
}

#[test]
fn frames_are_timed_by_stage_only_when_asked() {
    let Some(context) = gpu() else { return };
    let scene = random_scene(SceneKind::Mixed, 2000, 71);
    let library = scene.validate().expect("valid");
    let expected = CpuCollider::new(library.clone())
        .find_pairs(&scene.bodies)
        .expect("cpu frame");
    assert!(!expected.is_empty());
    let has_timestamps = context
        .device
        .features()
        .contains(gpu_collide::wgpu::Features::TIMESTAMP_QUERY);
    eprintln!("device has timestamps: {has_timestamps}");

    let mut collider = GpuCollider::new(&context, library).expect("collider");
    // Off by default.
    assert!(!collider.stage_timing());
    assert_eq!(collider.find_pairs(&scene.bodies).expect("frame"), expected);
    assert_eq!(collider.last_frame().stages, None, "untimed by default");
    assert!(collider.last_frame().candidates.is_some());

    for on in [true, false, true] {
        collider.set_stage_timing(on);
        assert_eq!(collider.stage_timing(), on && has_timestamps);
        assert_eq!(collider.find_pairs(&scene.bodies).expect("frame"), expected);
        assert_timed(&collider, on && has_timestamps, "blocking frame");

        // A submitted frame is timed as it was asked when submitted, even if timing is
        // switched before it is collected.
        let pending = collider.submit(&scene.bodies).expect("submit");
        collider.set_stage_timing(!on);
        assert_eq!(collider.collect(pending).expect("collect"), expected);
        assert_timed(&collider, on && has_timestamps, "submitted frame");
        collider.set_stage_timing(on);
    }
}
