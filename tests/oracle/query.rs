//! Queries in f64 (scene format 1.1), judged by distances rather than recomputed the
//! crate's way.
//!
//! Every question is reduced to the signed distance from a point, or from a box, to a
//! body's shape (point-segment distances and point-in-polygon for polygons, the centre
//! for circles, each set cell as a unit square for bitmasks, judged one at a time as
//! the spec says). A ray's first touch of a body is found by bisection on the signed
//! distance of the point running along it, which is convex for a convex shape (per cell
//! for a bitmask). Answers within 0.01 of a boundary are accepted either way.

use super::motion::first_touch;
use super::{
    distance_to_boundary, pieces_distance, point_in_convex, segments_intersect, Piece, Placed,
    Scene, BAND, V,
};

/// Slack for f64 rounding in the comparisons below.
const SLACK: f64 = 1e-9;

/// A scene read once to judge many queries.
pub struct QueryOracle {
    scene: Scene,
    /// Each body's box, `None` for an empty bitmask.
    boxes: Vec<Option<super::Aabb>>,
}

/// A backend's ray answer, in f64.
#[derive(Debug, Clone, Copy)]
pub struct ReportedHit {
    pub body: usize,
    pub t: f64,
    pub normal: Option<(f64, f64)>,
}

/// A query in f64.
#[derive(Debug, Clone, Copy)]
pub enum Query {
    Ray {
        origin: (f64, f64),
        delta: (f64, f64),
        mask: u32,
    },
    Box {
        min: (f64, f64),
        max: (f64, f64),
        mask: u32,
    },
}

fn cell_square(x: f64, y: f64) -> Vec<V> {
    vec![
        V::new(x, y),
        V::new(x + 1.0, y),
        V::new(x + 1.0, y + 1.0),
        V::new(x, y + 1.0),
    ]
}

/// Signed distance from `p` to a convex counter-clockwise polygon.
fn polygon_point(poly: &[V], p: V) -> f64 {
    let d = distance_to_boundary(p, poly);
    if point_in_convex(p, poly) {
        -d
    } else {
        d
    }
}

/// Signed distance between a convex polygon and the closed box `lo ..= hi` (which may
/// be a segment or a point): a vertex of one in the other or crossing edges mean they
/// meet, and the depth is the least overlap over the two axes and the polygon's normals
/// (the faces of their Minkowski difference); apart, the gap is from a vertex of one to
/// the other.
fn polygon_box(poly: &[V], lo: V, hi: V) -> f64 {
    let corners = [lo, V::new(hi.x, lo.y), hi, V::new(lo.x, hi.y)];
    let clamp = |p: V| V::new(p.x.clamp(lo.x, hi.x), p.y.clamp(lo.y, hi.y));
    let in_box = |p: V| clamp(p) == p;
    let n = poly.len();
    let meets = poly.iter().any(|&p| in_box(p))
        || corners.iter().any(|&c| point_in_convex(c, poly))
        || (0..n).any(|k| {
            (0..4).any(|e| {
                segments_intersect(poly[k], poly[(k + 1) % n], corners[e], corners[(e + 1) % 4])
            })
        });
    if !meets {
        let from_poly = poly
            .iter()
            .map(|&p| p.sub(clamp(p)).len())
            .fold(f64::INFINITY, f64::min);
        let from_box = corners
            .iter()
            .map(|&c| distance_to_boundary(c, poly))
            .fold(f64::INFINITY, f64::min);
        return from_poly.min(from_box);
    }
    let mut axes = vec![V::new(1.0, 0.0), V::new(0.0, 1.0)];
    for k in 0..n {
        let e = poly[(k + 1) % n].sub(poly[k]);
        axes.push(V::new(e.y, -e.x).scale(1.0 / e.len()));
    }
    let depth = axes
        .iter()
        .map(|&u| {
            let (a0, a1) = super::project(poly, u);
            let (b0, b1) = super::project(&corners, u);
            (a1 - b0).min(b1 - a0)
        })
        .fold(f64::INFINITY, f64::min);
    -depth.max(0.0)
}

