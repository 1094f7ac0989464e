//! Contacts in f64 (scene format 1.1), by a different road from the crate's.
//!
//! The crate takes the separating axis of least overlap. Here the Minkowski difference
//! `A - B` is built outright, as the convex hull of all differences of vertices (a
//! circle being a point grown by its radius), and the depth is the distance from the
//! origin to its boundary, found edge by edge with point-segment distances; the normal
//! is the direction to that nearest boundary point. Cell counts are made cell by cell,
//! each cell a unit square tested with the oracle's signed distance.

use super::{placed_distance, point_in_convex, point_segment_distance, Placed, Scene, BAND, V};

/// The Minkowski difference of two placed polygons or circles: a convex polygon (maybe a
/// single point) grown by a radius.
struct Difference {
    /// Counter-clockwise hull (one point for two circles, the polygon for a polygon and
    /// a circle).
    hull: Vec<V>,
    radius: f64,
}

/// `A - B` for bodies `a` (i) and `b` (j): `b` moved by `d` meets `a` exactly when `d` is
/// in it.
fn difference(a: &Placed, b: &Placed) -> Difference {
    let (points_a, radius_a) = as_grown(a);
    let (points_b, radius_b) = as_grown(b);
    let mut all = Vec::with_capacity(points_a.len() * points_b.len());
    for p in &points_a {
        for q in &points_b {
            all.push(p.sub(*q));
        }
    }
    Difference {
        hull: convex_hull(all),
        radius: radius_a + radius_b,
    }
}

/// A polygon's vertices with radius 0, or a circle's centre with its radius.
fn as_grown(placed: &Placed) -> (Vec<V>, f64) {
    match placed {
        Placed::Polygon(points) => (points.clone(), 0.0),
        Placed::Circle { centre, radius } => (vec![*centre], *radius),
        Placed::Bitmask { .. } => panic!("oracle: bitmasks have areas, not depths"),
        Placed::Rounded(pieces) => match &pieces[..] {
            [one] => (one.hull.clone(), one.radius),
            _ => panic!("oracle: the contacts of concave and compound shapes, one per pair of parts, are not in the oracle yet"),
        },
    }
}

