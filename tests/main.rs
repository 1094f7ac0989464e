//! The test suite, one binary: every module below is a file beside this one.
//!
//! GPU tests run on whatever adapter `GpuContext::new` picks (WGPU_BACKEND and
//! WGPU_ADAPTER_NAME choose). Without an adapter they fail under CI=true and are
//! skipped, loudly, on a developer's machine.

mod bench_cli;
mod box_keys;
mod capsules;
mod cli;
mod compounds;
mod concave_pieces;
mod contacts;
mod cross_check;
mod draw;
mod fuzz;
mod known_cases;
mod limits;
mod loop_cap;
mod module_graph;
mod oracle;
mod own_device;
mod pending_frames;
mod properties;
mod queries;
mod query_slices;
mod range;
mod record;
mod reserve;
mod scene_errors;
mod scene_files;
mod shaders;
mod stage_timing;
mod support;
mod swept;
