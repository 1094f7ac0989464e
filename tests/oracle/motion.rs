//! Swept pairs in f64 (scene format 1.1), by a different road from the crate's.
//!
//! The crate casts the relative motion against the Minkowski difference in closed form.
//! Here nothing is cast: the signed distance between two convex shapes, one of them
//! translated by `t·w`, is a convex function of `t` (it is the signed distance from the
//! point `t·w` to a convex set), so its minimum over `[0, 1]` is found by golden-section
//! search and its first zero before that minimum by bisection, with the distance
//! measured by the oracle's segment and point-segment geometry. A bitmask is a union of
//! unit squares: each set cell near the path is swept on its own, and the earliest wins.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use serde_json::Value;

use super::{
    bitmasks_share_a_cell, placed_distance, sweep_and_prune, Aabb, Piece, Placed, Scene, BAND, V,
};

/// How wide the broad phase looks around each swept box.
const MARGIN: f64 = 4.0 * BAND;

/// What the oracle knows of one pair whose filters agree and whose swept boxes come within
/// the margin.
#[derive(Debug, Clone, Copy)]
pub struct SweptEntry {
    /// The first `t` in `[0, 1]` at which the shapes meet, if they do.
    pub toi: Option<f64>,
    /// The signed distance at their closest over the frame (negative: overlapping).
    pub closest: f64,
    /// `|v_j - v_i|`.
    pub speed: f64,
    /// Two bitmasks: an exact integer question, never in the band.
    pub bitmasks: bool,
}

impl SweptEntry {
    /// Whether the pair may be reported either way: at their closest the shapes have a
    /// gap or an overlap of at most the band.
    pub fn in_band(&self) -> bool {
        !self.bitmasks && self.closest.abs() <= BAND
    }
}

/// The swept pairs of a scene, as the oracle sees them.
pub struct SweptTruth {
    scene: Scene,
    /// Every pair near enough to matter, keyed `(i, j)`, `i < j`.
    pub entries: BTreeMap<[u32; 2], SweptEntry>,
}

/// A reported time of impact outside the tolerance: the pair, the reported time, the
/// oracle's, and why it is wrong.
pub type WrongToi = ([u32; 2], f32, Option<f64>, String);

/// Reported swept pairs held to the oracle.
#[derive(Debug, Clone, Default)]
pub struct SweptComparison {
    /// Reported, outside the band, but never meeting.
    pub false_positives: Vec<[u32; 2]>,
    /// Meeting, outside the band, but not reported.
    pub false_negatives: Vec<[u32; 2]>,
    /// Reported with a time of impact outside the tolerance: pair, reported, true, why.
    pub wrong_toi: Vec<WrongToi>,
    /// Band pairs reported and not reported.
    pub band_reported: usize,
    pub band_not_reported: usize,
}

impl SweptComparison {
    /// Whether every pair and time outside the band is right.
    pub fn is_exact_outside_band(&self) -> bool {
        self.false_positives.is_empty()
            && self.false_negatives.is_empty()
            && self.wrong_toi.is_empty()
    }
}

impl SweptTruth {
    /// The pairs that meet during the frame.
    pub fn pairs(&self) -> BTreeSet<[u32; 2]> {
        self.entries
            .iter()
            .filter(|(_, e)| e.toi.is_some())
            .map(|(p, _)| *p)
            .collect()
    }

    /// The pairs that may go either way.
    pub fn band(&self) -> BTreeSet<[u32; 2]> {
        self.entries
            .iter()
            .filter(|(_, e)| e.in_band())
            .map(|(p, _)| *p)
            .collect()
    }

    /// The signed distance between bodies `i` and `j` at time `t` (cells of a bitmask
    /// farther than a unit from the other shape are not looked at).
    pub fn distance_at(&self, i: usize, j: usize, t: f64) -> f64 {
        let a = moved(&self.scene, i, t);
        let b = moved(&self.scene, j, t);
        placed_distance(&a, &b, 1.0)
    }

