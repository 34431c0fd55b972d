//! Snapshot and restore for a cluster the harness does not own (`--kubeconfig`): list the objects
//! of the kinds the labs touch, and later delete what appeared and recreate or replace what
//! vanished or changed. Objects owned by a controller (ownerReferences) are left to their
//! controllers: deleting their owner cascades, and a restored owner recreates them.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::Context;
use serde_json::Value;

use super::kubectl::Kubectl;

/// Cluster-scoped kinds, in the order they are recreated (namespaces before what lives in them).
const CLUSTER_RESOURCES: &[&str] = &["namespaces", "nodes"];

/// Namespaced kinds the labs create, in recreate order (owners before what they own).
const NAMESPACED_RESOURCES: &[&str] = &[
    "configmaps",
    "services",
    "poddisruptionbudgets.policy",
    "daemonsets.apps",
    "deployments.apps",
    "statefulsets.apps",
    "replicasets.apps",
    "jobs.batch",
    "pods",
];

/// Namespaces the control plane owns; their content is never touched.
const SYSTEM_NAMESPACES: &[&str] = &["kube-system", "kube-public", "kube-node-lease"];

/// (resource, namespace, name)
pub type ObjectKey = (String, String, String);

#[derive(Debug, Clone, Default)]
pub struct ObjectSet {
    pub objects: BTreeMap<ObjectKey, Value>,
}

fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn owned(object: &Value) -> bool {
    object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|owners| !owners.is_empty())
}

/// Objects created by the control plane itself in every namespace.
fn automatic(resource: &str, object: &Value) -> bool {
    let name = text(object, "/metadata/name");
    let namespace = text(object, "/metadata/namespace");
    (resource == "configmaps" && name == "kube-root-ca.crt")
        || (resource == "services" && name == "kubernetes" && namespace == "default")
        || (resource == "namespaces" && (SYSTEM_NAMESPACES.contains(&name) || name == "default"))
}

pub async fn snapshot(kubectl: &Kubectl) -> anyhow::Result<ObjectSet> {
    let mut set = ObjectSet::default();
    for resource in CLUSTER_RESOURCES.iter().chain(NAMESPACED_RESOURCES) {
        let namespaced = NAMESPACED_RESOURCES.contains(resource);
        let mut args = vec!["get", resource];
        if namespaced {
            args.push("--all-namespaces");
        }
        let list = match kubectl.json(&args).await {
            Ok(list) => list,
            // A cluster without the kind has nothing of it to restore.
            Err(error) if error.to_string().contains("doesn't have a resource type") => continue,
            Err(error) => return Err(error).with_context(|| format!("listing {resource}")),
        };
        for item in list
            .get("items")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let namespace = text(item, "/metadata/namespace").to_string();
            if SYSTEM_NAMESPACES.contains(&namespace.as_str()) || automatic(resource, item) {
                continue;
            }
            let key = (
                resource.to_string(),
                namespace,
                text(item, "/metadata/name").to_string(),
            );
            set.objects.insert(key, item.clone());
        }
    }
    Ok(set)
}

/// What is compared to decide whether an object changed: what a learner can change.
fn comparable(object: &Value) -> Value {
    serde_json::json!({
        "labels": object.pointer("/metadata/labels"),
        "annotations": object.pointer("/metadata/annotations"),
        "spec": object.get("spec"),
        "data": object.get("data"),
    })
}

/// The object as it can be sent back: server-set metadata removed.
fn sanitized(resource: &str, object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for key in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "generation",
            "managedFields",
            "selfLink",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        ] {
            metadata.remove(key);
        }
    }
    // Node status is what a kubelet posted (Ready); everything else gets fresh status.
    if resource != "nodes" {
        if let Some(fields) = object.as_object_mut() {
            fields.remove("status");
        }
    }
    object
}

fn kubectl_name(key: &ObjectKey) -> Vec<String> {
    let (resource, namespace, name) = key;
    let mut args = vec![resource.clone(), name.clone()];
    if !namespace.is_empty() {
        args.extend(["-n".to_string(), namespace.clone()]);
    }
    args
}

