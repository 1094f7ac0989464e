//! Ray, point and box queries against single bodies (scene format 1.1), and the walk of
//! the broad phase's grid that finds the bodies a query can reach.
//!
//! Each test works in the body's frame (its position subtracted from the query's), as
//! the narrow phase does, so that f32 keeps its precision far from the origin.
//!
//! - A ray is first brought along itself to just outside the circle that holds the
//!   body at every angle ([`crate::layout::geometry::approach`]), so that a ray across
//!   the whole range meets a body as precisely as one that starts beside it.
//! - A ray against a polygon is clipped by the polygon's edge half-planes (Cyrus-Beck):
//!   the last edge it enters by is where it meets the polygon, and that edge's normal is
//!   the hit's. A circle is entered where the ray, run to its nearest the centre, backs
//!   off by half the chord ([`crate::layout::geometry::disc_entry`]). A bitmask is walked row by row in the
//!   ray's direction: in each row the ray crosses, the first set cell along it within
//!   the columns it covers there is its first hit in that row, and rows are met in order.
//!   A capsule is entered by one of its end discs or long sides
//!   ([`crate::layout::geometry::capsule_entry`]).
//!   A ray's walk of the grid ([`grid_candidates`]) tests what it meets as it goes and
//!   stops past its nearest hit.
//! - A point is in a polygon when it is behind every edge, in a bitmask when a cell
//!   whose closed square holds it is set.
//! - A box meets a polygon unless the box's two axes or an edge normal separate them, a
//!   circle when its nearest point to the centre is within the radius, a capsule when
//!   its end is in the box or its segment within the radius of a side, a bitmask when a
//!   cell under it is set.

use glam::{IVec2, Vec2};

use crate::answer::query::{BoxQuery, PointQuery, Ray, RayHit};
use crate::grid::{cell_at, cell_bucket, level_cell, probe_range, GridParams, TOP_LEVEL};
use crate::input::library::ShapeLibrary;
use crate::layout::packed::{Aabb, BodyInfo, BodyTransform};

use super::broad::Grid;
use super::placed::{cells_between, set_cells_in_row, unit, Convex, Placed, BOX_NORMALS};
use crate::layout::geometry::{capsule_entry, disc_entry, entry_from_near, segments_distance};

/// The frame's bodies as the query tests read them.
#[derive(Clone, Copy)]
pub struct Bodies<'a> {
    /// The shapes.
    pub library: &'a ShapeLibrary,
    /// Where each body is.
    pub transforms: &'a [BodyTransform],
    /// What each body is.
    pub infos: &'a [BodyInfo],
    /// Each body's world box at `t = 0`.
    pub aabbs: &'a [Aabb],
}

