//! HorizontalPodAutoscaler validation (`pkg/apis/autoscaling/validation/validation.go`), on the
//! stored (v2, internal-shaped) object whatever version was sent, as upstream validates the
//! internal type: a v1 target appears as `spec.metrics[0]`.

use serde_json::Value;

use super::meta::{object_meta, object_meta_update};
use super::path::{forbidden, invalid, not_supported, required, Path};
use super::read::s;
use crate::error::{go_quote, FieldError};
use crate::names;
use crate::quantity::Quantity;

/// `MaxPeriodSeconds` and `MaxStabilizationWindowSeconds`.
const MAX_PERIOD_SECONDS: i64 = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS: i64 = 3600;

fn name_checks(name: &str, _prefix: bool) -> Vec<String> {
    names::path_segment_name(name)
}

/// `ValidateCrossVersionObjectReference`.
fn object_reference(r: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in ["kind", "name"] {
        let v = s(r, key);
        if v.is_empty() {
            errs.push(required(&p.child(key), ""));
        } else {
            for msg in names::path_segment_name(v) {
                errs.push(invalid(&p.child(key), go_quote(v), msg));
            }
        }
    }
    errs
}

/// `validateMetricIdentifier`.
fn metric_identifier(id: &Value, p: &Path) -> Vec<FieldError> {
    let name = s(id, "name");
    if name.is_empty() {
        return vec![required(&p.child("name"), "must specify a metric name")];
    }
    names::path_segment_name(name)
        .into_iter()
        .map(|msg| invalid(&p.child("name"), go_quote(name), msg))
        .collect()
}

fn quantity(v: &Value) -> Option<Quantity> {
    v.as_str().and_then(|q| Quantity::parse(q).ok())
}

/// `validateMetricTarget`.
fn metric_target(t: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let ty = s(t, "type");
    if ty.is_empty() {
        errs.push(required(
            &p.child("type"),
            "must specify a metric target type",
        ));
    }
    if !["Utilization", "Value", "AverageValue"].contains(&ty) {
        errs.push(invalid(
            &p.child("type"),
            go_quote(ty),
            "must be either Utilization, Value, or AverageValue",
        ));
    }
    for key in ["value", "averageValue"] {
        if let Some(q) = quantity(&t[key]) {
            if q.is_negative() || q.is_zero() {
                errs.push(invalid(&p.child(key), q.go_sharp_v(), "must be positive"));
            }
        }
    }
    if let Some(u) = t["averageUtilization"].as_i64().filter(|u| *u < 1) {
        errs.push(invalid(
            &p.child("averageUtilization"),
            u.to_string(),
            "must be greater than 0",
        ));
    }
    errs
}

/// The utilization-or-value rule of resource and container resource sources.
fn utilization_or_value(t: &Value, p: &Path) -> Vec<FieldError> {
    let (u, v) = (
        !t["averageUtilization"].is_null(),
        !t["averageValue"].is_null(),
    );
    let mut errs = Vec::new();
    if !u && !v {
        errs.push(required(
            &p.child("averageUtilization"),
            "must set either a target raw value or a target utilization",
        ));
    }
    if u && v {
        errs.push(forbidden(
            &p.child("averageValue"),
            "may not set both a target raw value and a target utilization",
        ));
    }
    errs
}

