//! Plane geometry in f64: points, segments, their intersections and distances.

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct V {
    pub(crate) x: f64,
    pub(crate) y: f64,
}

impl V {
    pub(crate) fn new(x: f64, y: f64) -> V {
        V { x, y }
    }
    pub(crate) fn sub(self, o: V) -> V {
        V::new(self.x - o.x, self.y - o.y)
    }
    pub(crate) fn add(self, o: V) -> V {
        V::new(self.x + o.x, self.y + o.y)
    }
    pub(crate) fn scale(self, k: f64) -> V {
        V::new(self.x * k, self.y * k)
    }
    pub(crate) fn dot(self, o: V) -> f64 {
        self.x * o.x + self.y * o.y
    }
    pub(crate) fn cross(self, o: V) -> f64 {
        self.x * o.y - self.y * o.x
    }
    pub(crate) fn len(self) -> f64 {
        self.x.hypot(self.y)
    }
}

/// Twice the signed area of triangle abc: > 0 when c is left of a→b.
pub(crate) fn orient(a: V, b: V, c: V) -> f64 {
    b.sub(a).cross(c.sub(a))
}

/// Euclidean distance from p to the closed segment ab.
pub(crate) fn point_segment_distance(p: V, a: V, b: V) -> f64 {
    let ab = b.sub(a);
    let len2 = ab.dot(ab);
    let t = if len2 > 0.0 {
        (p.sub(a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.sub(a.add(ab.scale(t))).len()
}

/// For p known to be on the line ab: is it within the segment's bounding box?
pub(crate) fn within_box(p: V, a: V, b: V) -> bool {
    p.x >= a.x.min(b.x) && p.x <= a.x.max(b.x) && p.y >= a.y.min(b.y) && p.y <= a.y.max(b.y)
}

/// Do the closed segments p1p2 and q1q2 share a point? Classic orientation test, with the
/// collinear and touching cases handled so that touching counts.
pub(crate) fn segments_intersect(p1: V, p2: V, q1: V, q2: V) -> bool {
    let o1 = orient(p1, p2, q1);
    let o2 = orient(p1, p2, q2);
    let o3 = orient(q1, q2, p1);
    let o4 = orient(q1, q2, p2);
    let straddles = |a: f64, b: f64| (a > 0.0 && b < 0.0) || (a < 0.0 && b > 0.0);
    if straddles(o1, o2) && straddles(o3, o4) {
        return true;
    }
    (o1 == 0.0 && within_box(q1, p1, p2))
        || (o2 == 0.0 && within_box(q2, p1, p2))
        || (o3 == 0.0 && within_box(p1, q1, q2))
        || (o4 == 0.0 && within_box(p2, q1, q2))
}

/// Edges of a polygon as (start, end) pairs, closing the loop.
pub(crate) fn edges(poly: &[V]) -> impl Iterator<Item = (V, V)> + '_ {
    (0..poly.len()).map(move |k| (poly[k], poly[(k + 1) % poly.len()]))
}

/// Is p inside or on the convex counter-clockwise polygon? (Left of or on every edge.)
pub(crate) fn point_in_convex(p: V, poly: &[V]) -> bool {
    edges(poly).all(|(a, b)| orient(a, b, p) >= 0.0)
}

/// Distance from p to the boundary of the polygon (zero on it).
pub(crate) fn distance_to_boundary(p: V, poly: &[V]) -> f64 {
    edges(poly)
        .map(|(a, b)| point_segment_distance(p, a, b))
        .fold(f64::INFINITY, f64::min)
}

/// Projection interval of a polygon on an axis.
pub(crate) fn project(poly: &[V], axis: V) -> (f64, f64) {
    poly.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            let t = p.dot(axis);
            (lo.min(t), hi.max(t))
        })
}

/// Gap between two disjoint convex polygons: the nearest points always include a vertex of
/// one of them, so the minimum vertex-to-edge distance both ways is exact.
pub(crate) fn convex_gap(a: &[V], b: &[V]) -> f64 {
    let one_way = |from: &[V], to: &[V]| {
        from.iter()
            .map(|&p| distance_to_boundary(p, to))
            .fold(f64::INFINITY, f64::min)
    };
    one_way(a, b).min(one_way(b, a))
}

/// Signed distance between two convex counter-clockwise polygons.
pub(crate) fn polygon_polygon(a: &[V], b: &[V]) -> f64 {
    rounded_rounded(a, 0.0, b, 0.0)
}

/// Signed distance between a circle and a convex counter-clockwise polygon.
pub(crate) fn circle_polygon(centre: V, radius: f64, poly: &[V]) -> f64 {
    let e = distance_to_boundary(centre, poly);
    if point_in_convex(centre, poly) {
        -(e + radius)
    } else {
        e - radius
    }
}

