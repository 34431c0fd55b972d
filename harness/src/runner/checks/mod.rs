//! Evaluating the four kinds of checks.

pub mod confine;
pub mod file;
pub mod manifest;
pub mod object;
pub mod outcome;
pub mod script;

pub use outcome::Outcome;
