//! Scenes at the limits of the format, on every backend (reference, cpu, gpu), each held
//! to the f64 oracle as the cross-check holds its scenes: outside the 0.01 band every
//! answer must be the oracle's, band pairs are counted and printed.
//!
//! - every polygon vertex count from 3 to 256, in one scene;
//! - bitmasks of the largest size, 8192 × 8192, and of 2048 × 2048;
//! - one huge body among thousands of small ones (a square, a circle, a bitmask);
//! - coordinates at ±16384, where exactness is still promised, and far beyond it (1e6,
//!   1e9, up to near `f32::MAX`), where only a band of f32 steps at that distance is
//!   allowed (see `support::band_for`) and nothing may hang or panic;
//! - sizes from 1e-3 to 1e4 in one scene;
//! - dense piles of bodies on one point;
//! - known failures kept as regression tests: long loops on the GPU (llvmpipe ends every
//!   loop of an invocation after 65535 iterations, so long narrow tests were silently
//!   lost) and scenes that hung the cpu backend. Whatever could hang runs
//!   under a time limit, so a hang fails its test instead of blocking the suite.

use std::f32::consts::PI;
use std::time::{Duration, Instant};

use gpu_collide::glam::Vec2;
use gpu_collide::{
    cpu::ReferenceCollider, Bitmask, Body, Circle, Collider, CpuCollider, GpuCollider, GpuContext,
    Pair, Polygon, Scene, Shape,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::oracle;
use crate::support::{assert_every_backend, band_for, exact_json, gpu, within, EXACT_RANGE};

/// A scene put together shape by shape and body by body.
#[derive(Default)]
struct Build {
    scene: Scene,
}

impl Build {
    fn shape(&mut self, shape: Shape) -> u32 {
        self.scene.shapes.push(shape);
        self.scene.shapes.len() as u32 - 1
    }

    fn body(&mut self, shape: u32, x: f32, y: f32, angle: f32) -> u32 {
        self.scene
            .bodies
            .push(Body::new(shape, Vec2::new(x, y)).with_angle(angle));
        self.scene.bodies.len() as u32 - 1
    }
}

/// Asserts the oracle says `pair` collides (`true`) or is clear of the band (`false`):
/// checks that a scene tests what it was built to test.
fn assert_truth(truth: &oracle::OracleResult, pair: [u32; 2], collides: bool, why: &str) {
    let key = pair;
    assert!(
        !truth.band.contains(&key),
        "scene built wrong: {pair:?} ({why}) is in the band"
    );
    assert_eq!(
        truth.pairs.contains(&key),
        collides,
        "scene built wrong: {pair:?} ({why})"
    );
}

// ---------------------------------------------------------------------------------------
// Polygon vertex counts.
// ---------------------------------------------------------------------------------------

#[test]
fn every_polygon_vertex_count_from_3_to_256() {
    // One regular n-gon of radius 10 per count; shape k has 3 + k vertices.
    let mut build = Build::default();
    for n in 3..=256 {
        build.shape(Shape::Polygon(Polygon::regular(n, 10.0)));
    }
    let shape = |n: usize| (n - 3) as u32;
    // Per count, a group 100 units from the next, of bodies at various overlaps.
    let mut checks = Vec::new();
    for n in 3..=256usize {
        let g = (n - 3) as f32;
        let centre = Vec2::new(100.0 * (g % 16.0), 100.0 * (g / 16.0).floor());
        let at = |offset: Vec2| centre + offset;
        let apothem = 10.0 * (PI / n as f32).cos();
        // The direction of the normal of edge k of the unrotated n-gon.
        let normal = |k: usize| {
            let a = PI * (2 * k + 1) as f32 / n as f32;
            Vec2::new(a.cos(), a.sin())
        };
        let p = at(Vec2::ZERO);
        let a = build.body(shape(n), p.x, p.y, 0.0);
        let p = at(Vec2::new(15.0, 0.0));
        build.body(shape(n), p.x, p.y, 0.1);
        // Deep: the centre of one is well inside the other.
        let p = at(Vec2::new(3.0, 4.0));
        let deep = build.body(shape(n), p.x, p.y, 1.0);
        // Another vertex count: 3 against 256, 4 against 255, and so on.
        let p = at(Vec2::new(0.0, -16.0));
        build.body(shape(259 - n), p.x, p.y, 0.5);
        // Turned half a turn and pushed along an edge normal: edge against edge, touching
        // (in the band), 0.05 apart (must not be reported), 0.05 deep (must be).
        let p = at(normal(0) * 2.0 * apothem);
        build.body(shape(n), p.x, p.y, PI);
        let p = at(normal(n / 2) * (2.0 * apothem + 0.05));
        let apart = build.body(shape(n), p.x, p.y, PI);
        let p = at(normal(3 * n / 4) * (2.0 * apothem - 0.05));
        let into = build.body(shape(n), p.x, p.y, PI);
        // Clear of the first by more than a unit.
        let p = at(Vec2::new(-21.0, 12.0));
        build.body(shape(n), p.x, p.y, 2.0);
        checks.push((n, a, deep, apart, into));
    }
    let scene = build.scene;
    let truth = oracle::oracle_value(&exact_json(&scene));
    for (n, a, deep, apart, into) in checks {
        assert_truth(
            &truth,
            [a, deep],
            true,
            &format!("{n}-gons, one deep in the other"),
        );
        assert_truth(&truth, [a, into], true, &format!("{n}-gons 0.05 deep"));
        assert_truth(&truth, [a, apart], false, &format!("{n}-gons 0.05 apart"));
    }
    let checked = assert_every_backend("every vertex count", &scene);
    assert!(checked.truth.pairs.len() > 4 * 254, "too few pairs to test");
}

/// Two regular 128-gons of radius 10, 5 apart: a test past llvmpipe's loop cap when run
/// unsplit, which then reported them apart.
#[test]
fn two_128_gons_five_apart_collide() {
    let mut build = Build::default();
    let s = build.shape(Shape::Polygon(Polygon::regular(128, 10.0)));
    build.body(s, 0.0, 0.0, 0.0);
    build.body(s, 5.0, 0.0, 0.0);
    let checked = assert_every_backend("two 128-gons", &build.scene);
    assert_eq!(checked.cpu, vec![[0, 1]]);
    assert_eq!(checked.gpu.unwrap_or(vec![[0, 1]]), vec![[0, 1]]);
}

/// Three bodies of 127 vertices, every two overlapping.
#[test]
fn three_127_gons_all_collide() {
    let mut build = Build::default();
    let s = build.shape(Shape::Polygon(Polygon::regular(127, 10.0)));
    build.body(s, 0.0, 0.0, 0.0);
    build.body(s, 5.0, 0.0, 0.3);
    build.body(s, 2.0, 6.0, -1.1);
    let all = vec![[0, 1], [0, 2], [1, 2]];
    let checked = assert_every_backend("three 127-gons", &build.scene);
    assert_eq!(checked.reference, all);
    assert_eq!(checked.gpu.unwrap_or(all.clone()), all);
}

// ---------------------------------------------------------------------------------------
// Bitmasks at the largest size.
// ---------------------------------------------------------------------------------------

/// A `side × side` checkerboard (cells with `c + r` of the given parity) with its last
/// pixel set too. The two parities share only that pixel, and every row of either is
/// full width, which is the most work a bitmask-bitmask test can have.
fn checkerboard(side: u32, parity: u32) -> Bitmask {
    let mut mask = Bitmask::new(side, side).expect("side within the limits");
    for r in 0..side {
        for c in (0..side).filter(|c| (c + r) % 2 == parity) {
            mask.set(c, r, true);
        }
    }
    mask.set(side - 1, side - 1, true);
    mask
}

/// Two checkerboards of `side` at the same place, sharing only their last pixel, and the
/// second shifted so that its overlap with the first is one pixel at the far corner
/// (set in both, or clear in one), or so that it only shares an edge with the first.
fn checkerboards(side: u32) -> Scene {
    let mut build = Build::default();
    let even = build.shape(Shape::Bitmask(checkerboard(side, 0)));
    let odd = build.shape(Shape::Bitmask(checkerboard(side, 1)));
    let s = side as f32;
    build.body(even, 0.0, 0.0, 0.0); // 0
    build.body(odd, 0.0, 0.0, 0.0); // 1: shares the last pixel with 0, and nothing else
    build.body(odd, s - 2.0, s - 1.0, 0.0); // 2: its set pixel (1, 0) on 0's last pixel
    build.body(odd, s - 1.0, s - 1.0, 0.0); // 3: its clear pixel (0, 0) on 0's last pixel
    build.body(even, s, 0.0, 0.0); // 4: beside 0, sharing an edge only
    build.scene
}

fn check_checkerboards(side: u32) {
    let scene = checkerboards(side);
    let what = format!("{side}² checkerboards");
    let started = Instant::now();
    let truth = oracle::oracle_value(&exact_json(&scene));
    // Bitmask pairs are exact integer questions: no band.
    assert!(truth.band.is_empty());
    assert_truth(&truth, [0, 1], true, "sharing the last pixel");
    assert_truth(&truth, [0, 2], true, "sharing the far corner pixel");
    assert_truth(&truth, [0, 3], false, "the far corner pixel clear in one");
    assert_truth(&truth, [0, 4], false, "sharing an edge");
    let checked = assert_every_backend(&what, &scene);
    assert!(checked.cpu.contains(&[0, 1]));
    eprintln!("{what}: {:.1?} in all", started.elapsed());
}

/// 2048² masks at one place sharing their last pixel only: a test past llvmpipe's loop cap
/// when run unsplit.
#[test]
fn two_2048_masks_sharing_only_the_last_pixel() {
    check_checkerboards(2048);
}

#[test]
fn two_largest_masks_sharing_only_the_last_pixel() {
    check_checkerboards(gpu_collide::shapes::MAX_BITMASK_SIDE);
}

/// A largest mask that is only a frame one pixel wide: small bodies inside the frame
/// (overlapping its box, not its cells), across it, on its outer edge and clear of it.
#[test]
fn largest_sparse_mask_frame_with_small_bodies() {
    let side = gpu_collide::shapes::MAX_BITMASK_SIDE;
    let mut frame = Bitmask::new(side, side).expect("valid");
    for k in 0..side {
        for (c, r) in [(k, 0), (k, side - 1), (0, k), (side - 1, k)] {
            frame.set(c, r, true);
        }
    }
    let mut build = Build::default();
    let mask = build.shape(Shape::Bitmask(frame));
    let circle = build.shape(Shape::Circle(Circle::new(0.5)));
    let square = build.shape(Shape::Polygon(Polygon::rectangle(1.0, 1.0)));
    let hexagon = build.shape(Shape::Polygon(Polygon::regular(6, 2.0)));
    let half = (side / 2) as f32;
    build.body(mask, -half, -half, 0.0);
    let mut rng = Pcg64::seed_from_u64(41);
    let small = [circle, square, hexagon];
    for k in 0..600 {
        let shape = small[k % 3];
        // Along one of the four sides, at a distance from its middle line of the frame.
        let along = rng.random_range(-half..half);
        let across = match k % 5 {
            0 => rng.random_range(-400.0..-5.0), // inside the frame
            1 => rng.random_range(-2.0..2.0),    // across the frame line
            2 => rng.random_range(5.0..50.0),    // outside
            3 => 2.5,                            // clear by 0.5 to 1.5
            _ => rng.random_range(-3.0..3.0),
        };
        // The frame line's cells span [edge, edge + 1); their middle is half a unit in.
        let line = half - 0.5;
        let (x, y) = match k % 4 {
            0 => (along, line + across),
            1 => (along, -line - across),
            2 => (line + across, along),
            _ => (-line - across, along),
        };
        build.body(shape, x, y, rng.random_range(-PI..PI));
    }
    let checked = assert_every_backend("largest frame mask", &build.scene);
    let with_mask = checked.truth.pairs.iter().filter(|p| p[0] == 0).count();
    assert!(with_mask > 50, "only {with_mask} bodies touch the frame");
}

// ---------------------------------------------------------------------------------------
// One huge body among thousands of small ones.
// ---------------------------------------------------------------------------------------

/// A 3000 × 3000 square with `count` circles of radius 0.5 inside: the square once swept
/// millions of cells in one invocation and lost its pairs.
fn square_with_circles(count: usize) {
    let mut build = Build::default();
    let square = build.shape(Shape::Polygon(Polygon::rectangle(3000.0, 3000.0)));
    let circle = build.shape(Shape::Circle(Circle::new(0.5)));
    build.body(square, 0.0, 0.0, 0.0);
    let mut rng = Pcg64::seed_from_u64(count as u64);
    for _ in 0..count {
        build.body(
            circle,
            rng.random_range(-1490.0..1490.0),
            rng.random_range(-1490.0..1490.0),
            0.0,
        );
    }
    let what = format!("3000² square with {count} circles");
    let checked = assert_every_backend(&what, &build.scene);
    let in_square = checked.truth.pairs.iter().filter(|p| p[0] == 0).count();
    assert_eq!(in_square, count, "every circle is inside the square");
    if let Some(on_gpu) = checked.gpu {
        let found = on_gpu.iter().filter(|p| p[0] == 0).count();
        assert_eq!(found, count, "gpu: circles found in the square");
    }
}

#[test]
fn a_3000_unit_square_finds_300_circles_inside() {
    square_with_circles(300);
}

#[test]
fn a_3000_unit_square_finds_3000_circles_inside() {
    square_with_circles(3000);
}

/// Where a small body of radius `r` goes around a huge one whose boundary is at
/// `boundary` along some direction: deep inside, across, just in or out of the band's
/// edge, or clear.
fn distance_from_boundary(k: usize, rng: &mut Pcg64, boundary: f32, r: f32) -> f32 {
    match k % 6 {
        0 => boundary - rng.random_range(5.0 * r..boundary.min(2000.0)),
        1 => boundary + rng.random_range(-r..r),
        2 => boundary + r + 0.05,
        3 => boundary + r - 0.05,
        4 => boundary + r + rng.random_range(0.5..20.0),
        _ => boundary + r * rng.random_range(-3.0..3.0),
    }
}

/// A square 20000 units across among small circles and triangles: inside, across its
/// edges, just clear of them, and far.
#[test]
fn a_20000_wide_square_among_small_bodies() {
    let mut build = Build::default();
    let square = build.shape(Shape::Polygon(Polygon::rectangle(20000.0, 20000.0)));
    let circle = build.shape(Shape::Circle(Circle::new(0.5)));
    let triangle = build.shape(Shape::Polygon(Polygon::regular(3, 0.5)));
    build.body(square, 0.0, 0.0, 0.0);
    let mut rng = Pcg64::seed_from_u64(51);
    for k in 0..2000 {
        let shape = if k % 2 == 0 { circle } else { triangle };
        let d = distance_from_boundary(k / 2, &mut rng, 10000.0, 0.5);
        let along = rng.random_range(-9990.0..9990.0);
        let (x, y) = match k % 4 {
            0 => (d, along),
            1 => (-d, along),
            2 => (along, d),
            _ => (along, -d),
        };
        let angle = if shape == triangle {
            rng.random_range(-PI..PI)
        } else {
            0.0
        };
        build.body(shape, x, y, angle);
    }
    let checked = assert_every_backend("20000-wide square", &build.scene);
    assert!(checked.truth.pairs.len() > 1000);
}

/// A circle of radius 5000 among small hexagons and bitmasks around its rim.
#[test]
fn a_huge_circle_among_small_bodies() {
    let mut build = Build::default();
    let huge = build.shape(Shape::Circle(Circle::new(5000.0)));
    let hexagon = build.shape(Shape::Polygon(Polygon::regular(6, 1.0)));
    let dot = build.shape(Shape::Bitmask(
        Bitmask::from_rows(&["##", "##"]).expect("valid"),
    ));
    build.body(huge, 0.0, 0.0, 0.0);
    let mut rng = Pcg64::seed_from_u64(52);
    for k in 0..2000 {
        let theta = rng.random_range(-PI..PI);
        let d = distance_from_boundary(k, &mut rng, 5000.0, 1.0);
        let (x, y) = (d * theta.cos(), d * theta.sin());
        if k % 5 == 4 {
            build.body(dot, x.round() - 1.0, y.round() - 1.0, 0.0);
        } else {
            build.body(hexagon, x, y, rng.random_range(-PI..PI));
        }
    }
    let checked = assert_every_backend("circle of radius 5000", &build.scene);
    assert!(checked.truth.pairs.len() > 800);
}

/// A 4096 × 4096 bitmask (noise, a solid block, an empty disc) under 3000 small bodies.
#[test]
fn a_huge_bitmask_under_many_small_bodies() {
    let side = 4096u32;
    let mut mask = Bitmask::new(side, side).expect("valid");
    let mut rng = Pcg64::seed_from_u64(53);
    for r in 0..side {
        for c in 0..side {
            let (x, y) = (c as f32 - 2048.0, r as f32 - 2048.0);
            let solid = (1000.0..1300.0).contains(&x) && (1000.0..1300.0).contains(&y);
            let hole = x * x + y * y < 600.0 * 600.0;
            if solid || (!hole && rng.random_bool(0.1)) {
                mask.set(c, r, true);
            }
        }
    }
    let mut build = Build::default();
    let big = build.shape(Shape::Bitmask(mask));
    let small = [
        build.shape(Shape::Polygon(Polygon::rectangle(0.8, 0.8))),
        build.shape(Shape::Polygon(Polygon::regular(6, 0.6))),
        build.shape(Shape::Polygon(Polygon::new(vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(2.0, 0.1),
            Vec2::new(0.3, 0.9),
        ]))),
        build.shape(Shape::Circle(Circle::new(0.3))),
    ];
    build.body(big, -2048.0, -2048.0, 0.0);
    for k in 0..3000 {
        // A third in the hole or the solid block, the rest anywhere on the mask.
        let (x, y) = match k % 3 {
            0 => (
                rng.random_range(-400.0..400.0),
                rng.random_range(-400.0..400.0),
            ),
            1 => (
                rng.random_range(990.0..1310.0),
                rng.random_range(990.0..1310.0),
            ),
            _ => (
                rng.random_range(-2050.0..2050.0),
                rng.random_range(-2050.0..2050.0),
            ),
        };
        build.body(small[k % 4], x, y, rng.random_range(-PI..PI));
    }
    let checked = assert_every_backend("4096² bitmask under 3000 bodies", &build.scene);
    let on_mask = checked.truth.pairs.iter().filter(|p| p[0] == 0).count();
    assert!(on_mask > 1000, "only {on_mask} bodies touch the mask");
}

