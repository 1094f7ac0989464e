//! Stage 3, narrow phase: the exact test of every candidate pair. Twin of
//! `shaders/narrow.wgsl`, function for function; see that file for the geometry and for
//! why a test is planned in chunks.
//!
//! Each pair is tested in a frame whose origin is one of the two bodies, which keeps
//! coordinates small and f32 rounding far below the format's 0.01 tolerance. A test is
//! planned as the shader plans it (`plan_of`) and its chunks run one after the other
//! here, where the GPU runs a long test's chunks side by side.

use glam::{IVec2, Vec2};

use crate::answer::collider::Pair;
use crate::input::library::ShapeLibrary;
use crate::input::shapes::{PairKind, ShapeKind};
use crate::layout::geometry::{ceil_i32, floor_i32, rotate, segment_distance, segments_distance};
use crate::layout::packed::{BodyInfo, BodyTransform, PackedShape, CHUNK_BUDGET};

use super::placed::capsule_span;

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
    let test = PairTest {
        geometry: Geometry { library },
        transforms,
        infos,
    };
    let plan = test.plan_of(i, j);
    let witness = (0..plan.chunks).any(|chunk| test.chunk_has_witness(&plan, chunk));
    witness == plan.witness_collides()
}

/// One candidate's test, as WGSL `Plan`: bodies `a` and `b` ordered by shape kind, and
/// `units` units of work (edges, or pixel rows from `first_unit`), `per_chunk` to a
/// chunk of at most [`CHUNK_BUDGET`] loop iterations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The body whose shape kind comes first.
    pub a: usize,
    /// The other body.
    pub b: usize,
    /// What the two shapes are.
    pub pair_kind: PairKind,
    /// The first pixel row, for pairs with a bitmask.
    pub first_unit: i32,
    /// Units of work.
    pub units: u32,
    /// Units to a chunk.
    pub per_chunk: u32,
    /// Chunks.
    pub chunks: u32,
}

impl Plan {
    /// The pixel row that unit `unit` tests, as WGSL `plan.first_unit + row_of_unit(..)`:
    /// the middle row of the `units` first, then outwards, because a colliding pair
    /// usually shares its middle rows and a GPU loop runs until its whole group is done.
    pub fn row(&self, unit: u32) -> i32 {
        let middle = (self.units - 1) / 2;
        let offset = if unit % 2 == 1 {
            middle + unit.div_ceil(2)
        } else {
            middle - unit / 2
        };
        self.first_unit + offset as i32
    }

    /// Whether a witness means the pair collides (a shared point) rather than not (a
    /// separating edge).
    pub fn witness_collides(&self) -> bool {
        use ShapeKind::{Bitmask, Capsule, Circle, Polygon};
        match self.pair_kind.kinds() {
            (Polygon, Polygon | Circle) => false,
            (Polygon | Circle | Capsule | Bitmask, Capsule | Bitmask) | (Circle, Circle) => true,
            (Circle | Capsule | Bitmask, Polygon) | (Capsule | Bitmask, Circle) => {
                unordered(self.pair_kind)
            }
        }
    }
}

/// Whether some pair of `library`'s shapes may take more than one chunk to test
/// ([`PairTest::plan_of`]), so that a frame needs the kernels of long tests
/// (`narrow_task`, `narrow_finish`). A pair with a bitmask may, depending on how many
/// rows overlap. A polygon pair tests `n_a + n_b` edges of `max(n_a, n_b) + 1` loop
/// iterations each, so the most chunks are those of the largest polygon against
/// itself: one chunk up to 44 vertices. A pair with a circle is always one chunk.
pub fn has_long_tests(library: &ShapeLibrary) -> bool {
    let shapes = &library.shapes;
    if shapes.iter().any(|s| s.shape_kind() == ShapeKind::Bitmask) {
        return true;
    }
    let Some(n) = shapes
        .iter()
        .filter(|s| s.shape_kind() == ShapeKind::Polygon)
        .map(|s| s.count)
        .max()
    else {
        return false;
    };
    let per_chunk = (CHUNK_BUDGET / (n + 1)).max(1);
    2 * n > per_chunk
}

