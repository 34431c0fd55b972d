//! Int-or-percent fields of rolling updates and PDBs (apps validation `ValidatePositiveIntOrPercent`,
//! `IsNotMoreThan100Percent`, `getIntOrPercentValue`).

use serde_json::Value;

use super::path::{invalid, nonnegative, Path};
use crate::error::FieldError;
use crate::gofmt::go_syntax;
use crate::names;

/// `ValidatePositiveIntOrPercent`.
pub fn positive_int_or_percent(v: &Value, p: &Path) -> Vec<FieldError> {
    match v {
        Value::String(s) => names::percent(s)
            .into_iter()
            .map(|m| invalid(p, go_syntax::int_or_string(v), m))
            .collect(),
        other => nonnegative(Some(other.as_i64().unwrap_or(0)), p),
    }
}

/// The percentage of a valid percent string.
fn percent_value(v: &Value) -> Option<i64> {
    let s = v.as_str()?;
    if !names::percent(s).is_empty() {
        return None;
    }
    s[..s.len() - 1].parse().ok()
}

/// `getIntOrPercentValue`: the percentage, else `IntValue()` (a string is `Atoi`'d).
pub fn value(v: &Value) -> i64 {
    percent_value(v).unwrap_or_else(|| match v {
        Value::String(s) => s.parse().unwrap_or(0),
        other => other.as_i64().unwrap_or(0),
    })
}

/// `IsNotMoreThan100Percent`.
pub fn not_more_than_100_percent(v: &Value, p: &Path) -> Vec<FieldError> {
    match percent_value(v) {
        Some(n) if n > 100 => vec![invalid(
            p,
            go_syntax::int_or_string(v),
            "must not be greater than 100%",
        )],
        _ => Vec::new(),
    }
}
