//! StatefulSets (pkg/apis/apps/validation/validation.go `ValidateStatefulSet`,
//! `ValidateStatefulSetUpdate`, `ValidateStatefulSetStatusUpdate`). The template's pod spec is
//! not validated upstream (only its labels, annotations, restart policy and deadline), nor are
//! `serviceName` and the claim templates.

use serde_json::Value;

use super::apps::{controller_pods, required_selector};
use super::labels::{
    annotations, labels, render, selector_is_empty, selector_matches, selector_parses,
};
use super::meta::{object_meta, object_meta_update};
use super::path::{forbidden, invalid, nonnegative, not_supported, required, Path};
use super::pod::semantic_eq;
use super::replicas::{collision_count_kept, int, nonnegative_counts, replica_bounds};
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;

/// `%#v` of a `RollingUpdateStatefulSetStrategy` (its pointers print as addresses in Go, which
/// no two runs share).
fn rolling_value(ru: &Value) -> String {
    let partition = if ru.get("partition").is_some() {
        "(*int32)(0xc000000000)"
    } else {
        "(*int32)(nil)"
    };
    format!(
        "apps.RollingUpdateStatefulSetStrategy{{Partition:{partition}, MaxUnavailable:(*intstr.IntOrString)(nil)}}"
    )
}

/// `%#v` of a `StatefulSetUpdateStrategy`.
fn strategy_value(s: &Value) -> String {
    let ru = match s.get("rollingUpdate").filter(|v| v.is_object()) {
        Some(_) => "(*apps.RollingUpdateStatefulSetStrategy)(0xc000000000)".to_string(),
        None => "(*apps.RollingUpdateStatefulSetStrategy)(nil)".into(),
    };
    format!(
        "apps.StatefulSetUpdateStrategy{{Type:{}, RollingUpdate:{ru}}}",
        go_quote(s["type"].as_str().unwrap_or(""))
    )
}

/// `ValidateStatefulSetSpec`.
fn spec(spec: &Value) -> Vec<FieldError> {
    let p = Path::new("spec");
    let mut errs = Vec::new();
    match spec["podManagementPolicy"].as_str().unwrap_or("") {
        "OrderedReady" | "Parallel" => {}
        "" => errs.push(required(&p.child("podManagementPolicy"), "")),
        other => errs.push(invalid(
            &p.child("podManagementPolicy"),
            go_quote(other),
            "must be 'OrderedReady' or 'Parallel'",
        )),
    }
    let strategy = &spec["updateStrategy"];
    let rolling = strategy.get("rollingUpdate").filter(|v| v.is_object());
    match strategy["type"].as_str().unwrap_or("") {
        "" => errs.push(required(&p.child("updateStrategy"), "")),
        "OnDelete" => {
            if let Some(ru) = rolling {
                errs.push(invalid(
                    &p.child("updateStrategy").child("rollingUpdate"),
                    rolling_value(ru),
                    "only allowed for updateStrategy 'RollingUpdate'",
                ));
            }
        }
        "RollingUpdate" => {
            if let Some(ru) = rolling {
                errs.extend(nonnegative(
                    int(ru, "partition"),
                    &p.child("updateStrategy")
                        .child("rollingUpdate")
                        .child("partition"),
                ));
            }
        }
        _ => errs.push(invalid(
            &p.child("updateStrategy"),
            strategy_value(strategy),
            "must be 'RollingUpdate' or 'OnDelete'",
        )),
    }
    if let Some(policy) = spec
        .get("persistentVolumeClaimRetentionPolicy")
        .filter(|v| v.is_object())
    {
        let pp = p.child("persistentVolumeClaimRetentionPolicy");
        for key in ["whenDeleted", "whenScaled"] {
            let v = policy[key].as_str().unwrap_or("");
            if !["Retain", "Delete"].contains(&v) {
                errs.push(not_supported(
                    &pp.child(key),
                    go_quote(v),
                    &["Retain", "Delete"],
                ));
            }
        }
    }
    errs.extend(nonnegative(int(spec, "replicas"), &p.child("replicas")));
    errs.extend(nonnegative(
        int(spec, "minReadySeconds"),
        &p.child("minReadySeconds"),
    ));
    if let Some(ordinals) = spec.get("ordinals").filter(|v| v.is_object()) {
        errs.extend(nonnegative(
            int(ordinals, "start"),
            &p.child("ordinals.start"),
        ));
    }
    let (sel, selector_errs) = required_selector(spec, &p, "statefulset");
    errs.extend(selector_errs);
    if !selector_parses(sel) {
        errs.push(invalid(
            &p.child("selector"),
            sel.map_or(go_syntax::NULL.to_string(), render),
            "",
        ));
        return errs;
    }
    // `ValidatePodTemplateSpecForStatefulSet`.
    let t = spec.get("template").unwrap_or(&Value::Null);
    let tp = p.child("template");
    let tlabels = t["metadata"].get("labels");
    if !sel.is_some_and(selector_is_empty) && !selector_matches(sel, tlabels) {
        errs.push(invalid(
            &tp.child("metadata").child("labels"),
            go_syntax::string_map(tlabels),
            "`selector` does not match template `labels`",
        ));
    }
    errs.extend(labels(tlabels, &tp.child("labels")));
    errs.extend(annotations(
        t["metadata"].get("annotations"),
        &tp.child("annotations"),
    ));
    errs.extend(controller_pods(t, &tp, "StatefulSet"));
    errs
}

