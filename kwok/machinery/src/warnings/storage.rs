//! Warnings of volumes and their classes: `pkg/api/persistentvolume`,
//! `pkg/api/persistentvolumeclaim` and `pkg/api/storage` (`util.go` in each).

use serde_json::Value;

use super::{fractional_bytes, node, set};
use crate::validation::path::Path;

const BETA_STORAGE_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

/// `GetWarningsForPersistentVolume`.
pub fn volume(pv: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    for (key, message) in [
        (
            BETA_STORAGE_CLASS,
            r#"deprecated since v1.8; use "storageClassName" attribute instead"#,
        ),
        (
            "volume.beta.kubernetes.io/mount-options",
            r#"deprecated since v1.31; use "mountOptions" attribute instead"#,
        ),
    ] {
        if crate::meta::annotation(pv, key).is_some() {
            warnings.push(format!("metadata.annotations[{key}]: {message}"));
        }
    }
    let spec = &pv["spec"];
    if spec["persistentVolumeReclaimPolicy"] == "Recycle" {
        warnings.push("spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.".into());
    }
    let terms = Path::of(&["spec", "nodeAffinity", "required", "nodeSelectorTerms"]);
    let listed = &spec["nodeAffinity"]["required"]["nodeSelectorTerms"];
    for (i, term) in listed.as_array().into_iter().flatten().enumerate() {
        warnings.extend(node::selector_term(term, &terms.index(i)));
    }
    for (plugin, message) in [
        ("cephfs", "deprecated in v1.28, non-functional in v1.31+"),
        (
            "photonPersistentDisk",
            "deprecated in v1.11, non-functional in v1.16+",
        ),
        ("scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
        ("storageOS", "deprecated in v1.22, non-functional in v1.25+"),
        ("glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
        ("rbd", "deprecated in v1.28, non-functional in v1.31+"),
    ] {
        if set(spec, plugin) {
            warnings.push(format!("spec.{plugin}: {message}"));
        }
    }
    warnings
}

/// `GetWarningsForPersistentVolumeClaim`.
pub fn claim(pvc: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    if crate::meta::annotation(pvc, BETA_STORAGE_CLASS).is_some() {
        warnings.push(format!(
            r#"metadata.annotations[{BETA_STORAGE_CLASS}]: deprecated since v1.8; use "storageClassName" attribute instead"#
        ));
    }
    warnings.extend(claim_spec(&pvc["spec"], &Path::new("spec")));
    warnings
}

/// `GetWarningsForPersistentVolumeClaimSpec`: a storage request or limit that is not a whole
/// number of bytes.
pub fn claim_spec(spec: &Value, path: &Path) -> Vec<String> {
    let resources = path.child("resources");
    ["requests", "limits"]
        .into_iter()
        .filter_map(|side| {
            let at = resources.child(side).key("storage");
            fractional_bytes(&at, spec["resources"][side].get("storage"))
        })
        .collect()
}

/// `GetWarningsForStorageClass`: deprecated node labels in `allowedTopologies`.
pub fn class(sc: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    let topologies = sc["allowedTopologies"].as_array().into_iter().flatten();
    for (i, topology) in topologies.enumerate() {
        let expressions = topology["matchLabelExpressions"]
            .as_array()
            .into_iter()
            .flatten();
        for (j, e) in expressions.enumerate() {
            if let Some(msg) = node::deprecated_label(e["key"].as_str().unwrap_or_default()) {
                warnings.push(format!(
                    "allowedTopologies[{i}].matchLabelExpressions[{j}].key: {msg}"
                ));
            }
        }
    }
    warnings
}

/// A StatefulSet's claim templates (`WarningsOnCreate`: each at
/// `spec.volumeClaimTemplates[i]`; `WarningsOnUpdate` names the spec `Spec`, as upstream does).
pub fn claim_templates(set: &Value, spec_child: Option<&str>) -> Vec<String> {
    let base = Path::of(&["spec", "volumeClaimTemplates"]);
    let templates = set["spec"]["volumeClaimTemplates"]
        .as_array()
        .into_iter()
        .flatten();
    templates
        .enumerate()
        .flat_map(|(i, t)| {
            let path = match spec_child {
                Some(child) => base.index(i).child(child),
                None => base.index(i),
            };
            claim_spec(&t["spec"], &path)
        })
        .collect()
}
