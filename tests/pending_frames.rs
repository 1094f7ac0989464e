//! Frames that do not wait (`GpuCollider::submit`, `collect`, `try_collect`): the same
//! pairs as the blocking call, frame by frame, with frames in flight, through buffer
//! growth, in any order of collection; and clear errors on misuse.

use gpu_collide::bench::workload::Workload;
use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::{Body, Collider, Error, GpuCollider, PendingFrame, MAX_FRAMES_IN_FLIGHT};

use crate::support::gpu;

/// Eight frames of a drifting crowded scene.
fn frames() -> (gpu_collide::ShapeLibrary, Vec<Vec<Body>>) {
    let mut work = Workload::drifting(random_scene(SceneKind::Mixed, 3000, 51), 52);
    let library = work.scene().validate().expect("valid");
    let frames = (0..8)
        .map(|_| {
            let bodies = work.bodies().to_vec();
            work.step();
            bodies
        })
        .collect();
    (library, frames)
}

#[test]
fn frames_in_flight_give_the_blocking_pairs_in_order() {
    let Some(context) = gpu() else { return };
    let (library, frames) = frames();
    let mut blocking = GpuCollider::new(&context, library.clone()).expect("collider");
    let expected: Vec<_> = frames
        .iter()
        .map(|b| blocking.find_pairs(b).expect("blocking frame"))
        .collect();
    // A fresh collider: its first frame overflows the first capacities (thousands of
    // candidates), is run again when collected, and must still give the same pairs.
    let mut collider = GpuCollider::new(&context, library).expect("collider");
    let mut in_flight = std::collections::VecDeque::new();
    let mut got = Vec::new();
    for bodies in &frames {
        if in_flight.len() == 3 {
            got.push(
                collider
                    .collect(in_flight.pop_front().unwrap())
                    .expect("collect"),
            );
        }
        in_flight.push_back(collider.submit(bodies).expect("submit"));
    }
    while let Some(frame) = in_flight.pop_front() {
        got.push(collider.collect(frame).expect("collect"));
    }
    assert!(expected.iter().all(|p| !p.is_empty()));
    assert_eq!(got, expected);
}

#[test]
fn try_collect_never_waits_and_hands_the_frame_back_until_it_is_ready() {
    let Some(context) = gpu() else { return };
    let (library, frames) = frames();
    let mut collider = GpuCollider::new(&context, library.clone()).expect("collider");
    let expected = collider.find_pairs(&frames[0]).expect("blocking");
    let mut frame = collider.submit(&frames[0]).expect("submit");
    let pairs = loop {
        match collider.try_collect(frame).expect("try_collect") {
            Ok(pairs) => break pairs,
            Err(back) => frame = back,
        }
    };
    assert_eq!(pairs, expected);
}

#[test]
fn frames_collect_in_any_order_and_misuse_is_a_clear_error() {
    let Some(context) = gpu() else { return };
    let (library, frames) = frames();
    let mut blocking = GpuCollider::new(&context, library.clone()).expect("collider");
    let expected: Vec<_> = frames[..2]
        .iter()
        .map(|b| blocking.find_pairs(b).expect("blocking frame"))
        .collect();
    let mut a = GpuCollider::new(&context, library.clone()).expect("collider");
    let mut b = GpuCollider::new(&context, library).expect("collider");
    let first = a.submit(&frames[0]).expect("submit");
    let second = a.submit(&frames[1]).expect("submit");
    assert_eq!(a.collect(second).expect("second first"), expected[1]);
    // A frame of another collider.
    let of_b = b.submit(&frames[0]).expect("submit");
    match a.collect(of_b) {
        Err(Error::InvalidUse(message)) => {
            assert!(message.contains("another collider"), "{message}")
        }
        other => panic!("expected InvalidUse, got {other:?}"),
    }
    // Too many in flight: `first` still flies.
    let mut kept: Vec<PendingFrame> = Vec::new();
    let refused = loop {
        match a.submit(&frames[2]) {
            Ok(frame) => kept.push(frame),
            Err(error) => break error,
        }
    };
    assert!(
        matches!(&refused, Error::InvalidUse(m) if m.contains("in flight")),
        "{refused}"
    );
    assert_eq!(kept.len() + 1, MAX_FRAMES_IN_FLIGHT);
    assert_eq!(a.collect(first).expect("first, last"), expected[0]);
    for frame in kept {
        assert!(!a.collect(frame).expect("the others").is_empty());
    }
}

#[test]
fn a_frame_of_one_body_has_no_pairs() {
    let Some(context) = gpu() else { return };
    let (library, frames) = frames();
    let mut collider = GpuCollider::new(&context, library).expect("collider");
    let frame = collider.submit(&frames[0][..1]).expect("submit");
    assert_eq!(
        collider.collect(frame).expect("collect"),
        Vec::<[u32; 2]>::new()
    );
}

/// wgpu runs a mapping's callback in whichever thread's poll finds the GPU done, after
/// that poll has let go of its locks: a thread whose own wait has ended may find its
/// callback still on its way from another thread. A game that polls its device from
/// one thread while collecting frames on another must still get every frame's pairs.
#[test]
fn frames_are_collected_while_other_threads_poll_the_same_device() {
    let Some(context) = gpu() else { return };
    let (library, frames) = frames();
    let small: Vec<Body> = frames[0][..40].to_vec();
    let expected = GpuCollider::new(&context, library.clone())
        .expect("collider")
        .find_pairs(&small)
        .expect("blocking frame");
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = context.device.poll(gpu_collide::wgpu::PollType::Poll);
                }
            });
        }
        let workers: Vec<_> = (0..3)
            .map(|_| {
                let (context, library, small, expected) = (&context, &library, &small, &expected);
                scope.spawn(move || {
                    let mut collider =
                        GpuCollider::new(context, library.clone()).expect("collider");
                    for k in 0..400 {
                        let frame = collider.submit(small).expect("submit");
                        let pairs = collider
                            .collect(frame)
                            .unwrap_or_else(|e| panic!("frame {k}: {e}"));
                        assert_eq!(&pairs, expected, "frame {k}");
                    }
                })
            })
            .collect();
        let results: Vec<_> = workers.into_iter().map(|w| w.join()).collect();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for r in results {
            if let Err(e) = r {
                std::panic::resume_unwind(e);
            }
        }
    });
}