/// The planning and chunk functions of the narrow kernels, over one frame's bodies.
pub struct PairTest<'a> {
    /// The shape library's arrays.
    pub geometry: Geometry<'a>,
    /// The bodies' transforms.
    pub transforms: &'a [BodyTransform],
    /// The bodies' infos.
    pub infos: &'a [BodyInfo],
}

impl PairTest<'_> {
    fn shape(&self, body: usize) -> PackedShape {
        self.geometry.library.shapes[self.infos[body].shape as usize]
    }

    fn position(&self, body: usize) -> Vec2 {
        Vec2::from(self.transforms[body].position)
    }

    /// Body `body` placed in the frame whose origin is body `origin`.
    fn placement_in_frame_of(&self, body: usize, origin: usize) -> Placement {
        Placement {
            offset: self.position(body) - self.position(origin),
            rotation: Vec2::from(self.transforms[body].rotation),
        }
    }

    /// Plans the test of bodies `i` and `j`, as WGSL `plan_of`.
    pub fn plan_of(&self, i: usize, j: usize) -> Plan {
        let (a, b) = if self.shape(j).shape_kind() < self.shape(i).shape_kind() {
            (j, i)
        } else {
            (i, j)
        };
        let (sa, sb) = (self.shape(a), self.shape(b));
        let mut plan = Plan {
            a,
            b,
            pair_kind: PairKind::of(sa.shape_kind(), sb.shape_kind()),
            first_unit: 0,
            units: 1,
            per_chunk: 1,
            chunks: 1,
        };
        // Loop iterations per unit, and before the first.
        let (mut unit_cost, mut fixed_cost) = (1u32, 0u32);
        let rows_to_units = |rows: IVec2| (rows.y - rows.x + 1).max(0) as u32;
        use ShapeKind::{Bitmask, Capsule, Circle, Polygon};
        match plan.pair_kind.kinds() {
            (Polygon, Polygon) => {
                plan.units = sa.count + sb.count;
                unit_cost = sa.count.max(sb.count) + 1;
            }
            (Polygon | Circle, Circle) | (Circle | Capsule, Capsule) => {}
            (Polygon, Capsule) => {
                // The polygon's edges, then whether the capsule's first end is inside it
                // (a loop over its edges, in whichever chunk meets that unit).
                plan.units = sa.count + 1;
                fixed_cost = sa.count;
            }
            (Capsule, Bitmask) => {
                let pa = self.placement_in_frame_of(a, b);
                let (e0, e1) = (
                    self.geometry.polygon_point(&sa, pa, 0),
                    self.geometry.polygon_point(&sa, pa, 1),
                );
                let rows = Geometry::rows_between(
                    &sb,
                    e0.y.min(e1.y) - sa.radius,
                    e0.y.max(e1.y) + sa.radius,
                );
                plan.first_unit = rows.x;
                plan.units = rows_to_units(rows);
                // capsule_span: four quad corners of 3 iterations each.
                unit_cost = 12 + sb.words_per_row + 2;
            }
            (Polygon, Bitmask) => {
                let y_range = self
                    .geometry
                    .polygon_y_range(&sa, self.placement_in_frame_of(a, b));
                let rows = Geometry::rows_between(&sb, y_range.x, y_range.y);
                plan.first_unit = rows.x;
                plan.units = rows_to_units(rows);
                // polygon_span runs 3 iterations a vertex (its loop over the two strip sides).
                unit_cost = 3 * sa.count + sb.words_per_row + 2;
                fixed_cost = sa.count;
            }
            (Circle, Bitmask) => {
                let centre = self.position(a) - self.position(b);
                let rows = Geometry::rows_between(&sb, centre.y - sa.radius, centre.y + sa.radius);
                plan.first_unit = rows.x;
                plan.units = rows_to_units(rows);
                unit_cost = sb.words_per_row + 2;
            }
            (Bitmask, Bitmask) => {
                let d = self.position(b).as_ivec2() - self.position(a).as_ivec2();
                let row_end = (sa.rows as i32).min(d.y + sb.rows as i32);
                let columns = (sa.count as i32).min(d.x + sb.count as i32) - d.x.max(0);
                plan.first_unit = d.y.max(0);
                plan.units = if columns > 0 {
                    (row_end - plan.first_unit).max(0) as u32
                } else {
                    0
                };
                unit_cost = sa.words_per_row + 2;
            }
            (Circle | Capsule | Bitmask, Polygon)
            | (Capsule | Bitmask, Circle)
            | (Bitmask, Capsule) => unordered(plan.pair_kind),
        }
        plan.per_chunk = ((CHUNK_BUDGET - fixed_cost) / unit_cost).max(1);
        plan.chunks = plan.units.div_ceil(plan.per_chunk);
        plan
    }

    /// Whether chunk `chunk` of the plan finds a witness, as WGSL `chunk_has_witness`.
    pub fn chunk_has_witness(&self, plan: &Plan, chunk: u32) -> bool {
        let (sa, sb) = (self.shape(plan.a), self.shape(plan.b));
        let g = &self.geometry;
        let first = chunk * plan.per_chunk;
        let end = (first + plan.per_chunk).min(plan.units);
        let own_frame = Placement {
            offset: Vec2::ZERO,
            rotation: Vec2::from(self.transforms[plan.a].rotation),
        };
        use ShapeKind::{Bitmask, Capsule, Circle, Polygon};
        match plan.pair_kind.kinds() {
            (Polygon, Polygon) => {
                let pb = self.placement_in_frame_of(plan.b, plan.a);
                // Where the last edge of a (of b) found a vertex of b (of a) short of its line.
                let (mut in_b, mut in_a) = (0, 0);
                if let (Some(a), Some(b)) = (g.placed(&sa, own_frame), g.placed(&sb, pb)) {
                    return (first..end).any(|unit| {
                        if unit < sa.count {
                            g.beyond_placed_edge(&sa, own_frame, &a, unit, &b, &mut in_b)
                        } else {
                            g.beyond_placed_edge(&sb, pb, &b, unit - sa.count, &a, &mut in_a)
                        }
                    });
                }
                (first..end).any(|unit| {
                    if unit < sa.count {
                        g.beyond_edge(&sa, own_frame, unit, &sb, pb, &mut in_b)
                    } else {
                        g.beyond_edge(&sb, pb, unit - sa.count, &sa, own_frame, &mut in_a)
                    }
                })
            }
            (Polygon, Circle) => {
                let centre = self.placement_in_frame_of(plan.b, plan.a).offset;
                g.circle_polygon_apart(centre, sb.radius, &sa, own_frame)
            }
            (Circle, Circle) => circle_circle(
                self.placement_in_frame_of(plan.b, plan.a).offset,
                sa.radius,
                sb.radius,
            ),
            (Polygon, Capsule) => {
                let pb = self.placement_in_frame_of(plan.b, plan.a);
                let ends = g.capsule_ends(&sb, pb);
                (first..end).any(|unit| g.polygon_capsule_unit(&sa, own_frame, ends, sb.radius, unit))
            }
            (Circle, Capsule) => {
                let pb = self.placement_in_frame_of(plan.b, plan.a);
                let (e0, e1) = g.capsule_ends(&sb, pb);
                segment_distance(e0, e1, Vec2::ZERO) <= sa.radius + sb.radius
            }
            (Capsule, Capsule) => {
                let pb = self.placement_in_frame_of(plan.b, plan.a);
                let (a0, a1) = g.capsule_ends(&sa, own_frame);
                let (b0, b1) = g.capsule_ends(&sb, pb);
                segments_distance(a0, a1, b0, b1) <= sa.radius + sb.radius
            }
            (Capsule, Bitmask) => {
                let pa = self.placement_in_frame_of(plan.a, plan.b);
                let ends = g.capsule_ends(&sa, pa);
                (first..end).any(|unit| g.capsule_row_hits(ends, sa.radius, &sb, plan.row(unit)))
            }
            // Pixel rows of the mask, in the mask's frame (b's; the first mask's for two masks).
            (Polygon, Bitmask) => {
                let pa = self.placement_in_frame_of(plan.a, plan.b);
                (first..end).any(|unit| g.polygon_row_hits(&sa, pa, &sb, plan.row(unit)))
            }
            (Circle, Bitmask) => {
                let centre = self.placement_in_frame_of(plan.a, plan.b).offset;
                (first..end).any(|unit| g.circle_row_hits(centre, sa.radius, &sb, plan.row(unit)))
            }
            (Bitmask, Bitmask) => {
                let d = self.position(plan.b).as_ivec2() - self.position(plan.a).as_ivec2();
                (first..end).any(|unit| g.bitmask_row_hits(&sa, &sb, d, plan.row(unit)))
            }
            (Circle | Capsule | Bitmask, Polygon)
            | (Capsule | Bitmask, Circle)
            | (Bitmask, Capsule) => unordered(plan.pair_kind),
        }
    }
}

