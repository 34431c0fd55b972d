//! Text checks for `out/*.txt` files: normalisers, comparisons and unified diffs.

mod compare;
mod diff;
mod feedback;
mod normalise;

pub use compare::{compare, line_pattern, Compare, Comparison};
pub use diff::unified_diff;
pub use feedback::first_difference;
pub use normalise::{normalise, Normaliser};
