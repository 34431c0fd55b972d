//! Go's `fmt.Sprintf("%+v", m)` for a decoded JSON map (`map[string]interface{}`), the value the
//! apiserver shows for a rejected strategic merge patch (`map[spec:map[foo:1]]`).

use serde_json::Value;

/// `%v` of a JSON value held in Go interfaces (ints preserved as int64, other numbers float64).
pub fn sprint(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.to_string()
            } else if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                float_g(n.as_f64().unwrap_or(0.0))
            }
        }
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(sprint).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(m) => {
            // fmt prints maps sorted by key.
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}:{}", sprint(&m[k.as_str()])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

/// `%v` of a float64: the shortest digits, in exponent form when the exponent is < -4 or >= 6
/// (`strconv.FormatFloat(f, 'g', -1, 64)`).
pub fn float_g(f: f64) -> String {
    if f == 0.0 {
        return "0".into();
    }
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.abs());
    }
    if exp < 0 {
        return format!("{sign}0.{}{}", "0".repeat((-exp - 1) as usize), digits);
    }
    let int_len = (exp + 1) as usize;
    if digits.len() <= int_len {
        format!("{sign}{}{}", digits, "0".repeat(int_len - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..int_len], &digits[int_len..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prints_like_go_fmt() {
        assert_eq!(
            sprint(&json!({"spec": {"foo": 1, "bar": [true, "x"]}, "a": null})),
            "map[a:<nil> spec:map[bar:[true x] foo:1]]"
        );
        assert_eq!(float_g(1.5), "1.5");
        assert_eq!(float_g(1000000.0), "1e+06");
        assert_eq!(float_g(123456.5), "123456.5");
        assert_eq!(float_g(0.0001), "0.0001");
        assert_eq!(float_g(0.00001), "1e-05");
    }
}
