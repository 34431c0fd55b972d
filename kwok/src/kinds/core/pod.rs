//! Pods (`pkg/registry/core/pod/strategy.go`, `storage/storage.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::{fields, pod as defaults};
use crate::error::FieldError;
use crate::meta::{keep, keep_meta};
use crate::printers::{pods as printer, Column};
use crate::resource::{proxy, status, ResourceDef, SubresourceDef, FULL_VERBS};
use crate::resource::{Deletion, Strategy};
use crate::validation::pod as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "Pod",
    plural: "pods",
    singular: "pod",
    namespaced: true,
    short_names: &["po"],
    categories: &["all"],
    verbs: FULL_VERBS,
    subresources: &[
        status("Pod"),
        SubresourceDef {
            name: "binding",
            kind: "Binding",
            group: "",
            version: "",
            verbs: &["create"],
            body: Some(&super::binding::Binding),
        },
        SubresourceDef {
            name: "eviction",
            kind: "Eviction",
            group: "policy",
            version: "v1",
            verbs: &["create"],
            body: Some(&crate::kinds::policy::eviction::Eviction),
        },
        SubresourceDef {
            name: "attach",
            kind: "PodAttachOptions",
            group: "",
            version: "",
            verbs: &["create", "get"],
            body: None,
        },
        SubresourceDef {
            name: "ephemeralcontainers",
            kind: "Pod",
            group: "",
            version: "",
            verbs: &["get", "patch", "update"],
            body: None,
        },
        SubresourceDef {
            name: "exec",
            kind: "PodExecOptions",
            group: "",
            version: "",
            verbs: &["create", "get"],
            body: None,
        },
        SubresourceDef {
            name: "log",
            kind: "Pod",
            group: "",
            version: "",
            verbs: &["get"],
            body: None,
        },
        SubresourceDef {
            name: "portforward",
            kind: "PodPortForwardOptions",
            group: "",
            version: "",
            verbs: &["create", "get"],
            body: None,
        },
        proxy("PodProxyOptions"),
    ],
    strategy: &Pod,
};

#[derive(Debug)]
pub struct Pod;

crate::kinds::decodes_as!(Pod, k8s::Pod);

impl Strategy for Pod {
    /// `podStrategy.GetResetFields`, `podStatusStrategy.GetResetFields`.
    fn reset_fields(&self, subresource: &str) -> &'static [&'static str] {
        match subresource {
            "" => &["status"],
            "status" => &[
                "spec",
                "metadata.deletionTimestamp",
                "metadata.ownerReferences",
            ],
            // `podEphemeralContainersStrategy` embeds `podStrategy`.
            "ephemeralcontainers" => &["status"],
            _ => &[],
        }
    }

    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::POD)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        if let Some(spec) = fields::child(obj, "spec") {
            defaults::pod_spec(spec, true);
        }
        if let Some(status) = fields::existing(obj, "status") {
            defaults::pod_status(status);
        }
    }

    /// `pod.Status = api.PodStatus{Phase: api.PodPending, QOSClass: qos.GetPodQOS(pod)}`.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"phase": "Pending", "qosClass": qos_class(obj)});
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        crate::warnings::pod::pod_on_create(obj)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::validate_create(obj)
    }

    /// `newPod.Status = oldPod.Status`.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "status");
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_update(new, old)
    }

    /// `podStatusStrategy.PrepareForUpdate`: the spec and the owner references stay (old kubelets
    /// corrupt the latter); a status without a QoS class gets the old one back.
    fn prepare_for_status_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "spec");
        keep_meta(new, old, "ownerReferences");
        if let Some(qos) = old["status"].get("qosClass").filter(|q| !q.is_null()) {
            if !new["status"].is_object() {
                new["status"] = json!({});
            }
            if new["status"]["qosClass"].as_str().is_none_or(str::is_empty) {
                new["status"]["qosClass"] = qos.clone();
            }
        }
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_status_update(new, old)
    }

    /// `dropNonEphemeralContainerUpdates`: the old pod, with the new one's name, namespace,
    /// resourceVersion, UID and ephemeral containers.
    fn prepare_for_ephemeral_containers_update(&self, new: &mut Value, old: &Value) {
        let mut pod = old.clone();
        for key in ["name", "namespace", "resourceVersion", "uid"] {
            match new["metadata"].get(key) {
                Some(v) => pod["metadata"][key] = v.clone(),
                None => {
                    if let Some(m) = pod["metadata"].as_object_mut() {
                        m.remove(key);
                    }
                }
            }
        }
        match new["spec"].get("ephemeralContainers") {
            Some(v) => pod["spec"]["ephemeralContainers"] = v.clone(),
            None => {
                if let Some(spec) = pod["spec"].as_object_mut() {
                    spec.remove("ephemeralContainers");
                }
            }
        }
        *new = pod;
    }

    fn validate_ephemeral_containers_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_ephemeral_containers_update(new, old)
    }

    /// `podStrategy.CheckGracefulDelete`: the request's grace period, else the pod's own, else 30
    /// seconds; an unbound or finished pod goes at once; a negative period counts as 1.
    fn deletion(&self, obj: &mut Value, grace_period_seconds: Option<i64>) -> Deletion {
        let phase = obj["status"]["phase"].as_str().unwrap_or("");
        let bound = obj["spec"]["nodeName"]
            .as_str()
            .is_some_and(|n| !n.is_empty());
        let mut grace = grace_period_seconds
            .or_else(|| obj["spec"]["terminationGracePeriodSeconds"].as_i64())
            .unwrap_or(30);
        if !bound || phase == "Succeeded" || phase == "Failed" {
            grace = 0;
        }
        if grace < 0 {
            grace = 1;
        }
        if grace == 0 {
            return Deletion::Immediate;
        }
        let current = obj["metadata"]["deletionGracePeriodSeconds"].as_i64();
        if current.is_some_and(|c| c <= grace) {
            return Deletion::Unchanged;
        }
        let at = Utc::now() + chrono::Duration::seconds(grace);
        let m = crate::meta::meta_mut(obj);
        m.insert(
            "deletionTimestamp".into(),
            json!(at.format("%Y-%m-%dT%H:%M:%SZ").to_string()),
        );
        m.insert("deletionGracePeriodSeconds".into(), json!(grace));
        Deletion::Graceful
    }

    fn returns_deleted_object(&self) -> bool {
        true
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::POD
    }

    fn columns(&self) -> &'static [Column] {
        printer::COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::cells(obj, now)
    }

    fn row_conditions(&self, obj: &Value) -> Option<Value> {
        printer::conditions(obj)
    }
}

