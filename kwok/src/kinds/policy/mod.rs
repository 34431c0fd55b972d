//! The policy group's kinds (`pkg/registry/policy/<kind>`) and the Eviction body.

pub mod eviction;
pub mod poddisruptionbudget;
