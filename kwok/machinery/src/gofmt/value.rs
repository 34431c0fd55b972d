//! Go `fmt` renderings of JSON values decoded into `interface{}` (`sigs.k8s.io/json` keeps
//! integers that fit as int64, everything else float64), for the messages the API server builds
//! with `%v`, `%s` and `reflect.TypeOf`: strategic merge patch errors
//! (`k8s.io/apimachinery/pkg/util/mergepatch/errors.go`, `strategicpatch/patch.go`) and the
//! `%+v` of a rejected patch (`map[spec:map[foo:1]]`).

use serde_json::{Number, Value};

/// Go's dynamic type of a value decoded with `sigs.k8s.io/json` (integers are kept as int64).
pub fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "map[string]interface {}",
        Value::Array(_) => "[]interface {}",
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.as_i64().is_some() => "int64",
        Value::Number(_) => "float64",
        // `%s` of a nil reflect.Type.
        Value::Null => "%!s(<nil>)",
    }
}

/// `fmt.Sprintf("%v", v)`: maps print as `map[k:v ...]` with sorted keys, slices as `[a b]`.
pub fn go_v(v: &Value) -> String {
    with_scalars(v, &|scalar| match scalar {
        Value::Null => "<nil>".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => go_number(n),
        Value::String(s) => s.clone(),
        _ => String::new(),
    })
}

/// `fmt.Sprintf("%s", v)` of an `interface{}`: strings print bare, other scalars as `%!s(T=v)`.
pub fn go_s(v: &Value) -> String {
    with_scalars(v, &|scalar| match scalar {
        Value::Null => "%!s(<nil>)".to_string(),
        Value::String(s) => s.clone(),
        other => format!("%!s({}={})", go_type(other), go_v(other)),
    })
}

/// How fmt prints containers, whatever the verb: slices as `[a b]`, maps as `map[k:v ...]` with
/// sorted keys; `scalar` prints the rest.
fn with_scalars(v: &Value, scalar: &dyn Fn(&Value) -> String) -> String {
    match v {
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(|i| with_scalars(i, scalar)).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", with_scalars(&map[k.as_str()], scalar)))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
        other => scalar(other),
    }
}

fn go_number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    match n.as_f64() {
        Some(f) => go_float(f),
        None => n.to_string(),
    }
}

/// `%v` of a float64: `strconv.FormatFloat(f, 'g', -1, 64)`, i.e. the shortest digits, in exponent
/// form when the decimal exponent is below -4 or at least 6 (strconv uses precision 6 for that
/// decision when the precision is the shortest one).
fn go_float(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".to_string()
        } else if f > 0.0 {
            "+Inf".to_string()
        } else {
            "-Inf".to_string()
        };
    }
    // Rust's `{:e}` gives the shortest round-trip digits, e.g. "-1.2345e7".
    let sci = format!("{f:e}");
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (sci.as_str(), 0),
    };
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if neg { "-" } else { "" };
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
    // Positional form: the decimal point goes after `exp + 1` digits.
    let point = exp + 1;
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else {
        let point = point as usize;
        if digits.len() <= point {
            format!("{digits}{}", "0".repeat(point - digits.len()))
        } else {
            format!("{}.{}", &digits[..point], &digits[point..])
        }
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_print_sorted_like_go() {
        assert_eq!(
            go_v(&json!({"value": "b", "name": 1, "list": ["x", 2]})),
            "map[list:[x 2] name:1 value:b]"
        );
        assert_eq!(go_v(&json!(null)), "<nil>");
        assert_eq!(go_s(&json!(3)), "%!s(int64=3)");
        assert_eq!(go_s(&json!("merge")), "merge");
    }

    #[test]
    fn nested_values_print_like_go_fmt() {
        assert_eq!(
            go_v(&json!({"spec": {"foo": 1, "bar": [true, "x"]}, "a": null})),
            "map[a:<nil> spec:map[bar:[true x] foo:1]]"
        );
    }

    /// An integer beyond int64 decodes as float64, and so prints in exponent form; a negative
    /// zero float keeps its sign.
    #[test]
    fn numbers_outside_int64_are_floats() {
        assert_eq!(
            go_v(&json!(18446744073709551615u64)),
            "1.8446744073709552e+19"
        );
        assert_eq!(go_v(&json!(-0.0)), "-0");
        assert_eq!(go_v(&json!(123456.5)), "123456.5");
    }

    #[test]
    fn floats_print_like_go_v() {
        // fmt.Sprint outputs for these float64 values.
        assert_eq!(go_v(&json!(1.5)), "1.5");
        assert_eq!(go_v(&json!(123456.0)), "123456");
        assert_eq!(go_v(&json!(1000000.0)), "1e+06");
        assert_eq!(go_v(&json!(12345678.5)), "1.23456785e+07");
        assert_eq!(go_v(&json!(0.0001)), "0.0001");
        assert_eq!(go_v(&json!(0.00001)), "1e-05");
        assert_eq!(go_v(&json!(-2.25)), "-2.25");
    }
}
