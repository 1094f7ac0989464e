// Geometry and filter helpers every stage uses: rotating a point, testing two filters
// or two boxes, entering a disc, the distance to a segment. Twin of src/layout/geometry.rs, operation for operation, so
// that the two backends round alike.

// Rotates `v` by the rotation stored as (cos, sin).
fn rotate(v: vec2<f32>, rotation: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(rotation.x * v.x - rotation.y * v.y, rotation.y * v.x + rotation.x * v.y);
}

// The distance from `q` to the segment from `a` to `b` (a point when a == b). Twin of
// geometry::segment_distance, which says why it is computed from the nearest point.
fn segment_distance(a: vec2<f32>, b: vec2<f32>, q: vec2<f32>) -> f32 {
    return length(q - segment_closest(a, b, q));
}

// The point of the segment from `a` to `b` nearest `q`. Twin of geometry::segment_closest.
fn segment_closest(a: vec2<f32>, b: vec2<f32>, q: vec2<f32>) -> vec2<f32> {
    let ab = b - a;
    let length2 = dot(ab, ab);
    var t = 0.0;
    if length2 > 0.0 {
        t = clamp(dot(q - a, ab) / length2, 0.0, 1.0);
    }
    return a + ab * t;
}

fn perp_dot(u: vec2<f32>, v: vec2<f32>) -> f32 {
    return u.x * v.y - u.y * v.x;
}

fn opposite_signs(x: f32, y: f32) -> bool {
    return (x < 0.0 && y > 0.0) || (x > 0.0 && y < 0.0);
}

// Whether the segments a0 a1 and b0 b1 cross, each end of one strictly on its own side
// of the other's line. Twin of geometry::segments_cross.
fn segments_cross(a0: vec2<f32>, a1: vec2<f32>, b0: vec2<f32>, b1: vec2<f32>) -> bool {
    let da = a1 - a0;
    let db = b1 - b0;
    return opposite_signs(perp_dot(da, b0 - a0), perp_dot(da, b1 - a0))
        && opposite_signs(perp_dot(db, a0 - b0), perp_dot(db, a1 - b0));
}

// The distance between the segments a0 a1 and b0 b1: 0 when they cross, else the least
// of the four ends' distances to the other segment. Twin of geometry::segments_distance.
fn segments_distance(a0: vec2<f32>, a1: vec2<f32>, b0: vec2<f32>, b1: vec2<f32>) -> f32 {
    if segments_cross(a0, a1, b0, b1) {
        return 0.0;
    }
    return min(min(segment_distance(b0, b1, a0), segment_distance(b0, b1, a1)),
        min(segment_distance(a0, a1, b0), segment_distance(a0, a1, b1)));
}

fn filters_agree(a: BodyInfo, b: BodyInfo) -> bool {
    return (a.layer & b.mask) != 0u && (b.layer & a.mask) != 0u;
}

// Whether two bodies are parts of one of the caller's bodies (BodyInfo::owner), which
// are never a pair. Twin of `same_owner` in src/layout/geometry.rs.
fn same_owner(a: u32, b: u32) -> bool {
    return a == b && a != NO_OWNER;
}

fn aabbs_overlap(a: Aabb, b: Aabb) -> bool {
    return all(a.min <= b.max) && all(b.min <= a.max);
}

// Where the segment start + t·delta, t in [0, 1], first enters the closed disc of
// `radius` about the origin. Twin of geometry::disc_entry, which says why it is computed
// along the segment (no cancellation, no overflow) rather than from the quadratic.
struct DiscEntry {
    hit: bool,
    t: f32,
    // The point of the circle it enters by; (0, 0) when it starts in the disc (t = 0).
    point: vec2<f32>,
}

