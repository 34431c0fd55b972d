//! Deprecated node labels wherever a pod or volume selects nodes by them
//! (`pkg/api/node/util.go`).

use serde_json::Value;

use crate::validation::path::Path;

/// `deprecatedNodeLabels` and `GetNodeLabelDeprecatedMessage`.
pub fn deprecated_label(key: &str) -> Option<&'static str> {
    Some(match key {
        "beta.kubernetes.io/arch" => r#"deprecated since v1.14; use "kubernetes.io/arch" instead"#,
        "beta.kubernetes.io/os" => r#"deprecated since v1.14; use "kubernetes.io/os" instead"#,
        "failure-domain.beta.kubernetes.io/region" => {
            r#"deprecated since v1.17; use "topology.kubernetes.io/region" instead"#
        }
        "failure-domain.beta.kubernetes.io/zone" => {
            r#"deprecated since v1.17; use "topology.kubernetes.io/zone" instead"#
        }
        "beta.kubernetes.io/instance-type" => {
            r#"deprecated since v1.17; use "node.kubernetes.io/instance-type" instead"#
        }
        "app.kubernetes.io/created-by" => "deprecated since v1.9",
        "scheduler.alpha.kubernetes.io/preferAvoidPods" => {
            "deprecated since v1.22; use Taints and Tolerations instead"
        }
        "node-role.kubernetes.io/master" => {
            r#"use "node-role.kubernetes.io/control-plane" instead"#
        }
        _ => return None,
    })
}

/// The deprecated keys of a label map (a `nodeSelector`), each as `<path>: <message>`. Go
/// ranges over the map in random order; the keys are taken in the order written.
pub fn selector_map(map: &Value, path: &Path) -> Vec<String> {
    map.as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, _)| {
            deprecated_label(k).map(|msg| format!("{}: {msg}", path.key(k).as_str()))
        })
        .collect()
}

/// `GetWarningsForNodeSelector`: the deprecated keys of a label selector that picks nodes (a
/// CSIStorageCapacity's topology), its expressions first; a `matchLabels` key is a child of the
/// path, not an index. Go ranges over the map in random order; the keys are taken as written.
pub fn label_selector(selector: &Value, path: &Path) -> Vec<String> {
    let mut warnings = expressions(
        &selector["matchExpressions"],
        &path.child("matchExpressions"),
    );
    let labels = path.child("matchLabels");
    for key in selector["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
    {
        if let Some(msg) = deprecated_label(key) {
            warnings.push(format!("{}: {msg}", labels.child(key).as_str()));
        }
    }
    warnings
}

/// `GetWarningsForNodeSelectorTerm`: the deprecated keys of a term's match expressions.
pub fn selector_term(term: &Value, path: &Path) -> Vec<String> {
    expressions(&term["matchExpressions"], &path.child("matchExpressions"))
}

fn expressions(list: &Value, path: &Path) -> Vec<String> {
    let mut warnings = Vec::new();
    for (i, e) in list.as_array().into_iter().flatten().enumerate() {
        let key = e["key"].as_str().unwrap_or_default();
        if let Some(msg) = deprecated_label(key) {
            let at = path.index(i).child("key");
            warnings.push(format!("{}: {key} is {msg}", at.as_str()));
        }
    }
    warnings
}

/// `GetWarningsForRuntimeClass`: deprecated labels in `scheduling.nodeSelector`. The path names
/// the map, not the key.
pub fn runtime_class(rc: &Value) -> Vec<String> {
    rc["scheduling"]["nodeSelector"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, _)| deprecated_label(k))
        .map(|msg| format!("scheduling.nodeSelector: {msg}"))
        .collect()
}

/// The node strategy's `fieldIsDeprecatedWarnings`.
pub fn node_fields(node: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    if super::set(&node["spec"], "configSource") {
        warnings.push("spec.configSource: the feature is removed".to_string());
    }
    if node["spec"]["externalID"]
        .as_str()
        .is_some_and(|s| !s.is_empty())
    {
        warnings.push(
            "spec.externalID: this field is deprecated, and is unused by Kubernetes".to_string(),
        );
    }
    warnings
}
