//! The data the GPU reads, laid out as the WGSL declares it, and the shader sources
//! composed with the constants that layout derives.

pub mod bodies;
pub mod geometry;
pub mod packed;
pub mod shaders;
