//! Storage: StorageClasses, CSIDrivers, CSINodes, CSIStorageCapacities and VolumeAttachments
//! (pkg/apis/storage/validation),
//! PersistentVolumeClaims and
//! PersistentVolumes (core validation `ValidatePersistentVolumeClaim`, `ValidatePersistentVolume`
//! and their updates).

use serde_json::Value;

use super::labels::label_selector;
use super::meta::{object_meta, object_meta_update};
use super::path::{
    duplicate, forbidden, invalid, no_backsteps, not_supported, required, too_long, Path, IMMUTABLE,
};
use super::pod::semantic_eq;
use super::read::{list, s};
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
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
            errs.extend(csi_driver_name(s(src, "driver"), &sp.child("driver")));
            if s(src, "volumeHandle").is_empty() {
                errs.push(required(&sp.child("volumeHandle"), ""));
            }
        }
        _ => {}
    }
    errs
}

/// `ValidatePersistentVolumeSpec` at `p`: a PersistentVolume's spec, or with `inline` a
/// VolumeAttachment's inline volume, which is a CSI volume as the pod declared it (no capacity,
/// claim, class or node affinity of its own).
fn volume_spec(spec: &Value, p: &Path, inline: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let set = |key: &str| spec.get(key).is_some_and(|v| !v.is_null());
    if inline {
        const INLINE: &str = "may not be specified in the context of inline volumes";
        if set("claimRef") {
            errs.push(forbidden(&p.child("claimRef"), INLINE));
        }
        if spec["capacity"].as_object().is_some_and(|c| !c.is_empty()) {
            errs.push(forbidden(&p.child("capacity"), INLINE));
        }
        if !set("csi") {
            errs.push(required(
                &p.child("csi"),
                "has to be specified in the context of inline volumes",
            ));
        }
    }
    errs.extend(access_modes(spec, &p.child("accessModes"), ""));
    let capacity = spec.get("capacity").and_then(Value::as_object);
    match capacity.filter(|c| !c.is_empty()) {
        _ if inline => {}
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
    if inline && !policy.is_empty() && policy != "Retain" {
        errs.push(forbidden(
            &p.child("persistentVolumeReclaimPolicy"),
            "may only be Retain in the context of inline volumes",
        ));
    } else if !policy.is_empty() && !["Delete", "Recycle", "Retain"].contains(&policy) {
        errs.push(not_supported(
            &p.child("persistentVolumeReclaimPolicy"),
            go_quote(policy),
            &["Delete", "Recycle", "Retain"],
        ));
    }
    if let Some(affinity) = spec.get("nodeAffinity").filter(|v| v.is_object()) {
        if inline {
            errs.push(forbidden(
                &p.child("nodeAffinity"),
                "may not be specified in the context of inline volumes",
            ));
        } else if affinity.get("required").is_none_or(Value::is_null) {
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
        errs.extend(source(name, src, spec, p));
    }
    if count == 0 {
        errs.push(required(p, "must specify a volume type"));
    }
    let class = s(spec, "storageClassName");
    if inline && !class.is_empty() {
        errs.push(forbidden(
            &p.child("storageClassName"),
            "may not be specified in the context of inline volumes",
        ));
    } else if !class.is_empty() {
        errs.extend(class_name(class, &p.child("storageClassName")));
    }
    match spec.get("volumeMode").and_then(Value::as_str) {
        Some(mode) if inline && mode != "Filesystem" => errs.push(forbidden(
            &p.child("volumeMode"),
            "may not specify volumeMode other than Filesystem in the context of inline volumes",
        )),
        _ if inline => {}
        _ => errs.extend(volume_mode(spec, &p.child("volumeMode"))),
    }
    errs
}

/// `ValidatePersistentVolume`.
pub fn volume(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_subdomain, true);
    errs.extend(volume_spec(&obj["spec"], &Path::new("spec"), false));
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

/// `ValidateCSIDriverName` of core validation: what names a driver in a volume source or a
/// CSINode.
fn csi_driver_name(name: &str, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if name.is_empty() {
        errs.push(required(p, ""));
    }
    if name.len() > 63 {
        errs.push(too_long(p, 63));
    }
    for m in names::dns1123_subdomain(&name.to_lowercase()) {
        errs.push(invalid(p, go_quote(name), m));
    }
    errs
}

/// `ValidateCSIDriver`.
pub fn csi_driver(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_subdomain, true);
    errs.extend(csi_driver_spec(&obj["spec"]));
    errs
}

/// `ValidateCSIDriverUpdate`: the metadata update, the spec, and two fields fixed once created
/// (the first under the path upstream spells `attachedRequired`).
pub fn csi_driver_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let (spec, old_spec) = (&new["spec"], &old["spec"]);
    errs.extend(csi_driver_spec(spec));
    if spec.get("attachRequired") != old_spec.get("attachRequired") {
        let value = spec
            .get("attachRequired")
            .map_or(go_syntax::NULL.into(), Value::to_string);
        errs.push(invalid(
            &Path::new("spec").child("attachedRequired"),
            value,
            "field is immutable",
        ));
    }
    if spec.get("volumeLifecycleModes") != old_spec.get("volumeLifecycleModes") {
        let value = go_syntax::named_string_slice(
            spec.get("volumeLifecycleModes"),
            "[]storage.VolumeLifecycleMode",
        );
        errs.push(invalid(
            &Path::new("spec").child("volumeLifecycleModes"),
            value,
            "field is immutable",
        ));
    }
    errs
}

