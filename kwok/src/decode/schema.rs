//! The k8s-openapi type that gives the schema of each body kind.

use k8s_openapi::api::{apps, autoscaling, coordination, core, events, policy};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::DeleteOptions;

use super::json::Val;
use super::walker::{walk, Outcome};

/// Decode `val` as (group, kind); `None` when the kind has no schema here.
pub fn walk_kind(
    group: &str,
    kind: &str,
    val: &Val,
    check_strict: bool,
    root: (&str, &str),
) -> Option<Result<Outcome, String>> {
    let r = match (group, kind) {
        ("", "Pod") => walk::<core::v1::Pod>(val, check_strict, root),
        ("", "Node") => walk::<core::v1::Node>(val, check_strict, root),
        ("", "Namespace") => walk::<core::v1::Namespace>(val, check_strict, root),
        ("", "Binding") => walk::<core::v1::Binding>(val, check_strict, root),
        ("", "Event") => walk::<core::v1::Event>(val, check_strict, root),
        ("", "ConfigMap") => walk::<core::v1::ConfigMap>(val, check_strict, root),
        ("", "Secret") => walk::<core::v1::Secret>(val, check_strict, root),
        ("", "ServiceAccount") => walk::<core::v1::ServiceAccount>(val, check_strict, root),
        ("events.k8s.io", "Event") => walk::<events::v1::Event>(val, check_strict, root),
        ("apps", "Deployment") => walk::<apps::v1::Deployment>(val, check_strict, root),
        ("apps", "ReplicaSet") => walk::<apps::v1::ReplicaSet>(val, check_strict, root),
        ("apps", "DaemonSet") => walk::<apps::v1::DaemonSet>(val, check_strict, root),
        ("apps", "ControllerRevision") => {
            walk::<apps::v1::ControllerRevision>(val, check_strict, root)
        }
        ("policy", "PodDisruptionBudget") => {
            walk::<policy::v1::PodDisruptionBudget>(val, check_strict, root)
        }
        ("policy", "Eviction") => walk::<policy::v1::Eviction>(val, check_strict, root),
        ("coordination.k8s.io", "Lease") => {
            walk::<coordination::v1::Lease>(val, check_strict, root)
        }
        ("autoscaling", "Scale") => walk::<autoscaling::v1::Scale>(val, check_strict, root),
        ("" | "meta.k8s.io", "DeleteOptions") => walk::<DeleteOptions>(val, check_strict, root),
        _ => return None,
    };
    Some(r)
}