/// The arm of a match on [`PairKind::kinds`] for a pair whose higher kind comes first,
/// which `PairKind` never holds.
fn unordered(pair: PairKind) -> ! {
    unreachable!("a PairKind holds its lower kind first: {pair:?}")
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

/// The most vertices of a polygon whose vertices [`Geometry::placed`] places once.
const PLACED: usize = 16;

/// A polygon's vertices placed in a frame ([`Geometry::placed`]).
struct Placed {
    points: [Vec2; PLACED],
    count: usize,
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

    /// Whether polygon `q` lies strictly beyond the line of edge `k` of polygon `p`, as
    /// WGSL `beyond_edge`: q's vertices are tried from `*first` on, round the polygon,
    /// and the vertex found short of the line, if any, is left in `*first` for the next
    /// edge to try first. The answer does not depend on where the reading starts.
    pub fn beyond_edge(
        &self,
        p: &PackedShape,
        pp: Placement,
        k: u32,
        q: &PackedShape,
        pq: Placement,
        first: &mut u32,
    ) -> bool {
        let axis = self.polygon_normal(p, pp, k);
        let edge = self.polygon_point(p, pp, k).dot(axis);
        let short = (*first..q.count)
            .chain(0..*first)
            .find(|&v| self.polygon_point(q, pq, v).dot(axis) <= edge);
        if let Some(v) = short {
            *first = v;
        }
        short.is_none()
    }

    /// The vertices of a polygon of at most [`PLACED`] vertices, placed once: the same
    /// values [`Self::polygon_point`] gives, which [`Self::beyond_edge`] would otherwise
    /// compute again for each edge it reads them from.
    fn placed(&self, p: &PackedShape, place: Placement) -> Option<Placed> {
        let count = p.count as usize;
        (count <= PLACED).then(|| {
            let mut points = [Vec2::ZERO; PLACED];
            for (k, point) in points[..count].iter_mut().enumerate() {
                *point = self.polygon_point(p, place, k as u32);
            }
            Placed { points, count }
        })
    }

    /// [`Self::beyond_edge`] over placed vertices: the same answer, and the same vertex
    /// left in `*first`.
    fn beyond_placed_edge(
        &self,
        p: &PackedShape,
        pp: Placement,
        placed_p: &Placed,
        k: u32,
        placed_q: &Placed,
        first: &mut u32,
    ) -> bool {
        let axis = self.polygon_normal(p, pp, k);
        let edge = placed_p.points[k as usize].dot(axis);
        let q = &placed_q.points[..placed_q.count];
        let start = *first as usize;
        let short = (start..q.len())
            .chain(0..start)
            .find(|&v| q[v].dot(axis) <= edge);
        if let Some(v) = short {
            *first = v as u32;
        }
        short.is_none()
    }

    #[cfg(feature = "internals")]
    /// Convex polygons intersect unless an edge of one has the other strictly beyond it
    /// (the whole test, one chunk after another).
    pub fn polygon_polygon(
        &self,
        a: &PackedShape,
        pa: Placement,
        b: &PackedShape,
        pb: Placement,
    ) -> bool {
        let (mut in_b, mut in_a) = (0, 0);
        !(0..a.count).any(|k| self.beyond_edge(a, pa, k, b, pb, &mut in_b))
            && !(0..b.count).any(|k| self.beyond_edge(b, pb, k, a, pa, &mut in_a))
    }

    /// Separating axis test of a circle against a polygon: the edges, then the axis from
    /// the centre to the nearest vertex. True when they are apart.
    pub fn circle_polygon_apart(
        &self,
        centre: Vec2,
        radius: f32,
        p: &PackedShape,
        pp: Placement,
    ) -> bool {
        let mut nearest = self.polygon_point(p, pp, 0);
        for k in 0..p.count {
            let axis = self.polygon_normal(p, pp, k);
            let v = self.polygon_point(p, pp, k);
            if centre.dot(axis) - radius > v.dot(axis) {
                return true;
            }
            if (v - centre).dot(v - centre) < (nearest - centre).dot(nearest - centre) {
                nearest = v;
            }
        }
        let towards = centre - nearest;
        let distance = towards.length();
        if distance == 0.0 {
            return false; // the centre is on a vertex
        }
        let axis = towards / distance;
        let c = centre.dot(axis);
        intervals_apart(
            self.polygon_interval(p, pp, axis),
            Vec2::new(c - radius, c + radius),
        )
    }

    #[cfg(feature = "internals")]
    /// Whether a circle and a polygon intersect.
    pub fn circle_polygon(
        &self,
        centre: Vec2,
        radius: f32,
        p: &PackedShape,
        pp: Placement,
    ) -> bool {
        !self.circle_polygon_apart(centre, radius, p, pp)
    }

    /// A capsule's two ends, placed.
    pub fn capsule_ends(&self, c: &PackedShape, pc: Placement) -> (Vec2, Vec2) {
        (self.polygon_point(c, pc, 0), self.polygon_point(c, pc, 1))
    }

    /// Unit `unit` of a polygon against a capsule (`ends`, `radius`), as WGSL
    /// `polygon_capsule_unit`: for an edge of the polygon, whether the capsule's segment
    /// comes within `radius` of it; for the last unit, whether the segment's first end
    /// is inside the polygon (a segment that is all inside comes near no edge). The
    /// capsule meets the polygon exactly when some unit says so.
    pub fn polygon_capsule_unit(
        &self,
        p: &PackedShape,
        pp: Placement,
        ends: (Vec2, Vec2),
        radius: f32,
        unit: u32,
    ) -> bool {
        if unit < p.count {
            let next = if unit + 1 == p.count { 0 } else { unit + 1 };
            let (v0, v1) = (self.polygon_point(p, pp, unit), self.polygon_point(p, pp, next));
            return segments_distance(v0, v1, ends.0, ends.1) <= radius;
        }
        (0..p.count).all(|k| {
            let axis = self.polygon_normal(p, pp, k);
            ends.0.dot(axis) <= self.polygon_point(p, pp, k).dot(axis)
        })
    }

    /// Row `row` of mask `m` against a capsule placed in the mask's frame.
    fn capsule_row_hits(&self, ends: (Vec2, Vec2), radius: f32, m: &PackedShape, row: i32) -> bool {
        capsule_span(ends.0, ends.1, radius, row as f32, (row + 1) as f32)
            .is_some_and(|(lo, hi)| self.span_hits_row(m, row, lo, hi))
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
        let first = ceil_i32(x_lo.clamp(-1.0, limit)) - 1;
        let last = floor_i32(x_hi.clamp(-1.0, limit));
        self.row_has_set_pixel(m, row, first, last)
    }

    /// Rows of mask `m` whose band `[r, r + 1]` meets `y_lo ..= y_hi`, as `(first, last)`.
    fn rows_between(m: &PackedShape, y_lo: f32, y_hi: f32) -> IVec2 {
        let limit = m.rows as f32 + 1.0;
        let first = (ceil_i32(y_lo.clamp(-1.0, limit)) - 1).max(0);
        let last = floor_i32(y_hi.clamp(-1.0, limit)).min(m.rows as i32 - 1);
        IVec2::new(first, last)
    }

    /// The x extent of the polygon inside the strip `y0 <= y <= y1`; `min > max` when empty.
    fn polygon_span(&self, p: &PackedShape, pp: Placement, y0: f32, y1: f32) -> Vec2 {
        let mut span = Vec2::new(f32::MAX, -f32::MAX);
        // Edge from the vertex before to vertex k, as the kernel walks it.
        let mut a = self.polygon_point(p, pp, p.count - 1);
        for k in 0..p.count {
            let b = self.polygon_point(p, pp, k);
            if a.y >= y0 && a.y <= y1 {
                span = Vec2::new(span.x.min(a.x), span.y.max(a.x));
            }
            for y in [y0, y1] {
                if (a.y < y) != (b.y < y) {
                    let x = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y);
                    span = Vec2::new(span.x.min(x), span.y.max(x));
                }
            }
            a = b;
        }
        span
    }

    /// The y extent of the polygon, as `(min, max)`.
    fn polygon_y_range(&self, p: &PackedShape, pp: Placement) -> Vec2 {
        let mut y_range = Vec2::new(f32::MAX, -f32::MAX);
        for k in 0..p.count {
            let y = self.polygon_point(p, pp, k).y;
            y_range = Vec2::new(y_range.x.min(y), y_range.y.max(y));
        }
        y_range
    }

    /// Row `row` of mask `m` against a polygon placed in the mask's frame.
    fn polygon_row_hits(&self, p: &PackedShape, pp: Placement, m: &PackedShape, row: i32) -> bool {
        let span = self.polygon_span(p, pp, row as f32, (row + 1) as f32);
        span.x <= span.y && self.span_hits_row(m, row, span.x, span.y)
    }

    /// Row `row` of mask `m` against a circle (centre in the mask's frame).
    fn circle_row_hits(&self, centre: Vec2, radius: f32, m: &PackedShape, row: i32) -> bool {
        // Distance from the centre to the row's band, then the half chord there.
        let dy = (row as f32 - centre.y)
            .max(centre.y - (row + 1) as f32)
            .max(0.0);
        if dy > radius {
            return false;
        }
        let half = ((radius - dy) * (radius + dy)).sqrt();
        self.span_hits_row(m, row, centre.x - half, centre.x + half)
    }

    /// Row `row` of mask `a` against mask `b`, whose origin is `d` in a's pixels: a word
    /// of `a` against the 32 pixels of `b` under it, for the columns both cover.
    fn bitmask_row_hits(&self, a: &PackedShape, b: &PackedShape, d: IVec2, row: i32) -> bool {
        let column_first = d.x.max(0);
        let column_end = (a.count as i32).min(d.x + b.count as i32);
        for w in (column_first >> 5)..=((column_end - 1) >> 5) {
            let bits_a = self.mask_word(a, row, w);
            if bits_a != 0 && bits_a & self.mask_bits(b, row - d.y, w * 32 - d.x) != 0 {
                return true;
            }
        }
        false
    }

    #[cfg(feature = "internals")]
    /// A polygon (placed in the mask's frame) against the set pixels of mask `m`
    /// (the whole test, row after row).
    pub fn polygon_bitmask(&self, p: &PackedShape, pp: Placement, m: &PackedShape) -> bool {
        let y_range = self.polygon_y_range(p, pp);
        let rows = Self::rows_between(m, y_range.x, y_range.y);
        (rows.x..=rows.y).any(|row| self.polygon_row_hits(p, pp, m, row))
    }

    #[cfg(feature = "internals")]
    /// A circle (centre in the mask's frame) against the set pixels of mask `m`.
    pub fn circle_bitmask(&self, centre: Vec2, radius: f32, m: &PackedShape) -> bool {
        let rows = Self::rows_between(m, centre.y - radius, centre.y + radius);
        (rows.x..=rows.y).any(|row| self.circle_row_hits(centre, radius, m, row))
    }

    #[cfg(feature = "internals")]
    /// Two masks at whole-number origins, row after row.
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
        column_first < column_end
            && (d.y.max(0)..row_end).any(|row| self.bitmask_row_hits(a, b, d, row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `has_long_tests` says a library of polygons needs the long tests' kernels
    /// exactly when the plan of its largest polygon against itself (or of any pair)
    /// takes more than one chunk; a bitmask always may, circles never do.
    #[test]
    fn the_library_has_long_tests_where_a_pair_plan_takes_chunks() {
        use crate::input::shapes::{Bitmask, Circle, Polygon, Shape};
        for largest in [3, 12, 44, 45, 64, 128] {
            let shapes = [
                Shape::Polygon(Polygon::regular(largest, 10.0)),
                Shape::Polygon(Polygon::regular(5, 6.0)),
                Shape::Circle(Circle::new(2.0)),
            ];
            let library = ShapeLibrary::new(&shapes).expect("valid shapes");
            let bodies = 3;
            let transforms = vec![
                BodyTransform {
                    position: [0.0; 2],
                    rotation: [1.0, 0.0],
                };
                bodies
            ];
            let infos: Vec<BodyInfo> = (0..bodies)
                .map(|k| BodyInfo {
                    shape: k as u32,
                    ..bytemuck::Zeroable::zeroed()
                })
                .collect();
            let test = PairTest {
                geometry: Geometry { library: &library },
                transforms: &transforms,
                infos: &infos,
            };
            let mut most = 0;
            for i in 0..bodies {
                for j in 0..bodies {
                    most = most.max(test.plan_of(i, j).chunks);
                }
            }
            assert_eq!(
                has_long_tests(&library),
                most > 1,
                "largest polygon {largest}"
            );
            assert_eq!(most > 1, largest > 44, "largest polygon {largest}");
        }
        let circles = ShapeLibrary::new(&[Shape::Circle(Circle::new(1.0))]).expect("valid");
        assert!(!has_long_tests(&circles));
        let mask = Bitmask::new(1, 1).expect("valid mask");
        let with_mask = ShapeLibrary::new(&[Shape::Bitmask(mask)]).expect("valid");
        assert!(has_long_tests(&with_mask));
    }

    fn rows_plan(first_unit: i32, units: u32) -> Plan {
        Plan {
            a: 0,
            b: 1,
            pair_kind: PairKind::of(ShapeKind::Polygon, ShapeKind::Bitmask),
            first_unit,
            units,
            per_chunk: units,
            chunks: 1,
        }
    }

    /// Where a polygon's edge test starts reading the other polygon changes how far it
    /// reads, never the answer, and it leaves the start at a vertex short of the line.
    #[test]
    fn an_edge_test_answers_alike_from_every_start() {
        use crate::input::shapes::{Polygon, Shape};
        let library = ShapeLibrary::new(&[
            Shape::Polygon(Polygon::regular(7, 10.0)),
            Shape::Polygon(Polygon::regular(5, 6.0)),
        ])
        .expect("valid shapes");
        let g = Geometry { library: &library };
        let (p, q) = (&library.shapes[0], &library.shapes[1]);
        let at = |x: f32, y: f32, angle: f32| Placement {
            offset: Vec2::new(x, y),
            rotation: Vec2::new(angle.cos(), angle.sin()),
        };
        let mut beyond = 0;
        for step in 0..40 {
            let (pp, pq) = (at(0.0, 0.0, 0.3), at(8.0 + 0.3 * step as f32, 2.0, 1.1));
            for k in 0..p.count {
                let mut from_zero = 0;
                let answer = g.beyond_edge(p, pp, k, q, pq, &mut from_zero);
                beyond += answer as u32;
                for start in 0..q.count {
                    let mut first = start;
                    assert_eq!(g.beyond_edge(p, pp, k, q, pq, &mut first), answer);
                    if answer {
                        assert_eq!(first, start, "a start kept when every vertex is beyond");
                    } else {
                        let axis = g.polygon_normal(p, pp, k);
                        let edge = g.polygon_point(p, pp, k).dot(axis);
                        assert!(g.polygon_point(q, pq, first).dot(axis) <= edge);
                    }
                }
            }
        }
        // Both answers were met: the polygons start overlapping and end apart.
        assert!(beyond > 0 && beyond < 40 * p.count);
    }

    #[test]
    fn rows_are_visited_middle_first_and_each_once() {
        assert_eq!(
            (0..5).map(|u| rows_plan(10, 5).row(u)).collect::<Vec<_>>(),
            [12, 13, 11, 14, 10]
        );
        assert_eq!(
            (0..4).map(|u| rows_plan(-2, 4).row(u)).collect::<Vec<_>>(),
            [-1, 0, -2, 1]
        );
        for units in 1..40u32 {
            let plan = rows_plan(-7, units);
            let mut rows: Vec<i32> = (0..units).map(|u| plan.row(u)).collect();
            rows.sort_unstable();
            let expected: Vec<i32> = (-7..-7 + units as i32).collect();
            assert_eq!(rows, expected, "{units} rows");
        }
    }
}
