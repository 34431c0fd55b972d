//! Defaulting: what the apiserver fills in on every create and update before validation
//! (k8s.io/kubernetes pkg/apis/*/v1 `SetDefaults_*`, the generated defaulters, the bits of v1
//! conversion that rewrite fields) and, for pods, the mutating admission plugins.
//!
//! Strategy-level resets (status on create, generation) are not here: the api module's strategy
//! owns them.

mod admission;
mod core;
mod fields;
mod image;
mod pod;
mod workloads;

#[cfg(test)]
mod tests;

use serde_json::Value;

pub use admission::admit_pod;
pub use image::default_pull_policy;

use crate::registry::{self, ResourceDef};

/// Default `obj`, a resource of kind `res`, in place: scheme defaults, plus for pods the
/// admission defaults (service account `default`, priority from the class, the 300s not-ready and
/// unreachable tolerations). A pod whose priority class is unknown is left without a priority;
/// call [`admit_pod`] on create to get the Forbidden error the Priority plugin gives.
pub fn apply(res: &ResourceDef, obj: &mut Value) {
    apply_scheme(res, obj);
    if std::ptr::eq(res, &registry::PODS) {
        let _ = admit_pod(obj, None);
    }
}

/// Scheme defaulting only (what decoding into the Go type does), without admission.
pub fn apply_scheme(res: &ResourceDef, obj: &mut Value) {
    let Some(map) = obj.as_object_mut() else {
        return;
    };
    match (res.group, res.kind) {
        ("", "Pod") => {
            if let Some(spec) = fields::child(map, "spec") {
                pod::pod_spec(spec, true);
            }
            if let Some(status) = fields::existing(map, "status") {
                pod::pod_status(status);
            }
        }
        ("", "Namespace") => core::namespace(map),
        ("", "Node") => core::node(map),
        ("", "Secret") => core::secret(map),
        ("apps", "Deployment") => workloads::deployment(map),
        ("apps", "ReplicaSet") => workloads::replica_set(map),
        ("apps", "DaemonSet") => workloads::daemon_set(map),
        _ => {}
    }
}
