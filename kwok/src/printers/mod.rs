//! Server-side printing: the Table columns and cells `kubectl get` shows, as
//! `k8s.io/kubernetes/pkg/printers/internalversion/printers.go` (1.32) builds them.
//!
//! The server always generates the wide cells (`pkg/printers/storage/storage.go` passes
//! `GenerateOptions{Wide: true}`), so [`cells`] returns one value per column of [`columns`]; kubectl
//! drops priority-1 columns itself unless `-o wide`. Integer columns carry JSON integers.

mod column;
mod core;
mod default_table;
mod docs;
mod duration;
mod events;
mod lease;
mod nodes;
mod pdb;
mod pods;
mod table;
mod values;
mod workloads;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::registry::ResourceDef;

pub use column::Column;
pub use duration::{human_duration, short_human_duration};
pub use table::{table, IncludeObject};

/// The printer of a resource, by API group and plural.
#[derive(Clone, Copy)]
enum Printer {
    Pod,
    Node,
    Namespace,
    CoreEvent,
    EventsApiEvent,
    ConfigMap,
    Secret,
    ServiceAccount,
    Deployment,
    ReplicaSet,
    DaemonSet,
    ControllerRevision,
    PodDisruptionBudget,
    Lease,
    /// No dedicated printer: upstream's default table convertor.
    Default,
}

fn printer(res: &ResourceDef) -> Printer {
    match (res.group, res.plural) {
        ("", "pods") => Printer::Pod,
        ("", "nodes") => Printer::Node,
        ("", "namespaces") => Printer::Namespace,
        ("", "events") => Printer::CoreEvent,
        ("events.k8s.io", "events") => Printer::EventsApiEvent,
        ("", "configmaps") => Printer::ConfigMap,
        ("", "secrets") => Printer::Secret,
        ("", "serviceaccounts") => Printer::ServiceAccount,
        ("apps", "deployments") => Printer::Deployment,
        ("apps", "replicasets") => Printer::ReplicaSet,
        ("apps", "daemonsets") => Printer::DaemonSet,
        ("apps", "controllerrevisions") => Printer::ControllerRevision,
        ("policy", "poddisruptionbudgets") => Printer::PodDisruptionBudget,
        ("coordination.k8s.io", "leases") => Printer::Lease,
        _ => Printer::Default,
    }
}

/// The column definitions of `res`, wide ones included.
pub fn columns(res: &ResourceDef) -> Vec<Column> {
    let cols: &[Column] = match printer(res) {
        Printer::Pod => pods::COLUMNS,
        Printer::Node => nodes::COLUMNS,
        Printer::Namespace => core::NAMESPACE_COLUMNS,
        Printer::CoreEvent | Printer::EventsApiEvent => events::COLUMNS,
        Printer::ConfigMap => core::CONFIGMAP_COLUMNS,
        Printer::Secret => core::SECRET_COLUMNS,
        Printer::ServiceAccount => core::SERVICEACCOUNT_COLUMNS,
        Printer::Deployment => workloads::DEPLOYMENT_COLUMNS,
        Printer::ReplicaSet => workloads::REPLICASET_COLUMNS,
        Printer::DaemonSet => workloads::DAEMONSET_COLUMNS,
        Printer::ControllerRevision => workloads::CONTROLLERREVISION_COLUMNS,
        Printer::PodDisruptionBudget => pdb::COLUMNS,
        Printer::Lease => lease::COLUMNS,
        Printer::Default => default_table::COLUMNS,
    };
    cols.to_vec()
}

/// The cells of one object, one per column of [`columns`], as of `now`.
pub fn cells(res: &ResourceDef, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
    match printer(res) {
        Printer::Pod => pods::cells(obj, now),
        Printer::Node => nodes::cells(obj, now),
        Printer::Namespace => core::namespace_cells(obj, now),
        Printer::CoreEvent => events::cells(obj, false, now),
        Printer::EventsApiEvent => events::cells(obj, true, now),
        Printer::ConfigMap => core::configmap_cells(obj, now),
        Printer::Secret => core::secret_cells(obj, now),
        Printer::ServiceAccount => core::serviceaccount_cells(obj, now),
        Printer::Deployment => workloads::deployment_cells(obj, now),
        Printer::ReplicaSet => workloads::replicaset_cells(obj, now),
        Printer::DaemonSet => workloads::daemonset_cells(obj, now),
        Printer::ControllerRevision => workloads::controllerrevision_cells(obj, now),
        Printer::PodDisruptionBudget => pdb::cells(obj, now),
        Printer::Lease => lease::cells(obj, now),
        Printer::Default => default_table::cells(obj),
    }
}

/// The row `conditions` (only finished pods have any: `Completed` with reason Succeeded/Failed).
pub fn row_conditions(res: &ResourceDef, obj: &Value) -> Option<Value> {
    match printer(res) {
        Printer::Pod => pods::conditions(obj),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
