//! Every shader parses and validates with naga, with no adapter; every uploaded Rust
//! struct has the size and field offsets of the WGSL struct it mirrors.

use std::mem::{offset_of, size_of};

use gpu_collide::layout::packed::*;
use gpu_collide::layout::shaders::{GridBinding, LibraryBinding, Stage};

fn module(stage: Stage) -> naga::Module {
    module_for(stage, GridBinding::Storage)
}

/// The stage's module with the library in storage and the walk reading the grid
/// through `grid`.
fn module_for(stage: Stage, grid: GridBinding) -> naga::Module {
    let source = stage.source_for(LibraryBinding::Storage, grid);
    naga::front::wgsl::parse_str(&source)
        .unwrap_or_else(|e| panic!("{}: {}", stage.name(), e.emit_to_string(&source)))
}

/// Every module, with the library bound either way (`LibraryBinding`) and the grid read
/// either way (`GridBinding`), and the contact pass's too.
#[test]
fn every_stage_parses_and_validates() {
    let forms = LibraryBinding::ALL
        .into_iter()
        .flat_map(|library| GridBinding::ALL.map(|grid| (library, grid)));
    for (library, grid) in forms {
        let modules = Stage::MODULES
            .into_iter()
            .map(|stage| (stage.name(), stage.source_for(library, grid)))
            .chain([(
                "contact",
                gpu_collide::layout::shaders::contact_source(library),
            )]);
        for (name, source) in modules {
            let form = format!("{library:?}, {grid:?}");
            let module = naga::front::wgsl::parse_str(&source)
                .unwrap_or_else(|e| panic!("{name}, {form}: {}", e.emit_to_string(&source)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::empty(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name}, {form}: {}", e.emit_to_string(&source)));
            assert!(
                name == "contact" || module.entry_points.iter().any(|e| e.name == name),
                "{name} has no entry point of its name"
            );
        }
    }
}

/// The two forms of the library's binding declare the same variable at the same binding,
/// and only the stages that read the library declare it.
#[test]
fn the_library_is_bound_alike_in_both_forms() {
    for stage in Stage::MODULES {
        let declared: Vec<_> = LibraryBinding::ALL
            .into_iter()
            .map(|library| {
                let module =
                    naga::front::wgsl::parse_str(&stage.source_with(library)).expect("parses");
                let library = module
                    .global_variables
                    .iter()
                    .find(|(_, var)| var.name.as_deref() == Some("library"))
                    .map(|(_, var)| (var.binding, var.space));
                library
            })
            .collect();
        if stage == Stage::Broad {
            assert_eq!(declared, [None, None], "broad reads no library");
            continue;
        }
        let [Some((storage_at, storage)), Some((uniform_at, uniform))] = &declared[..] else {
            panic!("{}: library not declared in both forms", stage.name());
        };
        assert_eq!(storage_at, uniform_at, "{}", stage.name());
        assert!(
            matches!(storage, naga::AddressSpace::Storage { .. }),
            "{}",
            stage.name()
        );
        assert_eq!(*uniform, naga::AddressSpace::Uniform, "{}", stage.name());
    }
}

/// Every entry point that reads the frame's parameters first copies them from the
/// uniform into the private `params` (types.wgsl says why): one that did not would read
/// zeros.
#[test]
fn every_kernel_that_reads_params_copies_them_first() {
    let sources = Stage::MODULES
        .into_iter()
        .map(|stage| (stage.name().to_string(), stage.source()))
        .chain([(
            "contact".to_string(),
            gpu_collide::layout::shaders::contact_source(LibraryBinding::Storage),
        )]);
    let mut copying = 0;
    for (name, source) in sources {
        let module = naga::front::wgsl::parse_str(&source).expect("parses");
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .expect("valid");
        let (params, _) = module
            .global_variables
            .iter()
            .find(|(_, var)| var.name.as_deref() == Some("params"))
            .unwrap_or_else(|| panic!("{name}: no private params"));
        for (index, entry) in module.entry_points.iter().enumerate() {
            if info.get_entry_point(index)[params].is_empty() {
                continue;
            }
            let header = format!("fn {}(", entry.name);
            let at = source
                .find(&header)
                .unwrap_or_else(|| panic!("{name}: no {header}"));
            let first = source[at..]
                .lines()
                .nth(1)
                .map(str::trim)
                .unwrap_or_default();
            assert_eq!(
                first, "params = uploaded_params;",
                "{name}: {} must copy the parameters first",
                entry.name
            );
            copying += 1;
        }
    }
    assert!(copying >= 30, "only {copying} kernels read params");
}

/// The WGSL module the host compiles as `module` (a stage's name, or `contact`) in
/// `forms`.
fn source_of(module: &str, (library, grid): (LibraryBinding, GridBinding)) -> String {
    if module == "contact" {
        return gpu_collide::layout::shaders::contact_source(library);
    }
    let stage = Stage::MODULES
        .into_iter()
        .find(|stage| stage.name() == module)
        .unwrap_or_else(|| panic!("no module {module}"));
    stage.source_for(library, grid)
}

/// Every form of every module the host compiles, with its name.
fn every_module() -> Vec<(&'static str, (LibraryBinding, GridBinding))> {
    let mut all = Vec::new();
    for library in LibraryBinding::ALL {
        for grid in GridBinding::ALL {
            for stage in Stage::MODULES {
                all.push((stage.name(), (library, grid)));
            }
            all.push(("contact", (library, grid)));
        }
    }
    all
}

/// The bindings the host reads from naga ([`gpu_collide::gpu::reflect`]) are those of
/// the variables each entry point uses, through the functions it calls as well: here
/// found from naga's module and analysis directly, for every module in every form.
#[test]
fn reflected_bindings_are_the_variables_each_entry_point_uses() {
    let mut entry_points = 0;
    for (name, forms) in every_module() {
        let source = source_of(name, forms);
        let module = naga::front::wgsl::parse_str(&source).expect("parses");
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .expect("valid");
        let expected: Vec<(String, Vec<u32>)> = module
            .entry_points
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                let uses = info.get_entry_point(index);
                let mut used: Vec<u32> = module
                    .global_variables
                    .iter()
                    .filter(|(handle, _)| !uses[*handle].is_empty())
                    .filter_map(|(_, var)| var.binding.as_ref().map(|b| b.binding))
                    .collect();
                used.sort_unstable();
                (entry.name.clone(), used)
            })
            .collect();
        let reflected: Vec<(String, Vec<u32>)> = gpu_collide::gpu::reflect(&source)
            .unwrap_or_else(|e| panic!("{name}, {forms:?}: {e}"))
            .into_iter()
            .map(|e| (e.name, e.bindings))
            .collect();
        assert_eq!(reflected, expected, "{name}, {forms:?}");
        assert!(
            reflected.iter().all(|(_, bindings)| !bindings.is_empty()),
            "{name}, {forms:?}: a kernel that binds nothing"
        );
        entry_points += reflected.len();
    }
    assert!(entry_points >= 100, "only {entry_points} entry points");
}