// ---------------------------------------------------------------------------------------
// Coordinates.
// ---------------------------------------------------------------------------------------

/// Shapes of every kind, small to 1024 across, for clusters anywhere.
fn cluster_shapes(build: &mut Build, rng: &mut Pcg64) -> (Vec<u32>, Vec<u32>, u32) {
    let big = vec![
        build.shape(Shape::Polygon(Polygon::rectangle(1024.0, 8.0))),
        build.shape(Shape::Circle(Circle::new(512.0))),
        build.shape(Shape::Polygon(Polygon::regular(64, 512.0))),
    ];
    let small = vec![
        build.shape(Shape::Circle(Circle::new(0.5))),
        build.shape(Shape::Circle(Circle::new(3.0))),
        build.shape(Shape::Polygon(Polygon::regular(3, 2.0))),
        build.shape(Shape::Polygon(Polygon::rectangle(20.0, 0.4))),
    ];
    let mut mask = Bitmask::new(40, 40).expect("valid");
    for r in 0..40 {
        for c in 0..40 {
            mask.set(c, r, rng.random_bool(0.5));
        }
    }
    let mask = build.shape(Shape::Bitmask(mask));
    (big, small, mask)
}

/// Bodies around `centre`, within `spread`, kept within `limit` of the origin.
fn cluster(
    build: &mut Build,
    rng: &mut Pcg64,
    shapes: &(Vec<u32>, Vec<u32>, u32),
    centre: Vec2,
    spread: f32,
    count: usize,
    limit: f32,
) {
    let (big, small, mask) = shapes;
    for &shape in big {
        let p = centre.clamp(Vec2::splat(-limit), Vec2::splat(limit));
        build.body(shape, p.x, p.y, rng.random_range(-PI..PI));
    }
    for k in 0..count {
        let offset = Vec2::new(
            rng.random_range(-spread..spread),
            rng.random_range(-spread..spread),
        );
        let p = (centre + offset).clamp(Vec2::splat(-limit), Vec2::splat(limit));
        let bitmask_range = gpu_collide::library::MAX_BITMASK_COORDINATE - 100.0;
        if k % 7 == 0 && p.abs().max_element() < bitmask_range {
            let p = p.round();
            build.body(*mask, p.x, p.y, 0.0);
        } else {
            build.body(small[k % small.len()], p.x, p.y, rng.random_range(-PI..PI));
        }
    }
}