impl QueryOracle {
    /// Reads a valid scene's JSON.
    pub fn new(scene_json: &serde_json::Value) -> Self {
        let scene = Scene::parse(scene_json);
        let boxes = (0..scene.bodies.len())
            .map(|k| scene.place(k).aabb())
            .collect();
        QueryOracle { scene, boxes }
    }

    /// The bodies a query with `mask` sees whose boxes come within twice the band of the
    /// box `lo ..= hi` (the others are farther than the band from anything in it).
    fn seen(&self, mask: u32, lo: V, hi: V) -> impl Iterator<Item = usize> + '_ {
        let reach = 2.0 * BAND;
        (0..self.scene.bodies.len()).filter(move |&k| {
            self.scene.bodies[k].layer & mask != 0
                && self.boxes[k].is_some_and(|b| {
                    b.min.x <= hi.x + reach
                        && lo.x <= b.max.x + reach
                        && b.min.y <= hi.y + reach
                        && lo.y <= b.max.y + reach
                })
        })
    }

    /// Signed distance from body `k` to the closed box `lo ..= hi` (a point when equal);
    /// for a bitmask the least over its set cells.
    pub fn box_distance(&self, k: usize, lo: V, hi: V) -> f64 {
        match self.scene.place(k) {
            Placed::Polygon(poly) => polygon_box(&poly, lo, hi),
            Placed::Circle { centre, radius } => {
                let nearest = V::new(centre.x.clamp(lo.x, hi.x), centre.y.clamp(lo.y, hi.y));
                let outside = centre.sub(nearest).len();
                if outside > 0.0 {
                    outside - radius
                } else {
                    let inside = (centre.x - lo.x)
                        .min(hi.x - centre.x)
                        .min(centre.y - lo.y)
                        .min(hi.y - centre.y);
                    -(inside + radius)
                }
            }
            Placed::Rounded(pieces) => {
                let hull = if lo == hi {
                    vec![lo]
                } else {
                    vec![lo, V::new(hi.x, lo.y), hi, V::new(lo.x, hi.y)]
                };
                pieces_distance(&pieces, &[Piece { hull, radius: 0.0 }])
            }
            Placed::Bitmask { ox, oy, bits } => {
                let mut best = f64::INFINITY;
                let (c0, c1) = (lo.x.floor() as i64 - 2 - ox, hi.x.ceil() as i64 + 2 - ox);
                let (r0, r1) = (lo.y.floor() as i64 - 2 - oy, hi.y.ceil() as i64 + 2 - oy);
                for r in r0.max(0)..=r1.min(bits.height as i64 - 1) {
                    for c in c0.max(0)..=c1.min(bits.width as i64 - 1) {
                        if bits.is_set(c, r) {
                            let (x, y) = ((ox + c) as f64, (oy + r) as f64);
                            // Two boxes: the larger per-axis gap, negative when they overlap.
                            let gap_x = (x - hi.x).max(lo.x - (x + 1.0));
                            let gap_y = (y - hi.y).max(lo.y - (y + 1.0));
                            best = best.min(if gap_x > 0.0 && gap_y > 0.0 {
                                gap_x.hypot(gap_y)
                            } else {
                                gap_x.max(gap_y)
                            });
                        }
                    }
                }
                best
            }
        }
    }

    /// Signed distance from body `k` to a point.
    pub fn point_distance(&self, k: usize, p: V) -> f64 {
        match self.scene.place(k) {
            Placed::Polygon(poly) => polygon_point(&poly, p),
            _ => self.box_distance(k, p, p),
        }
    }

    /// Holds a point or box answer to the oracle: bodies deeper than the band must be
    /// listed, bodies farther than it must not, ascending and once each.
    pub fn list_problem(&self, query: Query, listed: &[u32]) -> Option<String> {
        let Query::Box { min, max, mask } = query else {
            return Some("not a point or box".into());
        };
        if listed.windows(2).any(|w| w[0] >= w[1]) {
            return Some(format!("not ascending: {listed:?}"));
        }
        let (lo, hi) = (V::new(min.0, min.1), V::new(max.0, max.1));
        let near: Vec<usize> = self.seen(mask, lo, hi).collect();
        for &k in &near {
            let d = self.box_distance(k, lo, hi);
            let is_listed = listed.contains(&(k as u32));
            if d < -BAND && !is_listed {
                return Some(format!("body {k} (distance {d}) missing"));
            }
            if d > BAND && is_listed {
                return Some(format!("body {k} (distance {d}) listed"));
            }
        }
        listed
            .iter()
            .find(|&&k| !near.contains(&(k as usize)))
            .map(|k| format!("body {k} is listed, but is far away or not seen by mask {mask}"))
    }

    /// The signed distance from body `k` to the ray's point at `t`, and the body's
    /// outward normals at that point's nearest boundary within the band (all of them
    /// near a corner).
    fn along(&self, k: usize, start: V, delta: V, t: f64) -> f64 {
        self.point_distance(k, start.add(delta.scale(t)))
    }

    /// The first `t` at which the ray's point is within `level` of body `k` (at most
    /// `level` in signed distance): per set cell for a bitmask, else the whole shape.
    fn first_within(&self, k: usize, start: V, delta: V, level: f64) -> Option<f64> {
        match self.scene.place(k) {
            Placed::Bitmask { ox, oy, bits } => {
                let end = start.add(delta);
                let (c0, c1) = (
                    start.x.min(end.x).floor() as i64 - 2 - ox,
                    start.x.max(end.x).ceil() as i64 + 2 - ox,
                );
                let (r0, r1) = (
                    start.y.min(end.y).floor() as i64 - 2 - oy,
                    start.y.max(end.y).ceil() as i64 + 2 - oy,
                );
                let mut best: Option<f64> = None;
                for r in r0.max(0)..=r1.min(bits.height as i64 - 1) {
                    for c in c0.max(0)..=c1.min(bits.width as i64 - 1) {
                        if !bits.is_set(c, r) {
                            continue;
                        }
                        let (x, y) = ((ox + c) as f64, (oy + r) as f64);
                        let centre = V::new(x + 0.5, y + 0.5);
                        if super::point_segment_distance(centre, start, end) > 0.75 + level.abs() {
                            continue;
                        }
                        let square = cell_square(x, y);
                        let (t, _) = first_touch(|t| {
                            polygon_point(&square, start.add(delta.scale(t))) - level
                        });
                        if let Some(t) = t {
                            best = Some(best.map_or(t, |b: f64| b.min(t)));
                        }
                    }
                }
                best
            }
            // A union of pieces: its distance along a ray is not convex, so each piece
            // (convex) is searched alone and the earliest taken. Within a piece rather
            // than the union, a `level` below 0 is met no earlier than in the union: a
            // bound that can only be lenient.
            Placed::Rounded(pieces) if pieces.len() > 1 => pieces
                .iter()
                .filter_map(|piece| {
                    first_touch(|t| {
                        let p = start.add(delta.scale(t));
                        super::rounded_rounded(&[p], 0.0, &piece.hull, piece.radius) - level
                    })
                    .0
                })
                .min_by(f64::total_cmp),
            _ => first_touch(|t| self.along(k, start, delta, t) - level).0,
        }
    }

    /// The outward normals of body `k`'s boundary within the band of point `p` (a
    /// polygon's edges, a circle's radius direction, set cells' sides).
    /// Whether body `k` is a circle with a point within the band of `p` whose radius
    /// direction is `n` (to 1e-4). A ray's `t` places its point only to within the band,
    /// so on a circle of radius `r` the normal may turn by about `BAND / r` with it: on
    /// a circle of a twentieth of a unit, 0.2, far more than the band itself.
    fn circle_normal_fits(&self, k: usize, p: V, n: V) -> bool {
        match self.scene.place(k) {
            Placed::Circle { centre, radius } => arc_normal_fits(centre, radius, p, n),
            // A capsule's round ends are arcs of circles about its ends.
            Placed::Rounded(pieces) => match &pieces[..] {
                [piece] if piece.hull.len() <= 2 && piece.radius > 0.0 => piece
                    .hull
                    .iter()
                    .any(|&end| arc_normal_fits(end, piece.radius, p, n)),
                // A circle or capsule among other parts: its arcs where they are the
                // union's boundary.
                _ => pieces
                    .iter()
                    .filter(|piece| piece.radius > 0.0)
                    .any(|piece| {
                        piece.hull.iter().any(|&centre| {
                            let at = centre.add(n.scale(piece.radius));
                            arc_normal_fits(centre, piece.radius, p, n)
                                && !inside_union(&pieces, outward(at, n))
                        })
                    }),
            },
            _ => false,
        }
    }

    /// Whether body `k` is, or has as a part, a segment or point (a capsule of radius 0)
    /// within the band of `p`, and `n` is a unit vector facing a ray along `delta`: the
    /// format accepts any such normal there (the way back along the ray, or a side's
    /// normal), on a compound's zero-width part as on a body that is one.
    fn zero_width_normal_fits(&self, k: usize, p: V, n: V, delta: V) -> bool {
        let Placed::Rounded(pieces) = self.scene.place(k) else {
            return false;
        };
        let facing = (n.len() - 1.0).abs() <= 1e-4 && n.x * delta.x + n.y * delta.y <= 0.0;
        facing
            && pieces.iter().any(|piece| {
                let (a, b) = (piece.hull[0], piece.hull[piece.hull.len() - 1]);
                piece.radius == 0.0
                    && piece.hull.len() <= 2
                    && super::point_segment_distance(p, a, b) <= BAND + SLACK
            })
    }
}

