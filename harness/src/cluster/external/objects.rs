//! What a snapshot holds: the kinds the labs touch, listed through kubectl, and the set of objects
//! they hold, keyed by resource, namespace and name.

use std::collections::BTreeMap;

use anyhow::Context;
use serde_json::Value;

use crate::cluster::kubectl::Kubectl;

/// A kind the labs touch: its resource name as `kubectl` takes it, and its kind.
pub(super) struct Kind {
    pub(super) resource: &'static str,
    pub(super) kind: &'static str,
}

impl Kind {
    const fn new(resource: &'static str, kind: &'static str) -> Kind {
        Kind { resource, kind }
    }
}

/// The kinds snapshotted, in recreate order: namespaces before what lives in them, what pods
/// refer to (priority classes, config, secrets, service accounts) and what admits them (quotas,
/// limit ranges) before pods, roles before their bindings, owners before what they own, classes
/// before volumes before claims. The custom resources of the CRDs come after the built-in kinds,
/// before pods (see [`recreate_order`]).
pub(super) const KINDS: &[Kind] = &[
    Kind::new("namespaces", "Namespace"),
    Kind::new(
        "customresourcedefinitions.apiextensions.k8s.io",
        "CustomResourceDefinition",
    ),
    Kind::new("nodes", "Node"),
    Kind::new("priorityclasses.scheduling.k8s.io", "PriorityClass"),
    Kind::new("storageclasses.storage.k8s.io", "StorageClass"),
    Kind::new("persistentvolumes", "PersistentVolume"),
    Kind::new("clusterroles.rbac.authorization.k8s.io", "ClusterRole"),
    Kind::new(
        "clusterrolebindings.rbac.authorization.k8s.io",
        "ClusterRoleBinding",
    ),
    Kind::new("roles.rbac.authorization.k8s.io", "Role"),
    Kind::new("rolebindings.rbac.authorization.k8s.io", "RoleBinding"),
    Kind::new("configmaps", "ConfigMap"),
    Kind::new("secrets", "Secret"),
    Kind::new("serviceaccounts", "ServiceAccount"),
    Kind::new("resourcequotas", "ResourceQuota"),
    Kind::new("limitranges", "LimitRange"),
    Kind::new("persistentvolumeclaims", "PersistentVolumeClaim"),
    Kind::new("services", "Service"),
    Kind::new("ingressclasses.networking.k8s.io", "IngressClass"),
    Kind::new("ingresses.networking.k8s.io", "Ingress"),
    Kind::new("networkpolicies.networking.k8s.io", "NetworkPolicy"),
    Kind::new("poddisruptionbudgets.policy", "PodDisruptionBudget"),
    Kind::new("daemonsets.apps", "DaemonSet"),
    Kind::new("deployments.apps", "Deployment"),
    Kind::new("statefulsets.apps", "StatefulSet"),
    Kind::new("replicasets.apps", "ReplicaSet"),
    Kind::new("cronjobs.batch", "CronJob"),
    Kind::new("jobs.batch", "Job"),
    Kind::new(
        "horizontalpodautoscalers.autoscaling",
        "HorizontalPodAutoscaler",
    ),
    Kind::new("pods", "Pod"),
];

/// Namespaces the control plane owns; their content is never touched.
pub(super) const SYSTEM_NAMESPACES: &[&str] = &["kube-system", "kube-public", "kube-node-lease"];

/// (resource, namespace, name)
pub type ObjectKey = (String, String, String);

#[derive(Debug, Clone, Default)]
pub struct ObjectSet {
    pub objects: BTreeMap<ObjectKey, Value>,
}

/// The arguments that name `key` to kubectl: `resource name [-n namespace]`.
pub(super) fn kubectl_name(key: &ObjectKey) -> Vec<String> {
    let (resource, namespace, name) = key;
    let mut args = vec![resource.clone(), name.clone()];
    if !namespace.is_empty() {
        args.extend(["-n".to_string(), namespace.clone()]);
    }
    args
}

pub(super) fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
}

pub(super) fn owned(object: &Value) -> bool {
    object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|owners| !owners.is_empty())
}

/// Being deleted (a namespace emptying itself, an object held by a finalizer): on its way out,
/// so not the object a snapshot holds any more.
pub(super) fn terminating(object: &Value) -> bool {
    object
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|stamp| !stamp.is_null())
}

