// Stage 2, broad phase: candidate pairs whose filters agree and whose boxes overlap.
// CPU twin: src/cpu/broad.rs. This version tests all pairs, fine for a few thousand
// bodies; the narrow phase only reads the candidate list, however it was made.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> infos: array<BodyInfo>;
@group(0) @binding(2) var<storage, read> aabbs: array<Aabb>;
@group(0) @binding(3) var<storage, read_write> candidates: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read_write> counters: Counters;

@compute @workgroup_size(WORKGROUP_SIZE)
fn broad(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = global_index(workgroup, local);
    if i >= params.body_count {
        return;
    }
    let info_i = infos[i];
    let box_i = aabbs[i];
    for (var j = i + 1u; j < params.body_count; j++) {
        if filters_agree(info_i, infos[j]) && aabbs_overlap(box_i, aabbs[j]) {
            // Count every candidate, store those that fit: the host grows and reruns.
            let slot = atomicAdd(&counters.candidates, 1u);
            if slot < params.candidate_capacity {
                candidates[slot] = vec2<u32>(i, j);
            }
        }
    }
}
