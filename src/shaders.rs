//! The WGSL sources of the pipeline stages, each composed as: the shared constants
//! (from [`crate::packed`]), `shaders/types.wgsl`, the shape library's binding (in one
//! of the two forms of [`LibraryBinding`]) and `shaders/library.wgsl` for the stages
//! that read the shape library, `shaders/grid.wgsl` for those that build or read the
//! grid, then the stage's own file, and for the broad stage the walk's reads of the grid
//! (in one of the two forms of [`GridBinding`]). The contact pass ([`contact_source`]) runs after a
//! frame's narrow phase, on its pairs, and is composed after the narrow stage, whose
//! helpers it uses.

use crate::packed::{wgsl_constants, BOX_KEY_BODIES, BUCKETS_PER_THREAD};

/// How the stages that read the shape library bind it: the library is one buffer of
/// 32-bit words (`shaders/library.wgsl`), which every shader reads through
/// `library_u32`, declared here with the binding.
///
/// Why two forms: Mesa's llvmpipe (lavapipe and its GL driver) loads from a storage
/// buffer one invocation at a time, a loop over the 8 lanes it runs in lockstep with a
/// branch and a bounds check for each, but gathers from a uniform buffer all 8 lanes at
/// once. The narrow phase reads the library's vertices on every turn of its loops, so on
/// lavapipe it took a half to two thirds of the time with the library in a uniform buffer
/// (measured on the crowded 10k scenes: BENCHMARKS.md, "Uniform copies on software
/// adapters"). A uniform binding holds at most 64 KiB on most devices, and on a GPU the
/// invocations of a wave reading different words of a uniform buffer may be served one
/// address at a time, so the uniform form is used only on software adapters, for
/// libraries that fit ([`LibraryBinding::UNIFORM_BYTES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LibraryBinding {
    /// A storage buffer of words, of any size.
    Storage,
    /// A uniform buffer of exactly [`LibraryBinding::UNIFORM_BYTES`], read as 16-byte
    /// rows (a uniform array's stride), the library's words first.
    Uniform,
}

impl LibraryBinding {
    /// Both forms.
    pub const ALL: [LibraryBinding; 2] = [LibraryBinding::Storage, LibraryBinding::Uniform];

    /// The size of the uniform form's buffer: WebGPU's default limit on a uniform
    /// binding, and the most lavapipe and llvmpipe's GL driver allow.
    pub const UNIFORM_BYTES: u64 = 65536;

    /// The binding's declaration and `library_u32`, in WGSL.
    fn wgsl(self) -> String {
        match self {
            LibraryBinding::Storage => "@group(0) @binding(1) var<storage, read> library: array<u32>;\n\
                 fn library_u32(word: u32) -> u32 {\n    return library[word];\n}\n"
                .to_string(),
            LibraryBinding::Uniform => format!(
                "@group(0) @binding(1) var<uniform> library: array<vec4<u32>, {}>;\n\
                 fn library_u32(word: u32) -> u32 {{\n    return library[word >> 2u][word & 3u];\n}}\n",
                LibraryBinding::UNIFORM_BYTES / 16
            ),
        }
    }
}

/// How `broad`'s walk (`shaders/broad.wgsl`) reads the grid it walks: each cell's
/// bucket start and end in the hash table, and the entries, through `walk_start`,
/// `walk_end` and `walk_entry`, declared here; and whether it tests an entry's box key
/// before loading its box (`walk_seeker_key`, `walk_may_meet`).
///
/// The uniform form also copies the bodies' box keys (`box_key` in `shaders/grid.wgsl`, a
/// word a body, written by the bounds kernel) and skips the box of an entry whose key
/// lies apart from the seeker's: the entry's box, four words from storage, was a fifth of
/// the thin crowds' broad stage and a third of the swarm's on lavapipe (BENCHMARKS.md,
/// "Uniform copies on software adapters"). The storage form tests nothing: a GPU loads a
/// box as cheaply as a key.
///
/// Why two forms: for the reason [`LibraryBinding`] gives. A turn of the walk loads a
/// bucket's start and end and an entry, and llvmpipe runs the loads of every turn for all
/// 8 lanes in lockstep whichever lanes need them; from storage buffers each is a loop
/// over the lanes. Read from uniform copies made after the grid is sorted (three copies
/// between two passes of the broad stage, and a fourth of the box keys below), the broad
/// stage of the crowded 10k scenes took 7-20% less on lavapipe, their frames 2-16%
/// (BENCHMARKS.md, "Uniform copies on software adapters"). The copies hold a table of at
/// most [`GridBinding::UNIFORM_BUCKETS`] buckets and [`GridBinding::UNIFORM_ENTRIES`]
/// entries, so the uniform form is used on software adapters for at most that many
/// bodies, and only in crowded frames, where the walk is long enough to pay for the
/// copies (`GpuCollider::grid_binding`); the crowded cells handed over to
/// `broad_deferred` are read from storage in either form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GridBinding {
    /// The table and the entries read from their storage buffers.
    Storage,
    /// Read from uniform copies, each of [`LibraryBinding::UNIFORM_BYTES`] at most.
    Uniform,
}