const FS_GROUP_POLICIES: &[&str] = &["File", "None", "ReadWriteOnceWithFSType"];
const LIFECYCLE_MODES: &[&str] = &["Persistent", "Ephemeral"];

/// `validateCSIDriverSpec`.
fn csi_driver_spec(spec: &Value) -> Vec<FieldError> {
    let p = Path::new("spec");
    let mut errs = Vec::new();
    let unset = |key: &str| spec.get(key).is_none_or(Value::is_null);
    for (key, shown) in [
        ("attachRequired", "attachedRequired"),
        ("podInfoOnMount", "podInfoOnMount"),
        ("storageCapacity", "storageCapacity"),
    ] {
        if unset(key) {
            errs.push(required(&p.child(shown), ""));
        }
    }
    if let Some(policy) = spec.get("fsGroupPolicy").and_then(Value::as_str) {
        if !FS_GROUP_POLICIES.contains(&policy) {
            errs.push(not_supported(
                &p.child("fsGroupPolicy"),
                go_quote(policy),
                FS_GROUP_POLICIES,
            ));
        }
    }
    errs.extend(token_requests(
        list(spec, "tokenRequests"),
        &p.child("tokenRequests"),
    ));
    for mode in list(spec, "volumeLifecycleModes") {
        let mode = mode.as_str().unwrap_or_default();
        if !LIFECYCLE_MODES.contains(&mode) {
            errs.push(not_supported(
                &p.child("volumeLifecycleModes"),
                go_quote(mode),
                LIFECYCLE_MODES,
            ));
        }
    }
    if unset("seLinuxMount") {
        errs.push(required(&p.child("seLinuxMount"), ""));
    }
    errs
}

/// `validateTokenRequests`: one request per audience, each token lasting from 10 minutes to 2^32
/// seconds.
fn token_requests(requests: &[Value], p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut audiences = std::collections::HashSet::new();
    for (i, request) in requests.iter().enumerate() {
        let rp = p.index(i);
        let audience = s(request, "audience");
        if !audiences.insert(audience) {
            errs.push(duplicate(&rp.child("audience"), go_quote(audience)));
            continue;
        }
        let Some(seconds) = request.get("expirationSeconds").and_then(Value::as_i64) else {
            continue;
        };
        let ep = rp.child("expirationSeconds");
        if seconds < 600 {
            let detail = "may not specify a duration less than 10 minutes";
            errs.push(invalid(&ep, seconds.to_string(), detail));
        }
        if seconds > 1 << 32 {
            let detail = "may not specify a duration larger than 2^32 seconds";
            errs.push(invalid(&ep, seconds.to_string(), detail));
        }
    }
    errs
}

/// `csiNodeIDLongerMaxLength`: CSINodes are validated with `AllowLongNodeID` (192 without).
const CSI_NODE_ID_MAX_LENGTH: usize = 256;