impl Bodies<'_> {
    /// Body `k` in its own frame (for a bitmask: its cell `(0, 0)` at the origin), and
    /// that frame's origin in the world.
    fn placed(&self, k: usize) -> (Placed, Vec2) {
        let origin = Vec2::from(self.transforms[k].position);
        let shape = &self.library.shapes[self.infos[k].shape as usize];
        (
            Placed::new(self.library, shape, &self.transforms[k], origin),
            origin,
        )
    }

    /// Whether a query with `mask` sees body `k`.
    fn sees(&self, k: usize, mask: u32) -> bool {
        self.infos[k].layer & mask != 0
    }

    /// Where `ray` first meets body `k`: `(t, normal)`. Far past the format's range
    /// (coordinates near f32's limit) the arithmetic can overflow; a time that is not a
    /// number is no hit, rather than an answer the format cannot write.
    pub fn ray_hit(&self, k: usize, ray: &Ray) -> Option<(f32, Option<Vec2>)> {
        let (placed, origin) = self.placed(k);
        let reach = self.library.shapes[self.infos[k].shape as usize].reach();
        let hit = entry_from_near(ray.origin - origin, ray.delta, reach, |start, delta| {
            match &placed {
                Placed::Polygon { points, normals } => {
                    ray_polygon(&Convex { points, normals }, start, delta)
                }
                Placed::Circle { centre, radius } => ray_circle(*centre, *radius, start, delta),
                Placed::Capsule { a, b, radius } => capsule_entry(start, delta, *a, *b, *radius),
                Placed::Bitmask { mask, .. } => {
                    let m = *mask;
                    ray_bitmask(self.library, &m, start, delta)
                }
            }
        });
        hit.filter(|(t, _)| (0.0..=1.0).contains(t))
            .map(|(t, normal)| (t, normal.filter(|n| n.is_finite())))
    }

    #[cfg(feature = "internals")]
    /// Whether body `k`'s shape holds `point` (closed).
    pub fn contains(&self, k: usize, point: Vec2) -> bool {
        self.meets_box(k, point, point)
    }

    /// Whether body `k`'s shape meets the closed box `min ..= max` (a point when equal).
    pub fn meets_box(&self, k: usize, min: Vec2, max: Vec2) -> bool {
        let (placed, origin) = self.placed(k);
        let (lo, hi) = (min - origin, max - origin);
        match &placed {
            Placed::Polygon { points, normals } => {
                let polygon = Convex { points, normals };
                let corners = [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)];
                let box_shape = Convex {
                    points: &corners,
                    normals: &BOX_NORMALS,
                };
                // Convex sets are apart exactly when one of their edge normals separates
                // them; a degenerate box's sides still lie on the two axes.
                let apart = |axis: Vec2| {
                    let (a, b) = (polygon.interval(axis), box_shape.interval(axis));
                    a.1 < b.0 || b.1 < a.0
                };
                !(apart(Vec2::X) || apart(Vec2::Y) || normals.iter().any(|&n| apart(n)))
            }
            Placed::Circle { centre, radius } => {
                let nearest = centre.clamp(lo, hi);
                (nearest - *centre).length_squared() <= radius * radius
            }
            Placed::Capsule { a, b, radius } => {
                // Inside the box, or within the radius of one of its sides (which
                // covers a segment that crosses the box).
                let corners = [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)];
                (a.cmpge(lo).all() && a.cmple(hi).all())
                    || (0..4).any(|k| {
                        segments_distance(corners[k], corners[(k + 1) % 4], *a, *b) <= *radius
                    })
            }
            Placed::Bitmask { mask, .. } => {
                let columns = cells_between(lo.x, hi.x, mask.count);
                let rows = cells_between(lo.y, hi.y, mask.rows);
                (rows.x.max(0)..=rows.y.min(mask.rows as i32 - 1)).any(|row| {
                    set_cells_in_row(self.library, mask, row, columns.x, columns.y)
                        .next()
                        .is_some()
                })
            }
        }
    }

    /// The first hit of `ray` among `candidates` (bodies it may see), lowest index on a tie.
    pub fn first_hit(&self, ray: &Ray, candidates: impl Iterator<Item = usize>) -> Option<RayHit> {
        let mut best = None;
        for k in candidates {
            self.nearer_hit(ray, k, &mut best);
        }
        best
    }

    /// Tests `ray` against body `k` (if it sees the body) and keeps the hit in `best` when
    /// it is nearer, or as near with a lower index; how far along the ray a nearer hit
    /// may still lie (1 while there is none).
    pub fn nearer_hit(&self, ray: &Ray, k: usize, best: &mut Option<RayHit>) -> f32 {
        let end = ray.origin + ray.delta;
        let reach = Aabb {
            min: ray.origin.min(end).to_array(),
            max: ray.origin.max(end).to_array(),
        };
        if self.sees(k, ray.mask) && self.aabbs[k].overlaps(&reach) {
            if let Some((t, normal)) = self.ray_hit(k, ray) {
                let better = match *best {
                    None => true,
                    Some(b) => t < b.t || (t == b.t && (k as u32) < b.body),
                };
                if better {
                    *best = Some(RayHit {
                        body: k as u32,
                        t,
                        normal,
                    });
                }
            }
        }
        best.map_or(1.0, |b| b.t)
    }

    /// The bodies among `candidates` that `point` is in, ascending.
    pub fn point_bodies(
        &self,
        query: &PointQuery,
        candidates: impl Iterator<Item = usize>,
    ) -> Vec<u32> {
        self.box_bodies(
            &BoxQuery {
                min: query.point,
                max: query.point,
                mask: query.mask,
            },
            candidates,
        )
    }

    /// The bodies among `candidates` that the box meets, ascending.
    pub fn box_bodies(
        &self,
        query: &BoxQuery,
        candidates: impl Iterator<Item = usize>,
    ) -> Vec<u32> {
        let reach = Aabb {
            min: query.min.to_array(),
            max: query.max.to_array(),
        };
        let mut found: Vec<u32> = candidates
            .filter(|&k| {
                self.sees(k, query.mask)
                    && self.aabbs[k].overlaps(&reach)
                    && self.meets_box(k, query.min, query.max)
            })
            .map(|k| k as u32)
            .collect();
        found.sort_unstable();
        found
    }
}

