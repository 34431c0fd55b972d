//! The apps group's kinds (`pkg/registry/apps/<kind>`).

pub mod controllerrevision;
pub mod daemonset;
pub mod deployment;
pub mod replicaset;
pub mod statefulset;