impl GridBinding {
    /// Both forms.
    pub const ALL: [GridBinding; 2] = [GridBinding::Storage, GridBinding::Uniform];

    /// The most entries, one word each, the uniform form's copy holds: one uniform
    /// binding's worth. The copy of the box keys, a word a body, holds as many
    /// ([`crate::packed::BOX_KEY_BODIES`]).
    pub const UNIFORM_ENTRIES: u32 = (LibraryBinding::UNIFORM_BYTES / 4) as u32;

    /// The most buckets the uniform form's copy of the table holds: one uniform
    /// binding's worth of starts, and their blocks' ends in a binding of their own.
    pub const UNIFORM_BUCKETS: u32 = (LibraryBinding::UNIFORM_BYTES / 4) as u32;

    /// The bytes of the uniform copy of the blocks' ends.
    pub const UNIFORM_END_BYTES: u64 = (Self::UNIFORM_BUCKETS / BUCKETS_PER_THREAD) as u64 * 4;

    /// The walk's reads, and in the uniform form the copies' bindings, in WGSL.
    fn wgsl(self) -> String {
        match self {
            // No keys to test: every entry's box is loaded.
            GridBinding::Storage => "fn walk_entry(k: u32) -> u32 {\n    return grid_entries[k];\n}\n\
                 fn walk_start(b: u32) -> u32 {\n    return bucket_start(b);\n}\n\
                 fn walk_end(b: u32) -> u32 {\n    return bucket_end(b);\n}\n\
                 fn walk_seeker_key(box: Aabb, level: u32) -> u32 {\n    return NO_BOX_KEY;\n}\n\
                 fn walk_may_meet(key: u32, other: u32) -> bool {\n    return true;\n}\n"
                .to_string(),
            // Copies of the words of grid_entries and buckets, in 16-byte rows (a uniform
            // array's stride). walk_end loads both words bucket_end may return and keeps
            // one, since llvmpipe would run both branches anyway.
            GridBinding::Uniform => format!(
                "@group(0) @binding(11) var<uniform> walk_entries: array<vec4<u32>, {rows}>;\n\
                 @group(0) @binding(12) var<uniform> walk_starts: array<vec4<u32>, {rows}>;\n\
                 @group(0) @binding(13) var<uniform> walk_ends: array<vec4<u32>, {end_rows}>;\n\
                 @group(0) @binding(14) var<uniform> walk_box_keys: array<vec4<u32>, {rows}>;\n\
                 fn walk_entry(k: u32) -> u32 {{\n    return walk_entries[k >> 2u][k & 3u];\n}}\n\
                 fn walk_start(b: u32) -> u32 {{\n    return walk_starts[b >> 2u][b & 3u];\n}}\n\
                 fn walk_end(b: u32) -> u32 {{\n\
                 \x20   let next = min(b + 1u, {last}u);\n\
                 \x20   let block = b / BUCKETS_PER_THREAD;\n\
                 \x20   let last_of_block = (b & (BUCKETS_PER_THREAD - 1u)) == BUCKETS_PER_THREAD - 1u;\n\
                 \x20   return select(walk_starts[next >> 2u][next & 3u], walk_ends[block >> 2u][block & 3u], last_of_block);\n\
                 }}\n\
                 fn walk_seeker_key(box: Aabb, level: u32) -> u32 {{\n    return box_key(box, level, SEEKER_KEY_WIDTH);\n}}\n\
                 fn walk_may_meet(key: u32, other: u32) -> bool {{\n\
                 \x20   return box_keys_may_meet(key, walk_box_keys[other >> 2u][other & 3u]);\n\
                 }}\n",
                rows = LibraryBinding::UNIFORM_BYTES / 16,
                end_rows = Self::UNIFORM_END_BYTES / 16,
                last = Self::UNIFORM_BUCKETS - 1,
            ),
        }
    }
}