/// Clips the segment `start + t·delta` against the half-plane `n·x <= h`, keeping
/// `(enter, exit, normal entered by)`; `None` once nothing is left.
fn clip_segment(
    range: (f32, f32, Option<Vec2>),
    n: Vec2,
    h: f32,
    start: Vec2,
    delta: Vec2,
) -> Option<(f32, f32, Option<Vec2>)> {
    let (mut enter, mut exit, mut normal) = range;
    let speed = n.dot(delta);
    let room = h - n.dot(start);
    if speed == 0.0 {
        return (room >= 0.0).then_some(range);
    }
    let t = room / speed;
    if speed > 0.0 {
        exit = exit.min(t);
    } else if t > enter {
        enter = t;
        normal = Some(n);
    }
    (enter <= exit).then_some((enter, exit, normal))
}

/// Where the segment first meets a convex polygon, and the normal of the edge it enters
/// by (`None` when it starts in or on the polygon).
///
/// The time is the latest entry into an edge's half-plane, but the edge is not that
/// half-plane's: where two edges meet at a wide angle their half-planes are entered at
/// nearly the same time over a long stretch of both (at 170°, 0.003 of rounding in the
/// times, a ray's at 18000 units, moves the choice 0.017 from the corner, past the
/// format's 0.01). The entered edge nearest the point of entry is off only by that
/// point's own rounding.
pub fn ray_polygon(p: &Convex, start: Vec2, delta: Vec2) -> Option<(f32, Option<Vec2>)> {
    let mut range = (0.0f32, 1.0f32, None);
    for (&n, &v) in p.normals.iter().zip(p.points) {
        range = clip_segment(range, n, n.dot(v), start, delta)?;
    }
    let (t, _, entered) = range;
    let normal = entered.map(|n| nearest_entered_normal(p, start + t * delta, delta).unwrap_or(n));
    Some((t, normal))
}

/// The normal of the edge nearest `point` among those a segment along `delta` crosses
/// inwards; the first of equals.
fn nearest_entered_normal(p: &Convex, point: Vec2, delta: Vec2) -> Option<Vec2> {
    let count = p.points.len();
    let (mut nearest, mut normal) = (f32::MAX, None);
    for k in 0..count {
        let n = p.normals[k];
        let d = segment_distance_squared(point, p.points[k], p.points[(k + 1) % count]);
        if n.dot(delta) < 0.0 && d < nearest {
            (nearest, normal) = (d, Some(n));
        }
    }
    normal
}

