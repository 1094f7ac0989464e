//! Contacts (scene format 1.1): how deep two colliding bodies overlap and which way to
//! push them apart, or, for a pair with a bitmask, how many cells they share. Given by
//! [`crate::Collider::find_contacts`] for the pairs of the frame at `t = 0`.

use glam::Vec2;

use crate::answer::pair::Pair;

/// One colliding pair and how it overlaps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// The bodies `[i, j]`, `i < j`.
    pub pair: Pair,
    /// For a pair with a concave or compound body, the parts of `i` and of `j` that this
    /// contact is between (a convex body has the one part 0; a compound's parts are
    /// numbered in its order, a concave part counting as its pieces, which
    /// [`crate::ShapeLibrary::parts`] lists). `None` for two convex bodies, whose one
    /// contact is the pair's.
    pub parts: Option<[u32; 2]>,
    /// How they overlap.
    pub kind: ContactKind,
}

/// How a colliding pair overlaps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ContactKind {
    /// Two polygons or circles: body `j` moved by `depth · normal` would touch body `i`
    /// without overlapping it, and no shorter move does.
    Penetration {
        /// Unit direction from body `i` towards body `j`.
        normal: Vec2,
        /// The length of the shortest separating move, at least 0 (touching bodies).
        depth: f32,
    },
    /// A pair with a bitmask: the cells set in both bitmasks, or the bitmask's set cells
    /// that the polygon or circle meets.
    Area(u32),
}