/// `ValidateCSINode`: named as a node is, each driver named once, with a node ID, a count that
/// is not negative, and distinct qualified topology keys (whose errors name the driver).
pub fn csi_node(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_subdomain, true);
    let drivers_path = Path::new("spec").child("drivers");
    let mut names_seen = std::collections::HashSet::new();
    for (i, driver) in list(&obj["spec"], "drivers").iter().enumerate() {
        let dp = drivers_path.index(i);
        let name = s(driver, "name");
        errs.extend(csi_driver_name(name, &dp.child("name")));
        let node_id = s(driver, "nodeID");
        if node_id.is_empty() {
            errs.push(required(&dp.child("nodeID"), ""));
        }
        if node_id.len() > CSI_NODE_ID_MAX_LENGTH {
            errs.push(invalid(
                &dp.child("nodeID"),
                go_quote(node_id),
                format!("must be {CSI_NODE_ID_MAX_LENGTH} characters or less"),
            ));
        }
        if let Some(count) = driver["allocatable"]["count"].as_i64().filter(|c| *c < 0) {
            errs.push(invalid(
                &dp.child("allocatable").child("count"),
                count.to_string(),
                "must be greater than or equal to 0",
            ));
        }
        if !names_seen.insert(name) {
            errs.push(duplicate(&dp.child("name"), go_quote(name)));
        }
        let mut keys = std::collections::HashSet::new();
        for key in list(driver, "topologyKeys") {
            let key = key.as_str().unwrap_or_default();
            if key.is_empty() {
                errs.push(required(&dp, ""));
            }
            if !keys.insert(key) {
                errs.push(duplicate(&dp, go_quote(key)));
            }
            for m in names::qualified_name(key) {
                errs.push(invalid(&dp, go_quote(key), m));
            }
        }
    }
    errs
}

/// `ValidateCSINode` then `ValidateCSINodeUpdate`: a driver that stays may not change. The error
/// names the path `CSINodeDriver` and dumps the new driver as Go prints the struct.
pub fn csi_node_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = csi_node(new);
    errs.extend(object_meta_update(new, old, true));
    let new_drivers = list(&new["spec"], "drivers");
    for old_driver in list(&old["spec"], "drivers") {
        let same_name = new_drivers
            .iter()
            .filter(|d| d["name"] == old_driver["name"] && !same_driver(d, old_driver));
        for changed in same_name {
            errs.push(invalid(
                &Path::new("CSINodeDriver"),
                csi_node_driver_dump(changed),
                "field is immutable",
            ));
        }
    }
    errs
}

/// `Semantic.DeepEqual` of two drivers: an empty list of topology keys equals none (null).
fn same_driver(a: &Value, b: &Value) -> bool {
    let norm = |d: &Value| {
        let mut d = d.clone();
        if list(&d, "topologyKeys").is_empty() {
            if let Some(m) = d.as_object_mut() {
                m.remove("topologyKeys");
            }
        }
        d
    };
    norm(a) == norm(b)
}

/// `%#v` of a `storage.CSINodeDriver`, its `Allocatable` a pointer.
fn csi_node_driver_dump(d: &Value) -> String {
    format!(
        "storage.CSINodeDriver{{Name:{}, NodeID:{}, TopologyKeys:{}, Allocatable:{}}}",
        go_quote(s(d, "name")),
        go_quote(s(d, "nodeID")),
        go_syntax::string_slice(d.get("topologyKeys")),
        go_syntax::pointer("storage.VolumeNodeResources", d.get("allocatable")),
    )
}

/// `maxAttachedVolumeMetadataSize`: the attachment metadata's keys and values together.
const ATTACHMENT_METADATA_MAX: usize = 256 * (1 << 10);
/// `maxVolumeErrorMessageSize`.
const VOLUME_ERROR_MESSAGE_MAX: usize = 1024;

/// `ValidateVolumeAttachment` then `ValidateVolumeAttachmentV1`: an attacher that names a CSI
/// driver, exactly one source, a node, and a status within its sizes.
pub fn volume_attachment(obj: &Value) -> Vec<FieldError> {
    let mut errs = volume_attachment_any_version(obj);
    let (spec, p) = (&obj["spec"], Path::new("spec"));
    errs.extend(csi_driver_name(s(spec, "attacher"), &p.child("attacher")));
    let pv = spec["source"]
        .get("persistentVolumeName")
        .and_then(Value::as_str);
    if let Some(pv) = pv {
        for m in names::name_is_dns_subdomain(pv, false) {
            errs.push(invalid(
                &p.child("source").child("persistentVolumeName"),
                go_quote(pv),
                m,
            ));
        }
    }
    errs
}