/// The outward normals of a union of pieces (a concave or compound shape) near `p`: of
/// each piece's boundary within `near` of `p` (a polygon edge's normal, or the radius
/// direction from the nearest point of a rounded piece's hull), kept only where the
/// boundary is the union's: a step outwards from it leaves every piece. So the diagonals
/// between the pieces of a concave outline, and the sides of overlapping parts inside
/// other parts, give no normal.
fn union_normals_near(pieces: &[super::Piece], p: V, near: f64) -> Vec<V> {
    let mut normals = Vec::new();
    for piece in pieces {
        let hull = &piece.hull;
        // (point of the boundary, its outward normal)
        let mut found: Vec<(V, V)> = Vec::new();
        if piece.radius == 0.0 && hull.len() >= 3 {
            for k in 0..hull.len() {
                let (a, b) = (hull[k], hull[(k + 1) % hull.len()]);
                if super::point_segment_distance(p, a, b) <= near {
                    let d = b.sub(a);
                    let n = V::new(d.y, -d.x).scale(1.0 / d.len());
                    let t = ((p.sub(a)).dot(d) / d.dot(d)).clamp(0.0, 1.0);
                    found.push((a.add(d.scale(t)), n));
                }
            }
        } else if piece.radius > 0.0 {
            let q = hull_nearest(p, hull);
            let d = p.sub(q);
            if (d.len() - piece.radius).abs() <= near && d.len() > 0.0 {
                let n = d.scale(1.0 / d.len());
                found.push((q.add(n.scale(piece.radius)), n));
            }
        }
        for (at, n) in found {
            if !inside_union(pieces, outward(at, n)) {
                normals.push(n);
            }
        }
    }
    normals
}

