//! PodDisruptionBudgets (k8s.io/kubernetes pkg/apis/policy/validation/validation.go). The policy
//! strategy validates only the spec; names get the generic path-segment check.

use serde_json::{Map, Value};

use super::intstr;
use super::labels::label_selector;
use super::meta::{generic, object_meta_update};
use super::path::{invalid, not_supported, Path};
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;

/// `ValidatePodDisruptionBudget` then the generic metadata checks.
pub fn validate(obj: &Value) -> Vec<FieldError> {
    let errs = spec(obj);
    if !errs.is_empty() {
        return errs;
    }
    generic(obj, true)
}

pub fn validate_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, false);
    errs.extend(spec(new));
    errs
}

pub fn validate_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, false);
    let st = new.get("status").unwrap_or(&Value::Null);
    let p = Path::new("status");
    for f in [
        "disruptionsAllowed",
        "currentHealthy",
        "desiredHealthy",
        "expectedPods",
    ] {
        errs.extend(super::path::nonnegative(
            st.get(f).and_then(Value::as_i64),
            &p.child(f),
        ));
    }
    errs
}

/// `ValidatePodDisruptionBudgetSpec`.
fn spec(obj: &Value) -> Vec<FieldError> {
    let empty = Map::new();
    let spec = obj.get("spec").and_then(Value::as_object).unwrap_or(&empty);
    let p = Path::new("spec");
    let mut errs = Vec::new();
    let min = spec.get("minAvailable").filter(|v| !v.is_null());
    let max = spec.get("maxUnavailable").filter(|v| !v.is_null());
    if min.is_some() && max.is_some() {
        errs.push(invalid(
            &p,
            go_syntax::pdb_spec(spec),
            "minAvailable and maxUnavailable cannot be both set",
        ));
    }
    for (key, v) in [("minAvailable", min), ("maxUnavailable", max)] {
        if let Some(v) = v {
            errs.extend(intstr::positive_int_or_percent(v, &p.child(key)));
            errs.extend(intstr::not_more_than_100_percent(v, &p.child(key)));
        }
    }
    errs.extend(label_selector(spec.get("selector"), &p.child("selector")));
    if let Some(policy) = spec
        .get("unhealthyPodEvictionPolicy")
        .and_then(Value::as_str)
    {
        if policy != "IfHealthyBudget" && policy != "AlwaysAllow" {
            errs.push(not_supported(
                &p.child("unhealthyPodEvictionPolicy"),
                go_quote(policy),
                &["AlwaysAllow", "IfHealthyBudget"],
            ));
        }
    }
    errs
}
