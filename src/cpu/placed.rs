//! Bodies placed in a local frame, for the tests that need more than yes or no: times of
//! impact ([`super::sweep`]), contacts ([`super::contact`]) and queries
//! ([`super::query`]). As in the narrow phase, a frame's origin is a body's (or a
//! query's) position, so that coordinates stay small and f32 rounding far below the
//! format's 0.01 band.

use glam::{IVec2, Vec2};

use crate::input::library::ShapeLibrary;
use crate::layout::geometry::{ceil_i32, floor_i32};
use crate::input::shapes::ShapeKind;
use crate::layout::packed::{BodyTransform, PackedShape};

/// A convex polygon counter-clockwise: its vertices and the outward unit normal of the
/// edge from each vertex to the next.
#[derive(Debug, Clone, Copy)]
pub struct Convex<'a> {
    /// Vertices.
    pub points: &'a [Vec2],
    /// `normals[k]`: the edge from `points[k]` to `points[k + 1]`.
    pub normals: &'a [Vec2],
}

impl Convex<'_> {
    /// `(min, max)` of the vertices projected on `axis`.
    pub fn interval(&self, axis: Vec2) -> (f32, f32) {
        self.points
            .iter()
            .fold((f32::MAX, -f32::MAX), |(lo, hi), p| {
                let d = p.dot(axis);
                (lo.min(d), hi.max(d))
            })
    }

    /// The largest projection of a vertex on `axis`: the support value.
    pub fn support(&self, axis: Vec2) -> f32 {
        self.interval(axis).1
    }

    /// `(min, max)` corners of the vertices' box.
    pub fn bounds(&self) -> (Vec2, Vec2) {
        self.points.iter().fold(
            (Vec2::splat(f32::MAX), Vec2::splat(-f32::MAX)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        )
    }
}

/// The length of `v` without overflow: `|v|²` passes f32's range for `|v|` past about
/// 1.8e19, where `hypot` does not.
pub fn length(v: Vec2) -> f32 {
    v.x.hypot(v.y)
}

/// `v` scaled to unit length, if it has a direction (not zero, all finite).
pub fn unit(v: Vec2) -> Option<Vec2> {
    let n = v / length(v);
    n.is_finite().then_some(n)
}

/// The outward normals of a box's sides, in the order of [`cell_points`]'s edges.
pub const BOX_NORMALS: [Vec2; 4] = [
    Vec2::new(0.0, -1.0),
    Vec2::new(1.0, 0.0),
    Vec2::new(0.0, 1.0),
    Vec2::new(-1.0, 0.0),
];

/// The corners of the box `min ..= max`, counter-clockwise from `min`.
pub fn box_points(min: Vec2, max: Vec2) -> [Vec2; 4] {
    [min, Vec2::new(max.x, min.y), max, Vec2::new(min.x, max.y)]
}

/// The corners of bitmask cell `(column, row)` (the unit square from `(column, row)`),
/// counter-clockwise.
pub fn cell_points(column: i32, row: i32) -> [Vec2; 4] {
    let min = Vec2::new(column as f32, row as f32);
    box_points(min, min + Vec2::ONE)
}

/// One body's shape placed in a frame.
#[derive(Debug, Clone)]
pub enum Placed {
    /// A polygon's vertices and normals in the frame.
    Polygon {
        /// Vertices, counter-clockwise.
        points: Vec<Vec2>,
        /// Outward unit edge normals.
        normals: Vec<Vec2>,
    },
    /// A circle.
    Circle {
        /// Its centre in the frame.
        centre: Vec2,
        /// Its radius.
        radius: f32,
    },
    /// A capsule: the points within `radius` of the segment from `a` to `b`.
    Capsule {
        /// One end of its segment in the frame.
        a: Vec2,
        /// The other end.
        b: Vec2,
        /// Its radius (0 for a segment or a point).
        radius: f32,
    },
    /// A bitmask: its cell `(c, r)` is the unit square from `origin + (c, r)`.
    Bitmask {
        /// The packed mask.
        mask: PackedShape,
        /// Where its cell `(0, 0)` starts in the frame: whole numbers when the frame's
        /// origin is whole (a bitmask body's position, or a query's rounded down).
        origin: Vec2,
    },
}

impl Placed {
    /// The body with `shape` and `transform`, in the frame whose origin is `origin`.
    pub fn new(
        library: &ShapeLibrary,
        shape: &PackedShape,
        transform: &BodyTransform,
        origin: Vec2,
    ) -> Placed {
        let offset = Vec2::from(transform.position) - origin;
        match shape.shape_kind() {
            ShapeKind::Polygon => {
                let r = Vec2::from(transform.rotation);
                let turn =
                    |v: [f32; 2]| Vec2::new(r.x * v[0] - r.y * v[1], r.y * v[0] + r.x * v[1]);
                let vertices =
                    &library.polygon_vertices[shape.first as usize..][..shape.count as usize];
                Placed::Polygon {
                    points: vertices.iter().map(|v| offset + turn(v.position)).collect(),
                    normals: vertices.iter().map(|v| turn(v.normal)).collect(),
                }
            }
            ShapeKind::Capsule => {
                let r = Vec2::from(transform.rotation);
                let end = |k: u32| {
                    let v = library.polygon_vertices[(shape.first + k) as usize].position;
                    offset + Vec2::new(r.x * v[0] - r.y * v[1], r.y * v[0] + r.x * v[1])
                };
                Placed::Capsule {
                    a: end(0),
                    b: end(1),
                    radius: shape.radius,
                }
            }
            ShapeKind::Circle => Placed::Circle {
                centre: offset,
                radius: shape.radius,
            },
            ShapeKind::Bitmask => Placed::Bitmask {
                mask: *shape,
                origin: offset,
            },
        }
    }

