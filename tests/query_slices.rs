//! Query batches of any size on the gpu backend: run in slices of queries that fit the
//! device's buffers, answered as the cpu backend answers them and, slice boundaries
//! anywhere in the rays, points or boxes, exactly as one slice answers them; and what
//! is refused past the device's limits, in words that say what and how many bytes.

use std::num::NonZeroU32;
use std::time::Instant;

use glam::Vec2;

use gpu_collide::generate::{random_scene, SceneKind};
use gpu_collide::{
    Body, BoxQuery, Circle, Collider, CpuCollider, Error, GpuCollider, GpuContext, PointQuery,
    QueryAnswers, QueryBatch, Ray, Scene, Shape, ShapeLibrary,
};

use crate::queries::{differing, problems, random_batch};
use crate::support::gpu;

/// A device whose storage buffers hold at most 1 MiB: a query slice of 2048 queries
/// at first (16 pieces of 32 bytes a query), 131 072 hits, 32 768 tasks, 43 690 bodies.
fn small_device() -> Option<GpuContext> {
    gpu()?;
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: 1 << 20,
        ..wgpu::Limits::default()
    };
    Some(GpuContext::with_limits(limits).expect("a device with 1 MiB storage buffers"))
}

/// The gpu's answers to the scene's batch, on `context`, in slices of at most `slice`.
fn gpu_answers(context: &GpuContext, scene: &Scene, slice: Option<u32>) -> QueryAnswers {
    let library = scene.validate().expect("valid");
    let mut collider = GpuCollider::new(context, library).expect("collider");
    collider.set_query_slice(slice.and_then(NonZeroU32::new));
    collider
        .query(&scene.bodies, &scene.queries)
        .unwrap_or_else(|e| panic!("slices of {slice:?}: {e}"))
}

/// Holds the gpu's answers to the cpu's, query by query: those that differ (grazing
/// cases) must be accepted by the oracle, and be few.
fn assert_as_cpu(what: &str, scene: &Scene, gpu: &QueryAnswers, cpu: &QueryAnswers) {
    let (queries, answers) = differing(what, &scene.queries, gpu, cpu);
    let count = queries.rays.len() + queries.points.len() + queries.boxes.len();
    let q = &scene.queries;
    let total = q.rays.len() + q.points.len() + q.boxes.len();
    assert!(
        count * 1000 <= total,
        "{what}: gpu and cpu differ on {count} of {total} queries"
    );
    let judged = Scene {
        queries,
        ..scene.clone()
    };
    let wrong = problems(&judged, &answers);
    assert!(wrong.is_empty(), "{what}: {wrong:?}");
}

/// A batch of `rays` rays, then `points` points and as many boxes, over the scene.
fn large_batch(scene: &Scene, rays: usize, points: usize) -> QueryBatch {
    let mut batch = random_batch(scene, rays.max(points), 77);
    batch.rays.truncate(rays);
    batch.points.truncate(points);
    batch.boxes.truncate(points);
    batch
}

#[test]
fn batches_past_one_slice_of_the_device_are_answered_as_the_cpu_answers_them() {
    let Some(context) = gpu() else { return };
    let mut scene = random_scene(SceneKind::Mixed, 3000, 71);
    let library = scene.validate().expect("valid");
    // 300 000 rays were refused before, the piece list of a slice of 262 144 queries
    // filling lavapipe's 128 MiB storage buffer; a million queries well past it.
    for (rays, points) in [(300_000, 30_000), (340_000, 340_000)] {
        scene.queries = large_batch(&scene, rays, points);
        let start = Instant::now();
        let cpu = CpuCollider::new(library.clone())
            .query(&scene.bodies, &scene.queries)
            .expect("cpu answers");
        let cpu_s = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let found = gpu_answers(&context, &scene, None);
        eprintln!(
            "{rays} rays, {points} points and as many boxes over 3000 bodies: cpu {cpu_s:.2} \
             s, gpu {:.2} s",
            start.elapsed().as_secs_f64()
        );
        assert_as_cpu(&format!("{rays} rays"), &scene, &found, &cpu);
        let hits = found.rays.iter().flatten().count();
        let listed: usize = found.points.iter().chain(&found.boxes).map(Vec::len).sum();
        assert!(hits > rays / 10 && listed > points / 2, "{hits} {listed}");
    }
}

#[test]
fn slices_of_any_size_answer_exactly_as_one_slice_does() {
    let Some(context) = gpu() else { return };
    let mut scene = random_scene(SceneKind::Mixed, 2000, 72);
    // 600 rays, then 600 points, then 600 boxes: slices of 7 end inside each list, one
    // of 599 ends a ray short of the points, one of 1201 a box into the boxes.
    scene.queries = random_batch(&scene, 600, 72);
    let whole = gpu_answers(&context, &scene, None);
    let library = scene.validate().expect("valid");
    let cpu = CpuCollider::new(library)
        .query(&scene.bodies, &scene.queries)
        .expect("cpu answers");
    assert_as_cpu("one slice", &scene, &whole, &cpu);
    for slice in [7, 599, 600, 601, 1201] {
        let sliced = gpu_answers(&context, &scene, Some(slice));
        assert!(sliced == whole, "slices of {slice} answer otherwise");
    }
    // A slice a query, on fewer of them.
    let mut few = scene.clone();
    few.queries = random_batch(&scene, 40, 73);
    let whole = gpu_answers(&context, &few, None);
    assert!(gpu_answers(&context, &few, Some(1)) == whole, "slices of 1");
    // The setting is kept, and `None` puts the device's back.
    let library = few.validate().expect("valid");
    let mut collider = GpuCollider::new(&context, library).expect("collider");
    assert_eq!(collider.query_slice(), None);
    collider.set_query_slice(NonZeroU32::new(3));
    assert_eq!(collider.query_slice(), NonZeroU32::new(3));
    let answers = collider.query(&few.bodies, &few.queries).expect("answers");
    assert!(answers == whole);
    collider.set_query_slice(None);
    assert_eq!(collider.query_slice(), None);
}

