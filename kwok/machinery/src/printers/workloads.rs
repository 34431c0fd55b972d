//! apps/v1 workloads: Deployments, ReplicaSets, DaemonSets and ControllerRevisions
//! (`printDeployment`, `printReplicaSet`, `printDaemonSet`, `printControllerRevision` in printers.go),
//! and the core kinds that hold a pod template (`printReplicationController`, `printPodTemplate`).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::{Column, CONTAINERS, IMAGES, TEMPLATE_CONTAINERS, TEMPLATE_IMAGES};
use super::docs;
use super::values::{age, arr_at, at, container_cells, int_at, name, obj_at, str_at};
use crate::selectors::{format_label_selector, format_labels, LabelSelector};

pub const DEPLOYMENT_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Ready", "string", "Number of the pod with ready state"),
    Column::new("Up-to-date", "string", docs::DEPLOY_UPDATED),
    Column::new("Available", "string", docs::DEPLOY_AVAILABLE),
    Column::age(),
    CONTAINERS,
    IMAGES,
    Column::new("Selector", "string", docs::DEPLOY_SELECTOR).wide(),
];

pub const REPLICASET_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Desired", "integer", docs::RS_SPEC_REPLICAS),
    Column::new("Current", "integer", docs::RS_STATUS_REPLICAS),
    Column::new("Ready", "integer", docs::RS_READY_REPLICAS),
    Column::age(),
    CONTAINERS,
    IMAGES,
    Column::new("Selector", "string", docs::RS_SELECTOR).wide(),
];

pub const DAEMONSET_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Desired", "integer", docs::DS_DESIRED),
    Column::new("Current", "integer", docs::DS_CURRENT),
    Column::new("Ready", "integer", docs::DS_READY),
    Column::new("Up-to-date", "integer", docs::DS_UPDATED),
    Column::new("Available", "integer", docs::DS_AVAILABLE),
    Column::new("Node Selector", "string", docs::POD_NODE_SELECTOR),
    Column::age(),
    CONTAINERS,
    IMAGES,
    Column::new("Selector", "string", docs::DS_SELECTOR).wide(),
];

pub const CONTROLLERREVISION_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Controller", "string", "Controller of the object"),
    Column::new("Revision", "string", docs::REVISION),
    Column::age(),
];

/// A count cell: upstream appends `int64(...)`, so the JSON carries an integer.
fn count(obj: &Value, path: &[&str]) -> Value {
    Value::from(int_at(obj, path))
}

pub fn deployment_cells(d: &Value, now: DateTime<Utc>) -> Vec<Value> {
    // An unset spec.replicas converts to 0 in the internal type (defaulting makes it 1 on create).
    let desired = int_at(d, &["spec", "replicas"]);
    let ready = int_at(d, &["status", "readyReplicas"]);
    // `selector.String()`, not FormatLabelSelector: empty prints as "", a bad one as `<invalid>`.
    let selector = match LabelSelector::from_api(at(d, &["spec", "selector"])) {
        Ok(s) => s.to_string(),
        Err(_) => "<invalid>".to_string(),
    };
    let (names, images) = container_cells(at(d, &["spec", "template", "spec"]));
    vec![
        name(d),
        Value::from(format!("{ready}/{desired}")),
        count(d, &["status", "updatedReplicas"]),
        count(d, &["status", "availableReplicas"]),
        age(d, now),
        names,
        images,
        Value::from(selector),
    ]
}

pub fn replicaset_cells(rs: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let (names, images) = container_cells(at(rs, &["spec", "template", "spec"]));
    vec![
        name(rs),
        count(rs, &["spec", "replicas"]),
        count(rs, &["status", "replicas"]),
        count(rs, &["status", "readyReplicas"]),
        age(rs, now),
        names,
        images,
        Value::from(format_label_selector(at(rs, &["spec", "selector"]))),
    ]
}

