//! Clients of the library's API: the seeded scene generators (feature `generate`), and
//! the command line's benchmark and drawing (feature `cli`).

#[cfg(feature = "cli")]
pub mod bench;
#[cfg(feature = "cli")]
pub mod draw;
#[cfg(feature = "generate")]
pub mod generate;
