//! Validation of objects before they are stored, with the field paths and messages of
//! k8s.io/kubernetes pkg/apis/{core,apps,policy,coordination}/validation and apimachinery's
//! ObjectMeta validation. Objects are the decoded and defaulted JSON.

pub mod apiextensions;
pub mod apiregistration;
pub mod apps;
pub mod autoscaling;
pub mod batch;
pub mod certificates;
pub mod core;
mod intstr;
mod labels;
pub mod meta;
pub mod networking;
pub mod node;
pub mod path;
pub mod pod;
pub mod pod_annotations;
pub mod policy;
pub mod quota;
pub mod rbac;
pub mod read;
mod replicas;
pub mod replication;
mod resources;
pub mod scheduling;
mod security_context;
pub mod services;
pub mod statefulset;
pub mod storage;

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

/// Each error as upstream prints it, for tests here and in the crates above (`test-support`).
#[cfg(any(test, feature = "test-support"))]
pub fn messages(errs: impl AsRef<[FieldError]>) -> Vec<String> {
    errs.as_ref().iter().map(ToString::to_string).collect()
}
