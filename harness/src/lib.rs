//! Proctor: grades hands-on Kubernetes labs by re-running a reference solution and comparing
//! the learner's files, scripts and cluster objects against it.

pub mod cluster;
pub mod report;
pub mod scenario;
