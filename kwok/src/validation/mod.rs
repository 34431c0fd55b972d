//! Validation of objects before they are stored, with the field paths and messages of
//! k8s.io/kubernetes pkg/apis/{core,apps,policy,coordination}/validation and apimachinery's
//! ObjectMeta validation. Objects are the decoded and defaulted JSON.

mod apps;
mod core;
pub mod gofmt;
mod intstr;
mod labels;
mod meta;
pub mod names;
mod path;
mod pod;
mod policy;
mod resources;

#[cfg(test)]
mod tests;

use serde_json::Value;

use crate::error::FieldError;
use crate::registry::{self, ResourceDef};
use apps::Workload;

fn is(res: &ResourceDef, other: &ResourceDef) -> bool {
    std::ptr::eq(res, other)
}

fn workload(res: &ResourceDef) -> Option<Workload> {
    if is(res, &registry::DEPLOYMENTS) {
        Some(Workload::Deployment)
    } else if is(res, &registry::REPLICASETS) {
        Some(Workload::ReplicaSet)
    } else if is(res, &registry::DAEMONSETS) {
        Some(Workload::DaemonSet)
    } else {
        None
    }
}

/// Validation on create (the strategy's `Validate`).
pub fn validate_create(res: &ResourceDef, obj: &Value) -> Vec<FieldError> {
    if let Some(w) = workload(res) {
        return apps::validate_create(w, obj);
    }
    match (res.group, res.kind) {
        ("", "Pod") => pod::validate_create(obj),
        ("", "Node") => core::node(obj),
        ("", "Namespace") => core::namespace(obj),
        ("", "Binding") => core::binding(obj),
        ("", "Event") => core::event(obj, false),
        ("events.k8s.io", "Event") => core::event(obj, true),
        ("", "ConfigMap") => core::config_map(obj),
        ("", "Secret") => core::secret(obj),
        ("", "ServiceAccount") => core::service_account(obj),
        ("apps", "ControllerRevision") => apps::controller_revision(obj),
        ("policy", "PodDisruptionBudget") => policy::validate(obj),
        ("coordination.k8s.io", "Lease") => core::lease(obj),
        ("autoscaling", "Scale") => core::scale(obj),
        _ => meta::generic(obj, res.namespaced),
    }
}

/// Validation of an update of the main resource (`ValidateUpdate`).
pub fn validate_update(res: &ResourceDef, new: &Value, old: &Value) -> Vec<FieldError> {
    if let Some(w) = workload(res) {
        return apps::validate_update(w, new, old);
    }
    match (res.group, res.kind) {
        ("", "Pod") => pod::validate_update(new, old),
        ("", "Node") => core::node_update(new, old),
        ("", "Namespace") => core::namespace_update(new, old),
        ("", "Event") => core::event_update(new, old, false),
        ("events.k8s.io", "Event") => core::event_update(new, old, true),
        ("", "ConfigMap") => core::config_map_update(new, old),
        ("", "Secret") => core::secret_update(new, old),
        ("apps", "ControllerRevision") => apps::controller_revision_update(new, old),
        ("policy", "PodDisruptionBudget") => policy::validate_update(new, old),
        ("coordination.k8s.io", "Lease") => core::lease_update(new, old),
        _ => meta::object_meta_update(new, old, res.group.is_empty()),
    }
}

/// Validation of a `status` subresource update.
pub fn validate_status_update(res: &ResourceDef, new: &Value, old: &Value) -> Vec<FieldError> {
    if let Some(w) = workload(res) {
        return apps::validate_status_update(w, new, old);
    }
    match (res.group, res.kind) {
        ("", "Pod") => pod::validate_status_update(new, old),
        ("", "Node") => core::node_update(new, old),
        ("", "Namespace") => core::namespace_status_update(new, old),
        ("policy", "PodDisruptionBudget") => policy::validate_status_update(new, old),
        _ => meta::object_meta_update(new, old, true),
    }
}

/// `ValidateDeleteOptions` (apimachinery meta/internalversion/validation) on a decoded
/// DeleteOptions body; a failure is a 422 on `DeleteOptions.meta.k8s.io ""`.
pub fn validate_delete_options(opts: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let p = path::Path::new("propagationPolicy");
    let policy = opts.get("propagationPolicy").and_then(Value::as_str);
    if let Some(policy) = policy {
        if opts.get("orphanDependents").is_some_and(|v| !v.is_null()) {
            errs.push(path::invalid(
                &p,
                crate::error::go_quote(policy),
                "orphanDependents and deletionPropagation cannot be both set",
            ));
        }
        if !["Foreground", "Background", "Orphan"].contains(&policy) {
            errs.push(path::not_supported(
                &p,
                crate::error::go_quote(policy),
                &["Foreground", "Background", "Orphan", "nil"],
            ));
        }
    }
    if let Some(dry_run) = opts.get("dryRun").and_then(Value::as_array) {
        if dry_run.iter().any(|v| v.as_str() != Some("All")) {
            errs.push(path::not_supported(
                &path::Path::new("dryRun"),
                gofmt::string_slice(opts.get("dryRun")),
                &["All"],
            ));
        }
    }
    errs
}
