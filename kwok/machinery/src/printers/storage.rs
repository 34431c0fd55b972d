//! Storage: StorageClasses, CSIDrivers, CSINodes, VolumeAttachments, PersistentVolumes and
//! PersistentVolumeClaims (`printStorageClass`, `printCSIDriver`, `printCSINode`,
//! `printVolumeAttachment`, `printPersistentVolume`, `printPersistentVolumeClaim` in
//! printers.go). CSIStorageCapacities have the default table (their storage's
//! `NewDefaultTableConvertor`).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::docs;
use super::values::{age, arr_at, name};

pub const STORAGE_CLASS_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Provisioner", "string", docs::SC_PROVISIONER),
    Column::new("ReclaimPolicy", "string", docs::SC_RECLAIM_POLICY),
    Column::new("VolumeBindingMode", "string", docs::SC_BINDING_MODE),
    Column::new("AllowVolumeExpansion", "string", docs::SC_EXPANSION),
    Column::age(),
];

pub const CSI_DRIVER_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new(
        "AttachRequired",
        "boolean",
        docs::CSI_DRIVER_ATTACH_REQUIRED,
    ),
    Column::new(
        "PodInfoOnMount",
        "boolean",
        docs::CSI_DRIVER_POD_INFO_ON_MOUNT,
    ),
    Column::new(
        "StorageCapacity",
        "boolean",
        docs::CSI_DRIVER_STORAGE_CAPACITY,
    ),
    Column::new("TokenRequests", "string", docs::CSI_DRIVER_TOKEN_REQUESTS),
    Column::new(
        "RequiresRepublish",
        "boolean",
        docs::CSI_DRIVER_REQUIRES_REPUBLISH,
    ),
    Column::new("Modes", "string", docs::CSI_DRIVER_MODES),
    Column::age(),
];

pub const CSI_NODE_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Drivers", "integer", docs::CSI_NODE_DRIVERS),
    Column::age(),
];

pub const VOLUME_ATTACHMENT_COLUMNS: &[Column] = &[
    Column::name(),
    Column {
        format: "name",
        ..Column::new("Attacher", "string", docs::VA_ATTACHER)
    },
    Column::new("PV", "string", docs::VA_PERSISTENT_VOLUME_NAME),
    Column::new("Node", "string", docs::VA_NODE_NAME),
    Column::new("Attached", "boolean", docs::VA_ATTACHED),
    Column::age(),
];

pub const PERSISTENT_VOLUME_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Capacity", "string", docs::PV_CAPACITY),
    Column::new("Access Modes", "string", docs::PV_ACCESS_MODES),
    Column::new("Reclaim Policy", "string", docs::PV_RECLAIM_POLICY),
    Column::new("Status", "string", docs::PV_STATUS),
    Column::new("Claim", "string", docs::PV_CLAIM),
    Column::new("StorageClass", "string", docs::PV_STORAGE_CLASS),
    Column::new("VolumeAttributesClass", "string", docs::PV_ATTRIBUTES_CLASS),
    Column::new("Reason", "string", docs::PV_REASON),
    Column::age(),
    Column::new("VolumeMode", "string", docs::PV_VOLUME_MODE).wide(),
];

pub const PERSISTENT_VOLUME_CLAIM_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Status", "string", docs::PVC_STATUS),
    Column::new("Volume", "string", docs::PVC_VOLUME),
    Column::new("Capacity", "string", docs::PVC_CAPACITY),
    Column::new("Access Modes", "string", docs::PVC_ACCESS_MODES),
    Column::new("StorageClass", "string", docs::PVC_STORAGE_CLASS),
    Column::new(
        "VolumeAttributesClass",
        "string",
        docs::PVC_ATTRIBUTES_CLASS,
    ),
    Column::age(),
    Column::new("VolumeMode", "string", docs::PVC_VOLUME_MODE).wide(),
];

/// `IsDefaultAnnotation` of a StorageClass.
pub fn is_default_class(class: &Value) -> bool {
    let a = &class["metadata"]["annotations"];
    a["storageclass.kubernetes.io/is-default-class"] == "true"
        || a["storageclass.beta.kubernetes.io/is-default-class"] == "true"
}

pub fn storage_class_cells(class: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let mut shown = class["metadata"]["name"].as_str().unwrap_or("").to_string();
    if is_default_class(class) {
        shown.push_str(" (default)");
    }
    vec![
        Value::from(shown),
        Value::from(class["provisioner"].as_str().unwrap_or("")),
        Value::from(class["reclaimPolicy"].as_str().unwrap_or("Delete")),
        Value::from(class["volumeBindingMode"].as_str().unwrap_or("Immediate")),
        Value::from(class["allowVolumeExpansion"].as_bool().unwrap_or(false)),
        age(class, now),
    ]
}