fn disc_entry(start: vec2<f32>, radius: f32, delta: vec2<f32>) -> DiscEntry {
    let missed = DiscEntry(false, 0.0, vec2<f32>(0.0));
    if scaled_length(start) <= radius {
        return DiscEntry(true, 0.0, vec2<f32>(0.0));
    }
    let largest = max(abs(delta.x), abs(delta.y));
    if largest == 0.0 {
        return missed;
    }
    let d = delta / largest;
    let reach = length(d);
    let u = d / reach;
    let across = vec2<f32>(-u.y, u.x);
    let along = -dot(start, u);
    let side = dot(start, across);
    // Written so that a number that is not one misses.
    if !(along > 0.0 && abs(side) <= radius) {
        return missed;
    }
    let half = sqrt((radius - abs(side)) * (radius + abs(side)));
    let run = max(along - half, 0.0) / largest;
    if !(run <= reach) {
        return missed;
    }
    return DiscEntry(true, min(run / reach, 1.0), across * side - u * half);
}

// Where the segment start + t·delta, t in [0, 1], first comes within `radius` of the
// segment a b: the first of its end discs' entries and of its long sides'. `normal` is
// the capsule's outward normal there ((0, 0) when it starts inside, t = 0); at a side
// of no width the side faced, at an end of no width the way back along delta. Twin of
// geometry::capsule_entry, which says why.
struct CapsuleEntry {
    hit: bool,
    t: f32,
    normal: vec2<f32>,
}

fn capsule_entry(start: vec2<f32>, delta: vec2<f32>, a: vec2<f32>, b: vec2<f32>, radius: f32) -> CapsuleEntry {
    if segment_distance(a, b, start) <= radius {
        return CapsuleEntry(true, 0.0, vec2<f32>(0.0));
    }
    let back = -delta / scaled_length(delta);
    var best = CapsuleEntry(false, 0.0, vec2<f32>(0.0));
    for (var k = 0u; k < 2u; k++) {
        let end = select(a, b, k == 1u);
        let entry = disc_entry(start - end, radius, delta);
        if entry.hit && (!best.hit || entry.t < best.t) {
            var normal = entry.point / scaled_length(entry.point);
            if !(all(abs(normal) <= vec2<f32>(1.0))) {
                normal = back;
            }
            best = CapsuleEntry(true, entry.t, normal);
        }
    }
    let along = b - a;
    let span = scaled_length(along);
    if span > 0.0 {
        let u = along / span;
        let across = vec2<f32>(-u.y, u.x);
        let side = dot(start - a, across);
        let facing = select(-across, across, side > 0.0);
        let gap = abs(side) - radius;
        let approach = -dot(delta, facing);
        if gap >= 0.0 && approach > 0.0 {
            let t = gap / approach;
            let reached = dot(start + delta * t - a, u);
            if t <= 1.0 && reached >= 0.0 && reached <= span && (!best.hit || t < best.t) {
                best = CapsuleEntry(true, t, facing);
            }
        }
    }
    return best;
}

// How far to bring a ray's start along it before testing a shape within `reach` of the
// origin: the time at which it comes within APPROACH_MARGIN of that circle along the
// ray (0 when it starts there), or a negative number when the segment ends before it
// could meet the shape. Twin of geometry::approach, which says why.
const APPROACH_MARGIN: f32 = 1.0;

fn approach(start: vec2<f32>, delta: vec2<f32>, reach: f32) -> f32 {
    let largest = max(abs(delta.x), abs(delta.y));
    if largest == 0.0 {
        return 0.0;
    }
    let d = delta / largest;
    let length = length(d);
    let run = (-dot(start, d / length) - (reach + APPROACH_MARGIN)) / largest;
    // Written so that a number that is not one starts here.
    if !(run > 0.0) {
        return 0.0;
    }
    return select(-1.0, run / length, run < length);
}

// |v| without overflow, v scaled by its largest component first. Twin of
// geometry::scaled_length.
fn scaled_length(v: vec2<f32>) -> f32 {
    let largest = max(abs(v.x), abs(v.y));
    if largest == 0.0 || largest > 3.4e38 {
        return largest;
    }
    return largest * length(v / largest);
}
