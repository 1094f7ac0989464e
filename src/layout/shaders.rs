//! The WGSL sources of the pipeline stages. Each module is the shared constants (from
//! [`crate::layout::packed::wgsl_constants`]) followed by whole WGSL files from `shaders/`, in
//! the order [`Stage::parts`] gives: nothing is spliced into a file. Where a stage has
//! variants (the shape library's binding, [`LibraryBinding`]; the broad walk's reads of
//! the grid, [`GridBinding`]), each variant is a small file of its own, and the
//! numbers they need (the sizes of uniform tables) are constants of the prelude. The
//! contact pass ([`contact_source`]) runs after a frame's narrow phase, on its pairs,
//! and is composed after the narrow stage, whose helpers it uses.

use crate::layout::packed::{
    wgsl_constants, BOX_KEY_BODIES, BUCKETS_PER_THREAD, UNIFORM_TABLE_BYTES, UNIFORM_TABLE_WORDS,
};

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
    #[cfg(feature = "internals")]
    /// Both forms.
    pub const ALL: [LibraryBinding; 2] = [LibraryBinding::Storage, LibraryBinding::Uniform];

    /// The size of the uniform form's buffer: WebGPU's default limit on a uniform
    /// binding, and the most lavapipe and llvmpipe's GL driver allow.
    pub const UNIFORM_BYTES: u64 = UNIFORM_TABLE_BYTES;

    /// The binding's declaration and `library_u32`, in WGSL.
    fn wgsl(self) -> &'static str {
        match self {
            LibraryBinding::Storage => include_str!("../../shaders/library_storage.wgsl"),
            LibraryBinding::Uniform => include_str!("../../shaders/library_uniform.wgsl"),
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
    #[cfg(feature = "internals")]
    /// Both forms.
    pub const ALL: [GridBinding; 2] = [GridBinding::Storage, GridBinding::Uniform];

    /// The most entries, one word each, the uniform form's copy holds: one uniform
    /// binding's worth. The copy of the box keys, a word a body, holds as many
    /// ([`crate::layout::packed::BOX_KEY_BODIES`]).
    pub const UNIFORM_ENTRIES: u32 = UNIFORM_TABLE_WORDS;

    /// The most buckets the uniform form's copy of the table holds: one uniform
    /// binding's worth of starts, and their blocks' ends in a binding of their own.
    pub const UNIFORM_BUCKETS: u32 = UNIFORM_TABLE_WORDS;

    /// The bytes of the uniform copy of the blocks' ends.
    pub const UNIFORM_END_BYTES: u64 = (Self::UNIFORM_BUCKETS / BUCKETS_PER_THREAD) as u64 * 4;

    /// The walk's reads, and in the uniform form the copies' bindings, in WGSL.
    fn wgsl(self) -> &'static str {
        match self {
            GridBinding::Storage => include_str!("../../shaders/walk_storage.wgsl"),
            GridBinding::Uniform => include_str!("../../shaders/walk_uniform.wgsl"),
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

    #[cfg(feature = "internals")]
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

    #[cfg(feature = "internals")]
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
    /// and, in the broad stage, the grid through `grid`: the constants, then
    /// [`Stage::parts`] in order, each on lines of its own.
    pub fn source_for(self, library: LibraryBinding, grid: GridBinding) -> String {
        compose(&self.parts(library, grid))
    }

    /// The WGSL files the stage's module is made of, after the constants, in this order:
    /// `shaders/types.wgsl` and `shaders/geometry.wgsl`; for the stages that read the shape library, its binding in
    /// the form `library` (`shaders/library_storage.wgsl` or
    /// `shaders/library_uniform.wgsl`) and `shaders/library.wgsl`; for the stages that
    /// build or read the grid, `shaders/grid.wgsl`; the stage's own file (for the narrow
    /// stage, `shaders/narrow.wgsl` then `shaders/sweep.wgsl`: the narrow phase of frames
    /// with motion shares its plans and tests); and for the broad stage last, the walk's
    /// reads of the grid in the form `grid` (`shaders/walk_storage.wgsl` or
    /// `shaders/walk_uniform.wgsl`), which use the stage's own declarations.
    pub fn parts(self, library: LibraryBinding, grid: GridBinding) -> Vec<&'static str> {
        let mut parts = vec![
            include_str!("../../shaders/types.wgsl"),
            include_str!("../../shaders/geometry.wgsl"),
        ];
        if self.reads_library() {
            parts.extend([library.wgsl(), include_str!("../../shaders/library.wgsl")]);
        }
        if self.reads_grid() {
            parts.push(include_str!("../../shaders/grid.wgsl"));
        }
        parts.extend_from_slice(match self {
            Stage::Bounds => &[include_str!("../../shaders/bounds.wgsl")],
            Stage::Broad => &[include_str!("../../shaders/broad.wgsl")],
            Stage::Narrow => &[
                include_str!("../../shaders/narrow.wgsl"),
                include_str!("../../shaders/sweep.wgsl"),
            ],
            Stage::Query => &[include_str!("../../shaders/query.wgsl")],
        });
        if self == Stage::Broad {
            parts.push(grid.wgsl());
        }
        parts
    }

    /// Whether the stage reads the shape library.
    fn reads_library(self) -> bool {
        match self {
            Stage::Bounds | Stage::Narrow | Stage::Query => true,
            Stage::Broad => false,
        }
    }

    /// Whether the stage builds or reads the grid.
    fn reads_grid(self) -> bool {
        match self {
            Stage::Bounds | Stage::Broad | Stage::Query => true,
            Stage::Narrow => false,
        }
    }
}

/// A module: the shared constants ([`wgsl_constants`]), then `parts` in order, each
/// starting on a line of its own.
fn compose(parts: &[&str]) -> String {
    let mut source = wgsl_constants();
    for part in parts {
        source.push('\n');
        source.push_str(part);
    }
    source
}

/// The complete WGSL module of the contact pass (`shaders/contact.wgsl`, run by
/// `gpu::contact` on the pairs a frame found): the narrow stage's module, whose bindings,
/// placements and shape helpers it shares, then its own file.
pub fn contact_source(library: LibraryBinding) -> String {
    let mut parts = Stage::Narrow.parts(library, GridBinding::Storage);
    parts.push(include_str!("../../shaders/contact.wgsl"));
    compose(&parts)
}