    /// Holds reported `(pair, toi)` to the oracle: outside the band the pairs must be
    /// exactly the oracle's; every reported time must be within `0.01 / speed + 1e-4` of
    /// the true one, or at a time when the shapes are within the band of touching (and 0
    /// for a pair with no relative motion that meets).
    pub fn compare(&self, reported: &[([u32; 2], f32)]) -> SweptComparison {
        let mut out = SweptComparison::default();
        let reported_set: BTreeSet<[u32; 2]> = reported.iter().map(|(p, _)| [p[0], p[1]]).collect();
        for &(pair, toi) in reported {
            let key = [pair[0], pair[1]];
            let Some(entry) = self.entries.get(&key) else {
                out.false_positives.push(key);
                continue;
            };
            if entry.toi.is_none() && !entry.in_band() {
                out.false_positives.push(key);
                continue;
            }
            if let Some(why) = self.toi_problem(key, entry, toi) {
                out.wrong_toi.push((key, toi, entry.toi, why));
            }
        }
        for (key, entry) in &self.entries {
            if entry.in_band() {
                if reported_set.contains(key) {
                    out.band_reported += 1;
                } else {
                    out.band_not_reported += 1;
                }
            } else if entry.toi.is_some() && !reported_set.contains(key) {
                out.false_negatives.push(*key);
            }
        }
        out
    }

    /// Why a reported time is wrong, or `None` when it is within the spec's tolerance.
    fn toi_problem(&self, key: [u32; 2], entry: &SweptEntry, toi: f32) -> Option<String> {
        let toi = toi as f64;
        if !(0.0..=1.0).contains(&toi) {
            return Some("outside [0, 1]".into());
        }
        if entry.bitmasks {
            return (toi != 0.0).then(|| "two still bitmasks meet at 0".into());
        }
        if let Some(truth) = entry.toi {
            if entry.speed == 0.0 {
                if toi == 0.0 {
                    return None;
                }
            } else if (toi - truth).abs() <= BAND / entry.speed + 1e-4 {
                return None;
            }
        }
        let d = self.distance_at(key[0] as usize, key[1] as usize, toi);
        if d.abs() <= BAND + 1e-9 && entry.speed > 0.0 {
            return None;
        }
        Some(format!("distance {d} at the reported time"))
    }
}

/// Body `i` placed at time `t` of its motion.
fn moved(scene: &Scene, i: usize, t: f64) -> Placed<'_> {
    let body = &scene.bodies[i];
    translate(scene.place(i), V::new(body.vx * t, body.vy * t))
}