/// A step from `at`, a point of a piece's boundary, along its outward normal `n`: out of
/// that piece, and out of the union unless another piece covers it there. Far below the
/// pieces' sizes (a star 0.1 across has spikes of 0.005; a step of 1e-6 of the
/// coordinates, 0.008 at 8000, crossed into the next spike), far above f64's rounding.
fn outward(at: V, n: V) -> V {
    at.add(n.scale(1e-10 * (1.0 + at.len())))
}

/// Whether `q` is inside one of `pieces` (strictly inside a rounded one).
fn inside_union(pieces: &[super::Piece], q: V) -> bool {
    pieces.iter().any(|piece| {
        let d = hull_distance(q, &piece.hull);
        d < piece.radius
            || (piece.radius == 0.0
                && piece.hull.len() >= 3
                && super::point_in_convex(q, &piece.hull))
    })
}

/// The point of a hull (1, 2 or more points, counter-clockwise) nearest `p`.
fn hull_nearest(p: V, hull: &[V]) -> V {
    if hull.len() >= 3 && super::point_in_convex(p, hull) {
        return p;
    }
    let mut best = (f64::INFINITY, hull[0]);
    for k in 0..hull.len() {
        let (a, b) = (hull[k], hull[(k + 1) % hull.len()]);
        let d = b.sub(a);
        let t = if d.dot(d) > 0.0 {
            (p.sub(a).dot(d) / d.dot(d)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let q = a.add(d.scale(t));
        if p.sub(q).len() < best.0 {
            best = (p.sub(q).len(), q);
        }
    }
    best.1
}

/// The distance from `p` to a hull (0 inside a polygon hull).
fn hull_distance(p: V, hull: &[V]) -> f64 {
    p.sub(hull_nearest(p, hull)).len()
}

/// Whether a circle (`centre`, `radius`) has a point within the band of `p` whose radius
/// direction is `n` (to 1e-4).
fn arc_normal_fits(centre: V, radius: f64, p: V, n: V) -> bool {
    let d = p.sub(centre);
    let rho = d.len();
    let near = BAND + SLACK;
    if (rho - radius).abs() > near || rho == 0.0 {
        return false;
    }
    // The circle's points within `near` of p lie within this angle of d.
    let cos = (radius * radius + rho * rho - near * near) / (2.0 * radius * rho);
    let widest = cos.clamp(-1.0, 1.0).acos();
    let (dn, cross) = (d.x * n.x + d.y * n.y, d.x * n.y - d.y * n.x);
    let angle = cross.atan2(dn).abs();
    (n.len() - 1.0).abs() <= 1e-4 && angle <= widest + 1e-4
}

impl QueryOracle {
    fn normals_near(&self, k: usize, p: V) -> Vec<V> {
        let near = BAND + SLACK;
        match self.scene.place(k) {
            Placed::Polygon(poly) => {
                let n = poly.len();
                (0..n)
                    .filter(|&e| {
                        super::point_segment_distance(p, poly[e], poly[(e + 1) % n]) <= near
                    })
                    .map(|e| {
                        let d = poly[(e + 1) % n].sub(poly[e]);
                        V::new(d.y, -d.x).scale(1.0 / d.len())
                    })
                    .collect()
            }
            Placed::Circle { centre, .. } => {
                let d = p.sub(centre);
                vec![d.scale(1.0 / d.len())]
            }
            Placed::Rounded(pieces) => match &pieces[..] {
                // A capsule: the long sides' normals where p is by them (the round ends
                // are circle_normal_fits' work).
                [piece] if piece.hull.len() == 2 => {
                    let (a, b) = (piece.hull[0], piece.hull[1]);
                    let d = b.sub(a);
                    let along = ((p.x - a.x) * d.x + (p.y - a.y) * d.y) / (d.len() * d.len());
                    let rho = super::point_segment_distance(p, a, b);
                    if (0.0..=1.0).contains(&along) && (rho - piece.radius).abs() <= near {
                        let side = V::new(-d.y, d.x).scale(1.0 / d.len());
                        vec![side, side.scale(-1.0)]
                    } else {
                        Vec::new()
                    }
                }
                [piece] if piece.hull.len() == 1 => Vec::new(),
                _ => union_normals_near(&pieces, p, near),
            },
            Placed::Bitmask { ox, oy, bits } => {
                let mut normals = Vec::new();
                let (c, r) = (p.x.floor() as i64 - ox, p.y.floor() as i64 - oy);
                for r in r - 1..=r + 1 {
                    for c in c - 1..=c + 1 {
                        if !bits.is_set(c, r) {
                            continue;
                        }
                        let square = cell_square((ox + c) as f64, (oy + r) as f64);
                        for e in 0..4 {
                            if super::point_segment_distance(p, square[e], square[(e + 1) % 4])
                                <= near
                            {
                                let d = square[(e + 1) % 4].sub(square[e]);
                                normals.push(V::new(d.y, -d.x));
                            }
                        }
                    }
                }
                normals
            }
        }
    }

    /// Holds a ray answer to the oracle.
    pub fn ray_problem(&self, query: Query, reported: Option<ReportedHit>) -> Option<String> {
        let Query::Ray {
            origin,
            delta,
            mask,
        } = query
        else {
            return Some("not a ray".into());
        };
        let (start, delta) = (V::new(origin.0, origin.1), V::new(delta.0, delta.1));
        let length = delta.len();
        let t_slack = BAND / length + SLACK;
        // The earliest time any body it sees is entered deeper than the band: no answer
        // may come later than that.
        let end = start.add(delta);
        let (lo, hi) = (
            V::new(start.x.min(end.x), start.y.min(end.y)),
            V::new(start.x.max(end.x), start.y.max(end.y)),
        );
        let deep = self
            .seen(mask, lo, hi)
            .filter_map(|k| self.first_within(k, start, delta, -BAND).map(|t| (t, k)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some(hit) = reported else {
            return deep.map(|(t, k)| format!("no hit, but body {k} is entered deeply at {t}"));
        };
        let k = hit.body;
        if k >= self.scene.bodies.len() || self.scene.bodies[k].layer & mask == 0 {
            return Some(format!("body {k} is not one the ray sees"));
        }
        if !(0.0..=1.0).contains(&hit.t) {
            return Some(format!("t {} outside [0, 1]", hit.t));
        }
        if let Some((t, other)) = deep {
            if hit.t > t + t_slack {
                return Some(format!(
                    "hit {k} at {}, but body {other} is entered deeply at {t}",
                    hit.t
                ));
            }
        }
        // The reported point must be on (or within the band of) the body, and not well
        // before the ray first comes within the band of it: a point within the band of a
        // boundary may count as a hit, so a grazing ray (which runs along the boundary
        // for a while) may be entered anywhere there.
        let d = self.along(k, start, delta, hit.t);
        if d > BAND + SLACK {
            return Some(format!("the point at t {} is {d} from body {k}", hit.t));
        }
        if let Some(touch) = self.first_within(k, start, delta, BAND) {
            if hit.t < touch - t_slack {
                return Some(format!(
                    "t {} is before body {k} comes within the band at {touch}",
                    hit.t
                ));
            }
        }
        let at_start = self.point_distance(k, start);
        match hit.normal {
            None => {
                if hit.t != 0.0 || at_start > BAND + SLACK {
                    return Some(format!(
                        "no normal at t {} (start {at_start} from the body)",
                        hit.t
                    ));
                }
            }
            Some((nx, ny)) => {
                if at_start < -BAND {
                    return Some(format!(
                        "a normal, but the ray starts {at_start} inside body {k}"
                    ));
                }
                let n = V::new(nx, ny);
                let p = start.add(delta.scale(hit.t));
                let near = self.normals_near(k, p);
                if !near.iter().any(|m| m.sub(n).len() <= BAND + 1e-4)
                    && !self.circle_normal_fits(k, p, n)
                    && !self.zero_width_normal_fits(k, p, n, delta)
                {
                    return Some(format!("normal {n:?} at {p:?}, the body's there: {near:?}"));
                }
            }
        }
        None
    }
}