pub fn daemonset_cells(ds: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let pod_spec = at(ds, &["spec", "template", "spec"]);
    let (names, images) = container_cells(pod_spec);
    vec![
        name(ds),
        count(ds, &["status", "desiredNumberScheduled"]),
        count(ds, &["status", "currentNumberScheduled"]),
        count(ds, &["status", "numberReady"]),
        count(ds, &["status", "updatedNumberScheduled"]),
        count(ds, &["status", "numberAvailable"]),
        Value::from(format_labels(obj_at(pod_spec, &["nodeSelector"]))),
        age(ds, now),
        names,
        images,
        Value::from(format_label_selector(at(ds, &["spec", "selector"]))),
    ]
}

/// `schema.ParseGroupVersion(apiVersion).WithKind(kind).GroupKind()` and `formatResourceName(..., true)`:
/// `daemonset.apps/gpu-agent`, `pod/web-0` for the core group, the bare name for an empty kind.
fn controller_name(owner: &Value) -> String {
    let api_version = str_at(owner, &["apiVersion"]);
    let kind = str_at(owner, &["kind"]);
    let owner_name = str_at(owner, &["name"]);
    // Upstream fails the row on an apiVersion with two slashes; print the name alone instead.
    let group = match api_version.matches('/').count() {
        0 => "",
        1 => api_version.split('/').next().unwrap_or(""),
        _ => return owner_name.to_string(),
    };
    if group.is_empty() && kind.is_empty() {
        return owner_name.to_string();
    }
    let group_kind = if group.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}.{group}")
    };
    format!("{}/{owner_name}", group_kind.to_lowercase())
}

pub fn controllerrevision_cells(cr: &Value, now: DateTime<Utc>) -> Vec<Value> {
    // `metav1.GetControllerOf`: the owner reference marked controller.
    let controller = arr_at(cr, &["metadata", "ownerReferences"])
        .iter()
        .find(|o| at(o, &["controller"]).as_bool() == Some(true))
        .map(controller_name)
        .unwrap_or_else(|| "<none>".to_string());
    vec![
        name(cr),
        Value::from(controller),
        count(cr, &["revision"]),
        age(cr, now),
    ]
}

pub const STATEFULSET_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Ready", "string", "Number of the pod with ready state"),
    Column::age(),
    CONTAINERS,
    IMAGES,
];

/// `printStatefulSet`.
pub fn stateful_set_cells(s: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let desired = int_at(s, &["spec", "replicas"]);
    let ready = int_at(s, &["status", "readyReplicas"]);
    let (names, images) = container_cells(at(s, &["spec", "template", "spec"]));
    vec![
        name(s),
        Value::from(format!("{ready}/{desired}")),
        age(s, now),
        names,
        images,
    ]
}

/// `printPodTemplate`: no age column.
pub const POD_TEMPLATE_COLUMNS: &[Column] = &[
    Column::name(),
    TEMPLATE_CONTAINERS,
    TEMPLATE_IMAGES,
    Column::new("Pod Labels", "string", docs::POD_TEMPLATE_LABELS),
];

pub fn pod_template_cells(template: &Value) -> Vec<Value> {
    let (names, images) = container_cells(at(template, &["template", "spec"]));
    vec![
        name(template),
        names,
        images,
        Value::from(format_labels(obj_at(
            template,
            &["template", "metadata", "labels"],
        ))),
    ]
}

pub const REPLICATION_CONTROLLER_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Desired", "integer", docs::RC_SPEC_REPLICAS),
    Column::new("Current", "integer", docs::RC_STATUS_REPLICAS),
    Column::new("Ready", "integer", docs::RC_READY_REPLICAS),
    Column::age(),
    CONTAINERS,
    IMAGES,
    Column::new("Selector", "string", docs::RC_SELECTOR).wide(),
];

/// `printReplicationController`: the selector is a plain label map.
pub fn replication_controller_cells(rc: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let (names, images) = container_cells(at(rc, &["spec", "template", "spec"]));
    vec![
        name(rc),
        count(rc, &["spec", "replicas"]),
        count(rc, &["status", "replicas"]),
        count(rc, &["status", "readyReplicas"]),
        age(rc, now),
        names,
        images,
        Value::from(format_labels(at(rc, &["spec", "selector"]).as_object())),
    ]
}
