//! Storage: StorageClasses (pkg/apis/storage/validation), PersistentVolumeClaims and
//! PersistentVolumes (core validation `ValidatePersistentVolumeClaim`, `ValidatePersistentVolume`
//! and their updates).

use serde_json::Value;

use super::labels::label_selector;
use super::meta::{object_meta, object_meta_update};
use super::path::{forbidden, invalid, no_backsteps, not_supported, required, too_long, Path};
use super::read::{list, s};
use crate::error::{go_quote, FieldError};
use crate::names;
use crate::quantity::Quantity;

const ACCESS_MODES: &[&str] = &[
    "ReadOnlyMany",
    "ReadWriteMany",
    "ReadWriteOnce",
    "ReadWriteOncePod",
];

/// `ValidateClassName`.
fn class_name(v: &str, p: &Path) -> Vec<FieldError> {
    names::name_is_dns_subdomain(v, false)
        .into_iter()
        .map(|m| invalid(p, go_quote(v), m))
        .collect()
}

/// The access modes of a claim or volume: known, and `ReadWriteOncePod` alone.
fn access_modes(spec: &Value, p: &Path, detail: &str) -> Vec<FieldError> {
    let modes = list(spec, "accessModes");
    let mut errs = Vec::new();
    if modes.is_empty() {
        errs.push(required(p, detail));
    }
    let mut known = 0;
    let mut pod = false;
    for m in modes.iter().map(|m| m.as_str().unwrap_or("")) {
        if ACCESS_MODES.contains(&m) {
            known += 1;
            pod |= m == "ReadWriteOncePod";
        } else {
            errs.push(not_supported(p, go_quote(m), ACCESS_MODES));
        }
    }
    if pod && known > 1 {
        errs.push(forbidden(
            p,
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
    errs
}

fn volume_mode(spec: &Value, p: &Path) -> Vec<FieldError> {
    match spec.get("volumeMode").and_then(Value::as_str) {
        Some(m) if !["Block", "Filesystem"].contains(&m) => {
            vec![not_supported(p, go_quote(m), &["Block", "Filesystem"])]
        }
        _ => Vec::new(),
    }
}

/// A quantity that must be above zero (`ValidatePositiveQuantityValue`).
fn positive(text: &str, p: &Path) -> Vec<FieldError> {
    match Quantity::parse(text) {
        Ok(q) if q.is_negative() || q.is_zero() => {
            vec![invalid(
                p,
                go_quote(&q.canonical()),
                "must be greater than zero",
            )]
        }
        _ => Vec::new(),
    }
}

/// `ValidatePersistentVolumeClaimSpec`.
fn claim_spec(spec: &Value) -> Vec<FieldError> {
    let p = Path::new("spec");
    let mut errs = access_modes(
        spec,
        &p.child("accessModes"),
        "at least 1 access mode is required",
    );
    if let Some(sel) = spec.get("selector").filter(|v| v.is_object()) {
        errs.extend(label_selector(Some(sel), &p.child("selector")));
    }
    let storage_path = p.child("resources").key("storage");
    match spec["resources"]["requests"]
        .get("storage")
        .and_then(Value::as_str)
    {
        None => errs.push(required(&storage_path, "")),
        Some(q) => errs.extend(positive(q, &storage_path)),
    }
    if let Some(class) = spec
        .get("storageClassName")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
    {
        errs.extend(class_name(class, &p.child("storageClassName")));
    }
    errs.extend(volume_mode(spec, &p.child("volumeMode")));
    if let Some(ds) = spec.get("dataSource").filter(|v| v.is_object()) {
        let dp = p.child("dataSource");
        for key in ["name", "kind"] {
            if s(ds, key).is_empty() {
                errs.push(required(&dp.child(key), ""));
            }
        }
        let group = ds.get("apiGroup").and_then(Value::as_str).unwrap_or("");
        if group.is_empty() && !s(ds, "kind").is_empty() && s(ds, "kind") != "PersistentVolumeClaim"
        {
            errs.push(invalid(
                &dp,
                go_quote(s(ds, "kind")),
                "must be 'PersistentVolumeClaim' when referencing the default apiGroup",
            ));
        }
    }
    errs
}

/// `ValidatePersistentVolumeClaim`.
pub fn claim(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    errs.extend(claim_spec(&obj["spec"]));
    errs
}

/// `ValidatePersistentVolumeClaimUpdate`: the spec is fixed once created, but for a volume name
/// set once, a class set once from none, and the storage request of a bound claim.
pub fn claim_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = claim(new);
    errs.extend(object_meta_update(new, old, true));
    let mut new_spec = new["spec"].clone();
    let mut old_spec = old["spec"].clone();
    if s(&old_spec, "volumeName").is_empty() {
        old_spec["volumeName"] = new_spec["volumeName"].clone();
    }
    if old_spec.get("storageClassName").is_none_or(Value::is_null) {
        old_spec["storageClassName"] = new_spec["storageClassName"].clone();
    }
    if new["status"]["phase"] == "Bound" {
        new_spec["resources"]["requests"]["storage"] =
            old_spec["resources"]["requests"]["storage"].clone();
    }
    let strip = |v: &mut Value| {
        if let Some(m) = v.as_object_mut() {
            m.retain(|_, x| !x.is_null());
        }
    };
    strip(&mut new_spec);
    strip(&mut old_spec);
    if !super::pod::semantic_eq(&new_spec, &old_spec) {
        errs.push(forbidden(
            &Path::new("spec"),
            "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims",
        ));
    }
    // RecoverVolumeExpansionFailure: a request may shrink, but not to the volume's size or below.
    let size = |v: &Value| {
        v.as_str()
            .and_then(|q| crate::quantity::Quantity::parse(q).ok())
            .unwrap_or_else(crate::quantity::Quantity::zero)
    };
    let new_size = size(&new["spec"]["resources"]["requests"]["storage"]);
    let old_size = size(&old["spec"]["resources"]["requests"]["storage"]);
    let status_size = size(&old["status"]["capacity"]["storage"]);
    if new_size.compare(&old_size).is_lt() && new_size.compare(&status_size).is_le() {
        errs.push(forbidden(
            &Path::of(&["spec", "resources", "requests", "storage"]),
            "field can not be less than status.capacity",
        ));
    }
    if new["spec"].get("volumeMode") != old["spec"].get("volumeMode") {
        errs.push(invalid(
            &Path::new("volumeMode"),
            go_quote(s(&new["spec"], "volumeMode")),
            "field is immutable",
        ));
    }
    errs
}

/// `ValidatePersistentVolumeClaimStatusUpdate`.
pub fn claim_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    if crate::meta::resource_version(new).is_empty() {
        errs.push(required(&Path::new("resourceVersion"), ""));
    }
    if list(&new["spec"], "accessModes").is_empty() {
        errs.push(required(&Path::of(&["Spec", "accessModes"]), ""));
    }
    errs
}

/// The volume sources this cluster checks, in upstream's order of checks.
const SOURCES: &[&str] = &[
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "glusterfs",
    "flocker",
    "nfs",
    "rbd",
    "quobyte",
    "cephfs",
    "iscsi",
    "cinder",
    "fc",
    "flexVolume",
    "azureFile",
    "vsphereVolume",
    "photonPersistentDisk",
    "portworxVolume",
    "azureDisk",
    "scaleIO",
    "local",
    "storageos",
    "csi",
];

/// One volume source's own checks (the ones a course meets: hostPath, local, nfs, csi).
fn source(name: &str, src: &Value, spec: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let sp = p.child(name);
    match name {
        "hostPath" => {
            let path = s(src, "path");
            if path.is_empty() {
                errs.push(required(&sp.child("path"), ""));
                return errs;
            }
            errs.extend(no_backsteps(path, &sp.child("path")));
        }
        "local" => {
            let path = s(src, "path");
            if path.is_empty() {
                errs.push(required(&sp.child("path"), ""));
                return errs;
            }
            errs.extend(no_backsteps(path, &sp.child("path")));
            if spec.get("nodeAffinity").is_none_or(Value::is_null) {
                errs.push(required(
                    &p.child("nodeAffinity"),
                    "Local volume requires node affinity",
                ));
            }
        }
        "nfs" => {
            if s(src, "server").is_empty() {
                errs.push(required(&sp.child("server"), ""));
            }
            let path = s(src, "path");
            if path.is_empty() {
                errs.push(required(&sp.child("path"), ""));
            }
            if !path.starts_with('/') {
                errs.push(invalid(
                    &sp.child("path"),
                    go_quote(path),
                    "must be an absolute path",
                ));
            }
        }
        "csi" => {
            if s(src, "driver").is_empty() {
                errs.push(required(&sp.child("driver"), ""));
            }
            if s(src, "volumeHandle").is_empty() {
                errs.push(required(&sp.child("volumeHandle"), ""));
            }
        }
        _ => {}
    }
    errs
}

/// `ValidatePersistentVolumeSpec` of a volume that is not inline.
fn volume_spec(spec: &Value) -> Vec<FieldError> {
    let p = Path::new("spec");
    let mut errs = access_modes(spec, &p.child("accessModes"), "");
    let capacity = spec.get("capacity").and_then(Value::as_object);
    match capacity.filter(|c| !c.is_empty()) {
        None => errs.push(required(&p.child("capacity"), "")),
        Some(c) => {
            for (k, v) in c {
                if k != "storage" {
                    errs.push(not_supported(
                        &p.child("capacity"),
                        go_quote(k),
                        &["storage"],
                    ));
                } else {
                    errs.extend(positive(
                        v.as_str().unwrap_or(""),
                        &p.child("capacity").key(k),
                    ));
                }
            }
        }
    }
    let policy = s(spec, "persistentVolumeReclaimPolicy");
    if !policy.is_empty() && !["Delete", "Recycle", "Retain"].contains(&policy) {
        errs.push(not_supported(
            &p.child("persistentVolumeReclaimPolicy"),
            go_quote(policy),
            &["Delete", "Recycle", "Retain"],
        ));
    }
    if let Some(affinity) = spec.get("nodeAffinity").filter(|v| v.is_object()) {
        if affinity.get("required").is_none_or(Value::is_null) {
            errs.push(required(
                &p.child("nodeAffinity").child("required"),
                "must specify required node constraints",
            ));
        }
    }
    let mut count = 0;
    for name in SOURCES {
        let Some(src) = spec.get(*name).filter(|v| v.is_object()) else {
            continue;
        };
        if count > 0 && *name != "flexVolume" {
            errs.push(forbidden(
                &p.child(name),
                "may not specify more than 1 volume type",
            ));
            continue;
        }
        count += 1;
        errs.extend(source(name, src, spec, &p));
    }
    if count == 0 {
        errs.push(required(&p, "must specify a volume type"));
    }
    let class = s(spec, "storageClassName");
    if !class.is_empty() {
        errs.extend(class_name(class, &p.child("storageClassName")));
    }
    errs.extend(volume_mode(spec, &p.child("volumeMode")));
    errs
}

/// `ValidatePersistentVolume`.
pub fn volume(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_subdomain, true);
    errs.extend(volume_spec(&obj["spec"]));
    errs
}

