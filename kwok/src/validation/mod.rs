//! Validation of objects before they are stored, with the field paths and messages of
//! k8s.io/kubernetes pkg/apis/{core,apps,policy,coordination}/validation and apimachinery's
//! ObjectMeta validation. Objects are the decoded and defaulted JSON.

pub(crate) mod apiextensions;
pub(crate) mod apiregistration;
pub(crate) mod apps;
pub(crate) mod autoscaling;
pub(crate) mod batch;
pub(crate) mod certificates;
pub(crate) mod core;
mod intstr;
mod labels;
pub(crate) mod meta;
pub(crate) mod networking;
pub(crate) mod node;
pub(crate) mod path;
pub(crate) mod pod;
pub(crate) mod pod_annotations;
pub(crate) mod policy;
pub(crate) mod quota;
pub(crate) mod rbac;
pub(crate) mod read;
mod replicas;
pub(crate) mod replication;
mod resources;
pub(crate) mod scheduling;
mod security_context;
pub(crate) mod services;
pub(crate) mod statefulset;
pub(crate) mod storage;

#[cfg(test)]
mod tests;

use serde_json::Value;

use crate::error::FieldError;

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
                crate::gofmt::go_syntax::string_slice(opts.get("dryRun")),
                &["All"],
            ));
        }
    }
    errs
}
