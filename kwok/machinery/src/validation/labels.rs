//! Labels, annotations and label selectors (apimachinery pkg/apis/meta/v1/validation,
//! pkg/api/validation objectmeta.go). Go ranges over maps in random order; keys are visited
//! sorted here so several errors come out in a stable order.

use serde_json::{Map, Value};

use super::path::{forbidden, invalid, required, too_long, Path};
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;
use crate::selectors::LabelSelector;

/// `TotalAnnotationSizeLimitB`.
const ANNOTATIONS_SIZE_LIMIT: usize = 256 * 1024;

fn sorted_entries(m: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut v: Vec<(&String, &Value)> = m.iter().collect();
    v.sort_by(|a, b| a.0.cmp(b.0));
    v
}

/// `ValidateLabelName`.
pub fn label_name(name: &str, p: &Path) -> Vec<FieldError> {
    names::qualified_name(name)
        .into_iter()
        .map(|m| invalid(p, go_quote(name), m))
        .collect()
}

/// `ValidateLabels`: every key a qualified name, every value a label value; errors on the map path.
pub fn labels(v: Option<&Value>, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(m) = v.and_then(Value::as_object) else {
        return errs;
    };
    for (k, val) in sorted_entries(m) {
        errs.extend(label_name(k, p));
        let s = val.as_str().unwrap_or("");
        for msg in names::label_value(s) {
            errs.push(invalid(p, go_quote(s), msg));
        }
    }
    errs
}

/// `ValidateAnnotations`: keys are qualified names (case-insensitive), total size 256 KiB.
pub fn annotations(v: Option<&Value>, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(m) = v.and_then(Value::as_object) else {
        return errs;
    };
    let mut size = 0usize;
    for (k, val) in sorted_entries(m) {
        for msg in names::qualified_name(&k.to_lowercase()) {
            errs.push(invalid(p, go_quote(k), msg));
        }
        size += k.len() + val.as_str().map_or(0, str::len);
    }
    if size > ANNOTATIONS_SIZE_LIMIT {
        errs.push(too_long(p, ANNOTATIONS_SIZE_LIMIT));
    }
    errs
}

/// `ValidateLabelSelector` (with `AllowInvalidLabelValueInSelector: false`).
pub fn label_selector(sel: Option<&Value>, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(sel) = sel.filter(|s| s.is_object()) else {
        return errs;
    };
    errs.extend(labels(sel.get("matchLabels"), &p.child("matchLabels")));
    let exprs = sel
        .get("matchExpressions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, r) in exprs.iter().enumerate() {
        let rp = p.child("matchExpressions").index(i);
        let op = r.get("operator").and_then(Value::as_str).unwrap_or("");
        let values = r
            .get("values")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        match op {
            "In" | "NotIn" => {
                if values.is_empty() {
                    errs.push(required(
                        &rp.child("values"),
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    ));
                }
            }
            "Exists" | "DoesNotExist" => {
                if !values.is_empty() {
                    errs.push(forbidden(
                        &rp.child("values"),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    ));
                }
            }
            other => errs.push(invalid(
                &rp.child("operator"),
                go_quote(other),
                "not a valid selector operator",
            )),
        }
        let key = r.get("key").and_then(Value::as_str).unwrap_or("");
        errs.extend(label_name(key, &rp.child("key")));
        for (vi, v) in values.iter().enumerate() {
            let s = v.as_str().unwrap_or("");
            for msg in names::label_value(s) {
                errs.push(invalid(&rp.child("values").index(vi), go_quote(s), msg));
            }
        }
    }
    errs
}

/// `metav1.LabelSelectorAsSelector` of a spec's selector (absent is nil, which selects nothing).
fn as_selector(sel: Option<&Value>) -> Result<LabelSelector, String> {
    LabelSelector::from_api(sel.unwrap_or(&Value::Null))
}

/// Does `LabelSelectorAsSelector` accept the selector (operators, keys and values)?
pub fn selector_parses(sel: Option<&Value>) -> bool {
    as_selector(sel).is_ok()
}

/// Is the selector empty (no matchLabels and no matchExpressions)?
pub fn selector_is_empty(sel: &Value) -> bool {
    let n_labels = sel
        .get("matchLabels")
        .and_then(Value::as_object)
        .map_or(0, Map::len);
    let n_exprs = sel
        .get("matchExpressions")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    n_labels + n_exprs == 0
}

/// `selector.Matches(labels.Set(l))`; a nil selector matches nothing, an empty one everything.
pub fn selector_matches(sel: Option<&Value>, l: Option<&Value>) -> bool {
    as_selector(sel).is_ok_and(|s| s.matches(l.and_then(Value::as_object)))
}

/// `%#v` of a selector, for the messages that print one.
pub fn render(sel: &Value) -> String {
    go_syntax::label_selector(sel)
}
