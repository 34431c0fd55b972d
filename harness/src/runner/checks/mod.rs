//! Evaluating the four kinds of checks, and turning an outcome into a report line with its hints.

pub mod confine;
pub mod evaluate;
pub mod file;
pub mod hints;
pub mod manifest;
pub mod object;
pub mod outcome;
pub mod script;

pub use outcome::Outcome;
