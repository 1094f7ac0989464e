//! The errors of the command line and the benchmark, apart from the library's
//! [`Error`]: a library user never meets these, and the library's error type keeps no
//! variant that only the command line raises.

use crate::error::Error;

/// What the `gpu-collide` command and its benchmark can fail with.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The library failed: a scene, a device, a frame.
    #[error(transparent)]
    Library(#[from] Error),
    /// Writing a file (or creating its directory, or standard output) failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file or directory.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A command-line option has a value that parses but cannot be used together with
    /// the others (for example `--bodies` with a scene file, which has its own bodies).
    #[error("{0}")]
    Usage(String),
    /// The benchmark report could not be written or drawn, or it holds wrong answers or
    /// failed runs.
    #[error("benchmark report: {0}")]
    Report(String),
}

impl From<crate::error::SceneError> for CliError {
    fn from(error: crate::error::SceneError) -> Self {
        CliError::Library(error.into())
    }
}
