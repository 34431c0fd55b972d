//! Defaulting: what the apiserver fills in on every create and update before validation
//! (k8s.io/kubernetes pkg/apis/*/v1 `SetDefaults_*`, the generated defaulters, the bits of v1
//! conversion that rewrite fields). The admission plugins that fill in pod fields come after,
//! in the admission module.
//!
//! Strategy-level resets (status on create, generation) are not here: the api module's strategy
//! owns them.

mod core;
mod events;
pub(crate) mod fields;
mod image;
mod pod;
mod workloads;

#[cfg(test)]
mod tests;

use serde_json::Value;

pub use image::default_pull_policy;

use crate::registry::ResourceDef;

/// Default `obj`, a resource of kind `res`, in place: what decoding into the Go type does.
pub fn apply(res: &ResourceDef, obj: &mut Value) {
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
        ("", "Event") => events::core(map),
        ("events.k8s.io", "Event") => events::v1(map),
        ("apps", "Deployment") => workloads::deployment(map),
        ("apps", "ReplicaSet") => workloads::replica_set(map),
        ("apps", "DaemonSet") => workloads::daemon_set(map),
        _ => {}
    }
}
