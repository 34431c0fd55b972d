//! ReplicationControllers (core validation `ValidateReplicationController`,
//! `ValidateReplicationControllerUpdate`, `ValidateReplicationControllerStatusUpdate`).

use serde_json::Value;

use super::apps::controller_pods;
use super::labels::selector_matches;
use super::meta::{object_meta, object_meta_update};
use super::path::{invalid, nonnegative, required, Path};
use super::pod::template;
use super::replicas::{int, nonnegative_counts, replica_bounds};
use crate::error::FieldError;
use crate::gofmt::go_syntax;
use crate::names;

/// `ValidateReplicationControllerSpec` with `ValidatePodTemplateSpecForRC`.
fn spec(spec: &Value) -> Vec<FieldError> {
    let p = Path::new("spec");
    let mut errs = nonnegative(int(spec, "minReadySeconds"), &p.child("minReadySeconds"));
    let selector = spec
        .get("selector")
        .and_then(Value::as_object)
        .filter(|m| !m.is_empty());
    if selector.is_none() {
        errs.push(required(&p.child("selector"), ""));
    }
    errs.extend(nonnegative(int(spec, "replicas"), &p.child("replicas")));
    let tp = p.child("template");
    let Some(t) = spec.get("template").filter(|t| t.is_object()) else {
        errs.push(required(&tp, ""));
        return errs;
    };
    let tlabels = t["metadata"].get("labels");
    if let Some(sel) = selector {
        let as_selector = serde_json::json!({"matchLabels": sel});
        if !selector_matches(Some(&as_selector), tlabels) {
            errs.push(invalid(
                &tp.child("metadata").child("labels"),
                go_syntax::string_map(tlabels),
                "`selector` does not match template `labels`",
            ));
        }
    }
    errs.extend(template(t, &tp));
    errs.extend(controller_pods(t, &tp, "ReplicationController"));
    errs
}

/// `ValidateReplicationController`.
pub fn replication_controller(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    errs.extend(spec(&obj["spec"]));
    errs
}

/// `ValidateReplicationControllerUpdate`.
pub fn replication_controller_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(spec(&new["spec"]));
    errs
}

/// `ValidateReplicationControllerStatusUpdate`.
pub fn replication_controller_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let st = &new["status"];
    let p = Path::new("status");
    errs.extend(nonnegative_counts(
        st,
        &p,
        &[
            "replicas",
            "fullyLabeledReplicas",
            "readyReplicas",
            "availableReplicas",
            "observedGeneration",
        ],
    ));
    errs.extend(replica_bounds(
        st,
        &p,
        &["fullyLabeledReplicas", "readyReplicas", "availableReplicas"],
        "cannot be greater than readyReplicas",
    ));
    errs
}
