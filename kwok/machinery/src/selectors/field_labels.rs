//! Which field labels each kind can be selected on, and their values.
//!
//! The API server looks at a field selector in two separate steps, mirrored here:
//!
//! 1. **Acceptance** — `Scheme.ConvertFieldLabel` runs every term through the kind's conversion
//!    function (`AddFieldLabelConversionFunc` in `k/k pkg/apis/core/v1/conversion.go`,
//!    `pkg/apis/events/v1/conversion.go`). A kind without one falls back to
//!    `runtime.DefaultMetaV1FieldSelectorConversion` (only `metadata.name` / `metadata.namespace`);
//!    apps/v1, policy/v1 and coordination.k8s.io/v1 register none. A rejection is the 400 message.
//! 2. **Matching** — the registry strategy's `ToSelectableFields` / `GetAttrs`
//!    (`k/k pkg/registry/*/strategy.go`) builds the field set the converted term is matched against.
//!
//! The two lists differ: pods accept `status.podIPs` but never set it (so `=x` matches nothing),
//! ReplicaSets set `status.replicas` but the default conversion rejects it, and nodes / namespaces do
//! not accept `metadata.namespace` at all.

use serde_json::Value;

use crate::error::go_quote;
use crate::resource_names::ResourceNames;

const POD_LABELS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.podIPs",
    "status.nominatedNodeName",
];

const CORE_EVENT_LABELS: &[&str] = &[
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
    "metadata.namespace",
    "metadata.name",
];

/// events.k8s.io/v1 spellings and the core labels they map to (`AddFieldLabelConversionsForEvent`).
const EVENTS_V1_LABELS: &[(&str, &str)] = &[
    ("reason", "reason"),
    ("regarding.kind", "involvedObject.kind"),
    ("regarding.namespace", "involvedObject.namespace"),
    ("regarding.name", "involvedObject.name"),
    ("regarding.uid", "involvedObject.uid"),
    ("regarding.apiVersion", "involvedObject.apiVersion"),
    (
        "regarding.resourceVersion",
        "involvedObject.resourceVersion",
    ),
    ("regarding.fieldPath", "involvedObject.fieldPath"),
    ("reportingController", "reportingComponent"),
    ("source", "source"),
    ("type", "type"),
    ("metadata.namespace", "metadata.namespace"),
    ("metadata.name", "metadata.name"),
];

fn not_supported(label: &str) -> String {
    format!("field label not supported: {label}")
}

fn accept_from(list: &[&str], label: &str) -> Result<String, String> {
    if list.contains(&label) {
        Ok(label.to_string())
    } else {
        Err(not_supported(label))
    }
}

/// `Scheme.ConvertFieldLabel` for the kind of `res`: the label under which the storage's field set
/// holds it, or the exact error the API server wraps into its 400.
pub fn convert_field_label(res: &dyn ResourceNames, label: &str) -> Result<String, String> {
    match (res.group(), res.kind()) {
        ("", "Pod") => {
            if label == "spec.host" {
                // Backwards compatibility with old v1 clients.
                Ok("spec.nodeName".to_string())
            } else {
                accept_from(POD_LABELS, label)
            }
        }
        ("", "Node") => accept_from(&["metadata.name", "spec.unschedulable"], label),
        ("", "Namespace") => accept_from(&["status.phase", "metadata.name"], label),
        ("", "Secret") => accept_from(&["type", "metadata.namespace", "metadata.name"], label),
        ("", "Event") => accept_from(CORE_EVENT_LABELS, label),
        ("events.k8s.io", "Event") => EVENTS_V1_LABELS
            .iter()
            .find(|(from, _)| *from == label)
            .map(|(_, to)| to.to_string())
            .ok_or_else(|| not_supported(label)),
        _ => match label {
            "metadata.name" | "metadata.namespace" => Ok(label.to_string()),
            _ => Err(format!(
                "{} is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
                go_quote(label)
            )),
        },
    }
}

fn str_at<'a>(obj: &'a Value, path: &[&str]) -> &'a str {
    let mut cur = obj;
    for key in path {
        match cur.get(key) {
            Some(v) => cur = v,
            None => return "",
        }
    }
    cur.as_str().unwrap_or("")
}

fn bool_at(obj: &Value, path: &[&str]) -> bool {
    let mut cur = obj;
    for key in path {
        match cur.get(key) {
            Some(v) => cur = v,
            None => return false,
        }
    }
    cur.as_bool().unwrap_or(false)
}

