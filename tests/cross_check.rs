//! The CPU-vs-GPU cross-check on seeded random scenes of thousands of bodies, both held
//! to the independent f64 oracle. Outside the format's 0.01 band every backend must be
//! exact; pairs inside the band are classified and counted, never ignored.

use gpu_collide::generate::{random_scene, BulletHell, SceneKind};
use gpu_collide::layout::packed::BIN_FROM_CANDIDATES;
use gpu_collide::layout::shaders::{GridBinding, LibraryBinding};
use gpu_collide::shapes::Bitmask;
use gpu_collide::{
    Body, Collider, CpuCollider, GpuCollider, GpuContext, Pair, Scene, Shape, ShapeLibrary,
};

use crate::oracle;
use crate::support::{
    assert_differences_in_band, assert_exact_outside_band, assert_well_formed, cpu_pairs, gpu,
    gpu_pairs, reference_pairs,
};

fn cross_check(kind: SceneKind, bodies: usize, seed: u64) {
    let text = random_scene(kind, bodies, seed).to_json();
    // Every backend and the oracle read the same file.
    let scene = Scene::from_json(&text).expect("generated scenes are valid");
    let truth = oracle::oracle(&text);
    assert!(
        truth.pairs.len() >= bodies / 10,
        "{kind:?}: only {} pairs; the scene is too sparse to test anything",
        truth.pairs.len()
    );
    let cpu = cpu_pairs(&scene);
    // Same narrow phase on the same data: the grid must find exactly the reference's pairs.
    assert_eq!(
        cpu,
        reference_pairs(&scene),
        "{kind:?}: cpu backend vs reference"
    );
    assert_exact_outside_band(&format!("{kind:?} cpu"), &text, &cpu, &truth);
    let Some(context) = gpu() else { return };
    let gpu = gpu_pairs(&context, &scene);
    assert_exact_outside_band(&format!("{kind:?} gpu"), &text, &gpu, &truth);
    assert_binned_frame_agrees(&context, &scene, &gpu);
    let differing = assert_differences_in_band(&format!("{kind:?}"), &cpu, &gpu, &truth);
    eprintln!(
        "{kind:?} seed {seed}: {} bodies, {} pairs, {} band pairs, gpu and cpu differ on {differing} (all in the band)",
        bodies,
        truth.pairs.len(),
        truth.band.len(),
    );
}

/// A second frame of the same bodies on one collider runs the narrow phase by kind pair
/// when the first had many candidates (the first frame of a collider runs one kernel for
/// all): the two must give the same pairs, since both run the same tests.
fn assert_binned_frame_agrees(context: &GpuContext, scene: &Scene, first_frame: &[Pair]) {
    let library = scene.validate().expect("valid");
    let mut collider = GpuCollider::new(context, library).expect("collider");
    let first = collider.find_pairs(&scene.bodies).expect("first frame");
    assert_eq!(first, first_frame, "one kernel for all, twice");
    let candidates = collider
        .last_frame()
        .candidates
        .expect("the gpu counts candidates");
    if candidates < BIN_FROM_CANDIDATES as u64 {
        return;
    }
    let binned = collider.find_pairs(&scene.bodies).expect("second frame");
    assert_eq!(binned, first, "kernels by kind pair vs one kernel for all");
}

/// On a software adapter a small library is read from a uniform buffer and a large one
/// from a storage buffer (`LibraryBinding`): the same bodies must give the same pairs
/// either way, in a first frame (one narrow kernel for all) and a second (by kind pair),
/// and the cpu backend's.
#[test]
fn the_library_read_from_either_binding_gives_the_same_pairs() {
    let scene = random_scene(SceneKind::Mixed, 3000, 21);
    let cpu = cpu_pairs(&scene);
    assert!(cpu.len() >= 300, "only {} pairs", cpu.len());
    let Some(context) = gpu() else { return };
    // The same shapes, then a mask of 1024 x 1024 pixels that no body wears: 128 KiB of
    // words, past any uniform binding.
    let mut shapes = scene.shapes.clone();
    let mut mask = Bitmask::new(1024, 1024).expect("sides in range");
    mask.set(1023, 1023, true);
    shapes.push(Shape::Bitmask(mask));
    let libraries = [
        scene.validate().expect("valid"),
        ShapeLibrary::new(&shapes).expect("valid"),
    ];
    let mut found = Vec::new();
    for library in libraries {
        let mut collider = GpuCollider::new(&context, library).expect("collider");
        let first = collider.find_pairs(&scene.bodies).expect("first frame");
        let second = collider.find_pairs(&scene.bodies).expect("second frame");
        assert_eq!(first, second, "{:?}", collider.library_binding());
        found.push((collider.library_binding(), first));
    }
    let small = if context.adapter.device_type == wgpu::DeviceType::Cpu {
        LibraryBinding::Uniform
    } else {
        LibraryBinding::Storage
    };
    assert_eq!(found[0].0, small, "the scene's own library");
    assert_eq!(
        found[1].0,
        LibraryBinding::Storage,
        "the library of 128 KiB"
    );
    assert_eq!(found[0].1, found[1].1, "uniform vs storage library");
    assert_eq!(found[0].1, cpu, "gpu vs cpu");
}

