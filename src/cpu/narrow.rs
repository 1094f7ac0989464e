//! Stage 3, narrow phase: the exact test of every candidate pair. Twin of
//! `shaders/narrow.wgsl`, function for function; see that file for the geometry.
//!
//! Each pair is tested in a frame whose origin is one of the two bodies, which keeps
//! coordinates small and f32 rounding far below the format's 0.01 tolerance.

use glam::{IVec2, Vec2};

use crate::collider::Pair;
use crate::library::ShapeLibrary;
use crate::packed::{BodyInfo, BodyTransform, PackedShape, SHAPE_CIRCLE, SHAPE_POLYGON};

/// A body's rotation `(cos, sin)` and its position in the pair's frame.
#[derive(Debug, Clone, Copy)]
pub struct Placement {
    /// Position of the body's origin in the pair's frame.
    pub offset: Vec2,
    /// `(cos, sin)` of the body's angle.
    pub rotation: Vec2,
}

/// The candidates that collide.
pub fn narrow(
    library: &ShapeLibrary,
    transforms: &[BodyTransform],
    infos: &[BodyInfo],
    candidates: &[Pair],
) -> Vec<Pair> {
    candidates
        .iter()
        .copied()
        .filter(|&[i, j]| bodies_collide(library, transforms, infos, i as usize, j as usize))
        .collect()
}

/// Whether bodies `i` and `j` intersect (filters are the broad phase's business).
pub fn bodies_collide(
    library: &ShapeLibrary,
    transforms: &[BodyTransform],
    infos: &[BodyInfo],
    i: usize,
    j: usize,
) -> bool {
    let shape_of = |k: usize| library.shapes[infos[k].shape as usize];
    // Order by shape kind (polygon < circle < bitmask) so each kind pair has one case.
    let (a, b) = if shape_of(j).kind < shape_of(i).kind {
        (j, i)
    } else {
        (i, j)
    };
    let (sa, sb) = (shape_of(a), shape_of(b));
    let (ta, tb) = (&transforms[a], &transforms[b]);
    let (position_a, position_b) = (Vec2::from(ta.position), Vec2::from(tb.position));
    let (rotation_a, rotation_b) = (Vec2::from(ta.rotation), Vec2::from(tb.rotation));
    let geometry = Geometry { library };
    if sa.kind == SHAPE_POLYGON {
        let pa = Placement {
            offset: Vec2::ZERO,
            rotation: rotation_a,
        };
        if sb.kind == SHAPE_POLYGON {
            let pb = Placement {
                offset: position_b - position_a,
                rotation: rotation_b,
            };
            return geometry.polygon_polygon(&sa, pa, &sb, pb);
        }
        if sb.kind == SHAPE_CIRCLE {
            return geometry.circle_polygon(position_b - position_a, sb.radius, &sa, pa);
        }
        let pp = Placement {
            offset: position_a - position_b,
            rotation: rotation_a,
        };
        return geometry.polygon_bitmask(&sa, pp, &sb);
    }
    if sa.kind == SHAPE_CIRCLE {
        if sb.kind == SHAPE_CIRCLE {
            return circle_circle(position_b - position_a, sa.radius, sb.radius);
        }
        return geometry.circle_bitmask(position_a - position_b, sa.radius, &sb);
    }
    geometry.bitmask_bitmask(&sa, position_a.as_ivec2(), &sb, position_b.as_ivec2())
}

/// Rotates `v` by the rotation stored as `(cos, sin)`; as WGSL `rotate`.
fn rotate(v: Vec2, rotation: Vec2) -> Vec2 {
    Vec2::new(
        rotation.x * v.x - rotation.y * v.y,
        rotation.y * v.x + rotation.x * v.y,
    )
}

/// Closed intervals `(min, max)` with a gap between them.
fn intervals_apart(a: Vec2, b: Vec2) -> bool {
    a.y < b.x || b.y < a.x
}

/// Whether two circles `offset` apart touch or overlap.
pub fn circle_circle(offset: Vec2, radius_a: f32, radius_b: f32) -> bool {
    let reach = radius_a + radius_b;
    offset.dot(offset) <= reach * reach
}

/// The narrow-phase functions that read the shape library's vertex and word arrays,
/// as the WGSL functions read their storage buffers.
pub struct Geometry<'a> {
    /// The packed shapes.
    pub library: &'a ShapeLibrary,
}

