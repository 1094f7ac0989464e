// Stage 1, bounds: the world AABB of every body. CPU twin: src/cpu/bounds.rs.
// Before it, for frames whose positions live in a buffer of the caller's, read_bodies
// turns them into transforms (host twin: library::source_rotation).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> library: array<u32>;
// Written only by read_bodies; the host writes it otherwise.
@group(0) @binding(2) var<storage, read_write> transforms: array<BodyTransform>;
@group(0) @binding(3) var<storage, read> infos: array<BodyInfo>;
@group(0) @binding(4) var<storage, read_write> aabbs: array<Aabb>;
// The caller's buffer of bodies, bound per frame (GpuCollider::record_from_buffer).
@group(0) @binding(5) var<storage, read> source: array<u32>;
@group(0) @binding(6) var<storage, read_write> counters: Counters;
// Each body's displacement over the frame; read only when params.swept (sweep.wgsl).
@group(0) @binding(7) var<storage, read> velocities: array<vec2<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn bounds(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = global_index(workgroup, local);
    if i >= params.body_count {
        return;
    }
    // Field by field, and only what the body's kind needs: llvmpipe loads a storage
    // buffer one word and one invocation at a time, so a bullet reading its whole
    // transform and shape record paid for words it never used.
    let position = transforms[i].position;
    let s = infos[i].shape;
    var box: Aabb;
    if infos[i].kind == SHAPE_POLYGON {
        // Rotated vertices give the exact box; the unrotated bounds would not.
        let rotation = transforms[i].rotation;
        let vertices = library_vertices(s);
        box = Aabb(vec2<f32>(3.4e38), vec2<f32>(-3.4e38));
        for (var k = vertices.x; k < vertices.y; k++) {
            let p = position + rotate(library_vertex(k).position, rotation);
            box = Aabb(min(box.min, p), max(box.max, p));
        }
    } else {
        box = library_bounds(s);
        box = Aabb(position + box.min, position + box.max);
    }
    if params.swept != 0u {
        // The box over the whole motion: the boxes at t = 0 and t = 1 joined (the body
        // slides without turning, so every box between lies within). CPU twin:
        // cpu::bounds::swept_bounds.
        let v = velocities[i];
        box = Aabb(min(box.min, box.min + v), max(box.max, box.max + v));
    }
    aabbs[i] = box;
}

// One thread per body: its position (and angle, where the caller's struct has one) from
// the caller's buffer. A body the pipeline cannot take (a coordinate or angle that is
// not finite, a bitmask off the whole numbers or rotated) is counted and kept at the
// origin, so the frame still ends; the header says the frame is not complete, and the
// host refuses the next frame naming the body.
@compute @workgroup_size(WORKGROUP_SIZE)
fn read_bodies(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = global_index(workgroup, local);
    if i >= params.body_count {
        return;
    }
    let at = i * params.source_stride;
    let position = vec2<f32>(
        bitcast<f32>(source[at + params.source_position]),
        bitcast<f32>(source[at + params.source_position + 1u]),
    );
    var angle = 0.0;
    if params.source_angle != NO_SOURCE_ANGLE {
        angle = bitcast<f32>(source[at + params.source_angle]);
    }
    var valid = is_finite(position.x) && is_finite(position.y) && is_finite(angle);
    if infos[i].kind == SHAPE_BITMASK {
        valid = valid && all(position == floor(position)) && angle == 0.0
            && all(abs(position) <= vec2<f32>(MAX_BITMASK_COORDINATE));
    }
    if valid {
        transforms[i] = BodyTransform(position, accurate_rotation(angle));
    } else {
        atomicAdd(&counters.invalid_bodies, 1u);
        atomicMax(&counters.first_invalid, ~i);
        transforms[i] = BodyTransform(vec2<f32>(0.0), vec2<f32>(1.0, 0.0));
    }
}

// Finite: neither infinite nor NaN, judged from the exponent bits. WGSL has no isfinite,
// and a comparison does not do: GL drivers may assume no NaN (measured on llvmpipe's GL,
// where `abs(x) <= 3.4e38` held for a NaN).
fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// (cos, sin) of `angle` within a few ulps. WGSL's own sin and cos promise an absolute
// error of only 2^-11 on [-pi, pi] (and nothing outside it), which moves a vertex 1000
// units from a body's origin by half a unit: far outside the format's 0.01. Mirrored,
// operation for operation, by library::source_rotation.
fn accurate_rotation(angle: f32) -> vec2<f32> {
    // angle = k * pi/2 + r with |r| <= pi/4; pi/2 in three parts, the first short enough
    // that k times it is exact (Cody and Waite's reduction).
    let k = round(angle * 0.63661977);
    let r = ((angle - k * 1.5703125) - k * 4.8382679e-4) - k * 2.5632829e-12;
    let r2 = r * r;
    // Taylor series to r^9 and r^10: at |r| <= pi/4 their error is below 2e-9.
    let s = r + r * r2 * (-1.6666667e-1 + r2 * (8.3333333e-3 + r2 * (-1.9841270e-4 + r2 * 2.7557319e-6)));
    let c = 1.0 + r2 * (-0.5 + r2 * (4.1666667e-2 + r2 * (-1.3888889e-3 + r2 * (2.4801587e-5 - r2 * 2.7557319e-7))));
    switch (i32(k) & 3) {
        case 0: { return vec2<f32>(c, s); }
        case 1: { return vec2<f32>(-s, c); }
        case 2: { return vec2<f32>(-c, -s); }
        default: { return vec2<f32>(s, -c); }
    }
}