/// On a software adapter the broad phase's walk reads the grid from uniform copies in a
/// crowded frame while the collider has room for at most `GridBinding::UNIFORM_ENTRIES`
/// bodies, and from the grid's storage buffers in a first frame, a sparse one, or once
/// it has room for more: the same bodies must give the same pairs either way, frame
/// after frame, and the cpu backend's, with filters as well.
#[test]
fn the_grid_read_from_either_binding_gives_the_same_pairs() {
    for (kind, bodies, seed) in [
        (SceneKind::Mixed, 4000, 22),
        (SceneKind::Filtered, 10000, 23),
    ] {
        let scene = random_scene(kind, bodies, seed);
        let cpu = cpu_pairs(&scene);
        let Some(context) = gpu() else { return };
        let software = context.adapter.device_type == wgpu::DeviceType::Cpu;
        for room in [0, GridBinding::UNIFORM_ENTRIES as usize + 1] {
            let mut collider =
                GpuCollider::new(&context, scene.validate().expect("valid")).expect("collider");
            collider.reserve(room).expect("room");
            assert_eq!(
                collider.grid_binding(),
                GridBinding::Storage,
                "{kind:?}: a first frame"
            );
            let first = collider.find_pairs(&scene.bodies).expect("first frame");
            let candidates = collider.last_frame().candidates.expect("counted");
            assert!(
                candidates >= BIN_FROM_CANDIDATES as u64,
                "{kind:?}: only {candidates} candidates, too few for the copies"
            );
            let copied = software && room == 0;
            let expected = if copied {
                GridBinding::Uniform
            } else {
                GridBinding::Storage
            };
            assert_eq!(
                collider.grid_binding(),
                expected,
                "{kind:?}, room for {room}"
            );
            for frame in 2..4 {
                let again = collider.find_pairs(&scene.bodies).expect("later frame");
                assert_eq!(
                    again, first,
                    "{kind:?}, {expected:?}, frame {frame} vs the first"
                );
            }
            assert_eq!(first, cpu, "{kind:?}: gpu vs cpu");
        }
    }
}

#[test]
fn polygons() {
    cross_check(SceneKind::Polygons, 3000, 1);
}

#[test]
fn circles() {
    cross_check(SceneKind::Circles, 3000, 2);
}

#[test]
fn bitmasks() {
    cross_check(SceneKind::Bitmasks, 3000, 3);
}

#[test]
fn mixed() {
    cross_check(SceneKind::Mixed, 3000, 4);
}

#[test]
fn filtered() {
    cross_check(SceneKind::Filtered, 3000, 5);
}

