//! Small core/v1 kinds: Namespaces, ConfigMaps, Secrets, ServiceAccounts (`printNamespace`,
//! `printConfigMap`, `printSecret`, `printServiceAccount` in printers.go).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::docs;
use super::values::{age, arr_at, name, obj_at, str_at};

pub const NAMESPACE_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Status", "string", "The status of the namespace"),
    Column::age(),
];

pub const CONFIGMAP_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Data", "string", docs::CONFIGMAP_DATA),
    Column::age(),
];

pub const SECRET_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Type", "string", docs::SECRET_TYPE),
    Column::new("Data", "string", docs::SECRET_DATA),
    Column::age(),
];

pub const SERVICEACCOUNT_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Secrets", "string", docs::SA_SECRETS),
    Column::age(),
];

fn map_len(obj: &Value, key: &str) -> usize {
    obj_at(obj, &[key]).map_or(0, |m| m.len())
}

pub fn namespace_cells(ns: &Value, now: DateTime<Utc>) -> Vec<Value> {
    vec![
        name(ns),
        Value::from(str_at(ns, &["status", "phase"])),
        age(ns, now),
    ]
}

pub fn configmap_cells(cm: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let entries = map_len(cm, "data") + map_len(cm, "binaryData");
    vec![name(cm), Value::from(entries), age(cm, now)]
}

pub fn secret_cells(secret: &Value, now: DateTime<Utc>) -> Vec<Value> {
    // The internal Secret has stringData merged into data (v1 conversion); count distinct keys.
    let keys: BTreeSet<&String> = ["data", "stringData"]
        .iter()
        .filter_map(|k| obj_at(secret, &[k]))
        .flat_map(|m| m.keys())
        .collect();
    vec![
        name(secret),
        Value::from(str_at(secret, &["type"])),
        Value::from(keys.len()),
        age(secret, now),
    ]
}

pub fn serviceaccount_cells(sa: &Value, now: DateTime<Utc>) -> Vec<Value> {
    vec![
        name(sa),
        Value::from(arr_at(sa, &["secrets"]).len()),
        age(sa, now),
    ]
}

/// `resourceQuotaColumnDefinitions` (1.32: the age before the usage).
pub const RESOURCE_QUOTA_COLUMNS: &[Column] = &[
    Column::name(),
    Column::age(),
    Column::new("Request", "string", docs::QUOTA_REQUEST),
    Column::new("Limit", "string", docs::QUOTA_LIMIT),
];

/// `printResourceQuota`: `name: used/hard` for each resource of `status.hard`, sorted, the
/// `limits.*` ones in their own column.
pub fn resource_quota_cells(quota: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let hard = crate::quantity::parse_list(&quota["status"]["hard"]);
    let used = crate::quantity::parse_list(&quota["status"]["used"]);
    let (mut request, mut limit) = (Vec::new(), Vec::new());
    for (name, hard) in &hard {
        let used = used.get(name).map_or_else(|| "0".into(), |q| q.canonical());
        let cell = format!("{name}: {used}/{}", hard.canonical());
        match name.split_once('.') {
            Some(("limits", _)) => limit.push(cell),
            _ => request.push(cell),
        }
    }
    vec![
        name(quota),
        age(quota, now),
        Value::from(request.join(", ")),
        Value::from(limit.join(", ")),
    ]
}
