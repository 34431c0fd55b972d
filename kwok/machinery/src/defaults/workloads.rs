//! apps/v1 defaults (k8s.io/kubernetes pkg/apis/apps/v1/defaults.go). Pod templates get the pod
//! spec defaults but none of the pod-only ones (`SetDefaults_Pod`, admission).

use serde_json::{json, Map, Value};

use super::fields::{child, default_nil, default_zero, str_of};
use super::pod::pod_spec;

/// `SetDefaults_Deployment`.
pub fn deployment(obj: &mut Map<String, Value>) {
    let Some(spec) = child(obj, "spec") else {
        return;
    };
    default_nil(spec, "replicas", json!(1));
    if let Some(strategy) = child(spec, "strategy") {
        default_zero(strategy, "type", json!("RollingUpdate"));
        if str_of(strategy, "type") == "RollingUpdate" {
            if let Some(ru) = child(strategy, "rollingUpdate") {
                default_nil(ru, "maxUnavailable", json!("25%"));
                default_nil(ru, "maxSurge", json!("25%"));
            }
        }
    }
    default_nil(spec, "revisionHistoryLimit", json!(10));
    default_nil(spec, "progressDeadlineSeconds", json!(600));
    template(spec);
}

/// `SetDefaults_ReplicaSet`.
pub fn replica_set(obj: &mut Map<String, Value>) {
    let Some(spec) = child(obj, "spec") else {
        return;
    };
    default_nil(spec, "replicas", json!(1));
    template(spec);
}

/// `SetDefaults_DaemonSet`.
pub fn daemon_set(obj: &mut Map<String, Value>) {
    let Some(spec) = child(obj, "spec") else {
        return;
    };
    if let Some(strategy) = child(spec, "updateStrategy") {
        default_zero(strategy, "type", json!("RollingUpdate"));
        if str_of(strategy, "type") == "RollingUpdate" {
            if let Some(ru) = child(strategy, "rollingUpdate") {
                default_nil(ru, "maxUnavailable", json!(1));
                default_nil(ru, "maxSurge", json!(0));
            }
        }
    }
    default_nil(spec, "revisionHistoryLimit", json!(10));
    template(spec);
}

/// `SetDefaults_StatefulSet`, the template's pod spec, and each claim template
/// (`SetDefaults_PersistentVolumeClaim(Spec)`: phase Pending, volume mode Filesystem; the
/// conversion names each template `v1` `PersistentVolumeClaim`).
pub fn stateful_set(obj: &mut Map<String, Value>) {
    let Some(spec) = child(obj, "spec") else {
        return;
    };
    default_zero(spec, "podManagementPolicy", json!("OrderedReady"));
    let strategy = spec.entry("updateStrategy").or_insert_with(|| json!({}));
    if let Some(strategy) = strategy.as_object_mut() {
        if str_of(strategy, "type").is_empty() {
            strategy.insert("type".into(), json!("RollingUpdate"));
            default_nil(strategy, "rollingUpdate", json!({}));
        }
        if str_of(strategy, "type") == "RollingUpdate" {
            if let Some(ru) = child(strategy, "rollingUpdate") {
                default_nil(ru, "partition", json!(0));
                // MaxUnavailableStatefulSet is off: the field is dropped.
                ru.remove("maxUnavailable");
            }
        }
    }
    let policy = spec
        .entry("persistentVolumeClaimRetentionPolicy")
        .or_insert_with(|| json!({}));
    if let Some(policy) = policy.as_object_mut() {
        default_zero(policy, "whenDeleted", json!("Retain"));
        default_zero(policy, "whenScaled", json!("Retain"));
    }
    default_nil(spec, "replicas", json!(1));
    default_nil(spec, "revisionHistoryLimit", json!(10));
    // `serviceName` has no omitempty: Go writes it even when empty.
    spec.entry("serviceName").or_insert_with(|| json!(""));
    let claims = spec
        .get_mut("volumeClaimTemplates")
        .and_then(Value::as_array_mut);
    for claim in claims
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
    {
        claim.insert("apiVersion".into(), json!("v1"));
        claim.insert("kind".into(), json!("PersistentVolumeClaim"));
        let meta = claim.entry("metadata").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.entry("creationTimestamp").or_insert(Value::Null);
        }
        let claim_spec = claim.entry("spec").or_insert_with(|| json!({}));
        if let Some(claim_spec) = claim_spec.as_object_mut() {
            default_nil(claim_spec, "volumeMode", json!("Filesystem"));
            super::resources::requirements(claim_spec, "resources");
        }
        let status = claim.entry("status").or_insert_with(|| json!({}));
        if let Some(status) = status.as_object_mut() {
            default_zero(status, "phase", json!("Pending"));
        }
    }
    template(spec);
}

/// A `template` (PodTemplateSpec, a value struct: always encoded, with `metadata: {}` and its
/// `creationTimestamp: null`, as kubectl shows for workload templates).
pub fn template(spec: &mut Map<String, Value>) {
    let Some(t) = child(spec, "template") else {
        return;
    };
    if let Some(meta) = child(t, "metadata") {
        meta.entry("creationTimestamp").or_insert(Value::Null);
    }
    if let Some(ps) = child(t, "spec") {
        pod_spec(ps, false);
    }
}