/// Bullet-hell filters, where the bullets wait to be found (`grid::waiter_layers`), with
/// bodies of every size: seekers read the bullets' levels, and bullets under a rotated
/// 4000-unit wall, which cannot sweep down to them, look up at it. Every backend must
/// find what the reference finds, each pair once.
#[test]
fn waiting_bodies_on_every_level() {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    // (layer, mask): enemy bullet, player bullet, player, enemy.
    let filters = [(4u32, 1u32), (8, 2), (1, 4), (2, 8)];
    let radii = [0.5, 1.0, 2.0, 5.0, 12.0, 40.0, 150.0];
    let mut shapes: Vec<serde_json::Value> = radii
        .iter()
        .map(|r| serde_json::json!({ "circle": r }))
        .collect();
    shapes.push(serde_json::json!({"polygon": [[-2000, -3], [2000, -3], [2000, 3], [-2000, 3]]}));
    let mut bodies: Vec<serde_json::Value> = (0..3000)
        .map(|k| {
            let (layer, mask) = filters[if k % 10 < 8 { k % 2 } else { 2 + k % 2 }];
            let shape = if layer >= 4 {
                next() * 5.0
            } else {
                next() * 7.0
            } as usize;
            let (x, y) = (next() * 500.0 - 250.0, next() * 500.0 - 250.0);
            serde_json::json!({"shape": shape, "x": x, "y": y, "layer": layer, "mask": mask})
        })
        .collect();
    bodies.push(
        serde_json::json!({"shape": 7, "x": 0, "y": 10, "angle": 0.3, "layer": 2, "mask": 8}),
    );
    let text = serde_json::json!({ "shapes": shapes, "bodies": bodies }).to_string();
    let scene = Scene::from_json(&text).expect("valid");
    let truth = oracle::oracle(&text);
    assert!(truth.pairs.len() > 300, "{} pairs", truth.pairs.len());
    let cpu = cpu_pairs(&scene);
    assert_eq!(cpu, reference_pairs(&scene), "cpu backend vs reference");
    assert_exact_outside_band("waiting cpu", &text, &cpu, &truth);
    let Some(context) = gpu() else { return };
    let gpu = assert_well_formed("waiting gpu", &gpu_pairs(&context, &scene));
    assert_exact_outside_band("waiting gpu", &text, &gpu, &truth);
    assert_differences_in_band("waiting", &cpu, &gpu, &truth);
}

#[test]
fn overflowing_buffers_grow_and_nothing_is_lost() {
    // 300 identical circles at one spot: 44850 pairs, far past the first capacities.
    let scene = Scene::from_json(
        &serde_json::json!({
            "shapes": [{"circle": 1.0}],
            "bodies": vec![serde_json::json!({"shape": 0, "x": 5.0, "y": 5.0}); 300],
        })
        .to_string(),
    )
    .expect("valid");
    let all: Vec<Pair> = (0..300u32)
        .flat_map(|i| (i + 1..300).map(move |j| [i, j]))
        .collect();
    assert_eq!(reference_pairs(&scene), all);
    assert_eq!(cpu_pairs(&scene), all);
    if let Some(context) = gpu() {
        // The second frame puts the crowded cell's candidates in their kind pair's bin,
        // where broad_deferred reads the pieces handed over.
        let library = scene.validate().expect("valid");
        let mut collider = GpuCollider::new(&context, library).expect("collider");
        for frame in 0..2 {
            let found = collider.find_pairs(&scene.bodies).expect("gpu");
            assert_eq!(found, all, "frame {frame}");
        }
        assert_eq!(
            collider.last_frame().runs,
            Some(1),
            "grown once and for all"
        );
    }
}

/// `count` bodies on a square lattice 1.5 units apart, `columns` to a row, body `k` of
/// shape `shape_of(k)` among `shapes` (a JSON array of the scene format's shapes).
fn lattice_scene(
    shapes: &serde_json::Value,
    count: usize,
    columns: usize,
    shape_of: impl Fn(usize) -> usize,
) -> Scene {
    let bodies: Vec<serde_json::Value> = (0..count)
        .map(|k| {
            let (x, y) = ((k % columns) as f32 * 1.5, (k / columns) as f32 * 1.5);
            serde_json::json!({"shape": shape_of(k), "x": x, "y": y})
        })
        .collect();
    let text = serde_json::json!({"shapes": shapes, "bodies": bodies});
    Scene::from_json(&text.to_string()).expect("valid")
}

