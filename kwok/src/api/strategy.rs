//! Per-kind rules of the generic registry (`k8s.io/kubernetes/pkg/registry/*/strategy.go`): what the
//! server sets on create, what an update may change, and when `generation` moves.

use serde_json::{json, Value};

use crate::registry::{self, ResourceDef};

/// Kinds whose `metadata.generation` tracks spec changes.
pub fn uses_generation(res: &ResourceDef) -> bool {
    std::ptr::eq(res, &registry::DEPLOYMENTS)
        || std::ptr::eq(res, &registry::REPLICASETS)
        || std::ptr::eq(res, &registry::DAEMONSETS)
        || std::ptr::eq(res, &registry::PODDISRUPTIONBUDGETS)
}

/// `AllowUnconditionalUpdate`: may a PUT leave out `metadata.resourceVersion`? Not for
/// PodDisruptionBudgets and Leases.
pub fn allows_unconditional_update(res: &ResourceDef) -> bool {
    !(std::ptr::eq(res, &registry::PODDISRUPTIONBUDGETS) || std::ptr::eq(res, &registry::LEASES))
}

/// `ReturnDeletedObject` of the kind's storage: is a delete answered with the deleted object
/// rather than a Status naming it? Among the served kinds: pods, namespaces, service accounts.
pub fn returns_deleted_object(res: &ResourceDef) -> bool {
    std::ptr::eq(res, &registry::PODS)
        || std::ptr::eq(res, &registry::NAMESPACES)
        || std::ptr::eq(res, &registry::SERVICEACCOUNTS)
}

pub fn has_status(res: &ResourceDef) -> bool {
    res.subresource("status").is_some()
}

/// The status an object starts with. Required (non-omitempty) Go fields appear as zeros.
fn initial_status(res: &ResourceDef, obj: &Value) -> Option<Value> {
    if std::ptr::eq(res, &registry::PODS) {
        Some(json!({"phase": "Pending", "qosClass": qos_class(obj)}))
    } else if std::ptr::eq(res, &registry::DAEMONSETS) {
        Some(
            json!({"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0, "numberReady": 0}),
        )
    } else if std::ptr::eq(res, &registry::REPLICASETS) {
        Some(json!({"replicas": 0}))
    } else if std::ptr::eq(res, &registry::DEPLOYMENTS) {
        Some(json!({}))
    } else if std::ptr::eq(res, &registry::PODDISRUPTIONBUDGETS) {
        Some(
            json!({"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}),
        )
    } else if std::ptr::eq(res, &registry::NAMESPACES) {
        Some(json!({"phase": "Active"}))
    } else {
        None
    }
}

/// `qos.ComputePodQOS` (`pkg/apis/core/helper/qos/qos.go`): only cpu and memory count
/// (`isSupportedQoSComputeResource`), and only amounts above zero. BestEffort without any;
/// Guaranteed when every container limits both, and the summed requests equal the summed limits
/// resource by resource; else Burstable.
pub fn qos_class(pod: &Value) -> &'static str {
    use crate::scheduler::quantity::{parse_text, Amount};
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

/// Server-set fields on create.
pub fn prepare_create(res: &ResourceDef, obj: &mut Value) {
    if let Some(status) = initial_status(res, obj) {
        // Nodes and events keep what the client sent; the kinds above start from a fresh status.
        obj["status"] = status;
    }
    if uses_generation(res) {
        obj["metadata"]["generation"] = json!(1);
    }
    if std::ptr::eq(res, &registry::DAEMONSETS) {
        // deprecated.daemonset.template.generation starts at 1 (daemonset strategy PrepareForCreate).
        let meta = super::meta::meta_mut(obj);
        let ann = meta.entry("annotations").or_insert_with(|| json!({}));
        if let Some(a) = ann.as_object_mut() {
            a.insert(
                "deprecated.daemonset.template.generation".into(),
                json!("1"),
            );
        }
    }
}

/// Merge server-owned parts of `old` into an update of the main resource.
pub fn prepare_update(res: &ResourceDef, new: &mut Value, old: &Value) {
    copy_server_meta(new, old);
    if has_status(res) && !std::ptr::eq(res, &registry::NAMESPACES) {
        set_or_remove(new, "status", old.get("status"));
    }
    if std::ptr::eq(res, &registry::NAMESPACES) {
        set_or_remove(new, "status", old.get("status"));
        let fin = old["spec"].get("finalizers").cloned();
        if let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) {
            match fin {
                Some(f) => spec.insert("finalizers".into(), f),
                None => spec.remove("finalizers"),
            };
        }
    }
    if uses_generation(res) {
        let gen = old["metadata"]["generation"].as_i64().unwrap_or(1);
        let changed = new.get("spec") != old.get("spec");
        new["metadata"]["generation"] = json!(if changed { gen + 1 } else { gen });
        if changed && std::ptr::eq(res, &registry::DAEMONSETS) {
            let template_changed = new["spec"]["template"] != old["spec"]["template"];
            let prev = super::meta::annotation(old, "deprecated.daemonset.template.generation")
                .and_then(|s| s.parse::<i64>().ok())
                .unwrap_or(1);
            let next = if template_changed { prev + 1 } else { prev };
            let meta = super::meta::meta_mut(new);
            let ann = meta.entry("annotations").or_insert_with(|| json!({}));
            if let Some(a) = ann.as_object_mut() {
                a.insert(
                    "deprecated.daemonset.template.generation".into(),
                    json!(next.to_string()),
                );
            }
        }
    }
}

/// A status update keeps everything but `status` from the stored object
/// (`ResetObjectMetaForStatus` plus each status strategy's PrepareForUpdate).
pub fn prepare_status_update(new: &mut Value, old: &Value) {
    let status = new.get("status").cloned();
    let rv = new["metadata"].get("resourceVersion").cloned();
    *new = old.clone();
    set_or_remove(new, "status", status.as_ref());
    if let Some(rv) = rv {
        new["metadata"]["resourceVersion"] = rv;
    }
}

fn set_or_remove(obj: &mut Value, key: &str, v: Option<&Value>) {
    if let Some(map) = obj.as_object_mut() {
        match v {
            Some(v) => {
                map.insert(key.to_string(), v.clone());
            }
            None => {
                map.remove(key);
            }
        }
    }
}

/// Fields of metadata only the server writes.
fn copy_server_meta(new: &mut Value, old: &Value) {
    let keep = [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "selfLink",
    ];
    let old_meta = old.get("metadata").cloned().unwrap_or_else(|| json!({}));
    let meta = super::meta::meta_mut(new);
    for k in keep {
        match old_meta.get(k) {
            Some(v) => {
                meta.insert(k.into(), v.clone());
            }
            None => {
                meta.remove(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::qos_class;
    use serde_json::json;

    fn pod(containers: serde_json::Value) -> serde_json::Value {
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
}