/// Every kernel the host compiles, in every form of its module, finds a buffer in the
/// module's table at each binding it uses, and that buffer is one the shader's
/// variable there names: a binding the table lacked would leave a hole in the kernel's
/// bind group.
#[test]
fn every_binding_a_kernel_uses_has_a_slot_of_its_name() {
    let kernels = gpu_collide::gpu::kernel_bindings().unwrap_or_else(|e| panic!("{e}"));
    let table = gpu_collide::gpu::binding_names();
    let storage = (LibraryBinding::Storage, GridBinding::Storage);
    let count = |module: &str| {
        kernels
            .iter()
            .filter(|k| k.module == module && k.forms == storage)
            .count()
    };
    let counts = ["bounds", "broad", "narrow", "query", "contact"].map(count);
    assert_eq!(counts, [3, 6, 21, 6, 5], "kernels of each module");
    let mut modules = std::collections::HashMap::new();
    for row in &kernels {
        let (module, info) = modules.entry((row.module, row.forms)).or_insert_with(|| {
            let module =
                naga::front::wgsl::parse_str(&source_of(row.module, row.forms)).expect("parses");
            let info = naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::empty(),
            )
            .validate(&module)
            .expect("valid");
            (module, info)
        });
        let index = module
            .entry_points
            .iter()
            .position(|e| e.name == row.kernel.name)
            .expect("an entry point");
        let uses = info.get_entry_point(index);
        for &binding in &row.kernel.bindings {
            let at = format!("{}, {:?}: {}", row.module, row.forms, row.kernel.name);
            // The variable at that binding the kernel uses (a module may declare two at
            // one binding where no kernel uses both).
            let var = module
                .global_variables
                .iter()
                .filter(|(handle, _)| !uses[*handle].is_empty())
                .find(|(_, var)| var.binding.as_ref().map(|b| b.binding) == Some(binding))
                .and_then(|(_, var)| var.name.clone())
                .unwrap_or_else(|| panic!("{at}: no variable at binding {binding}"));
            let (_, _, names) = table
                .iter()
                .find(|(m, n, _)| *m == row.module && *n == binding)
                .unwrap_or_else(|| panic!("{at}: binding {binding} ({var}) is in no table"));
            assert!(
                names.contains(&var.as_str()),
                "{at}: the host binds {names:?} at binding {binding}, where the shader reads `{var}`"
            );
        }
    }
}