/// `qos.ComputePodQOS` (`pkg/apis/core/helper/qos/qos.go`): only cpu and memory count
/// (`isSupportedQoSComputeResource`), and only amounts above zero. BestEffort without any;
/// Guaranteed when every container limits both, and the summed requests equal the summed limits
/// resource by resource; else Burstable.
pub fn qos_class(pod: &Value) -> &'static str {
    use crate::quantity::{parse_text, Amount};
    use std::collections::BTreeMap;
    const COMPUTE: [&str; 2] = ["cpu", "memory"];
    let spec = &pod["spec"];
    let mut requests: BTreeMap<&str, Amount> = BTreeMap::new();
    let mut limits: BTreeMap<&str, Amount> = BTreeMap::new();
    let mut guaranteed = true;
    let positive = |list: &Value, name: &str| {
        list[name]
            .as_str()
            .and_then(parse_text)
            .filter(|amount| *amount > Amount::ZERO)
    };
    for c in ["containers", "initContainers"]
        .iter()
        .filter_map(|k| spec[*k].as_array())
        .flatten()
    {
        let resources = &c["resources"];
        let mut limited = 0;
        for name in COMPUTE {
            if let Some(amount) = positive(&resources["requests"], name) {
                let sum = requests.entry(name).or_insert(Amount::ZERO);
                *sum = sum.saturating_add(amount);
            }
            if let Some(amount) = positive(&resources["limits"], name) {
                limited += 1;
                let sum = limits.entry(name).or_insert(Amount::ZERO);
                *sum = sum.saturating_add(amount);
            }
        }
        if limited < COMPUTE.len() {
            guaranteed = false;
        }
    }
    if requests.is_empty() && limits.is_empty() {
        return "BestEffort";
    }
    if guaranteed
        && requests.len() == limits.len()
        && requests.iter().all(|(n, r)| limits.get(n) == Some(r))
    {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(containers: Value) -> Value {
        json!({"spec": {"containers": containers}})
    }

    /// The cases of `qos_test.go` that matter to GPU labs: extended resources do not count.
    #[test]
    fn qos_counts_only_cpu_and_memory() {
        let gpu_only = pod(json!([{"resources": {
            "requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}}]));
        assert_eq!(qos_class(&gpu_only), "BestEffort");
        let guaranteed = pod(json!([{"resources": {
            "requests": {"cpu": "100m", "memory": "1Gi", "nvidia.com/gpu": "1"},
            "limits": {"cpu": "0.1", "memory": "1024Mi", "nvidia.com/gpu": "1"}}}]));
        assert_eq!(qos_class(&guaranteed), "Guaranteed", "equal by value");
        let burstable = pod(json!([
            {"resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}},
            {"resources": {"requests": {"cpu": "1"}}}]));
        assert_eq!(
            qos_class(&burstable),
            "Burstable",
            "one container without limits"
        );
        let zero =
            pod(json!([{"resources": {"requests": {"cpu": "0"}, "limits": {"memory": "0"}}}]));
        assert_eq!(qos_class(&zero), "BestEffort", "zero amounts do not count");
    }

    /// A status write keeps the spec and the owner references, takes labels, and backfills a
    /// missing QoS class.
    #[test]
    fn status_writes_keep_spec_and_owners() {
        let old = json!({"metadata": {"labels": {"a": "1"}, "ownerReferences": [{"kind": "ReplicaSet"}]},
            "spec": {"nodeName": "n"}, "status": {"phase": "Pending", "qosClass": "BestEffort"}});
        let mut new = json!({"metadata": {"labels": {"a": "2"}},
            "spec": {"nodeName": "m"}, "status": {"phase": "Running"}});
        Pod.prepare_for_status_update(&mut new, &old);
        assert_eq!(new["metadata"]["labels"]["a"], "2");
        assert_eq!(new["metadata"]["ownerReferences"][0]["kind"], "ReplicaSet");
        assert_eq!(new["spec"]["nodeName"], "n");
        assert_eq!(
            new["status"],
            json!({"phase": "Running", "qosClass": "BestEffort"})
        );
    }
}
