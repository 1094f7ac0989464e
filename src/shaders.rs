//! The WGSL sources of the pipeline stages, each composed as: the shared constants
//! (from [`crate::packed`]), `shaders/types.wgsl`, the shape library's binding (in one
//! of the two forms of [`LibraryBinding`]) and `shaders/library.wgsl` for the stages
//! that read the shape library, `shaders/grid.wgsl` for those that build or read the
//! grid, then the stage's own file. The contact pass ([`contact_source`]) runs after a
//! frame's narrow phase, on its pairs, and is composed after the narrow stage, whose
//! helpers it uses.

use crate::packed::wgsl_constants;

/// How the stages that read the shape library bind it: the library is one buffer of
/// 32-bit words (`shaders/library.wgsl`), which every shader reads through
/// `library_u32`, declared here with the binding.
///
/// Why two forms: Mesa's llvmpipe (lavapipe and its GL driver) loads from a storage
/// buffer one invocation at a time, a loop over the 8 lanes it runs in lockstep with a
/// branch and a bounds check for each, but gathers from a uniform buffer all 8 lanes at
/// once. The narrow phase reads the library's vertices on every turn of its loops, so on
/// lavapipe it took a half to two thirds of the time with the library in a uniform
/// buffer (measured on the crowded 10k scenes, see BENCHMARKS.md). A uniform binding holds at most 64 KiB on
/// most devices, and on a GPU the invocations of a wave reading different words of a
/// uniform buffer may be served one address at a time, so the uniform form is used only
/// on software adapters, for libraries that fit ([`LibraryBinding::UNIFORM_BYTES`]).
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

    /// The complete WGSL module of the stage, reading the library through `library`.
    pub fn source_with(self, library: LibraryBinding) -> String {
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
        // The stages that build or read the grid get its cell functions.
        let grid = match self {
            Stage::Bounds | Stage::Broad | Stage::Query => include_str!("../shaders/grid.wgsl"),
            Stage::Narrow => "",
        };
        format!(
            "{}\n{}\n{}\n{}\n{}",
            wgsl_constants(),
            include_str!("../shaders/types.wgsl"),
            library,
            grid,
            own
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
