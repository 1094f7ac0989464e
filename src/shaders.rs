//! The WGSL sources of the pipeline stages, each composed as: the shared constants
//! (from [`crate::packed`]), `shaders/types.wgsl`, `shaders/library.wgsl` for the
//! stages that read the shape library, then the stage's own file.

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
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 3] = [Stage::Bounds, Stage::Broad, Stage::Narrow];

    /// The stage's name, which is also its file name and main entry point.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Bounds => "bounds",
            Stage::Broad => "broad",
            Stage::Narrow => "narrow",
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
        };
        // The stages that read the shape library get its accessors.
        let library = match self {
            Stage::Bounds | Stage::Narrow => include_str!("../shaders/library.wgsl"),
            Stage::Broad => "",
        };
        format!(
            "{}\n{}\n{}\n{}",
            wgsl_constants(),
            include_str!("../shaders/types.wgsl"),
            library,
            own
        )
    }
}
