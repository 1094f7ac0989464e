//! The walk's box keys as the GPU computes them (`box_key` and `box_keys_may_meet` in
//! shaders/grid.wgsl): boxes that meet always may meet, also against the cpu twin's keys
//! (`gpu_collide::grid::box_key`), which another kernel's rounding may part from by a
//! step; boxes a quarter of a cell apart do not; and the GPU's keys are the twin's
//! within that step. The walk's uniform form drops every entry whose key says no, so a
//! key that wrongly said no would lose a pair.

use gpu_collide::glam::Vec2;
use gpu_collide::grid::{
    box_key, box_keys_may_meet, level_cell, GridParams, TableLayout, BODY_KEY_WIDTH, NO_BOX_KEY,
    SEEKER_KEY_WIDTH,
};
use gpu_collide::layout::packed::{wgsl_constants, Aabb, Params};
use gpu_collide::wgpu::util::DeviceExt;
use gpu_collide::{wgpu, GpuContext};

use crate::support;

const KERNEL: &str = r#"
@group(0) @binding(0) var<uniform> uploaded_params: Params;
var<private> params: Params;
// grid.wgsl's table functions read it; this kernel does not.
@group(0) @binding(3) var<storage, read> buckets: array<u32>;

struct KeyCase {
    body: Aabb,
    seeker: Aabb,
    level: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(1) var<storage, read> cases: array<KeyCase>;
@group(0) @binding(2) var<storage, read_write> keys: array<vec4<u32>>;

@compute @workgroup_size(64)
fn keys_of(@builtin(global_invocation_id) id: vec3<u32>) {
    params = uploaded_params;
    let k = id.x;
    if k >= arrayLength(&cases) {
        return;
    }
    let c = cases[k];
    let body = box_key(c.body, c.level, BODY_KEY_WIDTH);
    let seeker = box_key(c.seeker, c.level, SEEKER_KEY_WIDTH);
    keys[k] = vec4<u32>(body, seeker, select(0u, 1u, box_keys_may_meet(seeker, body)), 0u);
}
"#;

/// A case as the kernel reads it.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct KeyCase {
    body: Aabb,
    seeker: Aabb,
    level: u32,
    pad: [u32; 3],
}

fn aabb(min: Vec2, max: Vec2) -> Aabb {
    Aabb {
        min: min.into(),
        max: max.into(),
    }
}

fn meet(a: &Aabb, b: &Aabb) -> bool {
    (0..2).all(|k| a.min[k] <= b.max[k] && b.min[k] <= a.max[k])
}

/// xorshift64*: the cases must be the same on every run, and need no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// In [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() >> 33) as u32 % n
    }
}

/// A body's box (at most a cell wide, as level_of places it) on `level`, up to 2^24
/// cells from the origin, and a box that touches or overlaps it.
fn meeting_case(rng: &mut Rng, params: &GridParams, level: u32) -> KeyCase {
    let cell = level_cell(params, level);
    let centre = Vec2::new(rng.unit() * 2.0 - 1.0, rng.unit() * 2.0 - 1.0)
        * cell
        * (rng.below(25) as f32).exp2();
    let half = Vec2::new(rng.unit(), rng.unit()) * 0.49995 * cell;
    let body = aabb(centre - half, centre + half);
    let mut t = Vec2::new(rng.unit(), rng.unit());
    match rng.below(4) {
        0 => t.x = 1.0,
        1 => t.y = 0.0,
        _ => {}
    }
    let point = Vec2::from(body.min) + (Vec2::from(body.max) - Vec2::from(body.min)) * t;
    let mut below = Vec2::new(rng.unit(), rng.unit()) * 3.0 * cell;
    let mut above = Vec2::new(rng.unit(), rng.unit()) * 3.0 * cell;
    match rng.below(3) {
        0 => below = Vec2::ZERO,
        1 => above = Vec2::ZERO,
        _ => {}
    }
    KeyCase {
        body,
        seeker: aabb(point - below, point + above),
        level,
        pad: [0; 3],
    }
}

