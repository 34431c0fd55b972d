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

/// A `template` (PodTemplateSpec, a value struct: always encoded, with `metadata: {}` and its
/// `creationTimestamp: null`, as kubectl shows for workload templates).
pub(crate) fn template(spec: &mut Map<String, Value>) {
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
