//! How `field.Error` prints a bad value (apimachinery util/validation/field errors.go, 1.27–1.33):
//! strings `%q`, numbers and bools `%v`, pointers dereferenced, anything else Go's `%#v`
//! (`map[string]string{"app":"y"}`, `[]string{"a", "b"}`, `intstr.IntOrString{Type:1, ...}`).
//! Values here are the JSON of the (versioned) object; the renderers rebuild the internal Go
//! type's `%#v`.

use serde_json::{Map, Value};

use crate::error::go_quote;

/// What `field.Error` prints for a nil bad value, a nil pointer included: the string `null`,
/// quoted as every string value is (`spec.selector: Invalid value: "null": field is immutable`).
pub const NULL: &str = "\"null\"";

/// A scalar the way `%q`/`%v` print it; objects and arrays fall back to their JSON.
pub fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => go_quote(s),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => NULL.into(),
        other => other.to_string(),
    }
}

/// `%q` of a string field (`""` when absent).
pub fn string_field(obj: &Value, key: &str) -> String {
    go_quote(obj.get(key).and_then(Value::as_str).unwrap_or(""))
}

/// `%#v` of a `map[string]string`: keys sorted, `(nil)` when absent.
pub fn string_map(v: Option<&Value>) -> String {
    match v.and_then(Value::as_object) {
        None => "map[string]string(nil)".into(),
        Some(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        go_quote(k),
                        go_quote(m[k.as_str()].as_str().unwrap_or(""))
                    )
                })
                .collect();
            format!("map[string]string{{{}}}", parts.join(", "))
        }
    }
}

/// `%#v` of a `[]string`.
pub fn string_slice(v: Option<&Value>) -> String {
    named_string_slice(v, "[]string")
}

/// `%#v` of a slice of a string type, named as Go names it (`[]core.ResourceQuotaScope`).
pub fn named_string_slice(v: Option<&Value>, go_type: &str) -> String {
    match v.and_then(Value::as_array) {
        None => format!("{go_type}(nil)"),
        Some(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|s| go_quote(s.as_str().unwrap_or("")))
                .collect();
            format!("{go_type}{{{}}}", parts.join(", "))
        }
    }
}

/// `%#v` of a `metav1.LabelSelector` value.
pub fn label_selector(sel: &Value) -> String {
    let exprs = match sel.get("matchExpressions").and_then(Value::as_array) {
        None => "[]v1.LabelSelectorRequirement(nil)".to_string(),
        Some(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|r| {
                    format!(
                        "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{}}}",
                        string_field(r, "key"),
                        string_field(r, "operator"),
                        string_slice(r.get("values"))
                    )
                })
                .collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", parts.join(", "))
        }
    };
    format!(
        "v1.LabelSelector{{MatchLabels:{}, MatchExpressions:{}}}",
        string_map(sel.get("matchLabels")),
        exprs
    )
}

/// `%#v` of an `intstr.IntOrString` value (Type 0 = Int, 1 = String).
pub fn int_or_string(v: &Value) -> String {
    match v {
        Value::String(s) => format!(
            "intstr.IntOrString{{Type:1, IntVal:0, StrVal:{}}}",
            go_quote(s)
        ),
        other => format!(
            "intstr.IntOrString{{Type:0, IntVal:{}, StrVal:\"\"}}",
            other.as_i64().unwrap_or(0)
        ),
    }
}

/// A pointer as `%#v` prints it inside a struct: `(*T)(nil)` or `(*T)(0xc...)`. Real addresses
/// are heap addresses; a stable stand-in derived from the pointee is printed instead.
pub fn pointer(go_type: &str, target: Option<&Value>) -> String {
    match target.filter(|v| !v.is_null()) {
        None => format!("(*{go_type})(nil)"),
        Some(v) => format!("(*{go_type})({})", fake_address(&format!("{go_type}{v}"))),
    }
}

/// An address that looks like one of Go's heap pointers (0xc0..., 16-byte aligned).
fn fake_address(seed: &str) -> String {
    // FNV-1a
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("0xc0{:08x}", (h as u32) & 0xffff_fff0)
}

/// `%#v` of an internal `core.Toleration`.
pub fn toleration(t: &Value) -> String {
    format!(
        "core.Toleration{{Key:{}, Operator:{}, Value:{}, Effect:{}, TolerationSeconds:{}}}",
        string_field(t, "key"),
        string_field(t, "operator"),
        string_field(t, "value"),
        string_field(t, "effect"),
        pointer("int64", t.get("tolerationSeconds"))
    )
}

/// `%#v` of an internal `core.Taint`.
pub fn taint(t: &Value) -> String {
    format!(
        "core.Taint{{Key:{}, Value:{}, Effect:{}, TimeAdded:{}}}",
        string_field(t, "key"),
        string_field(t, "value"),
        string_field(t, "effect"),
        pointer("v1.Time", t.get("timeAdded"))
    )
}

/// `%#v` of an internal update strategy (`apps.DeploymentStrategy{Type:"x", RollingUpdate:...}`).
pub fn strategy(go_type: &str, rolling_type: &str, s: &Value) -> String {
    format!(
        "{go_type}{{Type:{}, RollingUpdate:{}}}",
        string_field(s, "type"),
        pointer(rolling_type, s.get("rollingUpdate"))
    )
}

/// `%#v` of the internal `policy.PodDisruptionBudgetSpec`.
pub fn pdb_spec(spec: &Map<String, Value>) -> String {
    format!(
        "policy.PodDisruptionBudgetSpec{{MinAvailable:{}, Selector:{}, MaxUnavailable:{}, UnhealthyPodEvictionPolicy:{}}}",
        pointer("intstr.IntOrString", spec.get("minAvailable")),
        pointer("v1.LabelSelector", spec.get("selector")),
        pointer("intstr.IntOrString", spec.get("maxUnavailable")),
        pointer("policy.UnhealthyPodEvictionPolicyType", spec.get("unhealthyPodEvictionPolicy"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_sharp_v() {
        assert_eq!(
            string_map(Some(&json!({"b": "2", "a": "1"}))),
            r#"map[string]string{"a":"1", "b":"2"}"#
        );
        assert_eq!(string_map(None), "map[string]string(nil)");
        assert_eq!(
            string_slice(Some(&json!(["a", "b"]))),
            r#"[]string{"a", "b"}"#
        );
        assert_eq!(
            label_selector(&json!({"matchLabels": {"app": "nginx"}})),
            r#"v1.LabelSelector{MatchLabels:map[string]string{"app":"nginx"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}"#
        );
        assert_eq!(
            int_or_string(&json!("50%")),
            r#"intstr.IntOrString{Type:1, IntVal:0, StrVal:"50%"}"#
        );
        assert_eq!(
            int_or_string(&json!(2)),
            r#"intstr.IntOrString{Type:0, IntVal:2, StrVal:""}"#
        );
        assert_eq!(pointer("int64", None), "(*int64)(nil)");
        assert!(pointer("int64", Some(&json!(5))).starts_with("(*int64)(0xc0"));
    }
}