/// The squared distance from `point` to the segment from `a` to `b`. WGSL
/// `segment_distance_squared`.
fn segment_distance_squared(point: Vec2, a: Vec2, b: Vec2) -> f32 {
    let (edge, off) = (b - a, point - a);
    let length = edge.dot(edge);
    let s = if length > 0.0 {
        (off.dot(edge) / length).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (off - s * edge).length_squared()
}

/// Where the segment first meets a circle, and the radius direction there (against the
/// segment's direction for a circle too small to give one); see [`disc_entry`] for the
/// form that neither cancels nor overflows.
pub fn ray_circle(
    centre: Vec2,
    radius: f32,
    start: Vec2,
    delta: Vec2,
) -> Option<(f32, Option<Vec2>)> {
    let (t, point) = disc_entry(start - centre, radius, delta)?;
    // Scaled before its length is taken, so that the fallback exists for any finite delta.
    let backwards = -delta / delta.abs().max_element();
    Some((
        t,
        point.map(|p| unit(p).or_else(|| unit(backwards)).unwrap_or(Vec2::ZERO)),
    ))
}

/// Where the segment (in the mask's frame) first meets a set cell of the mask, and the
/// side of the cell it enters by.
fn ray_bitmask(
    library: &ShapeLibrary,
    mask: &crate::layout::packed::PackedShape,
    start: Vec2,
    delta: Vec2,
) -> Option<(f32, Option<Vec2>)> {
    let end = start + delta;
    let rows = cells_between(start.y.min(end.y), start.y.max(end.y), mask.rows);
    let (first_row, last_row) = (rows.x.max(0), rows.y.min(mask.rows as i32 - 1));
    if first_row > last_row {
        return None;
    }
    let upward = delta.y >= 0.0;
    let count = (last_row - first_row + 1) as usize;
    let mut best: Option<(f32, Option<Vec2>)> = None;
    for step in 0..count {
        let row = if upward {
            first_row + step as i32
        } else {
            last_row - step as i32
        };
        // When the segment is within the row's band.
        let (mut t0, mut t1) = (0.0f32, 1.0f32);
        if delta.y != 0.0 {
            let (a, b) = (
                (row as f32 - start.y) / delta.y,
                (row as f32 + 1.0 - start.y) / delta.y,
            );
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
        if t0 > t1 || best.is_some_and(|(t, _)| t0 > t) {
            if best.is_some() {
                break; // later rows are met later still
            }
            continue;
        }
        let (x0, x1) = (start.x + t0 * delta.x, start.x + t1 * delta.x);
        let columns = cells_between(x0.min(x1), x0.max(x1), mask.count);
        let mut cells: Vec<i32> =
            set_cells_in_row(library, mask, row, columns.x, columns.y).collect();
        if delta.x < 0.0 {
            cells.reverse();
        }
        for column in cells {
            let corner = Vec2::new(column as f32, row as f32);
            let cell = [
                corner,
                corner + Vec2::X,
                corner + Vec2::ONE,
                corner + Vec2::Y,
            ];
            let hit = ray_polygon(
                &Convex {
                    points: &cell,
                    normals: &BOX_NORMALS,
                },
                start,
                delta,
            );
            if let Some(hit) = hit {
                if best.is_none_or(|b| hit.0 < b.0) {
                    best = Some(hit);
                }
                break; // the first set cell along the row is this row's first hit
            }
        }
    }
    best
}

/// What a query reaches, as the walk of the grid reads it: the layers it sees, its box,
/// and for a ray its segment (start and delta), to which the box is cut down row by row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reach {
    /// The query's mask.
    pub mask: u32,
    /// The box's low corner.
    pub min: Vec2,
    /// The box's high corner.
    pub max: Vec2,
    /// A ray's start and delta.
    pub segment: Option<(Vec2, Vec2)>,
}

impl Reach {
    /// A ray's: its segment's box, and the segment.
    pub fn of_ray(ray: &Ray) -> Self {
        let end = ray.origin + ray.delta;
        Reach {
            mask: ray.mask,
            min: ray.origin.min(end),
            max: ray.origin.max(end),
            segment: Some((ray.origin, ray.delta)),
        }
    }

    /// A box's (a point's: `min == max`).
    pub fn of_box(mask: u32, min: Vec2, max: Vec2) -> Self {
        Reach {
            mask,
            min,
            max,
            segment: None,
        }
    }
}

/// What a query's walk of the grid reads next: a cell of a level, or (when the level has
/// more cells in reach than bodies) all of a level's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reached {
    /// The cell on the level.
    Cell(u32, IVec2),
    /// Every entry of the level.
    Level(u32),
}

/// The bodies whose grid cell a query with `reach` must look in, for one occupied level
/// after another, fed to `visit`.
///
/// `visit` answers how far along the segment the walk must still look (1: all of it;
/// a point or box answers anything, it is not read). A ray's rows and cells are read in
/// its direction, so that a ray tested as it goes ([`Bodies::nearer_hit`]) stops at the
/// first row it would enter past its nearest hit, and looks no further on the levels
/// after: on the benchmark's 10^4 rays over bullet-hell 100k this took the cpu's rays
/// from about 29 to 22 ms. `shaders/query.wgsl` reads the same cells but to the end of
/// each segment, and tests in a pass of its own (its top comment says why).
pub fn grid_candidates(
    grid: &Grid,
    params: &GridParams,
    reach: Reach,
    mut visit: impl FnMut(usize) -> f32,
) {
    walk_grid(grid, params, reach, |reached| {
        reached_entries(grid, params, reached)
            .map(|body| visit(body as usize))
            .fold(1.0, f32::min)
    });
}