pub async fn restore(kubectl: &Kubectl, target: &ObjectSet) -> anyhow::Result<()> {
    let current = snapshot(kubectl).await?;
    // 1. Delete what appeared (top-level objects only; their dependents cascade).
    let deleted_namespaces: Vec<&str> = current
        .objects
        .keys()
        .filter(|key| key.0 == "namespaces" && !target.objects.contains_key(*key))
        .map(|key| key.2.as_str())
        .collect();
    let mut waiting = Vec::new();
    for (key, object) in &current.objects {
        let same = target.objects.get(key).is_some_and(|old| {
            text(old, "/metadata/uid") == text(object, "/metadata/uid") || owned(object)
        });
        if same || owned(object) || deleted_namespaces.contains(&key.1.as_str()) {
            continue;
        }
        let mut args = vec!["delete".to_string()];
        args.extend(kubectl_name(key));
        args.extend(["--ignore-not-found".to_string(), "--wait=false".to_string()]);
        if key.0 == "pods" {
            args.extend(["--grace-period=0".to_string(), "--force".to_string()]);
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        if let Err(error) = kubectl.ok(&refs, None).await {
            tracing::warn!("restore: {error:#}");
        }
        waiting.push(key.clone());
    }
    wait_gone(kubectl, &waiting).await;
    // 2. Recreate what vanished, replace what changed.
    for (key, object) in &target.objects {
        if owned(object) {
            continue;
        }
        let body = sanitized(&key.0, object);
        match current.objects.get(key) {
            Some(now)
                if text(now, "/metadata/uid") == text(object, "/metadata/uid")
                    && comparable(now) == comparable(object) => {}
            Some(now)
                if text(now, "/metadata/uid") == text(object, "/metadata/uid")
                    && key.0 != "pods" =>
            {
                let bytes = serde_json::to_vec(&body)?;
                if let Err(error) = kubectl.ok(&["replace", "-f", "-"], Some(&bytes)).await {
                    tracing::warn!("restore: {error:#}");
                }
            }
            _ => {
                if key.0 == "pods" && current.objects.contains_key(key) {
                    let mut args = vec!["delete".to_string()];
                    args.extend(kubectl_name(key));
                    args.extend([
                        "--grace-period=0".to_string(),
                        "--force".to_string(),
                        "--ignore-not-found".to_string(),
                    ]);
                    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                    let _ = kubectl.run(&refs, None).await;
                }
                create_with_retry(kubectl, &body).await;
            }
        }
    }
    Ok(())
}

/// Waits (bounded) until deleted objects are gone; a terminating namespace can take a while.
async fn wait_gone(kubectl: &Kubectl, keys: &[ObjectKey]) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    for key in keys {
        loop {
            let mut args: Vec<String> = vec!["get".to_string()];
            args.extend(kubectl_name(key));
            args.extend([
                "--ignore-not-found".to_string(),
                "-o".to_string(),
                "name".to_string(),
            ]);
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            match kubectl.run(&refs, None).await {
                Ok(output) if output.success && output.stdout.trim().is_empty() => break,
                _ if tokio::time::Instant::now() >= deadline => {
                    tracing::warn!("restore: {} {} still present", key.0, key.2);
                    break;
                }
                _ => tokio::time::sleep(Duration::from_millis(250)).await,
            }
        }
    }
}

async fn create_with_retry(kubectl: &Kubectl, body: &Value) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        match kubectl.create(body).await {
            Ok(()) => return,
            Err(error)
                if tokio::time::Instant::now() < deadline
                    && error.to_string().contains("being terminated") =>
            {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Err(error) => {
                tracing::warn!("restore: {error:#}");
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sanitized_drops_server_fields() {
        let pod = json!({"kind": "Pod", "metadata": {"name": "p", "uid": "u", "resourceVersion": "7", "managedFields": []}, "spec": {}, "status": {"phase": "Running"}});
        let clean = sanitized("pods", &pod);
        assert_eq!(
            clean,
            json!({"kind": "Pod", "metadata": {"name": "p"}, "spec": {}})
        );
        let node = json!({"kind": "Node", "metadata": {"name": "n", "uid": "u"}, "status": {"conditions": []}});
        assert!(sanitized("nodes", &node).get("status").is_some());
    }

    #[test]
    fn label_changes_are_changes() {
        let a = json!({"metadata": {"labels": {"a": "1"}, "resourceVersion": "1"}, "spec": {"x": 1}, "status": {"p": 1}});
        let b = json!({"metadata": {"labels": {"a": "1"}, "resourceVersion": "9"}, "spec": {"x": 1}, "status": {"p": 2}});
        let c = json!({"metadata": {"labels": {"a": "2"}}, "spec": {"x": 1}});
        assert_eq!(comparable(&a), comparable(&b));
        assert_ne!(comparable(&a), comparable(&c));
    }
}