#[test]
fn host_binds_the_buffer_each_binding_names() {
    let table = gpu_collide::gpu::binding_names();
    for stage in Stage::MODULES {
        let mut numbers = Vec::new();
        let globals = GridBinding::ALL.into_iter().flat_map(|grid| {
            let module = module_for(stage, grid);
            let vars: Vec<_> = module
                .global_variables
                .iter()
                .map(|(_, var)| var.clone())
                .collect();
            vars
        });
        for var in globals {
            let (Some(binding), Some(name)) = (&var.binding, &var.name) else {
                continue;
            };
            numbers.push(binding.binding);
            let Some((_, _, names)) = table
                .iter()
                .find(|(s, n, _)| *s == stage.name() && *n == binding.binding)
            else {
                panic!(
                    "{}: binding {} ({name}) is in no table",
                    stage.name(),
                    binding.binding
                );
            };
            assert!(
                names.contains(&name.as_str()),
                "{}: the host binds {names:?} at binding {}, where the shader reads `{name}`",
                stage.name(),
                binding.binding
            );
        }
        // And the table lists nothing the shader (in one form or the other) lacks.
        for (_, number, names) in table.iter().filter(|(s, ..)| *s == stage.name()) {
            assert!(
                numbers.contains(number),
                "{}: the table binds {names:?} at {number}, which the shader lacks",
                stage.name()
            );
        }
    }
}

/// (size, [(member name, offset)]) of a WGSL struct, as naga lays it out.
fn wgsl_layout(name: &str) -> (u32, Vec<(String, u32)>) {
    let module = module(Stage::Broad);
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).expect("layout");
    for (handle, ty) in module.types.iter() {
        if ty.name.as_deref() == Some(name) {
            if let naga::TypeInner::Struct { members, .. } = &ty.inner {
                let offsets = members
                    .iter()
                    .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                    .collect();
                return (layouter[handle].size, offsets);
            }
        }
    }
    panic!("no WGSL struct {name}");
}

macro_rules! assert_mirrors {
    ($rust:ty, $wgsl:literal, [$($field:ident),*]) => {{
        let (size, offsets) = wgsl_layout($wgsl);
        assert_eq!(size as usize, size_of::<$rust>(), "size of {}", $wgsl);
        let rust_offsets = vec![$((stringify!($field).to_string(), offset_of!($rust, $field) as u32)),*];
        assert_eq!(offsets, rust_offsets, "field offsets of {}", $wgsl);
    }};
}

