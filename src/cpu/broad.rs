//! Stage 2, broad phase: candidate pairs whose filters agree and whose boxes overlap.
//! Twin of `shaders/broad.wgsl`: all pairs, which is fine for a few thousand bodies.

use crate::body::filters_agree;
use crate::collider::Pair;
use crate::packed::{Aabb, BodyInfo};

/// Candidate pairs `[i, j]`, `i < j`.
pub fn broad(infos: &[BodyInfo], aabbs: &[Aabb]) -> Vec<Pair> {
    let mut candidates = Vec::new();
    for i in 0..infos.len() {
        for j in i + 1..infos.len() {
            let (a, b) = (&infos[i], &infos[j]);
            if filters_agree(a.layer, a.mask, b.layer, b.mask) && aabbs[i].overlaps(&aabbs[j]) {
                candidates.push([i as u32, j as u32]);
            }
        }
    }
    candidates
}
