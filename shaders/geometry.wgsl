// Geometry and filter helpers every stage uses: rotating a point, testing two filters
// or two boxes, entering a disc. Twin of src/layout/geometry.rs, operation for operation, so
// that the two backends round alike.

// Rotates `v` by the rotation stored as (cos, sin).
fn rotate(v: vec2<f32>, rotation: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(rotation.x * v.x - rotation.y * v.y, rotation.y * v.x + rotation.x * v.y);
}

fn filters_agree(a: BodyInfo, b: BodyInfo) -> bool {
    return (a.layer & b.mask) != 0u && (b.layer & a.mask) != 0u;
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

// |v| without overflow, v scaled by its largest component first. Twin of
// geometry::scaled_length.
fn scaled_length(v: vec2<f32>) -> f32 {
    let largest = max(abs(v.x), abs(v.y));
    if largest == 0.0 || largest > 3.4e38 {
        return largest;
    }
    return largest * length(v / largest);
}