/// `ValidatePersistentVolumeUpdate`: the source and volume mode are fixed.
pub fn volume_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = volume(new);
    errs.extend(object_meta_update(new, old, true));
    let source_of = |v: &Value| -> Vec<(String, Value)> {
        SOURCES
            .iter()
            .filter_map(|k| v["spec"].get(*k).map(|s| (k.to_string(), s.clone())))
            .collect()
    };
    if source_of(new) != source_of(old) {
        errs.push(forbidden(
            &Path::of(&["spec", "persistentvolumesource"]),
            "spec.persistentvolumesource is immutable after creation",
        ));
    }
    if new["spec"].get("volumeMode") != old["spec"].get("volumeMode") {
        errs.push(invalid(
            &Path::new("volumeMode"),
            go_quote(s(&new["spec"], "volumeMode")),
            "field is immutable",
        ));
    }
    errs
}

/// `ValidatePersistentVolumeStatusUpdate`.
pub fn volume_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    if crate::meta::resource_version(new).is_empty() {
        errs.push(required(&Path::new("resourceVersion"), ""));
    }
    errs
}

/// `ValidateStorageClass`.
pub fn storage_class(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_subdomain, true);
    let provisioner = s(obj, "provisioner");
    let pp = Path::new("provisioner");
    if provisioner.is_empty() {
        errs.push(required(&pp, ""));
    } else {
        let lower = provisioner.to_lowercase();
        for m in names::qualified_name(&lower) {
            errs.push(invalid(&pp, go_quote(&lower), m));
        }
    }
    if let Some(params) = obj.get("parameters").and_then(Value::as_object) {
        let params_path = Path::new("parameters");
        if params.len() > 512 {
            errs.push(too_long(&params_path, 512));
        } else {
            let mut size = 0;
            for (k, v) in params {
                if k.is_empty() {
                    errs.push(invalid(
                        &params_path,
                        go_quote(k),
                        "field can not be empty.",
                    ));
                }
                size += k.len() + v.as_str().map_or(0, str::len);
            }
            if size > 262_144 {
                errs.push(too_long(&params_path, 262_144));
            }
        }
    }
    let policy = s(obj, "reclaimPolicy");
    if !policy.is_empty() && !["Delete", "Retain"].contains(&policy) {
        errs.push(not_supported(
            &Path::new("reclaimPolicy"),
            go_quote(policy),
            &["Delete", "Retain"],
        ));
    }
    match obj.get("volumeBindingMode").and_then(Value::as_str) {
        None => errs.push(required(&Path::new("volumeBindingMode"), "")),
        Some("Immediate" | "WaitForFirstConsumer") => {}
        Some(other) => errs.push(not_supported(
            &Path::new("volumeBindingMode"),
            go_quote(other),
            &["Immediate", "WaitForFirstConsumer"],
        )),
    }
    errs
}