impl Geometry<'_> {
    fn polygon_point(&self, p: &PackedShape, place: Placement, k: u32) -> Vec2 {
        let v = self.library.polygon_vertices[(p.first + k) as usize].position;
        place.offset + rotate(Vec2::from(v), place.rotation)
    }

    fn polygon_normal(&self, p: &PackedShape, place: Placement, k: u32) -> Vec2 {
        let n = self.library.polygon_vertices[(p.first + k) as usize].normal;
        rotate(Vec2::from(n), place.rotation)
    }

    /// The polygon's projection on `axis`, as `(min, max)`.
    fn polygon_interval(&self, p: &PackedShape, place: Placement, axis: Vec2) -> Vec2 {
        let mut interval = Vec2::new(f32::MAX, -f32::MAX);
        for k in 0..p.count {
            let d = self.polygon_point(p, place, k).dot(axis);
            interval = Vec2::new(interval.x.min(d), interval.y.max(d));
        }
        interval
    }

    /// Whether some edge normal of `a` separates `a` from `b`; stops at the first one.
    fn has_separating_normal(
        &self,
        a: &PackedShape,
        pa: Placement,
        b: &PackedShape,
        pb: Placement,
    ) -> bool {
        (0..a.count).any(|k| {
            let axis = self.polygon_normal(a, pa, k);
            intervals_apart(
                self.polygon_interval(a, pa, axis),
                self.polygon_interval(b, pb, axis),
            )
        })
    }

    /// Separating axis test of two convex polygons.
    pub fn polygon_polygon(
        &self,
        a: &PackedShape,
        pa: Placement,
        b: &PackedShape,
        pb: Placement,
    ) -> bool {
        !self.has_separating_normal(a, pa, b, pb) && !self.has_separating_normal(b, pb, a, pa)
    }

    /// Separating axis test of a circle against a polygon: the edge normals plus the
    /// axis from the centre to the nearest vertex.
    pub fn circle_polygon(
        &self,
        centre: Vec2,
        radius: f32,
        p: &PackedShape,
        pp: Placement,
    ) -> bool {
        let mut nearest = self.polygon_point(p, pp, 0);
        for k in 0..p.count {
            let axis = self.polygon_normal(p, pp, k);
            let c = centre.dot(axis);
            if intervals_apart(
                self.polygon_interval(p, pp, axis),
                Vec2::new(c - radius, c + radius),
            ) {
                return false;
            }
            let v = self.polygon_point(p, pp, k);
            if (v - centre).dot(v - centre) < (nearest - centre).dot(nearest - centre) {
                nearest = v;
            }
        }
        let towards = centre - nearest;
        let distance = towards.length();
        if distance == 0.0 {
            return true; // the centre is on a vertex
        }
        let axis = towards / distance;
        let c = centre.dot(axis);
        !intervals_apart(
            self.polygon_interval(p, pp, axis),
            Vec2::new(c - radius, c + radius),
        )
    }

    /// Word `w` of row `row` of mask `m`, or 0 outside the mask.
    fn mask_word(&self, m: &PackedShape, row: i32, w: i32) -> u32 {
        if row < 0 || row >= m.rows as i32 || w < 0 || w >= m.words_per_row as i32 {
            return 0;
        }
        self.library.bitmask_words[(m.first + row as u32 * m.words_per_row + w as u32) as usize]
    }

    /// Pixels `start .. start + 32` of row `row` as one word; outside the mask reads as clear.
    fn mask_bits(&self, m: &PackedShape, row: i32, start: i32) -> u32 {
        let w = start >> 5;
        let shift = (start & 31) as u32;
        let low = self.mask_word(m, row, w) >> shift;
        let high = if shift == 0 {
            0
        } else {
            self.mask_word(m, row, w + 1) << (32 - shift)
        };
        low | high
    }

    /// Whether a set pixel of row `row` lies in columns `first ..= last`.
    fn row_has_set_pixel(&self, m: &PackedShape, row: i32, first: i32, last: i32) -> bool {
        let lo = first.max(0);
        let hi = last.min(m.count as i32 - 1);
        if row < 0 || row >= m.rows as i32 || lo > hi {
            return false;
        }
        for w in (lo >> 5)..=(hi >> 5) {
            let first_bit = (lo - w * 32).max(0) as u32;
            let last_bit = (hi - w * 32).min(31) as u32;
            let wanted = (u32::MAX << first_bit) & (u32::MAX >> (31 - last_bit));
            if self.mask_word(m, row, w) & wanted != 0 {
                return true;
            }
        }
        false
    }

    /// Whether the closed span `x_lo ..= x_hi` (mask frame) meets a set pixel of row `row`.
    fn span_hits_row(&self, m: &PackedShape, row: i32, x_lo: f32, x_hi: f32) -> bool {
        let limit = m.count as f32 + 1.0;
        let first = x_lo.clamp(-1.0, limit).ceil() as i32 - 1;
        let last = x_hi.clamp(-1.0, limit).floor() as i32;
        self.row_has_set_pixel(m, row, first, last)
    }

    /// Rows of mask `m` whose band `[r, r + 1]` meets `y_lo ..= y_hi`, as `(first, last)`.
    fn rows_between(m: &PackedShape, y_lo: f32, y_hi: f32) -> IVec2 {
        let limit = m.rows as f32 + 1.0;
        let first = (y_lo.clamp(-1.0, limit).ceil() as i32 - 1).max(0);
        let last = (y_hi.clamp(-1.0, limit).floor() as i32).min(m.rows as i32 - 1);
        IVec2::new(first, last)
    }

    /// The x extent of the polygon inside the strip `y0 <= y <= y1`; `min > max` when empty.
    fn polygon_span(&self, p: &PackedShape, pp: Placement, y0: f32, y1: f32) -> Vec2 {
        let mut span = Vec2::new(f32::MAX, -f32::MAX);
        for k in 0..p.count {
            let a = self.polygon_point(p, pp, k);
            let b = self.polygon_point(p, pp, (k + 1) % p.count);
            if a.y >= y0 && a.y <= y1 {
                span = Vec2::new(span.x.min(a.x), span.y.max(a.x));
            }
            for y in [y0, y1] {
                if (a.y < y) != (b.y < y) {
                    let x = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y);
                    span = Vec2::new(span.x.min(x), span.y.max(x));
                }
            }
        }
        span
    }

    /// A polygon (placed in the mask's frame) against the set pixels of mask `m`.
    pub fn polygon_bitmask(&self, p: &PackedShape, pp: Placement, m: &PackedShape) -> bool {
        let mut y_range = Vec2::new(f32::MAX, -f32::MAX);
        for k in 0..p.count {
            let y = self.polygon_point(p, pp, k).y;
            y_range = Vec2::new(y_range.x.min(y), y_range.y.max(y));
        }
        let rows = Self::rows_between(m, y_range.x, y_range.y);
        (rows.x..=rows.y).any(|row| {
            let span = self.polygon_span(p, pp, row as f32, (row + 1) as f32);
            span.x <= span.y && self.span_hits_row(m, row, span.x, span.y)
        })
    }

    /// A circle (centre in the mask's frame) against the set pixels of mask `m`, row by row.
    pub fn circle_bitmask(&self, centre: Vec2, radius: f32, m: &PackedShape) -> bool {
        let rows = Self::rows_between(m, centre.y - radius, centre.y + radius);
        (rows.x..=rows.y).any(|row| {
            let dy = (row as f32 - centre.y)
                .max(centre.y - (row + 1) as f32)
                .max(0.0);
            if dy > radius {
                return false;
            }
            let half = ((radius - dy) * (radius + dy)).sqrt();
            self.span_hits_row(m, row, centre.x - half, centre.x + half)
        })
    }

    /// Two masks at whole-number origins: a word of `a` against the 32 pixels of `b` under it.
    pub fn bitmask_bitmask(
        &self,
        a: &PackedShape,
        origin_a: IVec2,
        b: &PackedShape,
        origin_b: IVec2,
    ) -> bool {
        let d = origin_b - origin_a; // b's origin in a's pixels
        let row_end = (a.rows as i32).min(d.y + b.rows as i32);
        let column_first = d.x.max(0);
        let column_end = (a.count as i32).min(d.x + b.count as i32);
        if column_first >= column_end {
            return false;
        }
        for row in d.y.max(0)..row_end {
            for w in (column_first >> 5)..=((column_end - 1) >> 5) {
                let bits_a = self.mask_word(a, row, w);
                if bits_a != 0 && bits_a & self.mask_bits(b, row - d.y, w * 32 - d.x) != 0 {
                    return true;
                }
            }
        }
        false
    }
}
