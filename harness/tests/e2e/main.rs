//! The proctor binary end to end, one module per concern (`cargo test -p proctor --test e2e --
//! grade_mini::` runs one). The hostile-submission, real-lab and kwokctl suites are binaries of
//! their own: they fork-bomb, take minutes, or count the machine's processes.

// Test code: an unmet expectation is the test failing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;

mod batch;
mod check_mini;
mod class_report;
mod cli;
mod determinism;
mod grade_mini;
mod gradescope;
mod interrupt;
mod manifest;
mod reference_cache;
mod restore;
mod selftest_refusal;
