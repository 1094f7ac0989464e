//! Independent double-precision collision oracle for the tests.
//!
//! It reads a scene file (the JSON of `docs/scene-format.md`) and decides, for every
//! pair of bodies, whether they collide and whether the pair lies in the spec's tolerance
//! band (boundaries within `BAND` of touching), where either answer is accepted.
//!
//! Why it can be trusted as a referee: it shares no code with the crate under test (only
//! `std` and `serde_json`), it works in `f64` straight from the JSON numbers, and it decides
//! overlap with different algorithms from the crate's separating-axis test: closed
//! segment-segment intersection and point-in-polygon for the yes/no question, point-segment
//! distances for gaps, and per-cell unit squares for bitmasks. Only the depth of an overlap
//! (used for nothing but the band) is measured by projections.
//!
//! The shapes of format 1.2 are unions of rounded convex pieces (a hull of one point, two
//! or more, grown by a radius): a capsule is one piece, a concave outline the triangles
//! of the oracle's own ear clipping, a compound its parts' pieces. Pairs and swept pairs
//! are decided piece against piece; their contacts and ray normals are not in the oracle
//! yet, and it says so rather than answer.

#![allow(dead_code)]

pub mod contact;
mod geometry;
pub mod motion;
pub mod parts;
pub mod query;
mod scene;
#[cfg(test)]
mod self_tests;
mod world;

pub(crate) use geometry::*;
pub(crate) use scene::*;
pub(crate) use world::*;

use serde_json::Value;
use std::collections::BTreeSet;

/// Width of the tolerance band of the spec.
pub const BAND: f64 = 0.01;

/// How much every world box is grown in the broad phase. Two grown boxes overlap whenever
/// the shapes are within `4 * BAND`, well beyond the `BAND` that classification needs.
const MARGIN: f64 = 2.0 * BAND;

/// What the oracle says about a scene.
#[derive(Debug, Clone, Default)]
pub struct OracleResult {
    /// Pairs (i, j), i < j, that collide exactly in f64 (signed distance <= 0), filters agreeing.
    pub pairs: BTreeSet<[u32; 2]>,
    /// Pairs (i, j), i < j, filters agreeing, whose signed distance d has |d| <= BAND: these may be decided either way.
    /// Never includes bitmask-bitmask pairs (they are exact integer questions).
    pub band: BTreeSet<[u32; 2]>,
}

/// Reported pairs checked against the oracle.
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    /// Pairs outside the band that were reported but do not collide.
    pub false_positives: Vec<[u32; 2]>,
    /// Pairs outside the band that collide but were not reported.
    pub false_negatives: Vec<[u32; 2]>,
    /// Band pairs reported / not reported (counted, not errors).
    pub band_reported: usize,
    pub band_not_reported: usize,
}

impl Comparison {
    /// True when every pair outside the tolerance band was decided as the oracle decides it.
    pub fn is_exact_outside_band(&self) -> bool {
        self.false_positives.is_empty() && self.false_negatives.is_empty()
    }
}

/// Parses a valid scene (panics with a clear message on invalid input: this is test code) and decides every pair.
pub fn oracle(scene_json: &str) -> OracleResult {
    let value: Value = serde_json::from_str(scene_json)
        .unwrap_or_else(|e| panic!("oracle: scene is not valid JSON: {e}"));
    oracle_value(&value)
}

/// Same as [`oracle`], for a scene already parsed into a `serde_json::Value`.
pub fn oracle_value(scene_json_value: &Value) -> OracleResult {
    oracle_value_with_band(scene_json_value, BAND)
}

/// [`oracle_value`] with a band wider than the spec's, for scenes beyond the range where
/// the spec promises exactness (coordinates far past ±16384), where f32 rounding of the
/// backends grows with the coordinates. Bitmask-bitmask pairs stay exact whatever `band`.
///
/// The classification can only be looser than asked, never stricter: the depth of a shape
/// in a bitmask is measured cell by cell (at most a unit square deep) and its search stops
/// at the first cell deeper than `BAND`, so such overlaps may land in a wide band.
pub fn oracle_value_with_band(scene_json_value: &Value, band: f64) -> OracleResult {
    assert!(
        band >= BAND,
        "oracle: a band narrower than the spec's {BAND}"
    );
    let margin = MARGIN.max(2.0 * band);
    let scene = Scene::parse(scene_json_value);
    let placed: Vec<Placed> = (0..scene.bodies.len()).map(|i| scene.place(i)).collect();
    let boxes: Vec<Option<Aabb>> = placed.iter().map(Placed::aabb).collect();

    let mut result = OracleResult::default();
    sweep_and_prune(&boxes, margin, |i, j| {
        if !scene.filters_agree(i, j) {
            return;
        }
        let d = placed_distance(&placed[i], &placed[j], margin);
        let key = [i as u32, j as u32];
        if d <= 0.0 {
            result.pairs.insert(key);
        }
        let both_bitmasks = placed[i].is_bitmask() && placed[j].is_bitmask();
        if !both_bitmasks && d.abs() <= band {
            result.band.insert(key);
        }
    });
    result
}

/// Signed distance in f64 between two bodies of the scene (positive: gap, negative: -penetration depth, or any negative number of magnitude > BAND when deep); for bitmask-bitmask return -1.0 when a cell is shared, else +1.0. Useful for diagnostics.
///
/// Filters are ignored here: this is geometry only. A body whose bitmask has no set cell is
/// infinitely far from any polygon or circle.
pub fn signed_distance(scene_json_value: &Value, i: usize, j: usize) -> f64 {
    let scene = Scene::parse(scene_json_value);
    let n = scene.bodies.len();
    assert!(
        i < n && j < n,
        "oracle: body index out of range ({i}, {j}); scene has {n} bodies"
    );
    // Every cell of a bitmask is looked at, so that far gaps are true distances too.
    placed_distance(&scene.place(i), &scene.place(j), f64::INFINITY)
}

/// Checks a set of reported pairs against the oracle: returns a report.
///
/// Pairs are taken as given: a reversed pair `[j, i]` is not the pair `(i, j)`, so it shows
/// up as a false positive (the spec wants `i < j`). Repeated pairs count once.
pub fn compare(reported: &[[u32; 2]], oracle: &OracleResult) -> Comparison {
    let reported: BTreeSet<[u32; 2]> = reported.iter().copied().collect();
    let false_positives = reported
        .iter()
        .filter(|p| !oracle.band.contains(*p) && !oracle.pairs.contains(*p))
        .copied()
        .collect();
    let false_negatives = oracle
        .pairs
        .iter()
        .filter(|p| !oracle.band.contains(*p) && !reported.contains(*p))
        .copied()
        .collect();
    let band_reported = oracle.band.iter().filter(|p| reported.contains(*p)).count();
    Comparison {
        false_positives,
        false_negatives,
        band_reported,
        band_not_reported: oracle.band.len() - band_reported,
    }
}