/// A crowded frame's broad phase puts each kind pair's candidates in a bin laid out from
/// an earlier frame's counts (`gpu::bins`). Bodies that turn from circles into diamonds
/// overnight find the polygon pairs' bin far too small: the frame must run again with
/// bins laid out from its own counts and lose nothing, and the frame after must fit.
#[test]
fn bins_laid_out_for_other_kind_pairs_run_again_and_lose_nothing() {
    let Some(context) = gpu() else { return };
    // A diamond has the circle's box and, on this lattice, its pairs: the four nearest.
    let diamond = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]];
    // Each body's box meets its eight neighbours' (about 12k candidates), and its shape
    // touches the four nearest.
    let shapes = serde_json::json!([{"circle": 1.0}, {"polygon": diamond}]);
    let scene_of = |shape: usize| lattice_scene(&shapes, 3000, 60, |_| shape);
    let (circles, diamonds) = (scene_of(0), scene_of(1));
    let library = circles.validate().expect("valid");
    let mut collider = GpuCollider::new(&context, library).expect("collider");
    let expected_circles = cpu_pairs(&circles);
    let expected_diamonds = cpu_pairs(&diamonds);
    assert!(expected_circles.len() > 5000 && expected_diamonds.len() > 5000);
    for frame in 0..2 {
        let found = collider.find_pairs(&circles.bodies).expect("circles");
        assert_eq!(found, expected_circles, "circles, frame {frame}");
    }
    let stats = collider.last_frame();
    assert!(stats.candidates.expect("counted") >= BIN_FROM_CANDIDATES as u64);
    assert_eq!(
        stats.runs,
        Some(1),
        "the second frame's bins held its candidates"
    );
    let found = collider.find_pairs(&diamonds.bodies).expect("diamonds");
    assert_eq!(
        found, expected_diamonds,
        "diamonds in bins laid out for circles"
    );
    assert_eq!(
        collider.last_frame().runs,
        Some(2),
        "the polygon pairs outgrew their bin, and the frame ran again"
    );
    let found = collider
        .find_pairs(&diamonds.bodies)
        .expect("diamonds again");
    assert_eq!(found, expected_diamonds, "diamonds, next frame");
    assert_eq!(
        collider.last_frame().runs,
        Some(1),
        "bins laid out for diamonds"
    );
}

/// Where no body waits, the bounds kernel lists each workgroup's bodies for the broad
/// phase in order of how far their walks went in the last frame (`seeker_key` in
/// shaders/bounds.wgsl). Bodies that swap sizes between frames make those turns wrong
/// for the next frame: the order only decides which invocations run side by side, so
/// every body must still be listed once and every pair found.
#[test]
fn seekers_listed_by_last_frames_walks_lose_nobody_when_bodies_change_size() {
    let Some(context) = gpu() else { return };
    // Small circles with every `every`-th body a large one, whose walk
    // reads many cells and entries where a small body's reads a few.
    let shapes = serde_json::json!([{"circle": 1.0}, {"circle": 9.0}]);
    let scene_of = |every: usize| lattice_scene(&shapes, 2500, 50, |k| usize::from(k % every == 0));
    let (sevenths, fifths) = (scene_of(7), scene_of(5));
    let library = sevenths.validate().expect("valid");
    let mut collider = GpuCollider::new(&context, library).expect("collider");
    let expected = [cpu_pairs(&sevenths), cpu_pairs(&fifths)];
    assert_ne!(expected[0], expected[1]);
    for (frame, which) in [0, 0, 1, 0, 1, 1].into_iter().enumerate() {
        let scene = [&sevenths, &fifths][which];
        let found = collider.find_pairs(&scene.bodies).expect("pairs");
        assert_eq!(found, expected[which], "frame {frame}");
    }
}

/// One collider of each backend over frames whose bodies move, change filters and grow in
/// number: the cpu backend against the oracle on every frame (with or without a GPU),
/// and the gpu against the cpu.
#[test]
fn one_collider_over_frames_that_move_grow_and_refilter() {
    let scene = random_scene(SceneKind::Mixed, 1500, 6);
    let library = scene.validate().expect("valid");
    let mut cpu = CpuCollider::new(library.clone());
    let mut gpu = gpu().map(|context| GpuCollider::new(&context, library).expect("collider"));
    let mut bodies = scene.bodies.clone();
    for frame in 0..4 {
        let expected = cpu.find_pairs(&bodies).expect("cpu");
        let text = Scene {
            shapes: scene.shapes.clone(),
            bodies: bodies.clone(),
            ..Scene::default()
        }
        .to_json();
        let truth = oracle::oracle(&text);
        assert_exact_outside_band(&format!("cpu frame {frame}"), &text, &expected, &truth);
        assert!(!expected.is_empty());
        if let Some(gpu) = gpu.as_mut() {
            let found = gpu.find_pairs(&bodies).expect("gpu");
            assert_well_formed(&format!("frame {frame}"), &found);
            assert_differences_in_band(&format!("frame {frame}"), &expected, &found, &truth);
        }
        // Move everything but bitmasks, change some filters, and grow the scene.
        for (k, body) in bodies.iter_mut().enumerate() {
            if !matches!(scene.shapes[body.shape as usize], Shape::Bitmask(_)) {
                body.position += glam::Vec2::new(0.7, -0.3);
                body.angle += 0.05;
            }
            if k % 7 == frame {
                body.mask = 0;
            }
        }
        let extra: Vec<Body> = bodies.iter().take(300).copied().collect();
        bodies.extend(extra);
    }
}