/// A placed polygon or circle moved by `d`; bitmasks never move.
fn translate(placed: Placed<'_>, d: V) -> Placed<'_> {
    match placed {
        Placed::Polygon(points) => Placed::Polygon(points.into_iter().map(|p| p.add(d)).collect()),
        Placed::Circle { centre, radius } => Placed::Circle {
            centre: centre.add(d),
            radius,
        },
        Placed::Rounded(pieces) => Placed::Rounded(
            pieces
                .into_iter()
                .map(|p| Piece {
                    hull: p.hull.into_iter().map(|v| v.add(d)).collect(),
                    radius: p.radius,
                })
                .collect(),
        ),
        bitmask => bitmask,
    }
}

/// For a convex `distance(t)` on `[0, 1]`: the first `t` where it is at most 0, and its
/// minimum. Golden-section search finds the minimum (its bracket shrinks to 1e-26 of the
/// frame, so that at the format's largest displacement, 1e18, a meeting within the first
/// 1e-17 of the frame is still found); bisection between 0 and the minimum finds the
/// first zero, which is unique there by convexity.
pub fn first_touch(distance: impl Fn(f64) -> f64) -> (Option<f64>, f64) {
    first_touch_at(MAX_DISPLACEMENT, distance)
}

/// The format's largest displacement in a frame.
const MAX_DISPLACEMENT: f64 = 1e18;

/// [`first_touch`] for shapes that move `speed` units apart or together at most in the
/// frame: the golden-section search stops once its bracket spans under 1e-9 units of that
/// motion (an error in the distance the band dwarfs), as it stops at 1e-26 of the frame
/// for the largest displacement.
fn first_touch_at(speed: f64, distance: impl Fn(f64) -> f64) -> (Option<f64>, f64) {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let (mut x1, mut x2) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
    let (mut f1, mut f2) = (distance(x1), distance(x2));
    for _ in 0..128 {
        if (hi - lo) * speed < 1e-9 {
            break;
        }
        if f1 <= f2 {
            hi = x2;
            (x2, f2) = (x1, f1);
            x1 = hi - ratio * (hi - lo);
            f1 = distance(x1);
        } else {
            lo = x1;
            (x1, f1) = (x2, f2);
            x2 = lo + ratio * (hi - lo);
            f2 = distance(x2);
        }
    }
    let (d0, d1) = (distance(0.0), distance(1.0));
    let (mut t_min, mut min) = (x1, f1);
    for (t, d) in [(x2, f2), (0.0, d0), (1.0, d1)] {
        if d < min {
            (t_min, min) = (t, d);
        }
    }
    if d0 <= 0.0 {
        return (Some(0.0), min);
    }
    if min > 0.0 {
        return (None, min);
    }
    let (mut outside, mut inside) = (0.0, t_min);
    for _ in 0..64 {
        let mid = 0.5 * (outside + inside);
        if distance(mid) <= 0.0 {
            inside = mid;
        } else {
            outside = mid;
        }
    }
    (Some(inside), min)
}

/// The swept oracle of a scene file.
pub fn swept_oracle(text: &str) -> SweptTruth {
    let value: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("oracle: scene is not JSON: {e}"));
    let scene = Scene::parse(&value);
    let n = scene.bodies.len();
    let boxes: Vec<Option<Aabb>> = (0..n)
        .map(|i| {
            let b = &scene.bodies[i];
            scene.place(i).aabb().map(|a| {
                let d = V::new(b.vx, b.vy);
                let (start, end) = (
                    a,
                    Aabb {
                        min: a.min.add(d),
                        max: a.max.add(d),
                    },
                );
                Aabb {
                    min: V::new(start.min.x.min(end.min.x), start.min.y.min(end.min.y)),
                    max: V::new(start.max.x.max(end.max.x), start.max.y.max(end.max.y)),
                }
            })
        })
        .collect();
    let mut near = Vec::new();
    sweep_and_prune(&boxes, MARGIN, |i, j| {
        if scene.filters_agree(i, j) {
            near.push((i, j));
        }
    });
    // Pairs apart on all cores: each is a search over time of its own.
    let entries = near
        .into_par_iter()
        .map(|(i, j)| ([i as u32, j as u32], sweep_pair(&scene, i, j)))
        .collect();
    SweptTruth { scene, entries }
}

/// Sweeps one pair.
fn sweep_pair(scene: &Scene, i: usize, j: usize) -> SweptEntry {
    let (bi, bj) = (&scene.bodies[i], &scene.bodies[j]);
    let w = V::new(bj.vx - bi.vx, bj.vy - bi.vy);
    let (pi, pj) = (scene.place(i), scene.place(j));
    let speed = w.len();
    match (&pi, &pj) {
        (
            Placed::Bitmask { ox, oy, bits },
            Placed::Bitmask {
                ox: qx,
                oy: qy,
                bits: qbits,
            },
        ) => {
            let meet = bitmasks_share_a_cell((*ox, *oy, bits), (*qx, *qy, qbits));
            SweptEntry {
                toi: meet.then_some(0.0),
                closest: if meet { -1.0 } else { 1.0 },
                speed,
                bitmasks: true,
            }
        }
        (Placed::Bitmask { ox, oy, bits }, _) => {
            // The shape j moves by t·w against the still mask.
            let (toi, closest) = earliest(
                convex_parts(&pj)
                    .iter()
                    .map(|part| sweep_against_cells(part, V::new(bj.vx, bj.vy), *ox, *oy, bits)),
            );
            SweptEntry {
                toi,
                closest,
                speed,
                bitmasks: false,
            }
        }
        (_, Placed::Bitmask { ox, oy, bits }) => {
            let (toi, closest) = earliest(
                convex_parts(&pi)
                    .iter()
                    .map(|part| sweep_against_cells(part, V::new(bi.vx, bi.vy), *ox, *oy, bits)),
            );
            SweptEntry {
                toi,
                closest,
                speed,
                bitmasks: false,
            }
        }
        _ => {
            // Convex part against convex part, where the distance over time is convex
            // (the search below needs that); a union's is not. A pair of parts whose boxes, b's swept by w, stay more than the margin
            // apart is farther apart than the band all frame: it changes neither the
            // time nor whether the closest approach is in the band, and is skipped
            // (the oracle's triangles of two large outlines make thousands of pairs).
            let (parts_i, parts_j) = (convex_parts(&pi), convex_parts(&pj));
            let near = |a: &Placed, b: &Placed| match (a.aabb(), b.aabb()) {
                (Some(a), Some(b)) => {
                    a.min.x - MARGIN <= b.max.x.max(b.max.x + w.x)
                        && b.min.x.min(b.min.x + w.x) <= a.max.x + MARGIN
                        && a.min.y - MARGIN <= b.max.y.max(b.max.y + w.y)
                        && b.min.y.min(b.min.y + w.y) <= a.max.y + MARGIN
                }
                _ => true,
            };
            let (toi, closest) = settled_earliest(parts_i.iter().flat_map(|a| {
                parts_j.iter().filter(move |b| near(a, b)).map(move |b| {
                    // Without relative motion the distance is the same all frame; with
                    // it, it changes by at most the speed, so a pair that cannot come
                    // within the margin is apart all frame (its closest approach given
                    // as that bound, past the band all the same).
                    let start = placed_distance(a, b, f64::INFINITY);
                    if speed == 0.0 || start < -BAND {
                        // Met at the start, deeper than the band: no closer look can
                        // move the pair into the band.
                        return ((start <= 0.0).then_some(0.0), start);
                    }
                    if start - speed > MARGIN {
                        return (None, start - speed);
                    }
                    first_touch_at(speed, |t| {
                        let moved_b = translate(copy(b), w.scale(t));
                        placed_distance(a, &moved_b, f64::INFINITY)
                    })
                })
            }));
            SweptEntry {
                toi,
                closest,
                speed,
                bitmasks: false,
            }
        }
    }
}