/// `ValidateStatefulSet`: the name a DNS label (it prefixes its pods' hostnames).
pub fn stateful_set(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_label, true);
    errs.extend(spec(&obj["spec"]));
    errs
}

/// The spec fields an update may change.
const MUTABLE: &[&str] = &[
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
];

/// `ValidateStatefulSetUpdate`.
pub fn stateful_set_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(spec(&new["spec"]));
    let rest = |v: &Value| {
        let mut s = v["spec"].clone();
        if let Some(m) = s.as_object_mut() {
            for k in MUTABLE {
                m.remove(*k);
            }
        }
        s
    };
    if !semantic_eq(&rest(new), &rest(old)) {
        errs.push(forbidden(&Path::new("spec"), "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
    }
    errs
}

/// `ValidateStatefulSetStatusUpdate`: unlike the other workloads', the status before the metadata.
pub fn stateful_set_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let st = &new["status"];
    let p = Path::new("status");
    let mut errs = nonnegative_counts(
        st,
        &p,
        &[
            "replicas",
            "readyReplicas",
            "currentReplicas",
            "updatedReplicas",
            "availableReplicas",
            "observedGeneration",
            "collisionCount",
        ],
    );
    errs.extend(replica_bounds(
        st,
        &p,
        &[
            "readyReplicas",
            "currentReplicas",
            "updatedReplicas",
            "availableReplicas",
        ],
        "cannot be greater than status.readyReplicas",
    ));
    errs.extend(object_meta_update(new, old, true));
    errs.extend(collision_count_kept(st, &old["status"], &p));
    errs
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::validation::messages;

    fn set() -> Value {
        json!({"metadata": {"name": "web", "namespace": "n"}, "spec": {
            "replicas": 3, "serviceName": "", "podManagementPolicy": "OrderedReady",
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"restartPolicy": "Always", "containers": []}}}})
    }

    #[test]
    fn the_template_spec_is_not_validated_but_its_labels_are() {
        assert!(messages(stateful_set(&set())).is_empty());
        let mut bad = set();
        bad["spec"]["template"]["metadata"]["labels"] = json!({"app": "db"});
        bad["spec"]["podManagementPolicy"] = json!("Random");
        assert_eq!(
            messages(stateful_set(&bad)),
            [
                "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
                "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"db\"}: `selector` does not match template `labels`",
            ]
        );
    }

    #[test]
    fn only_some_spec_fields_may_change() {
        let old = set();
        let mut new = set();
        new["spec"]["replicas"] = json!(5);
        assert!(messages(stateful_set_update(&new, &old)).is_empty());
        new["spec"]["serviceName"] = json!("web");
        assert_eq!(
            messages(stateful_set_update(&new, &old)),
            ["spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]
        );
    }
}