fn source(kind: &str, src: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let t = &src["target"];
    let tp = p.child("target");
    match kind {
        "object" => {
            errs.extend(object_reference(
                &src["describedObject"],
                &p.child("describedObject"),
            ));
            errs.extend(metric_identifier(&src["metric"], &p.child("metric")));
            errs.extend(metric_target(t, &tp));
            if t["value"].is_null() && t["averageValue"].is_null() {
                errs.push(required(
                    &tp.child("averageValue"),
                    "must set either a target value or averageValue",
                ));
            }
        }
        "external" => {
            errs.extend(metric_identifier(&src["metric"], &p.child("metric")));
            errs.extend(metric_target(t, &tp));
            if t["value"].is_null() && t["averageValue"].is_null() {
                errs.push(required(
                    &tp.child("averageValue"),
                    "must set either a target value for metric or a per-pod target",
                ));
            }
            if !t["value"].is_null() && !t["averageValue"].is_null() {
                errs.push(forbidden(
                    &tp.child("value"),
                    "may not set both a target value for metric and a per-pod target",
                ));
            }
        }
        "pods" => {
            errs.extend(metric_identifier(&src["metric"], &p.child("metric")));
            errs.extend(metric_target(t, &tp));
            if t["averageValue"].is_null() {
                errs.push(required(
                    &tp.child("averageValue"),
                    "must specify a positive target averageValue",
                ));
            }
        }
        "containerResource" => {
            let name = s(src, "name");
            if name.is_empty() {
                errs.push(required(&p.child("name"), "must specify a resource name"));
            } else {
                errs.extend(super::resources::resource_name(name, &p.child("name")));
            }
            let container = s(src, "container");
            if container.is_empty() {
                errs.push(required(&p.child("container"), "must specify a container"));
            } else {
                for msg in names::dns1123_label(container) {
                    errs.push(invalid(&p.child("container"), go_quote(container), msg));
                }
            }
            errs.extend(metric_target(t, &tp));
            errs.extend(utilization_or_value(t, &tp));
        }
        _ => {
            if s(src, "name").is_empty() {
                errs.push(required(&p.child("name"), "must specify a resource name"));
            }
            errs.extend(metric_target(t, &tp));
            errs.extend(utilization_or_value(t, &tp));
        }
    }
    errs
}

const SOURCE_TYPES: &[&str] = &[
    "ContainerResource",
    "External",
    "Object",
    "Pods",
    "Resource",
];

/// `validateMetricSpec`.
fn metric_spec(m: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let ty = s(m, "type");
    if ty.is_empty() {
        errs.push(required(
            &p.child("type"),
            "must specify a metric source type",
        ));
    }
    if !SOURCE_TYPES.contains(&ty) {
        errs.push(not_supported(&p.child("type"), go_quote(ty), SOURCE_TYPES));
    }
    let present: Vec<&str> = [
        "object",
        "external",
        "pods",
        "resource",
        "containerResource",
    ]
    .into_iter()
    .filter(|k| m[*k].is_object())
    .collect();
    if let Some(first) = present.first() {
        errs.extend(source(first, &m[*first], &p.child(first)));
    }
    let expected = match ty {
        "Object" => "object",
        "Pods" => "pods",
        "Resource" => "resource",
        "External" => "external",
        "ContainerResource" => "containerResource",
        _ => {
            errs.push(not_supported(&p.child("type"), go_quote(ty), SOURCE_TYPES));
            ""
        }
    };
    if !expected.is_empty() && !m[expected].is_object() {
        errs.push(required(
            &p.child(expected),
            "must populate information for the given metric source",
        ));
    }
    if present.len() != 1 {
        // A Go set's iteration order: sorted here.
        let mut rest: Vec<&str> = present.into_iter().filter(|k| *k != expected).collect();
        rest.sort_unstable();
        for k in rest {
            errs.push(forbidden(
                &p.child(k),
                "must populate the given metric source only",
            ));
        }
    }
    errs
}