/// `ValidateVolumeAttachment`.
fn volume_attachment_any_version(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_subdomain, true);
    let (spec, p) = (&obj["spec"], Path::new("spec"));
    let attacher = s(spec, "attacher");
    if attacher.is_empty() {
        errs.push(required(&p.child("attacher"), ""));
    }
    let source = &spec["source"];
    let sp = p.child("source");
    let pv = source.get("persistentVolumeName").and_then(Value::as_str);
    let inline = source.get("inlineVolumeSpec").filter(|v| !v.is_null());
    const ONE: &str = "must specify exactly one of inlineVolumeSpec and persistentVolumeName";
    match (pv, inline) {
        (None, None) => errs.push(required(&sp, ONE)),
        (Some(_), Some(_)) => errs.push(forbidden(&sp, ONE)),
        (Some(""), None) => errs.push(required(
            &sp.child("persistentVolumeName"),
            "must specify non empty persistentVolumeName",
        )),
        (Some(_), None) => {}
        (None, Some(inline)) => {
            errs.extend(volume_spec(inline, &sp.child("inlineVolumeSpec"), true));
        }
    }
    let node = s(spec, "nodeName");
    for m in names::name_is_dns_subdomain(node, false) {
        errs.push(invalid(&p.child("nodeName"), go_quote(node), m));
    }
    let (status, stp) = (&obj["status"], Path::new("status"));
    let metadata: usize = status["attachmentMetadata"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
        .sum();
    if metadata > ATTACHMENT_METADATA_MAX {
        errs.push(too_long(
            &stp.child("attachmentMetadata"),
            ATTACHMENT_METADATA_MAX,
        ));
    }
    for key in ["attachError", "detachError"] {
        if s(&status[key], "message").len() > VOLUME_ERROR_MESSAGE_MAX {
            // Upstream names the metadata's limit here, not the message's.
            errs.push(too_long(
                &stp.child(key).child("message"),
                ATTACHMENT_METADATA_MAX,
            ));
        }
    }
    errs
}

/// The metadata update, then the strategy's `ValidateVolumeAttachment` and
/// `ValidateVolumeAttachmentUpdate`, which runs the first again (its errors are listed twice,
/// and the message names each once): the spec is fixed once created.
pub fn volume_attachment_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(volume_attachment_any_version(new));
    errs.extend(volume_attachment_any_version(new));
    if !semantic_eq(&new["spec"], &old["spec"]) {
        errs.push(invalid(
            &Path::new("spec"),
            volume_attachment_spec_dump(&new["spec"]),
            IMMUTABLE,
        ));
    }
    errs
}

/// `%#v` of an internal `storage.VolumeAttachmentSpec`.
fn volume_attachment_spec_dump(spec: &Value) -> String {
    let source = &spec["source"];
    format!(
        "storage.VolumeAttachmentSpec{{Attacher:{}, Source:storage.VolumeAttachmentSource{{\
         PersistentVolumeName:{}, InlineVolumeSpec:{}}}, NodeName:{}}}",
        go_syntax::string_field(spec, "attacher"),
        go_syntax::pointer("string", source.get("persistentVolumeName")),
        go_syntax::pointer("core.PersistentVolumeSpec", source.get("inlineVolumeSpec")),
        go_syntax::string_field(spec, "nodeName"),
    )
}

/// `ValidateCSIStorageCapacity`: the node topology a label selector, the class a class name,
/// the capacity not negative.
pub fn csi_storage_capacity(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    errs.extend(label_selector(
        obj.get("nodeTopology"),
        &Path::new("nodeTopology"),
    ));
    let class = s(obj, "storageClassName");
    errs.extend(class_name(class, &Path::new("storageClassName")));
    if let Some(capacity) = obj.get("capacity").and_then(Value::as_str) {
        if let Ok(q) = Quantity::parse(capacity) {
            if q.is_negative() {
                errs.push(invalid(
                    &Path::new("capacity"),
                    go_quote(&q.canonical()),
                    "must be greater than or equal to 0",
                ));
            }
        }
    }
    errs
}