/// Clusters at the corners and edges of ±16384, where exactness is still promised, with
/// shapes up to 1024 across.
#[test]
fn coordinates_at_the_edge_of_the_exact_range() {
    let mut build = Build::default();
    let mut rng = Pcg64::seed_from_u64(61);
    let shapes = cluster_shapes(&mut build, &mut rng);
    let r = EXACT_RANGE as f32;
    for centre in [
        Vec2::new(r, r),
        Vec2::new(-r, r),
        Vec2::new(r, -r),
        Vec2::new(-r, -r),
        Vec2::new(r, 0.0),
        Vec2::new(0.0, -r),
    ] {
        cluster(&mut build, &mut rng, &shapes, centre, 600.0, 400, r);
    }
    assert_eq!(band_for(&build.scene), oracle::BAND, "within the promise");
    let checked = assert_every_backend("at ±16384", &build.scene);
    assert!(checked.truth.pairs.len() > 1000);
}

/// The same clusters far beyond the exact range, about `distance` from the origin in
/// three directions, with larger shapes among them. The answers are held to a band of
/// 16 f32 steps at that distance (see `support::band_for`); bitmask pairs stay exact.
fn far_clusters(distance: f32, spread: f32, seed: u64) {
    let mut build = Build::default();
    let mut rng = Pcg64::seed_from_u64(seed);
    let shapes = cluster_shapes(&mut build, &mut rng);
    // Large enough to overlap deeper than the band at 1e9 (16 steps of 64 = 1024).
    let huge = [
        build.shape(Shape::Circle(Circle::new(3000.0))),
        build.shape(Shape::Polygon(Polygon::rectangle(5000.0, 4000.0))),
    ];
    for centre in [
        Vec2::new(distance, distance),
        Vec2::new(-distance, 0.0),
        Vec2::new(0.0, -distance),
    ] {
        cluster(&mut build, &mut rng, &shapes, centre, spread, 300, f32::MAX);
        for k in 0..40 {
            let offset = Vec2::new(
                rng.random_range(-spread..spread),
                rng.random_range(-spread..spread),
            ) * 20.0;
            let p = centre + offset;
            build.body(huge[k % 2], p.x, p.y, rng.random_range(-PI..PI));
        }
    }
    let scene = build.scene;
    let band = band_for(&scene);
    let what = format!("clusters {distance:e} away");
    let checked = within(Duration::from_secs(120), move || {
        assert_every_backend(&what, &scene)
    })
    .unwrap_or_else(|| panic!("no answer within 120 s for clusters {distance:e} away"));
    assert!(checked.band > oracle::BAND && checked.band == band);
    // Enough pairs decided outside the band that the check means something.
    let decided = checked.truth.pairs.difference(&checked.truth.band).count();
    assert!(
        decided > 100,
        "only {decided} pairs outside the band of {band}"
    );
}