/// `ValidateStorageClass` then `ValidateStorageClassUpdate`.
pub fn storage_class_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = storage_class(new);
    errs.extend(object_meta_update(new, old, true));
    for key in ["parameters", "provisioner", "reclaimPolicy"] {
        if new.get(key) != old.get(key) {
            errs.push(forbidden(
                &Path::new(key),
                format!("updates to {key} are forbidden."),
            ));
        }
    }
    if new.get("volumeBindingMode") != old.get("volumeBindingMode") {
        errs.push(invalid(
            &Path::new("volumeBindingMode"),
            go_quote(s(new, "volumeBindingMode")),
            "field is immutable",
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::validation::messages;

    #[test]
    fn a_claim_needs_access_modes_and_a_positive_request() {
        let pvc = json!({"metadata": {"name": "c", "namespace": "n"},
            "spec": {"accessModes": ["ReadWriteOnce", "Sometimes"], "resources": {"requests": {"storage": "0"}}}});
        assert_eq!(
            messages(claim(&pvc)),
            [
                "spec.accessModes: Unsupported value: \"Sometimes\": supported values: \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"",
                "spec.resources[storage]: Invalid value: \"0\": must be greater than zero",
            ]
        );
    }

    #[test]
    fn a_volume_needs_one_source() {
        let pv = json!({"metadata": {"name": "v"}, "spec": {"accessModes": ["ReadWriteOnce"],
            "capacity": {"storage": "1Gi"}}});
        assert_eq!(
            messages(volume(&pv)),
            ["spec: Required value: must specify a volume type"]
        );
    }
}
