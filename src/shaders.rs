//! The WGSL sources of the pipeline stages, each composed as: the shared constants
//! (from [`crate::packed`]), `shaders/types.wgsl`, `shaders/library.wgsl` for the
//! stages that read the shape library, `shaders/grid.wgsl` for those that build or read
//! the grid, then the stage's own file. The contact pass ([`contact_source`]) runs after
//! a frame's narrow phase, on its pairs, and is composed after the narrow stage, whose
//! helpers it uses.

use crate::packed::wgsl_constants;

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

    /// The complete WGSL module of the stage.
    pub fn source(self) -> String {
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
            Stage::Bounds | Stage::Narrow | Stage::Query => include_str!("../shaders/library.wgsl"),
            Stage::Broad => "",
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
pub fn contact_source() -> String {
    format!(
        "{}\n{}",
        Stage::Narrow.source(),
        include_str!("../shaders/contact.wgsl")
    )
}
