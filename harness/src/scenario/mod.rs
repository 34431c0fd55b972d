//! The scenario format: typed model, loading with located errors, semantic validation, lookup.

pub mod check;
pub mod compose;
pub mod error;
pub mod expect;
pub mod lab;
pub mod lint;
pub mod load;
pub mod locate;
pub mod lookup;
pub mod model;
pub mod schema;
pub mod units;
pub mod validate;

pub use check::{Check, CheckKind, Feedback, Mode, Visibility};
pub use error::{ScenarioError, ScenarioErrors};
pub use expect::Expectation;
pub use lab::{BundledSubmission, Lab};
pub use load::load_scenario;
pub use model::{Perturbation, Runtime, Scenario, Step};
