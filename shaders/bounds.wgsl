// Stage 1, bounds: the world AABB of every body. CPU twin: src/cpu/bounds.rs.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> library: array<u32>;
@group(0) @binding(2) var<storage, read> transforms: array<BodyTransform>;
@group(0) @binding(3) var<storage, read> infos: array<BodyInfo>;
@group(0) @binding(4) var<storage, read_write> aabbs: array<Aabb>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn bounds(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = global_index(workgroup, local);
    if i >= params.body_count {
        return;
    }
    let t = transforms[i];
    let shape = library_shape(infos[i].shape);
    var box = Aabb(t.position + shape.bounds_min, t.position + shape.bounds_max);
    if shape.kind == SHAPE_POLYGON {
        // Rotated vertices give the exact box; the unrotated bounds would not.
        box = Aabb(vec2<f32>(3.4e38), vec2<f32>(-3.4e38));
        for (var k = 0u; k < shape.count; k++) {
            let p = t.position + rotate(library_vertex(shape.first + k).position, t.rotation);
            box = Aabb(min(box.min, p), max(box.max, p));
        }
    }
    aabbs[i] = box;
}
