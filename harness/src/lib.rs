//! Proctor: grades hands-on Kubernetes labs by re-running a reference solution and comparing
//! the learner's files, scripts and cluster objects against it.

pub mod autograder;
pub mod batch;
pub mod cache_dir;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod intake;
pub mod interrupt;
pub mod report;
pub mod runner;
pub mod sandbox;
pub mod scenario;
pub mod tree;