/// The metadata update, then the strategy's `ValidateCSIStorageCapacity` and
/// `ValidateCSIStorageCapacityUpdate`, which checks the metadata update again: what the capacity
/// was asked for (the topology and the class) is fixed.
pub fn csi_storage_capacity_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(csi_storage_capacity(new));
    errs.extend(object_meta_update(new, old, true));
    let topology = new.get("nodeTopology").filter(|v| !v.is_null());
    if !semantic_eq(
        topology.unwrap_or(&Value::Null),
        old.get("nodeTopology").unwrap_or(&Value::Null),
    ) {
        errs.push(invalid(
            &Path::new("nodeTopology"),
            topology.map_or(go_syntax::NULL.into(), go_syntax::label_selector),
            IMMUTABLE,
        ));
    }
    if s(new, "storageClassName") != s(old, "storageClassName") {
        errs.push(invalid(
            &Path::new("storageClassName"),
            go_quote(s(new, "storageClassName")),
            IMMUTABLE,
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

    /// The texts kube-apiserver v1.32.13 answered for the same objects (differential session
    /// `csi`).
    #[test]
    fn a_csi_driver_is_checked_as_upstream_checks_it() {
        let driver = json!({"metadata": {"name": "d.example.com"}, "spec": {
            "attachRequired": true, "podInfoOnMount": false, "storageCapacity": false,
            "seLinuxMount": false, "fsGroupPolicy": "Sometimes",
            "volumeLifecycleModes": ["Persistent", "Forever"],
            "tokenRequests": [{"audience": "a", "expirationSeconds": 60}, {"audience": "a"},
                              {"audience": "b", "expirationSeconds": 4_294_967_297_i64}]}});
        assert_eq!(
            messages(csi_driver(&driver)),
            [
                "spec.fsGroupPolicy: Unsupported value: \"Sometimes\": supported values: \"File\", \"None\", \"ReadWriteOnceWithFSType\"",
                "spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes",
                "spec.tokenRequests[1].audience: Duplicate value: \"a\"",
                "spec.tokenRequests[2].expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds",
                "spec.volumeLifecycleModes: Unsupported value: \"Forever\": supported values: \"Persistent\", \"Ephemeral\"",
            ]
        );
        let old = json!({"metadata": {"name": "d"}, "spec": {
            "attachRequired": false, "podInfoOnMount": true, "storageCapacity": true,
            "seLinuxMount": true, "volumeLifecycleModes": ["Persistent", "Ephemeral"]}});
        let mut new = old.clone();
        new["spec"]["attachRequired"] = json!(true);
        new["spec"]["volumeLifecycleModes"] = json!(["Persistent"]);
        assert_eq!(
            messages(csi_driver_update(&new, &old)),
            [
                "spec.attachedRequired: Invalid value: true: field is immutable",
                "spec.volumeLifecycleModes: Invalid value: []storage.VolumeLifecycleMode{\"Persistent\"}: field is immutable",
            ]
        );
    }

    #[test]
    fn a_csi_nodes_drivers_are_checked_and_fixed_once_registered() {
        let node = json!({"metadata": {"name": "bad"}, "spec": {"drivers": [
            {"name": "Not_A_Driver", "nodeID": "", "allocatable": {"count": -1},
             "topologyKeys": ["", "zone", "zone"]},
            {"name": "Not_A_Driver", "nodeID": "x"}]}});
        let found = messages(csi_node(&node));
        for expected in [
            "spec.drivers[0].nodeID: Required value",
            "spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0",
            "spec.drivers[0]: Required value",
            "spec.drivers[0]: Duplicate value: \"zone\"",
            "spec.drivers[1].name: Duplicate value: \"Not_A_Driver\"",
        ] {
            assert!(found.iter().any(|m| m == expected), "{expected} in {found:#?}");
        }
        let long = json!({"metadata": {"name": "n"}, "spec": {"drivers": [
            {"name": "d.example.com", "nodeID": "a".repeat(256)}]}});
        assert!(csi_node(&long).is_empty());
        let old = json!({"metadata": {"name": "n"}, "spec": {"drivers": [
            {"name": "d.example.com", "nodeID": "n", "topologyKeys": ["zone"]},
            {"name": "e.example.com", "nodeID": "n", "topologyKeys": null}]}});
        let mut new = old.clone();
        new["spec"]["drivers"][0]["nodeID"] = json!("other");
        new["spec"]["drivers"][1]["topologyKeys"] = json!([]);
        assert_eq!(
            messages(csi_node_update(&new, &old)),
            ["CSINodeDriver: Invalid value: storage.CSINodeDriver{Name:\"d.example.com\", NodeID:\"other\", TopologyKeys:[]string{\"zone\"}, Allocatable:(*storage.VolumeNodeResources)(nil)}: field is immutable"]
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

    /// What kube-apiserver v1.32.13 answered for the same objects (differential session
    /// `attachments`).
    #[test]
    fn a_volume_attachment_is_checked_as_upstream_checks_it() {
        const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
        let both = json!({"metadata": {"name": "Bad_Name"}, "spec": {
            "attacher": "Bad_Driver", "nodeName": "Lab_Node",
            "source": {"persistentVolumeName": "Bad_PV", "inlineVolumeSpec": {
                "accessModes": ["ReadWriteOnce"],
                "csi": {"driver": "hostpath.csi.k8s.io", "volumeHandle": "v1"}}}}});
        assert_eq!(
            messages(volume_attachment(&both)),
            [
                format!("metadata.name: Invalid value: \"Bad_Name\": {SUBDOMAIN}"),
                "spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName".to_string(),
                format!("spec.nodeName: Invalid value: \"Lab_Node\": {SUBDOMAIN}"),
                format!("spec.attacher: Invalid value: \"Bad_Driver\": {SUBDOMAIN}"),
                format!("spec.source.persistentVolumeName: Invalid value: \"Bad_PV\": {SUBDOMAIN}"),
            ]
        );
        let inline = json!({"metadata": {"name": "inline-wrong"}, "spec": {
            "attacher": "hostpath.csi.k8s.io", "nodeName": "lab-node-0",
            "source": {"inlineVolumeSpec": {
                "capacity": {"storage": "1Gi"}, "claimRef": {"name": "data", "namespace": "default"},
                "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "fast",
                "volumeMode": "Block", "nfs": {"server": "nfs.example.com", "path": "/exports"}}}}});
        assert_eq!(
            messages(volume_attachment(&inline)),
            [
                "spec.source.inlineVolumeSpec.claimRef: Forbidden: may not be specified in the context of inline volumes",
                "spec.source.inlineVolumeSpec.capacity: Forbidden: may not be specified in the context of inline volumes",
                "spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes",
                "spec.source.inlineVolumeSpec.accessModes: Required value",
                "spec.source.inlineVolumeSpec.persistentVolumeReclaimPolicy: Forbidden: may only be Retain in the context of inline volumes",
                "spec.source.inlineVolumeSpec.storageClassName: Forbidden: may not be specified in the context of inline volumes",
                "spec.source.inlineVolumeSpec.volumeMode: Forbidden: may not specify volumeMode other than Filesystem in the context of inline volumes",
            ]
        );
        // The spec is fixed; upstream prints the source's pointer as an address.
        let old = json!({"metadata": {"name": "va", "resourceVersion": "1"}, "spec": {
            "attacher": "hostpath.csi.k8s.io", "nodeName": "lab-node-0",
            "source": {"persistentVolumeName": "pv-data"}}});
        let mut moved = old.clone();
        moved["spec"]["nodeName"] = json!("lab-node-1");
        let errs = messages(volume_attachment_update(&moved, &old));
        let [only] = &errs[..] else {
            panic!("{errs:?}")
        };
        let (head, rest) = only.split_once("(*string)(0x").expect("a pointer");
        let (_address, tail) = rest.split_once(')').expect("a pointer");
        assert_eq!(
            head,
            "spec: Invalid value: storage.VolumeAttachmentSpec{Attacher:\"hostpath.csi.k8s.io\", Source:storage.VolumeAttachmentSource{PersistentVolumeName:"
        );
        assert_eq!(
            tail,
            ", InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:\"lab-node-1\"}: field is immutable"
        );
    }

    /// What kube-apiserver v1.32.13 answered for the same objects (differential session
    /// `attachments`).
    #[test]
    fn a_csi_storage_capacity_is_checked_as_upstream_checks_it() {
        let bad = json!({"metadata": {"name": "csisc-bad", "namespace": "default"},
            "storageClassName": "Bad_Class",
            "nodeTopology": {"matchExpressions": [{"key": "zone", "operator": "Maybe"}]},
            "capacity": "-1Gi"});
        let errs = messages(csi_storage_capacity(&bad));
        assert_eq!(errs.len(), 3, "{errs:?}");
        assert_eq!(
            errs[0],
            "nodeTopology.matchExpressions[0].operator: Invalid value: \"Maybe\": not a valid selector operator"
        );
        assert!(errs[1].starts_with(
            "storageClassName: Invalid value: \"Bad_Class\": a lowercase RFC 1123 subdomain"
        ));
        assert_eq!(
            errs[2],
            "capacity: Invalid value: \"-1Gi\": must be greater than or equal to 0"
        );
        let old = json!({"metadata": {"name": "c", "namespace": "storage", "resourceVersion": "1"},
            "storageClassName": "standard",
            "nodeTopology": {"matchLabels": {"topology.hostpath.csi/node": "lab-node-0"}}});
        let mut unset = old.clone();
        unset["nodeTopology"] = Value::Null;
        assert_eq!(
            messages(csi_storage_capacity_update(&unset, &old)),
            ["nodeTopology: Invalid value: \"null\": field is immutable"]
        );
    }
}