#[test]
fn rust_structs_mirror_wgsl_structs() {
    assert_mirrors!(
        PackedShape,
        "PackedShape",
        [
            bounds_min,
            bounds_max,
            kind,
            first,
            count,
            rows,
            words_per_row,
            radius,
            rectangle
        ]
    );
    assert_mirrors!(PolygonVertex, "PolygonVertex", [position, normal]);
    assert_mirrors!(BodyTransform, "BodyTransform", [position, rotation]);
    assert_mirrors!(BodyInfo, "BodyInfo", [shape, layer, mask, kind, owner]);
    assert_mirrors!(Aabb, "Aabb", [min, max]);
    assert_mirrors!(
        Params,
        "Params",
        [
            body_count,
            candidate_capacity,
            pair_capacity,
            bucket_count,
            base_cell,
            candidate_limit,
            deferred_capacity,
            long_pair_capacity,
            task_capacity,
            slice_start,
            slice_end,
            vertex_base,
            word_base,
            source_stride,
            source_position,
            source_angle,
            waiter_layers,
            swept,
            row_stride,
            level_step,
            bin_starts,
            binned
        ]
    );
    assert_mirrors!(BodyCell, "BodyCell", [cell, level, layer, mask, kind_owner]);
    // GridInfo's WGSL struct ends in its lists (the seekers, then the placements), a
    // runtime-sized array that the Rust header leaves out: it starts where the header
    // ends.
    let (size, offsets) = wgsl_layout("GridInfo");
    let header = size_of::<GridInfo>() as u32;
    assert_eq!(offsets.last(), Some(&("lists".to_string(), header)));
    assert_eq!(size, header + 4, "GridInfo with one word of lists");
    let rust_offsets: Vec<(String, u32)> = [
        ("level_layers", offset_of!(GridInfo, level_layers)),
        ("level_waiters", offset_of!(GridInfo, level_waiters)),
        ("level_bodies", offset_of!(GridInfo, level_bodies)),
        ("look_levels", offset_of!(GridInfo, look_levels)),
        ("waiter_looks", offset_of!(GridInfo, waiter_looks)),
        ("occupied_levels", offset_of!(GridInfo, occupied_levels)),
        ("allocated", offset_of!(GridInfo, allocated)),
        ("reach_floor", offset_of!(GridInfo, reach_floor)),
        ("reached_cells", offset_of!(GridInfo, reached_cells)),
        ("seeker_count", offset_of!(GridInfo, seeker_count)),
        ("seekers_only", offset_of!(GridInfo, seekers_only)),
    ]
    .into_iter()
    .map(|(name, offset)| (name.to_string(), offset as u32))
    .collect();
    assert_eq!(
        offsets[..offsets.len() - 1],
        rust_offsets[..],
        "field offsets of GridInfo"
    );
    let (_, atomic_offsets) = wgsl_layout("AtomicGridInfo");
    assert_eq!(
        atomic_offsets, offsets,
        "AtomicGridInfo is GridInfo with atomics"
    );
    assert_mirrors!(
        Counters,
        "Counters",
        [
            candidates,
            pairs,
            deferred,
            long_pairs,
            tasks,
            unfinished,
            bin_counts,
            kind_counts,
            overflowed_bins,
            invalid_bodies,
            first_invalid
        ]
    );
    assert_mirrors!(
        DeferredScan,
        "DeferredScan",
        [cell, level, body, first, end]
    );
    assert_mirrors!(LongPair, "LongPair", [pair, first_task, witness]);
    assert_mirrors!(
        SweptLongPair,
        "SweptLongPair",
        [
            pair,
            first_task,
            static_chunks,
            toi_chunks,
            kind,
            witness,
            enter,
            exit,
            first
        ]
    );
    assert_mirrors!(DispatchArgs, "DispatchArgs", [x, y, z]);
    assert_mirrors!(
        PairsHeader,
        "PairsHeader",
        [dispatch, count, stored, capacity, complete, invalid_bodies]
    );
}

#[test]
fn dispatch_size_covers_every_item_within_limits() {
    for items in [
        0,
        1,
        63,
        64,
        65,
        2_097_152,
        2_097_153,
        10_000_000,
        u32::MAX - 64,
    ] {
        let (x, y) = dispatch_size(items);
        assert!(x <= 65535 && y <= 65535, "{items}: {x} x {y}");
        let threads = x as u64 * y as u64 * WORKGROUP_SIZE as u64;
        assert!(threads >= items as u64, "{items} items, {threads} threads");
        // The kernel's index formula reaches past the last item only in the last row.
        assert!(threads < items as u64 + (DISPATCH_WIDTH * WORKGROUP_SIZE) as u64);
    }
}

/// The contact pass's module (the narrow stage's, then `shaders/contact.wgsl`).
fn contact_module() -> (naga::Module, naga::valid::ModuleInfo) {
    let source = gpu_collide::layout::shaders::contact_source(LibraryBinding::Storage);
    let module = naga::front::wgsl::parse_str(&source)
        .unwrap_or_else(|e| panic!("contact: {}", e.emit_to_string(&source)));
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("contact: {}", e.emit_to_string(&source)));
    (module, info)
}