/// `GetAccessModesAsString`: each mode once, in a fixed order.
fn access_modes(modes: &[Value]) -> String {
    let has = |m: &str| modes.iter().any(|x| x == m);
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(m, _)| has(m))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

fn phase(obj: &Value) -> String {
    if crate::meta::is_deleting(obj) {
        "Terminating".into()
    } else {
        obj["status"]["phase"].as_str().unwrap_or("").to_string()
    }
}

/// `GetPersistentVolumeClass` / `GetPersistentVolumeClaimClass`: the beta annotation wins.
fn class_of(obj: &Value, spec_class: &Value) -> String {
    obj["metadata"]["annotations"]["volume.beta.kubernetes.io/storage-class"]
        .as_str()
        .or_else(|| spec_class.as_str())
        .unwrap_or("")
        .to_string()
}

fn unset(v: &Value) -> Value {
    Value::from(v.as_str().unwrap_or("<unset>"))
}

pub fn persistent_volume_cells(pv: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let spec = &pv["spec"];
    let claim = if spec["claimRef"].is_object() {
        format!(
            "{}/{}",
            spec["claimRef"]["namespace"].as_str().unwrap_or(""),
            spec["claimRef"]["name"].as_str().unwrap_or("")
        )
    } else {
        String::new()
    };
    vec![
        name(pv),
        Value::from(spec["capacity"]["storage"].as_str().unwrap_or("0")),
        Value::from(access_modes(arr_at(pv, &["spec", "accessModes"]))),
        Value::from(spec["persistentVolumeReclaimPolicy"].as_str().unwrap_or("")),
        Value::from(phase(pv)),
        Value::from(claim),
        Value::from(class_of(pv, &spec["storageClassName"])),
        unset(&spec["volumeAttributesClassName"]),
        Value::from(pv["status"]["reason"].as_str().unwrap_or("")),
        age(pv, now),
        unset(&spec["volumeMode"]),
    ]
}

pub fn persistent_volume_claim_cells(pvc: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let spec = &pvc["spec"];
    let volume = spec["volumeName"].as_str().unwrap_or("");
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        (
            pvc["status"]["capacity"]["storage"]
                .as_str()
                .unwrap_or("0")
                .to_string(),
            access_modes(arr_at(pvc, &["status", "accessModes"])),
        )
    };
    vec![
        name(pvc),
        Value::from(phase(pvc)),
        Value::from(volume),
        Value::from(capacity),
        Value::from(modes),
        Value::from(class_of(pvc, &spec["storageClassName"])),
        unset(&spec["volumeAttributesClassName"]),
        age(pvc, now),
        unset(&spec["volumeMode"]),
    ]
}

/// `printCSIDriver`: the booleans as their defaults when unset, the token audiences (`<unset>`
/// without a list), the lifecycle modes (`<none>`).
pub fn csi_driver_cells(driver: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let spec = &driver["spec"];
    let flag = |key: &str, unset: bool| Value::from(spec[key].as_bool().unwrap_or(unset));
    let tokens = match spec.get("tokenRequests").and_then(Value::as_array) {
        None => "<unset>".to_string(),
        Some(requests) => requests
            .iter()
            .map(|r| r["audience"].as_str().unwrap_or(""))
            .collect::<Vec<_>>()
            .join(","),
    };
    let modes = arr_at(driver, &["spec", "volumeLifecycleModes"])
        .iter()
        .map(|m| m.as_str().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(",");
    vec![
        name(driver),
        flag("attachRequired", true),
        flag("podInfoOnMount", false),
        flag("storageCapacity", false),
        Value::from(tokens),
        flag("requiresRepublish", false),
        Value::from(if modes.is_empty() {
            "<none>".to_string()
        } else {
            modes
        }),
        age(driver, now),
    ]
}

/// `printCSINode`: how many drivers the node has registered.
pub fn csi_node_cells(node: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let drivers = arr_at(node, &["spec", "drivers"]).len();
    vec![name(node), Value::from(drivers), age(node, now)]
}

/// `printVolumeAttachment`: the attacher, the volume's name (empty for an inline volume), the
/// node, whether it is attached.
pub fn volume_attachment_cells(attachment: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let spec = &attachment["spec"];
    let text = |v: &Value| Value::from(v.as_str().unwrap_or(""));
    vec![
        name(attachment),
        text(&spec["attacher"]),
        text(&spec["source"]["persistentVolumeName"]),
        text(&spec["nodeName"]),
        Value::from(attachment["status"]["attached"].as_bool().unwrap_or(false)),
        age(attachment, now),
    ]
}