/// Bullet-hell frames: the cpu backend and the GPU against the oracle, frame after frame.
fn bullet_hell(bodies: usize, frames: usize, seed: u64) {
    let mut game = BulletHell::new(bodies, seed);
    let library = game.scene.validate().expect("valid");
    let mut cpu = CpuCollider::new(library.clone());
    let mut gpu = gpu().map(|context| GpuCollider::new(&context, library).expect("collider"));
    for frame in 0..frames {
        let text = game.scene.to_json();
        let truth = oracle::oracle(&text);
        assert!(
            !truth.pairs.is_empty(),
            "frame {frame}: a bullet-hell frame has hits"
        );
        let what = format!("bullet hell {bodies} frame {frame}");
        let found = cpu.find_pairs(&game.scene.bodies).expect("cpu");
        assert_well_formed(&what, &found);
        assert_exact_outside_band(&format!("{what} cpu"), &text, &found, &truth);
        if let Some(gpu) = gpu.as_mut() {
            let on_gpu = gpu.find_pairs(&game.scene.bodies).expect("gpu");
            assert_well_formed(&what, &on_gpu);
            assert_exact_outside_band(&format!("{what} gpu"), &text, &on_gpu, &truth);
            let differing = assert_differences_in_band(&what, &found, &on_gpu, &truth);
            eprintln!(
                "{what}: {} pairs, {} band pairs, gpu and cpu differ on {differing}",
                truth.pairs.len(),
                truth.band.len()
            );
        }
        game.step(1.0 / 60.0);
    }
}

#[test]
fn bullet_hell_grid_matches_the_reference() {
    // Small enough for the all-pairs reference: the grid must find exactly its pairs.
    let game = BulletHell::new(8000, 12);
    let scene = Scene::from_json(&game.scene.to_json()).expect("valid");
    let reference = reference_pairs(&scene);
    assert!(!reference.is_empty());
    assert_eq!(cpu_pairs(&scene), reference);
    if let Some(context) = gpu() {
        let truth = oracle::oracle(&game.scene.to_json());
        assert_differences_in_band(
            "bullet hell 8000",
            &reference,
            &gpu_pairs(&context, &scene),
            &truth,
        );
    }
}

#[test]
fn bullet_hell_hundred_thousand_over_frames() {
    bullet_hell(100_000, 3, 13);
}

#[test]
fn bullet_hell_million() {
    bullet_hell(1_000_000, 1, 14);
}

#[test]
fn a_million_bodies_fit_the_default_limits() {
    if gpu().is_none() {
        return;
    }
    let context = GpuContext::with_limits(wgpu::Limits::default()).expect("default limits");
    let game = BulletHell::new(1_000_000, 15);
    let library = game.scene.validate().expect("valid");
    let found = GpuCollider::new(&context, library.clone())
        .expect("collider")
        .find_pairs(&game.scene.bodies)
        .expect("1M bodies within the default limits");
    let expected = CpuCollider::new(library)
        .find_pairs(&game.scene.bodies)
        .expect("cpu");
    let truth = oracle::oracle(&game.scene.to_json());
    assert_differences_in_band("1M default limits", &expected, &found, &truth);
}

#[test]
fn a_scene_too_large_for_the_device_is_a_clear_error() {
    if gpu().is_none() {
        return;
    }
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: 1 << 20,
        ..wgpu::Limits::default()
    };
    let context = GpuContext::with_limits(limits).expect("small limits");
    let game = BulletHell::new(100_000, 16);
    let library = game.scene.validate().expect("valid");
    let error = GpuCollider::new(&context, library)
        .expect("collider")
        .find_pairs(&game.scene.bodies)
        .expect_err("100k bodies need more than 1 MiB buffers");
    let message = error.to_string();
    assert!(
        matches!(error, gpu_collide::Error::TooLarge { .. }),
        "{message}"
    );
    assert!(message.contains("too large"), "{message}");
    // What does not fit, its bytes, the device's limit and what to do instead.
    assert!(
        message.contains("for 100000 bodies would need 2400000 bytes")
            && message.contains("a storage buffer of at most 1048576 bytes")
            && message.contains("use the cpu backend"),
        "{message}"
    );
}

