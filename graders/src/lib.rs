//! Check primitives for Proctor: pure functions that decide whether what a learner produced matches
//! what the reference produced. Nothing here touches a cluster, a file system or a process.
//!
//! - [`paths`]: address a value inside a JSON document with `a.b[0].c` (dots in keys escaped as `\.`).
//! - [`partial`]: "expected is a subset of actual" matching for object checks, with operators
//!   (alternatives, absence, comparisons, patterns, quantities, embedded YAML/JSON).
//! - [`quantity`]: numbers and resource quantities compared exactly by value.
//! - [`text`]: normalisers and comparisons for `out/*.txt` files, with unified diffs.
//! - [`drain`]: the meaning of a `kubectl drain` transcript (refused by a disruption budget vs drained).
//! - [`hints`]: targeted hints chosen by regex against a learner's output.

pub mod drain;
pub mod hints;
pub mod partial;
pub mod paths;
pub mod quantity;
pub mod shown;
pub mod text;