/// Andrew's monotone chain, counter-clockwise, collinear points dropped.
fn convex_hull(mut points: Vec<V>) -> Vec<V> {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let cross = |o: V, a: V, b: V| a.sub(o).cross(b.sub(o));
    let mut lower: Vec<V> = Vec::new();
    for &p in &points {
        while lower.len() >= 2 && cross(lower[lower.len() - 2], lower[lower.len() - 1], p) <= 0.0 {
            lower.pop();
        }
        lower.push(p);
    }
    let mut upper: Vec<V> = Vec::new();
    for &p in points.iter().rev() {
        while upper.len() >= 2 && cross(upper[upper.len() - 2], upper[upper.len() - 1], p) <= 0.0 {
            upper.pop();
        }
        upper.push(p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

impl Difference {
    /// The hull's nearest point to `p` and whether `p` is inside the hull.
    fn nearest(&self, p: V) -> (V, bool) {
        let n = self.hull.len();
        if n == 1 {
            return (self.hull[0], false);
        }
        let inside = n >= 3 && point_in_convex(p, &self.hull);
        let mut best = (self.hull[0], f64::INFINITY);
        for k in 0..n {
            let (a, b) = (self.hull[k], self.hull[(k + 1) % n]);
            let d = point_segment_distance(p, a, b);
            if d < best.1 {
                let ab = b.sub(a);
                let t = (p.sub(a).dot(ab) / ab.dot(ab)).clamp(0.0, 1.0);
                best = (a.add(ab.scale(t)), d);
            }
        }
        (best.0, inside)
    }

    /// Signed distance from `p` to the grown hull (negative inside).
    fn signed(&self, p: V) -> f64 {
        let (q, inside) = self.nearest(p);
        let d = p.sub(q).len();
        if inside {
            -d - self.radius
        } else {
            d - self.radius
        }
    }

    /// The shortest move `d` of `b` out of `a`: `(depth, unit normal)`; `None` when the
    /// origin is outside (the bodies are apart, by the returned gap).
    fn separation(&self) -> Result<(f64, V), f64> {
        let origin = V::new(0.0, 0.0);
        let (q, inside) = self.nearest(origin);
        let to_q = q.len();
        if inside {
            // Out through the nearest edge, then the radius further.
            let normal = if to_q > 0.0 {
                q.scale(1.0 / to_q)
            } else {
                self.edge_normal_at(q)
            };
            return Ok((to_q + self.radius, normal));
        }
        if to_q <= self.radius {
            // Within the radius of the hull: away from it.
            let normal = if to_q > 0.0 {
                q.scale(-1.0 / to_q)
            } else {
                self.edge_normal_at(q)
            };
            return Ok((self.radius - to_q, normal));
        }
        Err(to_q - self.radius)
    }

    /// The outward normal of an edge through `q`, for an origin on the boundary.
    fn edge_normal_at(&self, q: V) -> V {
        let n = self.hull.len();
        if n < 2 {
            return V::new(1.0, 0.0);
        }
        for k in 0..n {
            let (a, b) = (self.hull[k], self.hull[(k + 1) % n]);
            if point_segment_distance(q, a, b) < 1e-12 {
                let e = b.sub(a);
                return V::new(e.y, -e.x).scale(1.0 / e.len());
            }
        }
        V::new(1.0, 0.0)
    }

    /// How far `b` must move along unit `u` to leave `a`: where the ray from the origin
    /// along `u` leaves the grown hull (bisection; the set is convex).
    fn exit_along(&self, u: V) -> f64 {
        let (mut inside, mut outside) = (0.0, 1.0);
        while self.signed(u.scale(outside)) <= 0.0 {
            outside *= 2.0;
            if outside > 1e9 {
                return f64::INFINITY;
            }
        }
        for _ in 0..80 {
            let mid = 0.5 * (inside + outside);
            if self.signed(u.scale(mid)) <= 0.0 {
                inside = mid;
            } else {
                outside = mid;
            }
        }
        inside
    }
}

/// What the oracle accepts for a pair's contact.
#[derive(Debug, Clone)]
pub enum ContactTruth {
    /// Penetration of two polygons or circles: the exact depth and normal, or the gap
    /// when they are apart (a pair of the band).
    Depth(Result<(f64, V), f64>),
    /// Cells of a pair with a bitmask: counted exactly, and the cells within the band of
    /// touching, which may count either way: the answer must lie in `min ..= max`.
    Area { min: u32, max: u32 },
}

/// A scene read once, to judge many contacts.
pub struct ContactOracle {
    scene: Scene,
}

impl ContactOracle {
    /// Reads a valid scene's JSON.
    pub fn new(scene_json: &serde_json::Value) -> Self {
        ContactOracle {
            scene: Scene::parse(scene_json),
        }
    }

    /// The oracle's contact for bodies `i < j`.
    pub fn truth(&self, i: usize, j: usize) -> ContactTruth {
        truth_of(&self.scene, i, j)
    }

    /// See [`contact_problem`].
    pub fn problem(&self, i: usize, j: usize, reported: Reported) -> Option<String> {
        problem_of(&self.scene, i, j, reported)
    }
}

/// The oracle's contact for bodies `i < j` of a scene file's JSON.
pub fn contact_truth(scene_json: &serde_json::Value, i: usize, j: usize) -> ContactTruth {
    ContactOracle::new(scene_json).truth(i, j)
}

fn truth_of(scene: &Scene, i: usize, j: usize) -> ContactTruth {
    placed_truth(&scene.place(i), &scene.place(j))
}

/// The oracle's contact of two placed shapes (convex, or bitmasks).
pub(crate) fn placed_truth(a: &Placed, b: &Placed) -> ContactTruth {
    match (a, b) {
        (
            Placed::Bitmask { ox, oy, bits },
            Placed::Bitmask {
                ox: qx,
                oy: qy,
                bits: qbits,
            },
        ) => {
            let mut area = 0;
            for r in 0..bits.height as i64 {
                for c in 0..bits.width as i64 {
                    if bits.is_set(c, r) && qbits.is_set(ox + c - qx, oy + r - qy) {
                        area += 1;
                    }
                }
            }
            ContactTruth::Area {
                min: area,
                max: area,
            }
        }
        (Placed::Bitmask { ox, oy, bits }, shape) | (shape, Placed::Bitmask { ox, oy, bits }) => {
            let (mut min, mut max) = (0, 0);
            // Cells beyond the shape's box grown by a cell cannot come within the band.
            let Some(near) = shape.aabb() else {
                return ContactTruth::Area { min, max };
            };
            let columns =
                (near.min.x.floor() as i64 - 1 - ox)..=(near.max.x.ceil() as i64 + 1 - ox);
            let rows = (near.min.y.floor() as i64 - 1 - oy)..=(near.max.y.ceil() as i64 + 1 - oy);
            for r in rows {
                for c in columns.clone() {
                    if !bits.is_set(c, r) {
                        continue;
                    }
                    let (x, y) = ((ox + c) as f64, (oy + r) as f64);
                    let cell = Placed::Polygon(vec![
                        V::new(x, y),
                        V::new(x + 1.0, y),
                        V::new(x + 1.0, y + 1.0),
                        V::new(x, y + 1.0),
                    ]);
                    let d = placed_distance(shape, &cell, f64::INFINITY);
                    if d < -BAND {
                        min += 1;
                    }
                    if d <= BAND {
                        max += 1;
                    }
                }
            }
            ContactTruth::Area { min, max }
        }
        _ => ContactTruth::Depth(difference(a, b).separation()),
    }
}

/// Why a reported contact is wrong, or `None` when the spec accepts it: depth within 0.01;
/// normal within 0.01, or any unit direction whose separating move is within 0.01 of the
/// depth (ties); areas within the band's range.
pub fn contact_problem(
    scene_json: &serde_json::Value,
    i: usize,
    j: usize,
    reported: Reported,
) -> Option<String> {
    ContactOracle::new(scene_json).problem(i, j, reported)
}

fn problem_of(scene: &Scene, i: usize, j: usize, reported: Reported) -> Option<String> {
    placed_problem(&scene.place(i), &scene.place(j), reported)
}

/// Why a reported contact of two placed shapes (convex, or bitmasks) is wrong, if it is.
pub(crate) fn placed_problem(a: &Placed, b: &Placed, reported: Reported) -> Option<String> {
    match (placed_truth(a, b), reported) {
        (ContactTruth::Area { min, max }, Reported::Area(area)) => {
            (!(min..=max).contains(&area)).then(|| format!("area {area}, not in {min}..={max}"))
        }
        (ContactTruth::Depth(Err(gap)), Reported::Depth { depth, .. }) => {
            // Apart by at most the band (else the pair would not be reported): anything
            // close to touching will do.
            (gap > BAND || depth > BAND).then(|| format!("apart by {gap}, depth {depth}"))
        }
        (ContactTruth::Depth(Ok((true_depth, true_normal))), Reported::Depth { normal, depth }) => {
            if (depth - true_depth).abs() > BAND {
                return Some(format!("depth {depth}, not {true_depth}"));
            }
            let u = V::new(normal.0, normal.1);
            if (u.len() - 1.0).abs() > 1e-3 {
                return Some(format!("normal {u:?} is not a unit vector"));
            }
            if u.sub(true_normal).len() <= BAND {
                return None;
            }
            let exit = difference(a, b).exit_along(u);
            ((exit - true_depth).abs() > BAND).then(|| {
                format!(
                    "normal {u:?}, not {true_normal:?}, and moving along it takes {exit}, not {true_depth}"
                )
            })
        }
        (truth, reported) => Some(format!("{reported:?} where the oracle has {truth:?}")),
    }
}

/// A backend's contact, in f64.
#[derive(Debug, Clone, Copy)]
pub enum Reported {
    /// Depth and normal.
    Depth { normal: (f64, f64), depth: f64 },
    /// Cells.
    Area(u32),
}

#[cfg(test)]
mod self_tests {
    use super::*;
    use serde_json::json;

    fn square(half: f64) -> serde_json::Value {
        json!({"polygon": [[-half, -half], [half, -half], [half, half], [-half, half]]})
    }

    #[test]
    fn a_square_pushed_into_a_square() {
        let scene = json!({"shapes": [square(1.0)], "bodies": [
            {"shape": 0, "x": 0, "y": 0}, {"shape": 0, "x": 1.5, "y": 0.2}]});
        let ContactTruth::Depth(Ok((depth, normal))) = contact_truth(&scene, 0, 1) else {
            panic!("overlapping squares have a depth");
        };
        assert!((depth - 0.5).abs() < 1e-12 && normal.sub(V::new(1.0, 0.0)).len() < 1e-12);
        let right = Reported::Depth {
            normal: (1.0, 0.0),
            depth: 0.5,
        };
        assert!(contact_problem(&scene, 0, 1, right).is_none());
        let wrong = Reported::Depth {
            normal: (0.0, 1.0),
            depth: 0.5,
        };
        assert!(contact_problem(&scene, 0, 1, wrong).is_some());
    }

    #[test]
    fn identical_squares_accept_any_tied_normal() {
        let scene = json!({"shapes": [square(1.0)], "bodies": [
            {"shape": 0, "x": 3, "y": 3}, {"shape": 0, "x": 3, "y": 3}]});
        for normal in [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)] {
            let r = Reported::Depth { normal, depth: 2.0 };
            assert!(contact_problem(&scene, 0, 1, r).is_none(), "{normal:?}");
        }
        let diagonal = Reported::Depth {
            normal: (0.6, 0.8),
            depth: 2.0,
        };
        assert!(contact_problem(&scene, 0, 1, diagonal).is_some());
    }

    #[test]
    fn a_circle_off_a_corner_and_circles() {
        let scene = json!({"shapes": [square(1.0), {"circle": 1.0}], "bodies": [
            {"shape": 0, "x": 0, "y": 0}, {"shape": 1, "x": 1.5, "y": 1.5},
            {"shape": 1, "x": 3.0, "y": 1.5}]});
        let ContactTruth::Depth(Ok((depth, normal))) = contact_truth(&scene, 0, 1) else {
            panic!("overlapping");
        };
        let half = std::f64::consts::FRAC_1_SQRT_2;
        assert!((depth - (1.0 - half)).abs() < 1e-12, "{depth}");
        assert!(normal.sub(V::new(half, half)).len() < 1e-12);
        let ContactTruth::Depth(Ok((depth, normal))) = contact_truth(&scene, 1, 2) else {
            panic!("overlapping");
        };
        assert!((depth - 0.5).abs() < 1e-12 && normal.sub(V::new(1.0, 0.0)).len() < 1e-12);
    }
}
