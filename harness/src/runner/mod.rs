//! The grading flows of the scenario model: reference run, grade, self-check, selftest, solve.

pub mod answers;
pub mod checks;
pub mod evaluate;
pub mod exec;
pub mod grade;
pub mod hints;
pub mod preflight;
pub mod reference;
pub mod reference_cache;
pub mod self_check;
pub mod selftest;
pub mod shadow;
pub mod workdir;

pub use grade::grade;
pub use reference::{
    prepare_cluster, run_reference, solve_into, starting_nodes, starting_setup, ReferenceRun,
};
pub use self_check::{self_check, CheckOptions};
pub use selftest::{same_grades, selftest, Selftest, SelftestLine, SelftestOptions};