/// `validateScalingRules`.
fn scaling_rules(r: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if !r.is_object() {
        return errs;
    }
    if let Some(w) = r["stabilizationWindowSeconds"].as_i64() {
        if w < 0 {
            errs.push(invalid(
                &p.child("stabilizationWindowSeconds"),
                w.to_string(),
                "must be greater than or equal to zero",
            ));
        }
        if w > MAX_STABILIZATION_WINDOW_SECONDS {
            errs.push(invalid(
                &p.child("stabilizationWindowSeconds"),
                w.to_string(),
                format!("must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}"),
            ));
        }
    }
    if let Some(sel) = r["selectPolicy"].as_str() {
        if !["Disabled", "Max", "Min"].contains(&sel) {
            errs.push(not_supported(
                &p.child("selectPolicy"),
                go_quote(sel),
                &["Disabled", "Max", "Min"],
            ));
        }
    }
    let pp = p.child("policies");
    let policies = r["policies"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if policies.is_empty() {
        errs.push(required(&pp, "must specify at least one Policy"));
    }
    for (i, policy) in policies.iter().enumerate() {
        let ip = pp.index(i);
        let ty = s(policy, "type");
        if ty != "Pods" && ty != "Percent" {
            errs.push(not_supported(
                &ip.child("type"),
                go_quote(ty),
                &["Percent", "Pods"],
            ));
        }
        let value = policy["value"].as_i64().unwrap_or(0);
        if value <= 0 {
            errs.push(invalid(
                &ip.child("value"),
                value.to_string(),
                "must be greater than zero",
            ));
        }
        let period = policy["periodSeconds"].as_i64().unwrap_or(0);
        if period <= 0 {
            errs.push(invalid(
                &ip.child("periodSeconds"),
                period.to_string(),
                "must be greater than zero",
            ));
        }
        if period > MAX_PERIOD_SECONDS {
            errs.push(invalid(
                &ip.child("periodSeconds"),
                period.to_string(),
                format!("must be less than or equal to {MAX_PERIOD_SECONDS}"),
            ));
        }
    }
    errs
}

/// `validateHorizontalPodAutoscalerSpec`; `min_lower_bound` is 1 (HPAScaleToZero is off) unless
/// an update keeps a zero minimum.
fn spec(spec: &Value, min_lower_bound: i64) -> Vec<FieldError> {
    let p = Path::new("spec");
    let mut errs = Vec::new();
    let min = spec["minReplicas"].as_i64();
    let max = spec["maxReplicas"].as_i64().unwrap_or(0);
    if let Some(min) = min.filter(|m| *m < min_lower_bound) {
        errs.push(invalid(
            &p.child("minReplicas"),
            min.to_string(),
            format!("must be greater than or equal to {min_lower_bound}"),
        ));
    }
    if max < 1 {
        errs.push(invalid(
            &p.child("maxReplicas"),
            max.to_string(),
            "must be greater than 0",
        ));
    }
    if min.is_some_and(|m| max < m) {
        errs.push(invalid(
            &p.child("maxReplicas"),
            max.to_string(),
            "must be greater than or equal to `minReplicas`",
        ));
    }
    errs.extend(object_reference(
        &spec["scaleTargetRef"],
        &p.child("scaleTargetRef"),
    ));
    let metrics = spec["metrics"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mp = p.child("metrics");
    for (i, m) in metrics.iter().enumerate() {
        errs.extend(metric_spec(m, &mp.index(i)));
    }
    if min == Some(0)
        && !metrics
            .iter()
            .any(|m| m["type"] == "Object" || m["type"] == "External")
    {
        errs.push(forbidden(
            &mp,
            "must specify at least one Object or External metric to support scaling to zero replicas",
        ));
    }
    let b = &spec["behavior"];
    if b.is_object() {
        let bp = p.child("behavior");
        errs.extend(scaling_rules(&b["scaleUp"], &bp.child("scaleUp")));
        errs.extend(scaling_rules(&b["scaleDown"], &bp.child("scaleDown")));
    }
    errs
}

/// `ValidateHorizontalPodAutoscaler`.
pub fn horizontal_pod_autoscaler(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, name_checks, true);
    errs.extend(spec(&obj["spec"], 1));
    errs
}

/// `ValidateHorizontalPodAutoscalerUpdate`.
pub fn horizontal_pod_autoscaler_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let bound = if old["spec"]["minReplicas"] == 0 {
        0
    } else {
        1
    };
    errs.extend(spec(&new["spec"], bound));
    errs
}

/// `ValidateHorizontalPodAutoscalerStatusUpdate`.
pub fn horizontal_pod_autoscaler_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    for key in ["currentReplicas", "desiredReplicas"] {
        if let Some(n) = new["status"][key].as_i64().filter(|n| *n < 0) {
            errs.push(invalid(
                &Path::of(&["status", key]),
                n.to_string(),
                "must be greater than or equal to 0",
            ));
        }
    }
    errs
}