/// A scene built to stress the corners of the problem: a pile of bodies on one point,
/// bodies near ±16384, a polygon 1024 units across among tiny circles, a large sparse
/// bitmask, slivers, squares touching edge to edge, and mixed filters.
fn adversarial_scene(seed: u64) -> String {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut rows = vec![String::new(); 300];
    for row in rows.iter_mut() {
        *row = (0..257)
            .map(|_| if rng.random_bool(0.02) { '#' } else { '.' })
            .collect();
    }
    let shapes = serde_json::json!([
        {"polygon": [[-512, -40], [512, -40], [500, 40], [-500, 40]]},
        {"circle": 0.05},
        {"polygon": [[-1, -1], [1, -1], [1, 1], [-1, 1]]},
        {"polygon": [[-15, -0.005], [15, -0.005], [15, 0.005], [-15, 0.005]]},
        {"bitmask": {"width": 257, "height": 300, "rows": rows}},
        {"circle": 3.0},
        {"polygon": [[0, 0], [4, 0.5], [5, 3], [2, 5], [-1, 3]]}
    ]);
    let mut bodies = Vec::new();
    let mut add = |shape: u32, x: f64, y: f64, angle: f64, rng: &mut rand_pcg::Pcg64| {
        let (layer, mask) = if rng.random_bool(0.3) {
            (1u32 << rng.random_range(0..3), rng.random_range(0..8u32))
        } else {
            (u32::MAX, u32::MAX)
        };
        // Bitmask bodies keep angle 0 and whole coordinates, as the format wants.
        bodies.push(serde_json::json!({"shape": shape, "x": x, "y": y, "angle": angle, "layer": layer, "mask": mask}));
    };
    // A pile: 200 bodies on one point.
    for _ in 0..200 {
        let shape = [1, 2, 5, 6][rng.random_range(0..4)];
        add(shape, 100.0, 100.0, rng.random_range(-3.0..3.0), &mut rng);
    }
    // Near the corners of the exact range.
    for _ in 0..600 {
        let corner = [
            (16370.0, 16370.0),
            (-16370.0, 16370.0),
            (16370.0, -16370.0),
            (-16370.0, -16370.0),
        ];
        let (cx, cy) = corner[rng.random_range(0..4)];
        let shape = [1, 2, 3, 5, 6][rng.random_range(0..5)];
        add(
            shape,
            cx + rng.random_range(-12.0..12.0),
            cy + rng.random_range(-12.0..12.0),
            rng.random_range(-3.0..3.0),
            &mut rng,
        );
    }
    // The 1024-wide polygon among tiny circles and slivers.
    add(0, 0.0, 0.0, 0.3, &mut rng);
    for _ in 0..800 {
        let shape = [1, 3][rng.random_range(0..2)];
        add(
            shape,
            rng.random_range(-600.0..600.0),
            rng.random_range(-300.0..300.0),
            rng.random_range(-3.0..3.0),
            &mut rng,
        );
    }
    // The sparse bitmask, with squares and circles over it.
    add(4, -2000.0, -150.0, 0.0, &mut rng);
    for _ in 0..600 {
        let shape = [1, 2, 5][rng.random_range(0..3)];
        add(
            shape,
            rng.random_range(-2000.0..-1743.0),
            rng.random_range(-150.0..150.0),
            rng.random_range(-3.0..3.0),
            &mut rng,
        );
    }
    // Squares touching edge to edge in a row (every neighbour pair touches).
    for k in 0..100 {
        add(2, 3000.0 + 2.0 * k as f64, 0.0, 0.0, &mut rng);
    }
    serde_json::json!({"shapes": shapes, "bodies": bodies}).to_string()
}

#[test]
fn adversarial_scenes() {
    for seed in [31, 32] {
        let text = adversarial_scene(seed);
        let scene = Scene::from_json(&text).expect("valid");
        let truth = oracle::oracle(&text);
        let reference = reference_pairs(&scene);
        let cpu = cpu_pairs(&scene);
        assert_eq!(cpu, reference, "seed {seed}: cpu backend vs reference");
        assert_exact_outside_band(&format!("adversarial {seed} cpu"), &text, &cpu, &truth);
        if let Some(context) = gpu() {
            let on_gpu = gpu_pairs(&context, &scene);
            assert_exact_outside_band(&format!("adversarial {seed} gpu"), &text, &on_gpu, &truth);
            let differing = assert_differences_in_band("adversarial", &cpu, &on_gpu, &truth);
            eprintln!(
                "adversarial seed {seed}: {} bodies, {} pairs, {} band pairs, gpu and cpu differ on {differing}",
                scene.bodies.len(),
                truth.pairs.len(),
                truth.band.len()
            );
        }
    }
}
