//! `gpu-collide bench`: frame times of every backend on the same moving scenes, and
//! whether they found the same pairs.

pub mod budget;
pub mod parry;
pub mod plot;
pub mod report;
pub mod workload;