#[test]
fn a_device_of_small_buffers_answers_in_slices_that_fit_it() {
    let (Some(small), Some(context)) = (small_device(), gpu()) else {
        return;
    };
    let mut scene = random_scene(SceneKind::Mixed, 3000, 74);
    // 7500 queries, 2048 a slice at first: slices end in the rays, the points and the
    // boxes. 100 boxes over the whole scene list 3000 bodies each, more hits than the
    // 131 072 a binding holds, so their slice splits again.
    scene.queries = random_batch(&scene, 2500, 74);
    let (lo, hi) = scene.bodies.iter().fold(
        (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
        |(lo, hi), b| (lo.min(b.position), hi.max(b.position)),
    );
    let whole_scene = BoxQuery::new(lo - Vec2::splat(100.0), hi + Vec2::splat(100.0));
    scene
        .queries
        .boxes
        .splice(1000..1000, vec![whole_scene; 100]);
    let found = gpu_answers(&small, &scene, None);
    assert!(found.boxes[1000..1100].iter().all(|b| b.len() == 3000));
    assert!(
        found == gpu_answers(&context, &scene, None),
        "the small device answers as a device with the adapter's limits does"
    );
    let library = scene.validate().expect("valid");
    let cpu = CpuCollider::new(library)
        .query(&scene.bodies, &scene.queries)
        .expect("cpu answers");
    assert_as_cpu("small buffers", &scene, &found, &cpu);
}

#[test]
fn what_does_not_fit_the_device_is_named_with_its_bytes_and_the_limit() {
    let Some(small) = small_device() else { return };
    // One box over 40 000 circles: 40 000 exact tests, past the 32 768 tasks of 32 bytes
    // a binding of 1 MiB holds, and one query does not split.
    let library = ShapeLibrary::new(&[Shape::Circle(Circle::new(0.6))]).expect("library");
    let bodies: Vec<Body> = (0..40_000)
        .map(|k| Body::new(0, Vec2::new((k % 200) as f32, (k / 200) as f32)))
        .collect();
    let batch = QueryBatch {
        rays: vec![Ray::new(Vec2::new(-5.0, 0.5), Vec2::new(10.0, 0.0))],
        points: vec![PointQuery::new(Vec2::new(3.0, 3.0))],
        boxes: vec![BoxQuery::new(Vec2::splat(-1.0), Vec2::splat(201.0))],
    };
    let mut collider = GpuCollider::new(&small, library.clone()).expect("collider");
    let error = collider.query(&bodies, &batch).expect_err("too many tasks");
    assert!(matches!(error, Error::TooLarge { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        "too large for the gpu backend: the query stage's task list for box 0 (40000 items \
         of 32 bytes) would need 1280000 bytes, and this device allows a storage buffer of \
         at most 1048576 bytes; a batch runs in slices of queries, and this is one query's \
         share: split that query (shorter rays, smaller boxes), or use the cpu backend"
    );
    // The collider still answers, a smaller box included.
    let smaller = QueryBatch {
        boxes: vec![BoxQuery::new(Vec2::splat(-1.0), Vec2::splat(20.3))],
        ..batch
    };
    let found = collider.query(&bodies, &smaller).expect("answers");
    let cpu = CpuCollider::new(library.clone())
        .query(&bodies, &smaller)
        .expect("cpu answers");
    assert!(found == cpu);
    assert_eq!(found.boxes[0].len(), 21 * 21);

    // 100 000 bodies: each list of the bodies is one binding, which every kernel reads
    // whole, so neither pairs nor queries can slice them.
    let many: Vec<Body> = (0..100_000)
        .map(|k| Body::new(0, Vec2::new((k % 400) as f32, (k / 400) as f32)))
        .collect();
    let message = collider
        .find_pairs(&many)
        .expect_err("100 000 bodies in 1 MiB buffers")
        .to_string();
    assert_eq!(
        message,
        "too large for the gpu backend: the bodies' grid cells for 100000 bodies would need \
         2400000 bytes, and this device allows a storage buffer of at most 1048576 bytes; \
         each of the bodies' lists is one storage buffer, which every kernel reads whole, \
         so the gpu backend holds at most 43690 bodies on this device: use the cpu \
         backend, or a device that allows larger storage buffers"
    );
    assert_eq!(
        collider.query(&many, &smaller).map_err(|e| e.to_string()),
        Err(message)
    );
    // As many as the message says fit. Their 4 candidates a body are more than a
    // binding holds, so the frame runs in slices of bodies.
    let most = &many[..43_690];
    let pairs = collider.find_pairs(most).expect("43 690 bodies fit");
    let cpu_pairs = CpuCollider::new(library).find_pairs(most).expect("cpu");
    assert_eq!(pairs.len(), 2 * 43_690 - 400 - 43_690_usize.div_ceil(400));
    assert!(pairs == cpu_pairs);
}
