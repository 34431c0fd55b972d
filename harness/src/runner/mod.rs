//! The grading flows of the scenario model: reference run, grade, self-check, selftest, solve.
//! ARCHITECTURE.md's "Words the code uses" defines the notation (R_n, S_n, the grading and the
//! shadow reference).
//!
//! - [`flows`]: the modes, each a walk over the steps (`grade`, `check`, `selftest`) and the
//!   preflight every grading passes first;
//! - [`reference`]: the reference run (R_n, S_n), its cache on disk, its reuse as the grading or
//!   the shadow reference, and the answers a learner's run must not see;
//! - [`checks`]: one check judged in a setting, its outcome, its hints;
//! - [`exec`] and [`workdir`]: running shells through the sandbox, and the lab dirs they run in.

pub mod checks;
pub mod exec;
pub mod flows;
pub mod reference;
pub mod workdir;

pub use flows::grade::grade;
pub use flows::self_check::{self_check, CheckOptions};
pub use flows::selftest::{same_grades, selftest, Selftest, SelftestLine, SelftestOptions};
pub use reference::run::{
    prepare_cluster, run_reference, solve_into, starting_nodes, starting_setup, ReferenceRun,
};