/// A shape's convex parts: each piece of a 1.2 shape on its own, else the shape.
fn convex_parts<'s>(placed: &Placed<'s>) -> Vec<Placed<'s>> {
    match placed {
        Placed::Rounded(pieces) => pieces
            .iter()
            .map(|p| Placed::Rounded(vec![p.clone()]))
            .collect(),
        other => vec![copy(other)],
    }
}

/// [`earliest`], stopping once nothing more can change the answer: at a meeting at the
/// start deeper than the band (nothing is earlier, and the pair is out of the band
/// whatever the other runs say). Two compounds overlapping at the start have hundreds of
/// pairs of the oracle's triangles, each a search over time.
fn settled_earliest(runs: impl Iterator<Item = (Option<f64>, f64)>) -> (Option<f64>, f64) {
    let mut sofar = (None, f64::INFINITY);
    for run in runs {
        sofar = earliest([sofar, run].into_iter());
        if sofar.0 == Some(0.0) && sofar.1 < -BAND {
            break;
        }
    }
    sofar
}

/// The earliest time of impact and the closest approach over several `(toi, closest)`.
fn earliest(runs: impl Iterator<Item = (Option<f64>, f64)>) -> (Option<f64>, f64) {
    runs.fold((None, f64::INFINITY), |(toi, closest), (t, d)| {
        let toi = match (toi, t) {
            (Some(a), Some(b)) => Some(f64::min(a, b)),
            (a, b) => a.or(b),
        };
        (toi, closest.min(d))
    })
}