// The bounds kernel writes box keys for as many bodies as the walk's copies hold.
const _: () = assert!(BOX_KEY_BODIES == GridBinding::UNIFORM_ENTRIES);

/// A stage of the pipeline; each has one WGSL file, one host module under `gpu/`
/// and one CPU twin under `cpu/`, all with the stage's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// World bounds of every body.
    Bounds,
    /// Candidate pairs.
    Broad,
    /// Exact tests of the candidates.
    Narrow,
    /// Batched ray, point and box queries through the grid ([`crate::Collider::query`]);
    /// not a stage of the pair pipeline, so not in [`Stage::ALL`].
    Query,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 3] = [Stage::Bounds, Stage::Broad, Stage::Narrow];

    /// Every WGSL module: the pipeline's stages, then the queries.
    pub const MODULES: [Stage; 4] = [Stage::Bounds, Stage::Broad, Stage::Narrow, Stage::Query];

    /// The stage's name, which is also its file name and main entry point.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Bounds => "bounds",
            Stage::Broad => "broad",
            Stage::Narrow => "narrow",
            Stage::Query => "query",
        }
    }

    /// The complete WGSL module of the stage, reading the library from a storage buffer.
    pub fn source(self) -> String {
        self.source_with(LibraryBinding::Storage)
    }

    /// The complete WGSL module of the stage, reading the library through `library`
    /// (and for the broad stage, the grid from its storage buffers).
    pub fn source_with(self, library: LibraryBinding) -> String {
        self.source_for(library, GridBinding::Storage)
    }

    /// The complete WGSL module of the stage, reading the library through `library`
    /// and, in the broad stage, the grid through `grid`.
    pub fn source_for(self, library: LibraryBinding, grid: GridBinding) -> String {
        let own = match self {
            Stage::Bounds => include_str!("../shaders/bounds.wgsl"),
            Stage::Broad => include_str!("../shaders/broad.wgsl"),
            // The narrow phase of frames with motion (swept pairs) shares its plans and
            // tests, so it is composed into the same module.
            Stage::Narrow => concat!(
                include_str!("../shaders/narrow.wgsl"),
                "\n",
                include_str!("../shaders/sweep.wgsl")
            ),
            Stage::Query => include_str!("../shaders/query.wgsl"),
        };
        // The stages that read the shape library get its accessors.
        let library = match self {
            Stage::Bounds | Stage::Narrow | Stage::Query => {
                format!(
                    "{}\n{}",
                    library.wgsl(),
                    include_str!("../shaders/library.wgsl")
                )
            }
            Stage::Broad => String::new(),
        };
        // The stages that build or read the grid get its cell functions, and the broad
        // stage the walk's reads of it.
        let cells = match self {
            Stage::Bounds | Stage::Broad | Stage::Query => include_str!("../shaders/grid.wgsl"),
            Stage::Narrow => "",
        };
        let walk = match self {
            Stage::Broad => grid.wgsl(),
            Stage::Bounds | Stage::Narrow | Stage::Query => String::new(),
        };
        format!(
            "{}\n{}\n{}\n{}\n{}\n{}",
            wgsl_constants(),
            include_str!("../shaders/types.wgsl"),
            library,
            cells,
            own,
            walk
        )
    }
}

/// The complete WGSL module of the contact pass (`shaders/contact.wgsl`, run by
/// `gpu::contact` on the pairs a frame found): the narrow stage's module, whose bindings,
/// placements and shape helpers it shares, then its own file.
pub fn contact_source(library: LibraryBinding) -> String {
    format!(
        "{}\n{}",
        Stage::Narrow.source_with(library),
        include_str!("../shaders/contact.wgsl")
    )
}