/// Objects created by the control plane itself in every namespace: the root CA ConfigMap
/// (pkg/controller/certificates/rootcacertpublisher), the `default` ServiceAccount
/// (pkg/controller/serviceaccount/serviceaccounts_controller.go), the tokens the token controller
/// fills in for a ServiceAccount (pkg/controller/serviceaccount/tokens_controller.go), the
/// `kubernetes` Service, the built-in namespaces, the default roles and bindings
/// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy, labelled `kubernetes.io/bootstrapping:
/// rbac-defaults`, and the `system:` ones controllers make) and the system priority classes
/// (`SystemPriorityClasses` in pkg/apis/scheduling).
pub(super) fn automatic(resource: &str, object: &Value) -> bool {
    let name = text(object, "/metadata/name");
    let namespace = text(object, "/metadata/namespace");
    let rbac = resource.ends_with(".rbac.authorization.k8s.io");
    (rbac
        && (name.starts_with("system:")
            || text(object, "/metadata/labels/kubernetes.io~1bootstrapping") == "rbac-defaults"))
        || (resource == "priorityclasses.scheduling.k8s.io" && name.starts_with("system-"))
        || (resource == "configmaps" && name == "kube-root-ca.crt")
        || (resource == "serviceaccounts" && name == "default")
        || (resource == "secrets"
            && text(object, "/type") == "kubernetes.io/service-account-token"
            && object
                .pointer("/metadata/annotations/kubernetes.io~1service-account.uid")
                .is_some())
        || (resource == "services" && name == "kubernetes" && namespace == "default")
        || (resource == "namespaces" && (SYSTEM_NAMESPACES.contains(&name) || name == "default"))
}

/// The kinds of [`KINDS`] the cluster serves (`kubectl api-resources`); all of them when that
/// cannot be told. A cluster with a broken aggregated API prints what it could and exits 1.
/// Asked once per cluster (see `Kubectl::resource_names`): every snapshot and restore needs it.
pub(super) async fn served(kubectl: &Kubectl) -> Vec<&'static Kind> {
    let Ok(names) = kubectl.resource_names().await else {
        return KINDS.iter().collect();
    };
    KINDS
        .iter()
        .filter(|kind| names.iter().any(|name| name == kind.resource))
        .collect()
}

/// Lists the objects of `kinds`, kind by kind; a kind the cluster turns out not to serve has
/// nothing to restore.
pub(super) async fn list(kubectl: &Kubectl, kinds: &[&Kind]) -> anyhow::Result<Vec<Value>> {
    let mut found = Vec::new();
    for kind in kinds {
        let items = kubectl
            .list_all(kind.resource)
            .await
            .with_context(|| format!("listing {}", kind.resource))?;
        found.extend(items.unwrap_or_default());
    }
    Ok(found)
}

pub(super) const CRDS: &str = "customresourcedefinitions.apiextensions.k8s.io";

pub(super) const VOLUMES: &str = "persistentvolumes";

pub(super) const CLAIMS: &str = "persistentvolumeclaims";

/// Adds `item` of `resource` to `set`, unless the control plane owns it.
pub(super) fn insert(set: &mut ObjectSet, resource: &str, item: Value) {
    let namespace = text(&item, "/metadata/namespace").to_string();
    if SYSTEM_NAMESPACES.contains(&namespace.as_str()) || automatic(resource, &item) {
        return;
    }
    let key = (
        resource.to_string(),
        namespace,
        text(&item, "/metadata/name").to_string(),
    );
    set.objects.insert(key, item);
}

/// The resources (`<plural>.<group>`, the CRD's own name) of the CRDs of `set` that serve
/// their objects: established and not on their way out.
pub(super) fn custom_resources(set: &ObjectSet) -> Vec<String> {
    set.objects
        .iter()
        .filter(|(key, crd)| key.0 == CRDS && !terminating(crd))
        .filter(|(_, crd)| {
            crd.pointer("/status/conditions")
                .and_then(Value::as_array)
                .is_some_and(|conditions| {
                    conditions
                        .iter()
                        .any(|c| c["type"] == "Established" && c["status"] == "True")
                })
        })
        .map(|(key, _)| key.2.clone())
        .collect()
}

/// The resource of a custom object: the CRD of `set` whose group and kind it has.
pub(super) fn custom_resource_of(set: &ObjectSet, item: &Value) -> Option<String> {
    let group = text(item, "/apiVersion").rsplit_once('/')?.0;
    let kind = text(item, "/kind");
    set.objects
        .iter()
        .find(|(key, crd)| {
            key.0 == CRDS
                && text(crd, "/spec/group") == group
                && text(crd, "/spec/names/kind") == kind
        })
        .map(|(key, _)| key.2.clone())
}
