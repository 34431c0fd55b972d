//! RuntimeClasses (k8s.io/kubernetes pkg/apis/node/validation/validation.go).

use serde_json::{json, Value};

use super::labels::labels;
use super::meta::{object_meta, object_meta_update};
use super::path::{duplicate, invalid, Path, IMMUTABLE};
use super::pod::tolerations;
use super::resources::requirements;
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;

/// `ValidateRuntimeClass`.
pub fn runtime_class(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_subdomain, true);
    let handler = obj["handler"].as_str().unwrap_or("");
    for msg in names::dns1123_label(handler) {
        errs.push(invalid(&Path::new("handler"), go_quote(handler), msg));
    }
    if let Some(overhead) = obj.get("overhead").filter(|o| o.is_object()) {
        // `validateOverhead` reuses the container check, the fixed overhead as its limits.
        let as_limits = json!({"limits": overhead.get("podFixed").cloned().unwrap_or(Value::Null)});
        errs.extend(requirements(&as_limits, &Path::new("overhead")));
    }
    if let Some(scheduling) = obj.get("scheduling").filter(|s| s.is_object()) {
        let p = Path::new("scheduling");
        errs.extend(labels(
            scheduling.get("nodeSelector"),
            &p.child("nodeSelector"),
        ));
        errs.extend(scheduling_tolerations(scheduling, &p.child("tolerations")));
    }
    errs
}

/// `validateTolerations`: each toleration as a pod's (under a path that names `tolerations`
/// twice, as upstream passes it on), and no two alike by key, operator, value and effect.
fn scheduling_tolerations(scheduling: &Value, p: &Path) -> Vec<FieldError> {
    let items = scheduling["tolerations"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let mut errs = tolerations(items, &p.child("tolerations"));
    let list_key = |t: &Value| {
        ["key", "operator", "value", "effect"].map(|k| t[k].as_str().unwrap_or("").to_string())
    };
    let mut seen = Vec::new();
    for (i, t) in items.iter().enumerate() {
        let key = list_key(t);
        if seen.contains(&key) {
            errs.push(duplicate(&p.index(i), go_syntax::toleration(t)));
        } else {
            seen.push(key);
        }
    }
    errs
}

/// `ValidateRuntimeClassUpdate` after the new object's own validation: the handler is immutable.
pub fn runtime_class_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = runtime_class(new);
    errs.extend(object_meta_update(new, old, false));
    if new["handler"] != old["handler"] {
        let handler = new["handler"].as_str().unwrap_or("");
        errs.push(invalid(&Path::new("handler"), go_quote(handler), IMMUTABLE));
    }
    errs
}