/// A polygon or circle moving by `t·w` against each set cell of a still bitmask near
/// its path: the earliest time over the cells, and the closest any cell comes.
fn sweep_against_cells(
    shape: &Placed,
    w: V,
    ox: i64,
    oy: i64,
    bits: &super::Bitmask,
) -> (Option<f64>, f64) {
    let Some(bounds) = shape.aabb() else {
        return (None, f64::INFINITY);
    };
    // The shape's reach from its box centre, and the path of that centre.
    let centre = bounds.min.add(bounds.max).scale(0.5);
    let reach = bounds.max.sub(centre).len();
    let lo = V::new(
        bounds.min.x.min(bounds.min.x + w.x),
        bounds.min.y.min(bounds.min.y + w.y),
    );
    let hi = V::new(
        bounds.max.x.max(bounds.max.x + w.x),
        bounds.max.y.max(bounds.max.y + w.y),
    );
    let (c0, c1) = (
        (lo.x - 1.0 - MARGIN).floor() as i64 - ox,
        (hi.x + MARGIN).ceil() as i64 - ox,
    );
    let (r0, r1) = (
        (lo.y - 1.0 - MARGIN).floor() as i64 - oy,
        (hi.y + MARGIN).ceil() as i64 - oy,
    );
    let (mut toi, mut closest): (Option<f64>, f64) = (None, f64::INFINITY);
    for r in r0.max(0)..=r1.min(bits.height as i64 - 1) {
        for c in c0.max(0)..=c1.min(bits.width as i64 - 1) {
            if !bits.is_set(c, r) {
                continue;
            }
            let (x, y) = ((ox + c) as f64, (oy + r) as f64);
            let cell_centre = V::new(x + 0.5, y + 0.5);
            // Cells too far from the centre's path to come within the margin.
            let path = super::point_segment_distance(cell_centre, centre, centre.add(w));
            if path > reach + std::f64::consts::FRAC_1_SQRT_2 + MARGIN {
                continue;
            }
            let square = [
                V::new(x, y),
                V::new(x + 1.0, y),
                V::new(x + 1.0, y + 1.0),
                V::new(x, y + 1.0),
            ];
            let cell = Placed::Polygon(square.to_vec());
            let (t, d) = first_touch(|t| {
                let moved_shape = translate(copy(shape), w.scale(t));
                placed_distance(&moved_shape, &cell, f64::INFINITY)
            });
            closest = closest.min(d);
            if let Some(t) = t {
                toi = Some(toi.map_or(t, |best: f64| best.min(t)));
            }
        }
    }
    (toi, closest)
}

/// A copy of a placed polygon or circle.
fn copy<'s>(placed: &Placed<'s>) -> Placed<'s> {
    match placed {
        Placed::Polygon(points) => Placed::Polygon(points.clone()),
        Placed::Circle { centre, radius } => Placed::Circle {
            centre: *centre,
            radius: *radius,
        },
        Placed::Bitmask { ox, oy, bits } => Placed::Bitmask {
            ox: *ox,
            oy: *oy,
            bits,
        },
        Placed::Rounded(pieces) => Placed::Rounded(pieces.clone()),
    }
}

#[cfg(test)]
mod self_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_circle_reaching_a_wall_at_a_known_time() {
        // The spec's example: the circle's edge reaches x = 14 when its centre is at 13.
        let scene = json!({
            "shapes": [{"circle": 1.0}, {"polygon": [[-4, -1], [4, -1], [4, 1], [-4, 1]]}],
            "bodies": [
                {"shape": 0, "x": 0, "y": 0, "vx": 30, "vy": 0},
                {"shape": 1, "x": 15, "y": 0, "angle": std::f64::consts::FRAC_PI_2}
            ]
        });
        let truth = swept_oracle(&scene.to_string());
        let entry = truth.entries[&[0, 1]];
        let toi = entry.toi.expect("meets");
        assert!((toi - 13.0 / 30.0).abs() < 1e-9, "{toi}");
        assert!(entry.closest < -BAND);
        let fine = truth.compare(&[([0, 1], (13.0f64 / 30.0) as f32)]);
        assert!(fine.is_exact_outside_band(), "{fine:?}");
        let late = truth.compare(&[([0, 1], 0.5)]);
        assert_eq!(late.wrong_toi.len(), 1, "{late:?}");
        let missed = truth.compare(&[]);
        assert_eq!(missed.false_negatives, vec![[0, 1]]);
    }

    #[test]
    fn a_square_swept_past_bitmask_cells_meets_the_first() {
        // Cells 2 and 4 of a row set; a unit square moving right from x = -3 meets cell 2
        // (x from 2) when its right side (x + 0.5) gets there: t = (2 - (-2.5)) / 10.
        let scene = json!({
            "shapes": [{"polygon": [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]},
                       {"bitmask": {"width": 6, "height": 1, "rows": ["..#.#."]}}],
            "bodies": [{"shape": 1, "x": 0, "y": 0},
                       {"shape": 0, "x": -3, "y": 0.5, "vx": 10}]
        });
        let truth = swept_oracle(&scene.to_string());
        let toi = truth.entries[&[0, 1]].toi.expect("meets");
        assert!((toi - 0.45).abs() < 1e-9, "{toi}");
    }
}