#[test]
fn coordinates_far_beyond_the_exact_range_1e6() {
    far_clusters(1e6, 200.0, 62);
}

#[test]
fn coordinates_far_beyond_the_exact_range_1e9() {
    far_clusters(1e9, 200.0, 63);
}

/// Bitmasks at the largest whole coordinates they may have (±2^24), overlapping each
/// other by a few columns or not at all, with circles among them: bitmask pairs are exact
/// integer questions there too; the circles are held to the band at that distance.
#[test]
fn bitmasks_at_the_largest_whole_coordinates() {
    let mut build = Build::default();
    let mut rng = Pcg64::seed_from_u64(64);
    let (_, _, mask) = cluster_shapes(&mut build, &mut rng);
    let circle = build.shape(Shape::Circle(Circle::new(4.0)));
    let edge = gpu_collide::library::MAX_BITMASK_COORDINATE;
    for k in 0..120 {
        let shift = rng.random_range(0..160) as f32;
        let (x, y) = match k % 3 {
            0 => (edge - shift, edge - (k % 5) as f32),
            1 => (-edge + shift, -edge),
            _ => (-edge + shift, edge - 20.0),
        };
        build.body(mask, x, y, 0.0);
        if k % 4 == 0 {
            build.body(circle, x + rng.random_range(-5.0..45.0), y + 20.0, 0.0);
        }
    }
    let scene = build.scene;
    let bitmasks: Vec<bool> = scene.bodies.iter().map(|b| b.shape == mask).collect();
    let checked = within(Duration::from_secs(120), move || {
        assert_every_backend("bitmasks at ±2^24", &scene)
    })
    .expect("an answer within 120 s");
    let exact = checked
        .truth
        .pairs
        .iter()
        .filter(|&&[i, j]| bitmasks[i as usize] && bitmasks[j as usize])
        .count();
    assert!(exact > 50, "only {exact} bitmask pairs");
}

