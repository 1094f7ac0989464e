//! What every baseline that keeps a world from frame to frame (rapier2d, Box2D) is held
//! to, written once for their tests: the cpu backend's pairs frame after frame, bodies
//! that come, go and change, the format's two-way filter, the pair limit and refused
//! motion.

use glam::Vec2;

use crate::answer::collider::{Collider, Pair};
use crate::error::Error;
use crate::input::body::Body;
use crate::input::library::ShapeLibrary;
use crate::tools::bench::band::{verdict, Verdict};
use crate::tools::bench::workload::Workload;
use crate::tools::generate::{random_scene, SceneKind};
use crate::{Bitmask, Circle, CpuCollider, Polygon, Scene, Shape};

/// A baseline for a library.
pub type Make<'a> = &'a dyn Fn(ShapeLibrary) -> Box<dyn Collider>;

/// Frame after frame on moving scenes of every generated kind, the pairs the baseline
/// keeps finding are the cpu's, except pairs within the tolerance band of touching; a
/// baseline that counts candidates counts at least its pairs.
pub fn agrees_with_the_cpu_frame_after_frame(make: Make) {
    let mut workloads: Vec<Workload> = SceneKind::ALL
        .iter()
        .map(|&kind| Workload::drifting(random_scene(kind, 800, 11), 12))
        .collect();
    workloads.push(Workload::bullet_hell(2000, 3));
    for mut workload in workloads {
        let library = workload.scene().validate().expect("valid scene");
        let mut baseline = make(library.clone());
        let mut cpu = CpuCollider::new(library);
        let mut found = 0;
        for frame in 0..6 {
            if frame > 0 {
                workload.step();
            }
            let bodies = workload.bodies();
            let ours = cpu.find_pairs(bodies).expect("cpu");
            let theirs = baseline.find_pairs(bodies).expect("baseline");
            found += theirs.len();
            let shapes = &workload.scene().shapes;
            let differing = ours
                .iter()
                .filter(|p| theirs.binary_search(p).is_err())
                .chain(theirs.iter().filter(|p| ours.binary_search(p).is_err()));
            for &[i, j] in differing {
                let v = verdict(shapes, &bodies[i as usize], &bodies[j as usize]);
                assert_eq!(v, Some(Verdict::InBand), "frame {frame}: pair [{i}, {j}]");
            }
            if let Some(candidates) = baseline.last_frame().candidates {
                assert!(candidates >= theirs.len() as u64);
            }
        }
        assert!(found > 0, "the scenes have pairs");
    }
}

/// The library of [`follows_bodies_that_come_go_and_change`]: a circle, a bar and an
/// empty bitmask.
pub fn changing_library() -> ShapeLibrary {
    let scene = Scene {
        shapes: vec![
            Shape::Circle(Circle::new(1.0)),
            Shape::Polygon(Polygon::rectangle(6.0, 1.0)),
            Shape::Bitmask(Bitmask::new(2, 2).expect("an empty mask")),
        ],
        ..Scene::default()
    };
    scene.validate().expect("valid")
}

