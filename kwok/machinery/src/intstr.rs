//! `IntOrString` values of rolling-update and disruption-budget fields, as apimachinery's
//! `util/intstr` reads them: an integer, or a string that should be a percentage.

use serde_json::Value;

use crate::error::go_quote;

/// `getIntOrPercentValueSafely`: the number, and whether it was a percentage.
fn int_or_percent(v: &Value) -> Result<(i64, bool), String> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(|n| (n, false))
            .ok_or_else(|| "invalid type: neither int nor percentage".to_string()),
        Value::String(s) => {
            let Some(digits) = s.strip_suffix('%') else {
                return Err("invalid type: string is not a percentage".to_string());
            };
            let n = digits.parse::<i64>().map_err(|_| {
                format!(
                    "invalid value {}: strconv.Atoi: parsing {}: invalid syntax",
                    go_quote(s),
                    go_quote(digits)
                )
            })?;
            Ok((n, true))
        }
        _ => Err("invalid type: neither int nor percentage".to_string()),
    }
}

/// `intstr.GetScaledValueFromIntOrPercent`: an integer as is, `"<n>%"` of `total` rounded up or
/// down; the errors are upstream's texts.
pub fn scaled_value(v: &Value, total: i64, round_up: bool) -> Result<i64, String> {
    if v.is_null() {
        return Err("nil value for IntOrString".to_string());
    }
    let (value, percent) =
        int_or_percent(v).map_err(|e| format!("invalid value for IntOrString: {e}"))?;
    if !percent {
        return Ok(value);
    }
    let exact = value as f64 * total as f64 / 100.0;
    Ok(if round_up {
        exact.ceil()
    } else {
        exact.floor()
    } as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The cases of `intstr_test.go` `TestGetScaledValueFromIntOrPercent` that GPU labs meet.
    #[test]
    fn int_or_percent_scaling_follows_apimachinery() {
        assert_eq!(scaled_value(&json!(2), 10, true), Ok(2));
        assert_eq!(scaled_value(&json!("50%"), 3, true), Ok(2));
        assert_eq!(scaled_value(&json!("50%"), 3, false), Ok(1));
        assert_eq!(scaled_value(&json!("10%"), 1000, true), Ok(100));
        assert_eq!(
            scaled_value(&json!("3"), 3, true),
            Err(
                "invalid value for IntOrString: invalid type: string is not a percentage"
                    .to_string()
            )
        );
        assert_eq!(
            scaled_value(&json!("x%"), 3, true),
            Err(
                "invalid value for IntOrString: invalid value \"x%\": strconv.Atoi: parsing \"x\": invalid syntax"
                    .to_string()
            )
        );
        assert_eq!(
            scaled_value(&Value::Null, 3, true),
            Err("nil value for IntOrString".to_string())
        );
    }
}