/// Groups of identical bodies at the same point, at coordinates up to near `f32::MAX`:
/// whatever the rounding, bodies at one point overlap (their offset is exactly zero) and
/// bodies of different groups are too far apart to touch. Every backend must say exactly
/// that, within seconds.
#[test]
fn extreme_coordinates_do_not_hang_or_panic() {
    let mut build = Build::default();
    let circle = build.shape(Shape::Circle(Circle::new(1.0)));
    let square = build.shape(Shape::Polygon(Polygon::rectangle(2.0, 2.0)));
    let mut expected = Vec::new();
    for (x, y) in [
        (0.0, 0.0),
        (1e15, 0.0),
        (-1e20, 1e20),
        (1e30, -1e30),
        (3e38, 3e38),
        (-3e38, -3e38),
        (f32::MAX, f32::MIN),
    ] {
        let first = build.scene.bodies.len() as u32;
        build.body(circle, x, y, 0.0);
        build.body(circle, x, y, 0.0);
        build.body(square, x, y, 0.7);
        build.body(square, x, y, 0.7);
        for i in first..first + 4 {
            for j in i + 1..first + 4 {
                expected.push([i, j]);
            }
        }
    }
    let scene = build.scene;
    for (backend, found) in every_backend_within(&scene, Duration::from_secs(20)) {
        match found {
            Some(Ok(pairs)) => assert_eq!(pairs, expected, "{backend}"),
            Some(Err(e)) => panic!("{backend}: error {e}"),
            None => panic!("{backend}: no answer within 20 s"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Sizes from 1e-3 to 1e4.
// ---------------------------------------------------------------------------------------

#[test]
fn sizes_from_a_thousandth_to_ten_thousand() {
    let mut build = Build::default();
    let mut rng = Pcg64::seed_from_u64(71);
    let mut by_size = Vec::new();
    for k in -3..=4 {
        let size = 10f32.powi(k);
        by_size.push((
            size,
            [
                build.shape(Shape::Circle(Circle::new(size / 2.0))),
                build.shape(Shape::Polygon(Polygon::rectangle(size, size / 3.0))),
                build.shape(Shape::Polygon(Polygon::regular(7, size / 2.0))),
            ],
        ));
    }
    // Each size crowded in a square a few dozen of its own sizes across (at most 6000),
    // so bodies of one size touch each other and lie on and inside larger ones.
    for (size, shapes) in &by_size {
        let spread = (15.0 * size).min(6000.0);
        let count = if *size > 1000.0 { 12 } else { 200 };
        for k in 0..count {
            let x = rng.random_range(-spread..spread);
            let y = rng.random_range(-spread..spread);
            build.body(shapes[k % 3], x, y, rng.random_range(-PI..PI));
        }
    }
    assert_eq!(band_for(&build.scene), oracle::BAND, "within the promise");
    let checked = assert_every_backend("sizes 1e-3 to 1e4", &build.scene);
    let decided = checked.truth.pairs.difference(&checked.truth.band).count();
    assert!(decided > 1000, "only {decided} pairs outside the band");
}

// ---------------------------------------------------------------------------------------
// Dense piles.
// ---------------------------------------------------------------------------------------

/// `n` bodies of every kind on one point, each covering it deeply: every pair collides.
fn pile(n: usize) -> Scene {
    let mut build = Build::default();
    let shapes = [
        build.shape(Shape::Circle(Circle::new(1.0))),
        build.shape(Shape::Polygon(Polygon::rectangle(2.0, 1.0))),
        build.shape(Shape::Polygon(Polygon::regular(6, 1.0))),
        build.shape(Shape::Bitmask(
            Bitmask::from_rows(&["##", "##"]).expect("valid"),
        )),
    ];
    for k in 0..n {
        let shape = shapes[k % 4];
        if k % 4 == 3 {
            // The 2 × 2 mask placed to cover [-1, 1]².
            build.body(shape, -1.0, -1.0, 0.0);
        } else {
            build.body(shape, 0.0, 0.0, k as f32 * 0.1);
        }
    }
    build.scene
}

fn all_pairs(n: u32) -> Vec<Pair> {
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| [i, j]))
        .collect()
}

/// 2000 bodies on one point: 1 999 000 pairs, all of them, on every backend.
#[test]
fn a_pile_of_2000_bodies_on_one_point() {
    let n = 2000;
    let checked = assert_every_backend("pile of 2000", &pile(n));
    let all = all_pairs(n as u32);
    assert_eq!(checked.truth.pairs.len(), all.len());
    assert!(checked.reference == all, "reference: not all pairs");
    assert!(checked.cpu == all, "cpu: not all pairs");
    if let Some(on_gpu) = checked.gpu {
        assert!(
            on_gpu == all,
            "gpu: {} pairs of {}",
            on_gpu.len(),
            all.len()
        );
    }
}

/// Piles beyond the limit on box-overlapping pairs: refused with `Error::TooManyPairs`,
/// quickly, by every backend, and the collider still works afterwards.
mod beyond_the_pair_limit {
    use super::*;
    use gpu_collide::Error;

    /// Every backend's collider over `scene`'s shapes, with the limit set.
    fn colliders(scene: &Scene, limit: u64) -> Vec<(&'static str, Box<dyn Collider>)> {
        let library = scene.validate().expect("valid");
        let mut colliders: Vec<(&'static str, Box<dyn Collider>)> = vec![
            (
                "reference",
                Box::new(ReferenceCollider::new(library.clone())),
            ),
            ("cpu", Box::new(CpuCollider::new(library.clone()))),
        ];
        if let Some(context) = gpu() {
            colliders.push((
                "gpu",
                Box::new(GpuCollider::new(&context, library).expect("collider")),
            ));
        }
        for (_, collider) in colliders.iter_mut() {
            collider.set_max_pairs(limit);
        }
        colliders
    }

    #[test]
    fn a_pile_beyond_a_small_limit_is_refused_quickly_and_the_collider_still_works() {
        let n = 1500u64;
        let scene = pile(n as usize);
        let small = pile(4);
        for (backend, mut collider) in colliders(&scene, 10_000) {
            let started = Instant::now();
            let answer = collider.find_pairs(&scene.bodies);
            let time = started.elapsed();
            match answer {
                Err(Error::TooManyPairs { found, limit }) => {
                    assert_eq!(limit, 10_000, "{backend}: the limit in force");
                    assert!(
                        found > limit && found <= n * (n - 1) / 2,
                        "{backend}: found {found}"
                    );
                }
                other => panic!("{backend}: expected TooManyPairs, got {other:?}"),
            }
            // Refusing 1 124 250 pairs must not cost what finding them would.
            assert!(time < Duration::from_secs(10), "{backend}: {time:?}");
            let pairs = collider.find_pairs(&small.bodies).expect("a small frame");
            assert_eq!(pairs, all_pairs(4), "{backend}: after a refused frame");
        }
    }

    #[test]
    fn the_limit_counts_pairs_not_more() {
        // All 499 500 pairs of a pile of 1000 fit a limit of exactly that many, and not
        // one fewer.
        let n = 1000u64;
        let scene = pile(n as usize);
        let exact = n * (n - 1) / 2;
        for (backend, mut collider) in colliders(&scene, exact) {
            let pairs = collider.find_pairs(&scene.bodies);
            assert_eq!(
                pairs.map(|p| p.len() as u64).map_err(|e| e.to_string()),
                Ok(exact),
                "{backend}: at the limit"
            );
        }
        for (backend, mut collider) in colliders(&scene, exact - 1) {
            let refused = collider.find_pairs(&scene.bodies);
            assert!(
                matches!(refused, Err(Error::TooManyPairs { limit, .. }) if limit == exact - 1),
                "{backend}: one over the limit: {refused:?}"
            );
        }
    }

    #[test]
    fn a_limit_passed_by_a_few_pairs_spread_over_threads_is_kept_exactly() {
        // Four small piles, each followed in the list by 1500 bodies apart from every
        // other, so that the threads' runs of bodies each find one pile's pairs and none
        // alone passes the limit: 4 x 6 pairs against limits of 24 and 23.
        let pile = pile(4);
        let mut scene = pile.clone();
        scene.bodies.clear();
        for k in 0..4 {
            let corner = Vec2::new(5000.0 * k as f32, 0.0);
            scene.bodies.extend(pile.bodies.iter().map(|b| Body {
                position: b.position + corner,
                ..*b
            }));
            scene.bodies.extend((0..1500).map(|m| {
                let at = Vec2::new((m % 40) as f32, (m / 40) as f32) * 10.0;
                Body::new(pile.bodies[0].shape, corner + Vec2::new(100.0, 100.0) + at)
            }));
        }
        for (backend, mut collider) in colliders(&scene, 24) {
            let pairs = collider.find_pairs(&scene.bodies).map(|p| p.len());
            assert_eq!(pairs.map_err(|e| e.to_string()), Ok(24), "{backend}");
        }
        for (backend, mut collider) in colliders(&scene, 23) {
            let refused = collider.find_pairs(&scene.bodies);
            assert!(
                matches!(
                    refused,
                    Err(Error::TooManyPairs {
                        found: 24,
                        limit: 23
                    })
                ),
                "{backend}: one over the limit: {refused:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Scenes that hung the cpu backend.
// ---------------------------------------------------------------------------------------

/// A backend's pairs or error, or `None` when it did not answer in time.
type Answer = Option<Result<Vec<Pair>, String>>;

/// Runs `scene` on the reference, the cpu backend and the GPU, each on a thread of its
/// own given `limit` to answer (`None` if it did not). The GPU gets a device of its own,
/// so that a stuck queue cannot hold up the other tests' GPU work.
fn every_backend_within(scene: &Scene, limit: Duration) -> Vec<(&'static str, Answer)> {
    type Make = fn(gpu_collide::ShapeLibrary) -> Result<Box<dyn Collider>, gpu_collide::Error>;
    let mut backends: Vec<(&'static str, Make)> = vec![
        ("reference", |library| {
            Ok(Box::new(ReferenceCollider::new(library)))
        }),
        ("cpu", |library| Ok(Box::new(CpuCollider::new(library)))),
    ];
    if gpu().is_some() {
        backends.push(("gpu", |library| {
            let context = GpuContext::new()?;
            Ok(Box::new(GpuCollider::new(&context, library)?))
        }));
    }
    backends
        .into_iter()
        .map(|(backend, make)| {
            let scene = scene.clone();
            let answer = within(limit, move || {
                let library = scene.validate().map_err(|e| e.to_string())?;
                make(library)
                    .and_then(|mut c| c.find_pairs(&scene.bodies))
                    .map_err(|e| e.to_string())
            });
            (backend, answer)
        })
        .collect()
}

fn assert_answers_within(what: &str, text: &str, limit: Duration) -> Vec<Pair> {
    let scene = Scene::from_json(text).expect("the scene is valid");
    let truth = oracle::oracle(text);
    let expected: Vec<Pair> = truth.pairs.iter().map(|&[i, j]| [i, j]).collect();
    assert!(truth.band.is_empty(), "{what}: nothing is near touching");
    let mut problems = Vec::new();
    for (backend, answer) in every_backend_within(&scene, limit) {
        match answer {
            None => problems.push(format!("{what} {backend}: no answer within {limit:?}")),
            Some(Err(e)) => problems.push(format!("{what} {backend}: error {e}")),
            Some(Ok(pairs)) if pairs != expected => problems.push(format!(
                "{what} {backend}: {pairs:?}, the oracle says {expected:?}"
            )),
            Some(Ok(_)) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    expected
}

#[test]
fn a_1e20_triangle_answers_within_seconds() {
    let text =
        r#"{"shapes":[{"polygon":[[0,0],[1e20,0],[0,1e20]]}],"bodies":[{"shape":0,"x":0,"y":0}]}"#;
    let pairs = assert_answers_within("1e20 triangle", text, Duration::from_secs(20));
    assert!(pairs.is_empty());
}

#[test]
fn a_1e6_triangle_and_a_circle_apart_answer_within_seconds() {
    let text = r#"{"shapes":[{"polygon":[[0,0],[1000000,0],[0,1000000]]},{"circle":1}],"bodies":[{"shape":0,"x":0,"y":0},{"shape":1,"x":-5,"y":-5}]}"#;
    let pairs = assert_answers_within("1e6 triangle and a circle", text, Duration::from_secs(20));
    assert!(pairs.is_empty(), "the circle is 6 units from the corner");
}

/// The pile is what the pile tests take it for: every pair collides, deeply.
#[test]
fn a_pile_is_all_pairs() {
    let scene = pile(8);
    assert_eq!(scene.bodies.len(), 8);
    assert_eq!(all_pairs(8).len(), 28);
    let truth = oracle::oracle_value(&exact_json(&scene));
    assert_eq!(truth.pairs.len(), 28, "a pile: every pair collides");
    assert!(truth.band.is_empty(), "a pile: every pair deep");
}

/// A frame whose candidates do not fit one storage binding runs in slices of bodies on
/// the GPU, each pair found by one slice. A device whose bindings hold 1 MiB (131 072
/// pairs) meets that with a pile of 1000 bodies (499 500 pairs) beside bodies apart,
/// cheaply, where the default limits would need a pile of some 6000 bodies.
#[test]
fn candidates_beyond_one_binding_run_in_slices_with_every_pair_found_once() {
    if gpu().is_none() {
        return;
    }
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: 1 << 20,
        ..wgpu::Limits::default()
    };
    let context = gpu_collide::GpuContext::with_limits(limits).expect("small bindings");
    let mut scene = pile(1000);
    // Bodies apart from the pile and from each other, so slices also hold bodies with no pair.
    for k in 0..500 {
        let mut body = scene.bodies[0];
        body.position = Vec2::new(100.0 + 10.0 * k as f32, 50.0);
        scene.bodies.push(body);
    }
    let library = scene.validate().expect("valid");
    let found = GpuCollider::new(&context, library.clone())
        .expect("collider")
        .find_pairs(&scene.bodies)
        .expect("the frame runs in slices");
    let expected = all_pairs(1000);
    assert_eq!(found.len(), expected.len());
    assert!(
        found == expected,
        "every pair of the pile once, sorted, and no other"
    );
    let cpu = CpuCollider::new(library)
        .find_pairs(&scene.bodies)
        .expect("cpu");
    assert!(cpu == found, "the cpu backend agrees");
}