/// The bodies of what the walk reached: a cell's (its bucket holds other cells' too
/// when their hashes collide), or a whole level's.
pub fn reached_entries<'a>(
    grid: &'a Grid,
    params: &GridParams,
    reached: Reached,
) -> impl Iterator<Item = u32> + 'a {
    let (level, entries, cell) = match reached {
        Reached::Level(level) => (level, &grid.entries[..], None),
        Reached::Cell(level, cell) => (
            level,
            grid.bucket_entries(cell_bucket(params, cell, level)),
            Some(cell),
        ),
    };
    entries.iter().copied().filter(move |&j| {
        let e = &grid.places[j as usize];
        e.level == level && cell.is_none_or(|c| IVec2::from(e.cell) == c)
    })
}

/// The walk of [`grid_candidates`], cell by cell: `visit` answers how far along the
/// segment the walk must still look.
pub fn walk_grid(
    grid: &Grid,
    params: &GridParams,
    reach: Reach,
    mut visit: impl FnMut(Reached) -> f32,
) {
    let Reach {
        mask,
        min,
        max,
        segment,
    } = reach;
    let mut limit = 1.0f32;
    let mut levels = grid.info.occupied_levels;
    while levels != 0 {
        let level = levels.trailing_zeros();
        levels &= levels - 1;
        if grid.info.level_layers[level as usize] & mask == 0 {
            continue; // nobody on this level is seen
        }
        let (first, last) = match segment {
            Some((start, delta)) if limit < 1.0 => {
                let (lo, hi) = segment_reach(start, delta, limit);
                probe_range(params, lo, hi, level)
            }
            _ => probe_range(params, min, max, level),
        };
        // A huge box (or a long ray) on a fine level spans more cells than there are
        // bodies: reading the entries themselves then bounds the work by the bodies.
        let span = (last - first + IVec2::ONE).as_vec2();
        let cells = if segment.is_some() {
            3.0 * (span.x + span.y)
        } else {
            span.x * span.y
        };
        if cells > grid.entries.len() as f32 {
            limit = limit.min(visit(Reached::Level(level)));
            continue;
        }
        let down = segment.is_some_and(|(_, delta)| delta.y < 0.0);
        let left = segment.is_some_and(|(_, delta)| delta.x < 0.0);
        for r in first.y..=last.y {
            let y = if down { first.y + last.y - r } else { r };
            let (mut x_first, mut x_last) = (first.x, last.x);
            if let (Some((start, delta)), false) = (segment, level == TOP_LEVEL) {
                // The segment's x extent within the band of this row's cells grown by
                // the half cell a body may reach beyond its cell, and a hair: rounding
                // must neither drop a cell the segment touches nor stop the walk early.
                let size = level_cell(params, level);
                let pad = 0.5 * size + 1e-3 * size;
                let (band_lo, band_hi) = (y as f32 * size - pad, (y + 1) as f32 * size + pad);
                let (mut t0, mut t1) = (0.0f32, 1.0f32);
                if delta.y != 0.0 {
                    let (a, b) = ((band_lo - start.y) / delta.y, (band_hi - start.y) / delta.y);
                    t0 = t0.max(a.min(b));
                    t1 = t1.min(a.max(b));
                }
                if t0 > limit {
                    break; // bands met later enter later still
                }
                t1 = t1.min(limit);
                if t0 > t1 {
                    continue;
                }
                let (xa, xb) = (start.x + t0 * delta.x, start.x + t1 * delta.x);
                x_first = x_first.max(cell_at(params, Vec2::new(xa.min(xb) - pad, 0.0), level).x);
                x_last = x_last.min(cell_at(params, Vec2::new(xa.max(xb) + pad, 0.0), level).x);
            }
            for c in x_first..=x_last {
                let x = if left { x_first + x_last - c } else { c };
                limit = limit.min(visit(Reached::Cell(level, IVec2::new(x, y))));
            }
        }
    }
}

/// The box of the segment `start + t·delta` for `t` in `0 ..= limit`, grown by a hair
/// against rounding (as `segment_reach` in `shaders/query.wgsl`).
fn segment_reach(start: Vec2, delta: Vec2, limit: f32) -> (Vec2, Vec2) {
    let end = start + limit * delta;
    let pad = 1e-5 * start.abs().max(end.abs()) + Vec2::splat(1e-6);
    (start.min(end) - pad, start.max(end) + pad)
}