/// The GPU's keys of `cases`: (body key, seeker key, whether they may meet).
fn gpu_keys(context: &GpuContext, base_cell: f32, cases: &[KeyCase]) -> Vec<[u32; 4]> {
    let device = &context.device;
    let source = format!(
        "{}\n{}\n{}\n{}\n{}",
        wgsl_constants(),
        include_str!("../shaders/types.wgsl"),
        include_str!("../shaders/geometry.wgsl"),
        include_str!("../shaders/grid.wgsl"),
        KERNEL
    );
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("box keys"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("box keys"),
        layout: None,
        module: &module,
        entry_point: Some("keys_of"),
        compilation_options: Default::default(),
        cache: None,
    });
    let params = Params {
        base_cell,
        ..bytemuck::Zeroable::zeroed()
    };
    let init = |contents: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents,
            usage,
        })
    };
    let params = init(bytemuck::bytes_of(&params), wgpu::BufferUsages::UNIFORM);
    let cases_buffer = init(bytemuck::cast_slice(cases), wgpu::BufferUsages::STORAGE);
    let size = (cases.len() * 16) as u64;
    let keys = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let entries = [&params, &cases_buffer, &keys]
        .iter()
        .enumerate()
        .map(|(binding, buffer)| wgpu::BindGroupEntry {
            binding: binding as u32,
            resource: buffer.as_entire_binding(),
        })
        .collect::<Vec<_>>();
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    });
    let groups = (cases.len() as u32).div_ceil(64);
    support::dispatch_and_read(context, &pipeline, &bind, groups, &keys, size)
}

/// Whether keys `a` and `b` are both keys whose every coordinate lies within a step of
/// the other's, or both no key.
fn within_a_step(a: u32, b: u32) -> bool {
    if a == NO_BOX_KEY || b == NO_BOX_KEY {
        return a == b;
    }
    (0..4).all(|k| {
        let d = (a >> (8 * k)).wrapping_sub(b >> (8 * k)) & 0xff;
        d <= 1 || d == 0xff
    })
}

#[test]
fn gpu_box_keys_never_part_boxes_that_meet() {
    let Some(context) = support::gpu() else {
        return;
    };
    for (round, base_cell) in [1.0f32, 0.37, 23.5].into_iter().enumerate() {
        let params = GridParams {
            base_cell,
            bucket_count: 1024,
            waiter_layers: 0,
            layout: TableLayout::SCATTERED,
        };
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ round as u64);
        let mut cases: Vec<KeyCase> = (0..20_000)
            .map(|k| {
                let level = if k % 10 == 0 {
                    rng.below(32)
                } else {
                    rng.below(6)
                };
                meeting_case(&mut rng, &params, level)
            })
            .filter(|c| meet(&c.body, &c.seeker))
            .collect();
        let meeting = cases.len();
        assert!(meeting > 15_000, "the generator makes boxes that meet");
        // Boxes a quarter of a cell apart along one axis, near the origin, on levels 0-5.
        for k in 0..2000u32 {
            let level = k % 6;
            let cell = level_cell(&params, level);
            let at = Vec2::new(rng.unit(), rng.unit()) * 40.0 * cell;
            let body = aabb(at, at + Vec2::splat(0.5 * cell));
            let gap = if k % 2 == 0 {
                Vec2::new(0.75 * cell, 0.0)
            } else {
                Vec2::new(0.0, -1.25 * cell)
            };
            let seeker = aabb(at + gap, at + gap + Vec2::splat(0.5 * cell));
            cases.push(KeyCase {
                body,
                seeker,
                level,
                pad: [0; 3],
            });
        }
        let keys = gpu_keys(&context, base_cell, &cases);
        let mut same = 0;
        for (case, &[body, seeker, may_meet, _]) in cases[..meeting].iter().zip(&keys) {
            let twin_body = box_key(&params, &case.body, case.level, BODY_KEY_WIDTH);
            let twin_seeker = box_key(&params, &case.seeker, case.level, SEEKER_KEY_WIDTH);
            assert_eq!(
                may_meet, 1,
                "the GPU parted boxes that meet: {case:?}, keys {body:08x} {seeker:08x}"
            );
            assert!(
                box_keys_may_meet(twin_seeker, body) && box_keys_may_meet(seeker, twin_body),
                "the GPU's and the twin's keys part boxes that meet: {case:?}, gpu {body:08x} {seeker:08x}, twin {twin_body:08x} {twin_seeker:08x}"
            );
            assert!(
                within_a_step(body, twin_body) && within_a_step(seeker, twin_seeker),
                "the GPU's keys are not the twin's: {case:?}, gpu {body:08x} {seeker:08x}, twin {twin_body:08x} {twin_seeker:08x}"
            );
            same += usize::from(body == twin_body && seeker == twin_seeker);
        }
        // A step apart only where a division rounds differently: the same formula.
        assert!(
            same * 100 >= meeting * 99,
            "the GPU's keys equal the twin's in {same} cases of {meeting}"
        );
        for (case, &[body, seeker, may_meet, _]) in cases[meeting..].iter().zip(&keys[meeting..]) {
            assert_ne!(body, NO_BOX_KEY);
            assert_eq!(
                may_meet, 0,
                "keys {body:08x} {seeker:08x} of boxes apart may meet: {case:?}"
            );
        }
    }
}