#[test]
fn contact_structs_mirror_wgsl_structs() {
    use gpu_collide::gpu::contact::{ContactCounters, GpuContact};
    let (module, _) = contact_module();
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).expect("layout");
    let layout = |name: &str| -> (u32, Vec<u32>) {
        let (handle, ty) = module
            .types
            .iter()
            .find(|(_, ty)| ty.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no WGSL struct {name}"));
        let naga::TypeInner::Struct { members, .. } = &ty.inner else {
            panic!("{name} is no struct");
        };
        (
            layouter[handle].size,
            members.iter().map(|m| m.offset).collect(),
        )
    };
    assert_eq!(
        layout("ContactOut"),
        (
            size_of::<GpuContact>() as u32,
            vec![
                offset_of!(GpuContact, normal) as u32,
                offset_of!(GpuContact, depth) as u32,
                offset_of!(GpuContact, area) as u32
            ]
        )
    );
    let (size, offsets) = layout("ContactCounters");
    assert_eq!(size as usize, size_of::<ContactCounters>());
    assert_eq!(
        offsets[..5],
        [
            offset_of!(ContactCounters, pairs) as u32,
            offset_of!(ContactCounters, long_pairs) as u32,
            offset_of!(ContactCounters, tasks) as u32,
            offset_of!(ContactCounters, long_capacity) as u32,
            offset_of!(ContactCounters, task_capacity) as u32
        ]
    );
    // The long pairs and their chunks are 16 bytes each, as the host sizes them.
    assert_eq!(layout("ContactLong").0, 16);
    assert_eq!(layout("ContactTask").0, 16);
}

/// Every stage that picks its tests by shape kind names every kind, or every pair of
/// kinds, it may be given: the kinds are data ([`ShapeKind::ALL`]), so a new kind fails
/// here, listing each stage that does not yet say how it tests the kind, until it does.
/// The only kinds a stage may leave out are those below, each with its reason.
#[test]
fn every_stage_names_every_kind_it_tests() {
    use gpu_collide::shapes::{PairKind, ShapeKind};
    const LEFT_OUT: &[(&str, &str, &str)] = &[
        (
            "sweep",
            "PAIR_BITMASK_BITMASK",
            "bitmasks never move, so two bitmasks are tested where they stand",
        ),
        (
            "bounds",
            "SHAPE_POLYGON",
            "a polygon is boxed by its vertices, the way every kind not named is",
        ),
    ];
    let kinds: Vec<String> = ShapeKind::ALL
        .iter()
        .map(|k| format!("SHAPE_{}", k.name().to_uppercase()))
        .collect();
    let pairs: Vec<String> = PairKind::all()
        .map(|p| format!("PAIR_{}", p.name().to_uppercase()))
        .collect();
    let stages = [
        ("bounds", include_str!("../shaders/bounds.wgsl"), &kinds),
        ("query", include_str!("../shaders/query.wgsl"), &kinds),
        ("narrow", include_str!("../shaders/narrow.wgsl"), &pairs),
        ("sweep", include_str!("../shaders/sweep.wgsl"), &pairs),
        ("contact", include_str!("../shaders/contact.wgsl"), &pairs),
    ];
    let mut missing = Vec::new();
    for (stage, source, names) in stages {
        for name in names {
            let left_out = LEFT_OUT.iter().any(|&(s, n, _)| s == stage && n == name);
            let named = source
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .any(|line| line.contains(name.as_str()));
            if named == left_out {
                missing.push(format!("{stage}: {name}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "stages that leave out a kind they may be given, or name one listed as left out: {missing:?}"
    );
}

/// Each pair of kinds has its narrow kernel, `narrow_<low>_<high>`, which tests the
/// candidates of its bin in a crowded frame.
#[test]
fn every_pair_of_kinds_has_its_narrow_kernel() {
    let module = module(Stage::Narrow);
    for pair in gpu_collide::shapes::PairKind::all() {
        let entry = format!("narrow_{}", pair.name());
        assert!(
            module.entry_points.iter().any(|e| e.name == entry),
            "no kernel {entry}"
        );
    }
}
