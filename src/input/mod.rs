//! What the caller hands in: bodies, the shapes and the library they are uploaded as,
//! and the scene files that hold both.

pub mod body;
internal_mods!(concave);
pub mod library;
pub mod scene;
pub mod shapes;
