//! The batch group's kinds (`pkg/registry/batch/<kind>`).

pub mod cronjob;
pub mod job;