/// The first of several JSON spellings that is set (core/v1 vs events.k8s.io/v1 Event fields).
fn first_str<'a>(obj: &'a Value, paths: &[&[&str]]) -> &'a str {
    paths
        .iter()
        .map(|p| str_at(obj, p))
        .find(|s| !s.is_empty())
        .unwrap_or("")
}

/// `EventToSelectableFields` (`k/k pkg/registry/core/event/strategy.go`), over either wire form.
fn event_field(obj: &Value, label: &str) -> Option<String> {
    let reference =
        |field: &str| first_str(obj, &[&["involvedObject", field], &["regarding", field]]);
    let reporting = || first_str(obj, &[&["reportingComponent"], &["reportingController"]]);
    Some(
        match label {
            "involvedObject.kind" => reference("kind"),
            "involvedObject.namespace" => reference("namespace"),
            "involvedObject.name" => reference("name"),
            "involvedObject.uid" => reference("uid"),
            "involvedObject.apiVersion" => reference("apiVersion"),
            "involvedObject.resourceVersion" => reference("resourceVersion"),
            "involvedObject.fieldPath" => reference("fieldPath"),
            "reason" => str_at(obj, &["reason"]),
            "reportingComponent" => reporting(),
            // Source.Component, falling back to ReportingController.
            "source" => {
                let component = first_str(
                    obj,
                    &[&["source", "component"], &["deprecatedSource", "component"]],
                );
                if component.is_empty() {
                    reporting()
                } else {
                    component
                }
            }
            "type" => str_at(obj, &["type"]),
            _ => return None,
        }
        .to_string(),
    )
}

/// The field set (`GetAttrs`) of the object's kind, looked up by its storage-side label.
fn selectable_value(res: &dyn ResourceNames, obj: &Value, label: &str) -> Option<String> {
    let meta = |field: &str| str_at(obj, &["metadata", field]).to_string();
    match label {
        "metadata.name" => return Some(meta("name")),
        // `ObjectMetaFieldsSet(meta, false)` leaves the namespace out for cluster-scoped kinds.
        "metadata.namespace" if res.namespaced() => return Some(meta("namespace")),
        _ => {}
    }
    let s = |path: &[&str]| Some(str_at(obj, path).to_string());
    match (res.group(), res.kind(), label) {
        ("", "Pod", "spec.nodeName") => s(&["spec", "nodeName"]),
        ("", "Pod", "spec.restartPolicy") => s(&["spec", "restartPolicy"]),
        ("", "Pod", "spec.schedulerName") => s(&["spec", "schedulerName"]),
        ("", "Pod", "spec.serviceAccountName") => s(&["spec", "serviceAccountName"]),
        ("", "Pod", "spec.hostNetwork") => Some(bool_at(obj, &["spec", "hostNetwork"]).to_string()),
        ("", "Pod", "status.phase") => s(&["status", "phase"]),
        ("", "Pod", "status.podIP") => {
            // PodIPs[0].IP of the internal pod; v1 keeps podIP as the same first address.
            let first = obj
                .pointer("/status/podIPs/0/ip")
                .and_then(Value::as_str)
                .unwrap_or_else(|| str_at(obj, &["status", "podIP"]));
            Some(first.to_string())
        }
        ("", "Pod", "status.nominatedNodeName") => s(&["status", "nominatedNodeName"]),
        ("", "Node", "spec.unschedulable") => {
            Some(bool_at(obj, &["spec", "unschedulable"]).to_string())
        }
        ("", "Namespace", "status.phase") => s(&["status", "phase"]),
        ("", "Namespace", "name") => Some(meta("name")),
        ("", "Secret", "type") => s(&["type"]),
        ("apps", "ReplicaSet", "status.replicas") => Some(
            obj.pointer("/status/replicas")
                .and_then(Value::as_i64)
                .unwrap_or(0)
                .to_string(),
        ),
        ("" | "events.k8s.io", "Event", _) => event_field(obj, label),
        _ => None,
    }
}

/// The value of field label `field` (as a client spells it in `?fieldSelector=`) for `obj`: `None`
/// when the kind does not accept the label or never sets it, like a missing `fields.Set` key.
pub fn field_value(res: &dyn ResourceNames, obj: &Value, field: &str) -> Option<String> {
    let label = convert_field_label(res, field).ok()?;
    selectable_value(res, obj, &label)
}
