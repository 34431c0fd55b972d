//! Text checks for `out/*.txt` files: normalisers, comparisons and unified diffs.

mod compare;
mod diff;
mod normalise;

pub use compare::{compare, Compare, Comparison};
pub use diff::unified_diff;
pub use normalise::{normalise, Normaliser};
