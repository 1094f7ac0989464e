//! `Collider::reserve`: room made before the first frame changes no answer, on frames
//! with and without motion and on frames of more bodies than were reserved, and counts
//! beyond a backend are refused with an error that leaves the collider working.

use gpu_collide::bench::workload::Workload;
use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::layout::packed::MAX_BODIES;
use gpu_collide::{Collider, CpuCollider, Error, GpuCollider};

use crate::support::gpu;

/// Frames of `work`, each as its bodies.
fn frames(mut work: Workload, count: usize) -> Vec<Vec<gpu_collide::Body>> {
    (0..count)
        .map(|_| {
            let bodies = work.bodies().to_vec();
            work.step();
            bodies
        })
        .collect()
}

#[test]
fn frames_after_reserve_give_the_pairs_of_the_cpu_backend() {
    let Some(context) = gpu() else { return };
    let crowded = Workload::drifting(random_scene(SceneKind::Mixed, 3000, 61), 62);
    let library = crowded.scene().validate().expect("valid");
    let still = frames(crowded, 3);
    let swept_work = Workload::swept_bullet_hell(4000, 63);
    let swept_library = swept_work.scene().validate().expect("valid");
    let swept = frames(swept_work, 3);
    assert!(swept[0]
        .iter()
        .any(|b| b.velocity != gpu_collide::glam::Vec2::ZERO));

    // Room for as many bodies as the frames have, for fewer (the frame grows past it)
    // and for many more.
    for reserved in [3000, 100, 50_000] {
        let mut cpu = CpuCollider::new(library.clone());
        let mut collider = GpuCollider::new(&context, library.clone()).expect("collider");
        collider.reserve(reserved).expect("reserve");
        cpu.reserve(reserved).expect("cpu reserve");
        for (f, bodies) in still.iter().enumerate() {
            let expected = cpu.find_pairs(bodies).expect("cpu frame");
            assert!(!expected.is_empty());
            let got = collider.find_pairs(bodies).expect("gpu frame");
            assert_eq!(got, expected, "room for {reserved}, frame {f}");
        }
        let contacts = collider.find_contacts(&still[0]).expect("gpu contacts");
        let cpu_contacts = cpu.find_contacts(&still[0]).expect("cpu contacts");
        let pairs = |c: &[gpu_collide::Contact]| c.iter().map(|c| c.pair).collect::<Vec<_>>();
        assert_eq!(
            pairs(&contacts),
            pairs(&cpu_contacts),
            "room for {reserved}"
        );

        let mut cpu = CpuCollider::new(swept_library.clone());
        let mut collider = GpuCollider::new(&context, swept_library.clone()).expect("collider");
        collider.reserve(reserved).expect("reserve");
        for (f, bodies) in swept.iter().enumerate() {
            let expected = cpu.find_swept_pairs(bodies).expect("cpu swept frame");
            assert!(!expected.is_empty());
            let got = collider.find_swept_pairs(bodies).expect("gpu swept frame");
            let pairs = |s: &[gpu_collide::SweptPair]| s.iter().map(|s| s.pair).collect::<Vec<_>>();
            assert_eq!(
                pairs(&got),
                pairs(&expected),
                "swept, room for {reserved}, frame {f}"
            );
        }
    }
}

#[test]
fn the_warm_up_frames_of_reserve_leave_nothing_behind() {
    let Some(context) = gpu() else { return };
    // Bodies that wait to be found (bullet-hell) and bodies that all search (mixed):
    // `reserve` runs frames of made-up bodies of each library first, and then the first
    // frame of the caller's must be its own, whatever limit the caller set.
    let scenes = [
        Workload::bullet_hell(3000, 66),
        Workload::drifting(random_scene(SceneKind::Mixed, 2000, 67), 68),
    ];
    for work in scenes {
        let library = work.scene().validate().expect("valid");
        let bodies = frames(work, 2);
        let mut cpu = CpuCollider::new(library.clone());
        let expected = cpu.find_pairs(&bodies[0]).expect("cpu frame");
        let mut collider = GpuCollider::new(&context, library).expect("collider");
        // A limit below the warm-up's own candidates does not fail `reserve`.
        collider.set_max_pairs(1);
        collider.reserve(bodies[0].len()).expect("reserve");
        assert_eq!(
            collider.last_frame(),
            gpu_collide::FrameStats::default(),
            "no frame of the caller's yet"
        );
        // The caller's limit stands: the frame has more candidates than 1.
        assert!(matches!(
            collider.find_pairs(&bodies[0]),
            Err(Error::TooManyPairs { limit: 1, .. })
        ));
        collider.set_max_pairs(u64::MAX);
        assert_eq!(collider.find_pairs(&bodies[0]).expect("frame"), expected);
        let next = cpu.find_pairs(&bodies[1]).expect("cpu frame");
        assert_eq!(collider.find_pairs(&bodies[1]).expect("frame"), next);
    }
}

#[test]
fn reserve_between_frames_keeps_the_answers() {
    let Some(context) = gpu() else { return };
    let work = Workload::drifting(random_scene(SceneKind::Bitmasks, 2000, 64), 65);
    let library = work.scene().validate().expect("valid");
    let bodies = frames(work, 2);
    let mut cpu = CpuCollider::new(library.clone());
    let mut collider = GpuCollider::new(&context, library).expect("collider");
    let first = collider.find_pairs(&bodies[0]).expect("frame");
    assert_eq!(first, cpu.find_pairs(&bodies[0]).expect("cpu frame"));
    // New, zeroed buffers between two frames: the second frame uploads everything again.
    collider.reserve(40_000).expect("reserve");
    let second = collider.find_pairs(&bodies[1]).expect("frame");
    assert_eq!(second, cpu.find_pairs(&bodies[1]).expect("cpu frame"));
    assert_ne!(first, second, "the bodies moved between the frames");
}

#[test]
fn counts_past_a_backend_are_refused_and_the_collider_still_works() {
    let scene = random_scene(SceneKind::Mixed, 500, 66);
    let library = scene.validate().expect("valid");
    let expected = CpuCollider::new(library.clone())
        .find_pairs(&scene.bodies)
        .expect("cpu frame");

    let mut cpu = CpuCollider::new(library.clone());
    match cpu.reserve(usize::MAX) {
        Err(Error::Backend { backend, message }) => {
            assert_eq!(backend, "cpu");
            assert!(message.contains("cannot make room"), "{message}");
        }
        other => panic!("usize::MAX bodies reserved on the cpu backend: {other:?}"),
    }
    assert_eq!(cpu.find_pairs(&scene.bodies).expect("cpu frame"), expected);

    let Some(context) = gpu() else { return };
    let mut collider = GpuCollider::new(&context, library).expect("collider");
    let past = MAX_BODIES as usize + 1;
    match collider.reserve(past) {
        Err(Error::TooLarge {
            what,
            needed,
            limit,
            unit,
            ..
        }) => {
            assert_eq!(what, format!("numbering a frame of {past} bodies"));
            assert_eq!((needed, limit), (past as u64, MAX_BODIES as u64));
            assert_eq!(unit, "body indices");
        }
        other => panic!("{past} bodies reserved on the gpu: {other:?}"),
    }
    assert_eq!(
        collider.find_pairs(&scene.bodies).expect("gpu frame"),
        expected
    );
}