    /// The polygon as a [`Convex`], if it is one.
    pub fn convex(&self) -> Option<Convex<'_>> {
        match self {
            Placed::Polygon { points, normals } => Some(Convex { points, normals }),
            _ => None,
        }
    }
}

#[cfg(feature = "internals")]
/// Whether cell `(column, row)` of mask `m` is set; cells outside the mask are clear.
pub fn cell_is_set(library: &ShapeLibrary, m: &PackedShape, column: i32, row: i32) -> bool {
    if column < 0 || row < 0 || column >= m.count as i32 || row >= m.rows as i32 {
        return false;
    }
    let word = library.bitmask_words
        [(m.first + row as u32 * m.words_per_row + column as u32 / 32) as usize];
    word >> (column as u32 % 32) & 1 == 1
}

/// The set cells of row `row` of mask `m` in columns `first ..= last` (clamped to the
/// mask), ascending, reading a word at a time so that clear stretches cost little.
pub fn set_cells_in_row<'a>(
    library: &'a ShapeLibrary,
    m: &PackedShape,
    row: i32,
    first: i32,
    last: i32,
) -> impl Iterator<Item = i32> + 'a {
    let lo = first.max(0);
    let hi = last.min(m.count as i32 - 1);
    let valid = row >= 0 && row < m.rows as i32 && lo <= hi;
    let words = if valid {
        (lo >> 5)..(hi >> 5) + 1
    } else {
        0..0
    };
    let base = if valid {
        (m.first + row as u32 * m.words_per_row) as usize
    } else {
        0
    };
    words.flat_map(move |w| {
        let first_bit = (lo - w * 32).max(0) as u32;
        let last_bit = (hi - w * 32).min(31) as u32;
        let wanted = (u32::MAX << first_bit) & (u32::MAX >> (31 - last_bit));
        let mut bits = library.bitmask_words[base + w as usize] & wanted;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let bit = bits.trailing_zeros();
            bits &= bits - 1;
            Some(w * 32 + bit as i32)
        })
    })
}

/// The cells `(first, last)` along one axis that a closed interval `lo ..= hi` meets
/// (a cell `k` is the closed `[k, k + 1]`), as the narrow phase's `span_hits_row` counts
/// them; clamped to `-1 ..= limit` so that a far interval converts safely.
pub fn cells_between(lo: f32, hi: f32, limit: u32) -> IVec2 {
    let end = limit as f32 + 1.0;
    IVec2::new(
        ceil_i32(lo.clamp(-1.0, end)) - 1,
        floor_i32(hi.clamp(-1.0, end)),
    )
}

/// Cells `start .. start + 32` of row `row` of mask `m` as one word (bit `k` for cell
/// `start + k`); cells outside the mask read as clear.
pub fn mask_bits(library: &ShapeLibrary, m: &PackedShape, row: i32, start: i32) -> u32 {
    let word = |w: i32| -> u32 {
        if row < 0 || row >= m.rows as i32 || w < 0 || w >= m.words_per_row as i32 {
            return 0;
        }
        library.bitmask_words[(m.first + row as u32 * m.words_per_row + w as u32) as usize]
    };
    let (w, shift) = (start >> 5, (start & 31) as u32);
    let low = word(w) >> shift;
    let high = if shift == 0 {
        0
    } else {
        word(w + 1) << (32 - shift)
    };
    low | high
}

/// The x extent of a convex polygon within the band `y0 <= y <= y1`, if it reaches it:
/// its vertices in the band and its edges' crossings of the band's two lines.
pub fn polygon_span(points: &[Vec2], y0: f32, y1: f32) -> Option<(f32, f32)> {
    let n = points.len();
    let (mut lo, mut hi) = (f32::MAX, -f32::MAX);
    for k in 0..n {
        let (a, b) = (points[k], points[(k + 1) % n]);
        if a.y >= y0 && a.y <= y1 {
            lo = lo.min(a.x);
            hi = hi.max(a.x);
        }
        for y in [y0, y1] {
            if (a.y < y) != (b.y < y) {
                let x = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y);
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
    }
    (lo <= hi).then_some((lo, hi))
}

/// The x extent of a circle within the band `y0 <= y <= y1`, if it reaches it: the half
/// chord at the band's nearest height to the centre.
pub fn circle_span(centre: Vec2, radius: f32, y0: f32, y1: f32) -> Option<(f32, f32)> {
    let dy = (y0 - centre.y).max(centre.y - y1).max(0.0);
    if dy > radius {
        return None;
    }
    let half = ((radius - dy) * (radius + dy)).sqrt();
    Some((centre.x - half, centre.x + half))
}

/// The x extent of a capsule (the points within `radius` of the segment `a b`) within
/// the band `y0 <= y <= y1`, if it reaches it. The capsule is the union of the rectangle
/// its segment sweeps along its normal and the discs at its ends; its part in the band
/// is convex, so its extent is the union of theirs. WGSL `capsule_span`.
pub fn capsule_span(a: Vec2, b: Vec2, radius: f32, y0: f32, y1: f32) -> Option<(f32, f32)> {
    let along = b - a;
    let length = along.length();
    let side = if length > 0.0 {
        Vec2::new(-along.y, along.x) * (radius / length)
    } else {
        Vec2::ZERO
    };
    [
        polygon_span(&[a + side, b + side, b - side, a - side], y0, y1),
        circle_span(a, radius, y0, y1),
        circle_span(b, radius, y0, y1),
    ]
    .into_iter()
    .flatten()
    .reduce(|(lo, hi), (l, h)| (lo.min(l), hi.max(h)))
}