/// Bodies that come and go, change shape or change filter between frames, over
/// [`changing_library`]: the baseline follows them, as the cpu backend does.
pub fn follows_bodies_that_come_go_and_change(baseline: &mut dyn Collider) {
    let mut cpu = CpuCollider::new(changing_library());
    let at = |shape, x: f32| Body::new(shape, Vec2::new(x, 0.0));
    // Body 0 is on layer 1 and sees layer 1, which every other body is on (all
    // layers) until frame 3.
    let first = || at(0, 0.0).with_filter(1, 1);
    let frames: Vec<Vec<Body>> = vec![
        vec![first(), at(0, 1.5), at(0, 5.0)],
        // Body 1 becomes a long bar reaching body 2; body 3 appears on body 0.
        vec![first(), at(1, 3.0), at(0, 5.0), at(0, 0.5)],
        // Body 1 has no shape to touch with; body 3 is gone.
        vec![first(), at(2, 0.0), at(0, 5.0)],
        // Body 2 comes to body 0, and leaves the layers body 0 sees.
        vec![first(), at(2, 0.0), at(0, 1.0).with_filter(2, 2)],
        // And back into them.
        vec![first(), at(1, 0.0), at(0, 1.0)],
        vec![],
        vec![first(), at(0, 1.0)],
    ];
    let expected: [&[Pair]; 7] = [
        &[[0, 1]],
        &[[0, 1], [0, 3], [1, 2], [1, 3]],
        &[],
        &[],
        &[[0, 1], [0, 2], [1, 2]],
        &[],
        &[[0, 1]],
    ];
    for (frame, (bodies, expected)) in frames.iter().zip(expected).enumerate() {
        let pairs = baseline.find_pairs(bodies).expect("pairs");
        assert_eq!(pairs, expected, "frame {frame}");
        assert_eq!(pairs, cpu.find_pairs(bodies).expect("cpu"), "frame {frame}");
    }
}

/// A library of one circle of radius 1.
pub fn circle_library() -> ShapeLibrary {
    let scene = Scene {
        shapes: vec![Shape::Circle(Circle::new(1.0))],
        ..Scene::default()
    };
    scene.validate().expect("valid")
}

/// The filter holds both ways, as the format's: a body whose mask does not see the
/// other's layer keeps the pair out, whatever the other's mask says (over
/// [`circle_library`]).
pub fn the_filter_must_agree_both_ways(baseline: &mut dyn Collider) {
    let at = |x: f32, layer, mask| Body::new(0, Vec2::new(x, 0.0)).with_filter(layer, mask);
    // All four overlap. 0 and 1 see each other; 2 sees 0 (0's layer is in 2's mask)
    // but 0 does not see 2; 3 and 0 see each other through one shared bit of several;
    // 3 sees 1, not the other way.
    let bodies = [
        at(0.0, 1, 2),
        at(0.5, 2, 1),
        at(1.0, 4, 1),
        at(1.5, 0b1010, 0b11),
    ];
    assert_eq!(
        baseline.find_pairs(&bodies).expect("pairs"),
        vec![[0, 1], [0, 3]]
    );
}

/// Over the pair limit, the frame is refused with the count the other backends give
/// (over [`circle_library`]).
pub fn too_many_pairs_are_refused_with_the_others_count(baseline: &mut dyn Collider) {
    let pile: Vec<Body> = (0..4)
        .map(|k| Body::new(0, Vec2::new(k as f32 * 0.1, 0.0)))
        .collect();
    let mut cpu = CpuCollider::new(circle_library());
    baseline.set_max_pairs(5);
    cpu.set_max_pairs(5);
    let refused = baseline.find_pairs(&pile);
    assert!(
        matches!(refused, Err(Error::TooManyPairs { found: 6, limit: 5 })),
        "{refused:?}"
    );
    assert!(matches!(
        cpu.find_pairs(&pile),
        Err(Error::TooManyPairs { .. })
    ));
    baseline.set_max_pairs(6);
    assert_eq!(baseline.find_pairs(&pile).expect("pairs").len(), 6);
}

/// Moving bodies and swept frames are refused as unsupported, naming the baseline
/// (over [`circle_library`]).
pub fn moving_bodies_are_refused_as_unsupported(baseline: &mut dyn Collider, name: &str) {
    let bodies = [
        Body::new(0, Vec2::ZERO),
        Body::new(0, Vec2::new(5.0, 0.0)).with_velocity(Vec2::new(-5.0, 0.0)),
    ];
    for result in [
        baseline.find_pairs(&bodies).map(|_| ()),
        baseline.find_swept_pairs(&bodies).map(|_| ()),
    ] {
        assert!(
            matches!(&result, Err(Error::Unsupported { backend, .. }) if backend == name),
            "{result:?}"
        );
    }
}