pub(crate) fn circle_circle(c1: V, r1: f64, c2: V, r2: f64) -> f64 {
    c1.sub(c2).len() - r1 - r2
}

/// Twice the signed area (positive for counter-clockwise).
pub(crate) fn doubled_area(poly: &[V]) -> f64 {
    edges(poly).map(|(a, b)| a.cross(b)).sum()
}

/// Is p in the closed convex hull `hull`: counter-clockwise, of 3 or more points, or of
/// 2 (a segment) or 1 (a point), as the hulls of capsules are.
pub(crate) fn point_in_hull(p: V, hull: &[V]) -> bool {
    match hull {
        [q] => p == *q,
        [a, b] => orient(*a, *b, p) == 0.0 && within_box(p, *a, *b),
        _ => point_in_convex(p, hull),
    }
}

/// Do two closed convex hulls (of any number of points, see [`point_in_hull`]) share a
/// point? Either one has a point inside or on the other (covers containment and touching
/// at a vertex), or two edges meet (covers crossings such as a plus sign, where no vertex
/// is inside the other); a one-point hull's edge is the point itself.
pub(crate) fn hulls_meet(a: &[V], b: &[V]) -> bool {
    a.iter().any(|&p| point_in_hull(p, b))
        || b.iter().any(|&p| point_in_hull(p, a))
        || edges(a).any(|(p1, p2)| edges(b).any(|(q1, q2)| segments_intersect(p1, p2, q1, q2)))
}

/// Penetration depth of two convex hulls that meet: the shortest translation that
/// separates them, which for convex shapes lies along an edge normal of one of them, the
/// least push apart over the normals of their edges of non-zero length (a segment's two sides count). Two points,
/// or a point on a segment, have no area between them: 0.
pub(crate) fn hull_penetration(a: &[V], b: &[V]) -> f64 {
    let depth = edges(a)
        .chain(edges(b))
        .filter(|(p, q)| p != q)
        .map(|(p, q)| {
            let e = q.sub(p);
            let axis = V::new(-e.y, e.x).scale(1.0 / e.len());
            let (a_lo, a_hi) = project(a, axis);
            let (b_lo, b_hi) = project(b, axis);
            (a_hi - b_lo).min(b_hi - a_lo)
        })
        .fold(f64::INFINITY, f64::min);
    if depth.is_finite() {
        depth.max(0.0)
    } else {
        0.0
    }
}

/// Signed distance between two rounded convex shapes, each a convex hull (1 point: a
/// point or circle, 2: a segment or capsule, 3 or more: a polygon) grown by a radius.
/// Growing a set by `r` moves every support line out by `r`, so the signed distance of
/// the grown shapes is the hulls' less the two radii, gap or penetration alike.
pub(crate) fn rounded_rounded(a: &[V], ra: f64, b: &[V], rb: f64) -> f64 {
    let hulls = if hulls_meet(a, b) {
        -hull_penetration(a, b)
    } else {
        convex_gap(a, b)
    };
    hulls - ra - rb
}

/// A simple polygon (counter-clockwise, no straight vertices needed) cut into triangles
/// by ear clipping, for the oracle alone: O(n³), plain, and independent of the crate's
/// own cut into convex pieces. Straight vertices are dropped first and as they appear:
/// they bound nothing.
pub(crate) fn triangulate(outline: &[V]) -> Vec<[V; 3]> {
    let mut ring: Vec<V> = outline.to_vec();
    let mut triangles = Vec::new();
    loop {
        // Drop straight vertices (collinear with both neighbours).
        let mut k = 0;
        while ring.len() > 3 && k < ring.len() {
            let n = ring.len();
            if orient(ring[(k + n - 1) % n], ring[k], ring[(k + 1) % n]) == 0.0 {
                ring.remove(k);
                k = 0;
            } else {
                k += 1;
            }
        }
        let n = ring.len();
        if n == 3 {
            triangles.push([ring[0], ring[1], ring[2]]);
            return triangles;
        }
        let ear = (0..n).find(|&k| {
            let (p, q, r) = (ring[(k + n - 1) % n], ring[k], ring[(k + 1) % n]);
            orient(p, q, r) > 0.0
                && ring
                    .iter()
                    .filter(|&&v| v != p && v != q && v != r)
                    .all(|&v| !point_in_convex(v, &[p, q, r]))
        });
        let k = ear.unwrap_or_else(|| panic!("oracle: no ear in {ring:?}: not a simple outline"));
        triangles.push([ring[(k + n - 1) % n], ring[k], ring[(k + 1) % n]]);
        ring.remove(k);
    }
}
