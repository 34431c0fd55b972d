//! Snapshot and restore for a cluster the harness does not own (`--kubeconfig`): list the objects
//! of the kinds the labs touch, and later delete what appeared and recreate or replace what
//! vanished or changed. Objects owned by a controller (ownerReferences) are left to their
//! controllers: deleting their owner cascades, and a restored owner recreates them.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use anyhow::Context;
use serde_json::Value;

use super::kubectl::Kubectl;

/// A kind the labs touch: its resource name as `kubectl` takes it, and its kind.
struct Kind {
    resource: &'static str,
    kind: &'static str,
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
const KINDS: &[Kind] = &[
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

/// Being deleted (a namespace emptying itself, an object held by a finalizer): on its way out,
/// so not the object a snapshot holds any more.
fn terminating(object: &Value) -> bool {
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
fn automatic(resource: &str, object: &Value) -> bool {
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
async fn served(kubectl: &Kubectl) -> Vec<&'static Kind> {
    let Ok(names) = kubectl.resource_names().await else {
        return KINDS.iter().collect();
    };
    KINDS
        .iter()
        .filter(|kind| names.iter().any(|name| name == kind.resource))
        .collect()
}

/// Lists the objects of `kinds`: with one `kubectl get` when it can, kind by kind when a kind
/// turns out not to be served.
async fn list(kubectl: &Kubectl, kinds: &[&Kind]) -> anyhow::Result<Vec<Value>> {
    let all = kinds
        .iter()
        .map(|kind| kind.resource)
        .collect::<Vec<_>>()
        .join(",");
    let not_served =
        |error: &anyhow::Error| error.to_string().contains("doesn't have a resource type");
    match kubectl
        .json(&["get", all.as_str(), "--all-namespaces"])
        .await
    {
        Ok(list) => return Ok(items(list)),
        Err(error) if kinds.len() > 1 && not_served(&error) => {}
        Err(error) => return Err(error).context("listing the cluster's objects"),
    }
    let mut found = Vec::new();
    for kind in kinds {
        match kubectl
            .json(&["get", kind.resource, "--all-namespaces"])
            .await
        {
            Ok(list) => found.extend(items(list)),
            // A cluster without the kind has nothing of it to restore.
            Err(error) if not_served(&error) => {}
            Err(error) => return Err(error).with_context(|| format!("listing {}", kind.resource)),
        }
    }
    Ok(found)
}

fn items(list: Value) -> Vec<Value> {
    match list {
        Value::Object(mut fields) => match fields.remove("items") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

const CRDS: &str = "customresourcedefinitions.apiextensions.k8s.io";
const VOLUMES: &str = "persistentvolumes";
const CLAIMS: &str = "persistentvolumeclaims";

/// The claim a volume is bound or pre-bound to, as (namespace, name); empty when none.
fn claim_of(volume: &Value) -> (&str, &str) {
    (
        text(volume, "/spec/claimRef/namespace"),
        text(volume, "/spec/claimRef/name"),
    )
}

/// A volume to put back in place of `now` that stays bound to the same claim keeps that claim's
/// uid: without it the claim, bound already, would count its volume lost (`syncBoundClaim`).
fn keeping_binding(mut body: Value, now: Option<&Value>) -> Value {
    let Some(now) = now else {
        return body;
    };
    if claim_of(now) == claim_of(&body) && claim_of(&body) != ("", "") {
        if let Some(uid) = now.pointer("/spec/claimRef/uid") {
            body["spec"]["claimRef"]["uid"] = uid.clone();
        }
    }
    body
}

pub async fn snapshot(kubectl: &Kubectl) -> anyhow::Result<ObjectSet> {
    let kinds = served(kubectl).await;
    let mut set = ObjectSet::default();
    for item in list(kubectl, &kinds).await? {
        let Some(kind) = KINDS.iter().find(|kind| kind.kind == text(&item, "/kind")) else {
            continue;
        };
        insert(&mut set, kind.resource, item);
    }
    let custom = custom_resources(&set);
    if !custom.is_empty() {
        let names = custom.join(",");
        let listed = kubectl
            .json(&["get", names.as_str(), "--all-namespaces"])
            .await
            .context("listing the custom resources")?;
        for item in items(listed) {
            if let Some(resource) = custom_resource_of(&set, &item) {
                insert(&mut set, &resource, item);
            }
        }
    }
    Ok(set)
}

/// Adds `item` of `resource` to `set`, unless the control plane owns it.
fn insert(set: &mut ObjectSet, resource: &str, item: Value) {
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
fn custom_resources(set: &ObjectSet) -> Vec<String> {
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
fn custom_resource_of(set: &ObjectSet, item: &Value) -> Option<String> {
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

/// Every resource of `sets` in the order objects are made again: the built-in kinds of
/// [`KINDS`] (namespaces and CRDs first), then custom resources (their CRDs exist by then; they
/// may own pods), then pods.
fn recreate_order(sets: &[&ObjectSet]) -> Vec<String> {
    let custom: BTreeSet<&str> = sets
        .iter()
        .flat_map(|set| set.objects.keys())
        .map(|key| key.0.as_str())
        .filter(|resource| !KINDS.iter().any(|kind| kind.resource == *resource))
        .collect();
    let (pods, built_in): (Vec<&Kind>, Vec<&Kind>) =
        KINDS.iter().partition(|kind| kind.resource == "pods");
    built_in
        .iter()
        .map(|kind| kind.resource.to_string())
        .chain(custom.into_iter().map(str::to_string))
        .chain(pods.iter().map(|kind| kind.resource.to_string()))
        .collect()
}

/// The top-level fields that are not the object's content: its type, its metadata (compared by
/// labels and annotations) and the status the server and controllers write.
const NOT_CONTENT: &[&str] = &["apiVersion", "kind", "metadata", "status"];

/// What is compared to decide whether an object changed: what a learner can change — labels,
/// annotations and every top-level field of content (a spec, a ConfigMap's data, a role's rules,
/// a custom resource's own fields), and a node's capacity, which a lab may have the learner
/// patch as a device plugin would.
fn comparable(object: &Value) -> Value {
    let mut own = object.clone();
    without_allocated(&mut own);
    let object = &own;
    // Content keeps its field names (`spec`, `roleRef`); what is read from elsewhere is named
    // by its path, which no top-level field is.
    let mut fields = serde_json::json!({
        "metadata.labels": object.pointer("/metadata/labels"),
        "metadata.annotations": object.pointer("/metadata/annotations"),
        "status.capacity": object.pointer("/status/capacity"),
        "status.allocatable": object.pointer("/status/allocatable"),
    });
    for (field, value) in object.as_object().into_iter().flatten() {
        if !NOT_CONTENT.contains(&field.as_str()) {
            fields[field] = value.clone();
        }
    }
    fields
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
    without_allocated(&mut object);
    object
}

/// Drops what the server allocated for this very object, which a copy made again gets anew: a
/// Job's generated selector (it names the Job's uid; a Job sent with it is refused, `selector`
/// not auto-generated), a Service's cluster IPs (an update without them keeps the old ones), and
/// the uid of the claim a volume is bound to: a claim made again has a new uid, and a volume
/// still naming the old one is released, never bound to it. Without it the volume is pre-bound
/// to the claim of that name, which the volume controller binds (`syncVolume`,
/// `syncBoundClaim`), as the claim names its volume.
fn without_allocated(object: &mut Value) {
    if object["kind"] == "PersistentVolume" {
        if let Some(claim) = object
            .pointer_mut("/spec/claimRef")
            .and_then(Value::as_object_mut)
        {
            claim.remove("uid");
            claim.remove("resourceVersion");
        }
    }
    // The binder's marks: a claim made again with `bind-completed` would be judged as bound
    // already, and lost, before the volume is bound to it. The binder sets them again.
    if matches!(
        object["kind"].as_str(),
        Some("PersistentVolume" | "PersistentVolumeClaim")
    ) {
        if let Some(annotations) = object
            .pointer_mut("/metadata/annotations")
            .and_then(Value::as_object_mut)
        {
            annotations.remove("pv.kubernetes.io/bind-completed");
            annotations.remove("pv.kubernetes.io/bound-by-controller");
        }
    }
    let manual = object.pointer("/spec/manualSelector") == Some(&Value::Bool(true));
    if object["kind"] == "Job" && !manual {
        if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
            spec.remove("selector");
        }
        if let Some(labels) = object
            .pointer_mut("/spec/template/metadata/labels")
            .and_then(Value::as_object_mut)
        {
            labels.remove("controller-uid");
            labels.remove("batch.kubernetes.io/controller-uid");
        }
    }
    if object["kind"] == "Service" {
        if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
            spec.remove("clusterIP");
            spec.remove("clusterIPs");
        }
    }
}

fn kubectl_name(key: &ObjectKey) -> Vec<String> {
    let (resource, namespace, name) = key;
    let mut args = vec![resource.clone(), name.clone()];
    if !namespace.is_empty() {
        args.extend(["-n".to_string(), namespace.clone()]);
    }
    args
}

async fn delete(kubectl: &Kubectl, key: &ObjectKey) {
    delete_with(kubectl, key, &[]).await;
}

async fn delete_with(kubectl: &Kubectl, key: &ObjectKey, extra: &[&str]) {
    let mut args = vec!["delete".to_string()];
    args.extend(kubectl_name(key));
    args.extend(["--ignore-not-found".to_string(), "--wait=false".to_string()]);
    args.extend(extra.iter().map(|arg| arg.to_string()));
    if key.0 == "pods" {
        args.extend(["--grace-period=0".to_string(), "--force".to_string()]);
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    if let Err(error) = kubectl.ok(&refs, None).await {
        tracing::warn!("restore: {error:#}");
    }
}

/// Pods bound to a node that is going away: nothing would ever run or remove them (their
/// controllers recreate them on the nodes that stay).
pub(crate) async fn delete_pods_on(kubectl: &Kubectl, node: &str) {
    let selector = format!("spec.nodeName={node}");
    if let Err(error) = kubectl
        .ok(
            &[
                "delete",
                "pods",
                "--all-namespaces",
                "--field-selector",
                &selector,
                "--grace-period=0",
                "--force",
                "--ignore-not-found",
                "--wait=false",
            ],
            None,
        )
        .await
    {
        tracing::warn!("restore: {error:#}");
    }
}

/// What a restore does, worked out from the target and the current state.
#[derive(Debug, Default, PartialEq)]
struct Plan {
    /// Objects to delete, and whether pods bound to them go too (nodes that are not coming back).
    delete: Vec<(ObjectKey, bool)>,
    /// Objects to wait for until they are gone: the deleted ones, the ones already on their way
    /// out, and the contents of namespaces that go.
    wait: Vec<ObjectKey>,
    /// Objects to put back, in recreate order: (key, how).
    put_back: Vec<(ObjectKey, PutBack)>,
    /// Nodes the target has cordoned or tainted against new pods while pods the controllers
    /// are yet to make again ran on them: they are put back without those restrictions until the
    /// pods are placed, then with them (a cordon after a pod was placed cannot be replayed in
    /// the other order).
    relax: Vec<ObjectKey>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum PutBack {
    /// It is gone (or going): create it.
    Create,
    /// It is there with other labels, annotations, spec or data: replace it.
    Replace,
    /// A pod or Job whose spec changed (immutable): delete it and create it again.
    Recreate,
    /// A volume whose claim is made again (or is another claim of the same name now): replaced
    /// pre-bound to the claim's name, without the uid of the claim it was bound to.
    Rebind,
}

fn plan(target: &ObjectSet, current: &ObjectSet) -> Plan {
    // The object the target holds, still there and staying. Objects are matched by name, not
    // uid: a restore can only make an object again under a new uid, and matching uids would have
    // every later restore delete and remake it (a whole namespace, each time).
    let stays =
        |key: &ObjectKey, now: &Value| !terminating(now) && target.objects.contains_key(key);
    // Namespaces that go (new ones, terminating ones): everything in them goes with them.
    let leaving_namespaces: BTreeSet<&str> = current
        .objects
        .iter()
        .filter(|(key, now)| key.0 == "namespaces" && !stays(key, now))
        .map(|(key, _)| key.2.as_str())
        .collect();
    // CRDs that go: their custom resources go with them (a CRD's name is its resource's).
    let leaving_crds: BTreeSet<&str> = current
        .objects
        .iter()
        .filter(|(key, now)| key.0 == CRDS && !stays(key, now))
        .map(|(key, _)| key.2.as_str())
        .collect();
    let swept_away = |key: &ObjectKey| {
        leaving_namespaces.contains(key.1.as_str()) || leaving_crds.contains(key.0.as_str())
    };

    let mut plan = Plan::default();
    // 1. What appeared goes (top-level objects only; their dependents cascade).
    for (key, now) in &current.objects {
        // What lives in a namespace that goes is gone once the namespace is.
        if stays(key, now) || owned(now) || swept_away(key) {
            continue;
        }
        if !terminating(now) {
            let with_pods = key.0 == "nodes" && !target.objects.contains_key(key);
            plan.delete.push((key.clone(), with_pods));
        }
        plan.wait.push(key.clone());
    }
    // 2. What vanished comes back, what changed is replaced: namespaces first, owners before
    //    what they own (the key order of the set would put configmaps before namespaces).
    let put_back = |key: &ObjectKey, old: &Value| {
        let now = current
            .objects
            .get(key)
            .filter(|now| stays(key, now) && !swept_away(key));
        match now.map(|now| (comparable(now), comparable(old))) {
            Some((now, old)) if now == old => None,
            Some((now, old)) if must_recreate(&key.0, &now, &old) => Some(PutBack::Recreate),
            Some(_) => Some(PutBack::Replace),
            None => Some(PutBack::Create),
        }
    };
    // A volume bound to a claim made again, or to another claim of the same name than the one
    // there now (a learner deleted and applied it again), is put back pre-bound to the claim's
    // name: the uid it holds is an old claim's, which the claim there never matches.
    let remade_claims: BTreeSet<(&str, &str)> = target
        .objects
        .iter()
        .filter(|(key, old)| key.0 == CLAIMS && !owned(old))
        .filter(|(key, old)| put_back(key, old).is_some_and(|how| how != PutBack::Replace))
        .map(|(key, _)| (key.1.as_str(), key.2.as_str()))
        .collect();
    let bound_elsewhere = |key: &ObjectKey, old: &Value| {
        let (namespace, name) = claim_of(old);
        let claim = (CLAIMS.to_string(), namespace.to_string(), name.to_string());
        let volume_uid = current
            .objects
            .get(key)
            .map_or("", |now| text(now, "/spec/claimRef/uid"));
        let claim_uid = current
            .objects
            .get(&claim)
            .map_or("", |now| text(now, "/metadata/uid"));
        !volume_uid.is_empty() && !claim_uid.is_empty() && volume_uid != claim_uid
    };
    for resource in recreate_order(&[target]) {
        for (key, old) in target.objects.iter().filter(|(key, _)| key.0 == resource) {
            if owned(old) {
                continue;
            }
            let rebind = key.0 == VOLUMES
                && (remade_claims.contains(&claim_of(old)) || bound_elsewhere(key, old));
            let how = match put_back(key, old) {
                Some(PutBack::Create) => PutBack::Create,
                Some(_) | None if rebind => PutBack::Rebind,
                Some(how) => how,
                None => continue,
            };
            // A claim made again goes with what appeared, before its volume is put back: the
            // volume controller would otherwise bind the volume to it once more.
            if key.0 == CLAIMS && how == PutBack::Recreate {
                plan.delete.push((key.clone(), false));
                plan.wait.push(key.clone());
                plan.put_back.push((key.clone(), PutBack::Create));
                continue;
            }
            plan.put_back.push((key.clone(), how));
        }
    }
    // 3. Restricted nodes whose pods are not where the target had them.
    let pinned = restricted_nodes(target);
    let (want, have) = (
        placement(pods_of(target), &pinned),
        placement(pods_of(current), &pinned),
    );
    let on_node = |placed: &Placement, node: &str| -> Placement {
        placed
            .iter()
            .filter(|(key, _)| key.2 == node)
            .map(|(key, count)| (key.clone(), *count))
            .collect()
    };
    plan.relax = pinned
        .iter()
        .filter(|node| on_node(&want, node) != on_node(&have, node))
        .map(|node| (String::from("nodes"), String::new(), node.clone()))
        .collect();
    plan
}

/// Workloads whose pods follow their template: a Deployment, DaemonSet or StatefulSet rolls
/// them, a ReplicaSet keeps the old ones.
const WORKLOADS: &[&str] = &[
    "daemonsets.apps",
    "deployments.apps",
    "statefulsets.apps",
    "replicasets.apps",
];

/// Whether an object whose [`comparable`] form is `now` can only become `old` by being deleted
/// and made again. A pod's spec, a Job's template, a claim's spec (its requests may only grow,
/// which a restore would undo) and a binding's roleRef cannot be updated. A workload whose spec changed beyond its
/// replica count would roll its pods: a rolling update
/// surges a new pod before an old one goes (`rolloutRolling` in
/// pkg/controller/deployment/rolling.go), so pods that fill a scarce resource (one GPU per node)
/// never make room for it and the rollout never ends; a ReplicaSet would keep its pods from the
/// old template; and most of a StatefulSet's spec is immutable.
fn must_recreate(resource: &str, now: &Value, old: &Value) -> bool {
    if resource == "pods" || resource == "jobs.batch" {
        return true;
    }
    if resource == CLAIMS {
        return now["spec"] != old["spec"];
    }
    if resource.ends_with("rolebindings.rbac.authorization.k8s.io") {
        return now["roleRef"] != old["roleRef"];
    }
    let spec_but_replicas = |comparable: &Value| {
        let mut spec = comparable["spec"].clone();
        if let Some(fields) = spec.as_object_mut() {
            fields.remove("replicas");
        }
        spec
    };
    WORKLOADS.contains(&resource) && spec_but_replicas(now) != spec_but_replicas(old)
}

/// Taint effects that keep the scheduler from placing a pod that does not tolerate them.
const REPELLING_EFFECTS: &[&str] = &["NoSchedule", "NoExecute"];

/// A node that new pods cannot land on: cordoned, or tainted NoSchedule or NoExecute.
fn restricted(node: &Value) -> bool {
    node.pointer("/spec/unschedulable") == Some(&Value::Bool(true))
        || node
            .pointer("/spec/taints")
            .and_then(Value::as_array)
            .is_some_and(|taints| {
                taints
                    .iter()
                    .any(|taint| REPELLING_EFFECTS.contains(&text(taint, "/effect")))
            })
}

/// The node without what keeps new pods off it (the cordon and the repelling taints).
fn relaxed(node: &Value) -> Value {
    let mut node = node.clone();
    if let Some(spec) = node.get_mut("spec").and_then(Value::as_object_mut) {
        spec.remove("unschedulable");
        if let Some(Value::Array(taints)) = spec.get_mut("taints") {
            taints.retain(|taint| !REPELLING_EFFECTS.contains(&text(taint, "/effect")));
        }
    }
    node
}

/// The API path of `key`'s collection, or with `name` of the object itself, in the version the
/// snapshot read it in (`deployments.apps` in `apps/v1`: `/apis/apps/v1/namespaces/<ns>/deployments`).
fn api_path(key: &ObjectKey, object: &Value, name: bool) -> String {
    let (resource, namespace, object_name) = key;
    let version = text(object, "/apiVersion");
    let root = if version.contains('/') { "apis" } else { "api" };
    let plural = resource.split('.').next().unwrap_or(resource);
    let mut path = format!("/{root}/{version}");
    if !namespace.is_empty() {
        path.push_str(&format!("/namespaces/{namespace}"));
    }
    path.push_str(&format!("/{plural}"));
    if name {
        path.push_str(&format!("/{object_name}"));
    }
    path
}

/// Sends `body` to `path` as it is (`kubectl create|replace --raw`). kubectl's own create and
/// replace rewrite an object's `last-applied-configuration` to the body they send
/// (`UpdateApplyAnnotation`): an object made again would carry another one than the snapshot's,
/// a change for every later restore, and another three-way merge for the learner's next
/// `kubectl apply` than on the embedded cluster.
/// Returns the object the server answered with (its resourceVersion is the next update's).
async fn send(kubectl: &Kubectl, verb: &str, path: &str, body: &Value) -> anyhow::Result<Value> {
    let bytes = serde_json::to_vec(body)?;
    let answer = kubectl
        .ok(&[verb, "--raw", path, "-f", "-"], Some(&bytes))
        .await?;
    Ok(serde_json::from_str(&answer).unwrap_or(Value::Null))
}

/// Replaces the object with `body`, naming the version it replaces as `kubectl replace` does
/// (`Helper.Replace` with overwrite reads it first): custom resources refuse an update without.
async fn replace(kubectl: &Kubectl, key: &ObjectKey, body: &Value) {
    let path = api_path(key, body, true);
    let mut body = body.clone();
    let mut get = vec!["get".to_string()];
    get.extend(kubectl_name(key));
    get.extend([
        "-o".to_string(),
        "jsonpath={.metadata.resourceVersion}".to_string(),
    ]);
    let get: Vec<&str> = get.iter().map(String::as_str).collect();
    // A controller may write the object between the read and the update: read it again.
    let mut attempts = 0;
    let written = loop {
        attempts += 1;
        let written = match kubectl.ok(&get, None).await {
            Ok(version) => {
                body["metadata"]["resourceVersion"] = Value::String(version);
                send(kubectl, "replace", &path, &body).await
            }
            Err(error) => Err(error),
        };
        match written {
            Ok(written) => break written,
            Err(error) if attempts < 5 && format!("{error:#}").contains("(Conflict)") => {}
            Err(error) => {
                tracing::warn!("restore: {error:#}");
                return;
            }
        }
    };
    // A node's capacity lives in its status, which the main resource's PUT leaves alone.
    if body["kind"] == "Node" && body.get("status").is_some() {
        body["metadata"]["resourceVersion"] = written["metadata"]["resourceVersion"].clone();
        if let Err(error) = send(kubectl, "replace", &format!("{path}/status"), &body).await {
            tracing::warn!("restore: {error:#}");
        }
    }
}

/// Brings the cluster back to `target`: deletes what appeared (and waits for what is on its
/// way out), recreates what is missing and replaces what changed, then waits for the pods to be
/// placed (see [`wait_placed`]). Says whether there was anything to do.
pub async fn restore(kubectl: &Kubectl, target: &ObjectSet) -> anyhow::Result<bool> {
    let current = snapshot(kubectl).await?;
    let plan = plan(target, &current);
    if plan == Plan::default() {
        return Ok(false);
    }
    for (key, with_pods) in &plan.delete {
        delete(kubectl, key).await;
        if *with_pods {
            delete_pods_on(kubectl, &key.2).await;
        }
    }
    wait_gone(kubectl, &plan.wait).await;
    let put_back = |key: &ObjectKey| plan.put_back.iter().any(|(k, _)| k == key);
    for key in plan.relax.iter().filter(|key| !put_back(key)) {
        if let Some(node) = target.objects.get(key) {
            replace(kubectl, key, &relaxed(&sanitized(&key.0, node))).await;
        }
    }
    for (key, how) in &plan.put_back {
        let Some(object) = target.objects.get(key) else {
            continue;
        };
        let mut body = sanitized(&key.0, object);
        if plan.relax.contains(key) {
            body = relaxed(&body);
        }
        match how {
            PutBack::Create if key.0 == CRDS => {
                create_with_retry(kubectl, key, &body).await;
                // Its custom resources, made next, need it to serve them.
                let crd = format!("crd/{}", key.2);
                let established = ["wait", "--for=condition=established", &crd, "--timeout=60s"];
                if let Err(error) = kubectl.ok(&established, None).await {
                    tracing::warn!("restore: {error:#}");
                }
            }
            PutBack::Create => create_with_retry(kubectl, key, &body).await,
            PutBack::Replace if key.0 == VOLUMES => {
                let body = keeping_binding(body, current.objects.get(key));
                replace(kubectl, key, &body).await;
            }
            PutBack::Replace | PutBack::Rebind => replace(kubectl, key, &body).await,
            PutBack::Recreate => {
                // In the foreground, the object is gone only once its pods are: the copy made
                // again does not find them holding the resources it needs.
                delete_with(kubectl, key, &["--cascade=foreground"]).await;
                wait_gone(kubectl, std::slice::from_ref(key)).await;
                create_with_retry(kubectl, key, &body).await;
            }
        }
    }
    if plan.relax.is_empty() {
        wait_placed(kubectl, target, Fit::Exact).await;
        return Ok(true);
    }
    // A relaxed node takes back the pods the snapshot has on it, and may take more: pods the
    // snapshot has Pending (kept off by the cordon or taint) land there too while it is open.
    wait_placed(kubectl, target, Fit::PinnedTakenBack).await;
    for key in &plan.relax {
        if let Some(node) = target.objects.get(key) {
            replace(kubectl, key, &sanitized(&key.0, node)).await;
        }
    }
    // Closed again, it loses the pods it took beyond the snapshot's; their controllers make them
    // again, and the node keeps those off as it did (they wait Pending, as in the snapshot).
    let relaxed: BTreeSet<&str> = plan.relax.iter().map(|key| key.2.as_str()).collect();
    let now = kubectl.json(&["get", "pods", "--all-namespaces"]).await?;
    let extra = surplus(target, &items(now), &relaxed);
    for key in &extra {
        delete(kubectl, key).await;
    }
    if !extra.is_empty() {
        tracing::info!(
            pods = extra.len(),
            "restore: pods a relaxed node took beyond the snapshot's removed"
        );
    }
    wait_placed(kubectl, target, Fit::Exact).await;
    Ok(true)
}

/// The pods of `pods` on the `relaxed` nodes beyond what `target` has there, owner by owner
/// and phase by phase: the newest of each group.
fn surplus(target: &ObjectSet, pods: &[Value], relaxed: &BTreeSet<&str>) -> Vec<ObjectKey> {
    let pinned = restricted_nodes(target);
    let want = placement(pods_of(target), &pinned);
    let mut groups: BTreeMap<PlacementKey, Vec<&Value>> = BTreeMap::new();
    for pod in pods {
        if !relaxed.contains(text(pod, "/spec/nodeName")) {
            continue;
        }
        if let Some(key) = placed_as(pod, &pinned) {
            groups.entry(key).or_default().push(pod);
        }
    }
    let mut extra = Vec::new();
    for (key, mut pods) in groups {
        let wanted = want.get(&key).copied().unwrap_or(0);
        if pods.len() <= wanted {
            continue;
        }
        // RFC 3339 times in UTC compare as text; the name breaks a tie.
        pods.sort_by_key(|pod| {
            (
                text(pod, "/metadata/creationTimestamp"),
                text(pod, "/metadata/name"),
            )
        });
        for pod in &pods[wanted..] {
            extra.push((
                "pods".to_string(),
                text(pod, "/metadata/namespace").to_string(),
                text(pod, "/metadata/name").to_string(),
            ));
        }
    }
    extra
}

/// When [`wait_placed`] is satisfied.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fit {
    /// The pods are placed as in the snapshot.
    Exact,
    /// The nodes that take no new pods have at least the snapshot's pods of each owner (while
    /// they are relaxed: others may land there too, see [`surplus`]).
    PinnedTakenBack,
}

impl Fit {
    fn holds(self, want: &Placement, now: &Placement) -> bool {
        match self {
            Fit::Exact => now == want,
            Fit::PinnedTakenBack => want
                .iter()
                .filter(|(key, _)| !key.2.is_empty() && key.2 != BOUND_ELSEWHERE)
                .all(|(key, count)| now.get(key).copied().unwrap_or(0) >= *count),
        }
    }
}

/// Where pods are: how many pods of each owner (a bare pod stands for itself) are in each phase,
/// by namespace, and whether they are bound to a node — to which one only for the nodes that
/// `pinned` names (nodes that take no new pods, where the scheduler could not put a pod back:
/// elsewhere it may choose another node as well as the first time). Pods on their way out are
/// not counted.
type Placement = BTreeMap<PlacementKey, usize>;

/// (namespace, owner, node, phase) of [`Placement`].
type PlacementKey = (String, String, String, String);

/// The node part of a pod's [`Placement`] key.
const BOUND_ELSEWHERE: &str = "*";

fn placement<'a>(pods: impl Iterator<Item = &'a Value>, pinned: &BTreeSet<String>) -> Placement {
    let mut placed = Placement::new();
    for key in pods.filter_map(|pod| placed_as(pod, pinned)) {
        *placed.entry(key).or_default() += 1;
    }
    placed
}

/// The [`Placement`] key `pod` counts under; `None` for a pod on its way out or in a system
/// namespace, which are not counted.
fn placed_as(pod: &Value, pinned: &BTreeSet<String>) -> Option<PlacementKey> {
    let namespace = text(pod, "/metadata/namespace");
    if terminating(pod) || SYSTEM_NAMESPACES.contains(&namespace) {
        return None;
    }
    let owner = pod
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .and_then(|owners| owners.iter().find(|o| o["controller"] == true))
        .map(|o| format!("{}/{}", text(o, "/kind"), text(o, "/name")))
        .unwrap_or_else(|| format!("Pod/{}", text(pod, "/metadata/name")));
    let node = match text(pod, "/spec/nodeName") {
        "" => "",
        node if pinned.contains(node) => node,
        _ => BOUND_ELSEWHERE,
    };
    Some((
        namespace.to_string(),
        owner,
        node.to_string(),
        text(pod, "/status/phase").to_string(),
    ))
}

/// The nodes of `set` that take no new pods (see [`restricted`]).
fn restricted_nodes(set: &ObjectSet) -> BTreeSet<String> {
    set.objects
        .iter()
        .filter(|(key, node)| key.0 == "nodes" && restricted(node))
        .map(|(key, _)| key.2.clone())
        .collect()
}

fn pods_of(set: &ObjectSet) -> impl Iterator<Item = &Value> {
    set.objects
        .iter()
        .filter(|(key, _)| key.0 == "pods")
        .map(|(_, pod)| pod)
}

/// After a restore, waits until the pods are placed as in `target`: the controllers make pods
/// again under new names, and the scheduler may retry a pod that was unschedulable only after its
/// backoff (up to 10 s), long after the cluster looked quiet. Off the nodes that take no new pods,
/// any node will do (see [`Placement`]).
///
/// The wait gives up once the placement has not changed for [`PLACEMENT_STILL`] — a loaded
/// machine makes the cluster slower, not still, so it changes when the wait ends, never how it
/// ends — and at the latest after [`PLACEMENT_CEILING`].
async fn wait_placed(kubectl: &Kubectl, target: &ObjectSet, fit: Fit) {
    let pinned = restricted_nodes(target);
    let want = placement(pods_of(target), &pinned);
    let mut ceiling = Waiting::new(PLACEMENT_CEILING);
    let mut waiting = Waiting::new(PLACEMENT_STILL);
    let mut last: Option<Placement> = None;
    loop {
        let now = match kubectl.json(&["get", "pods", "--all-namespaces"]).await {
            Ok(list) => placement(items(list).iter(), &pinned),
            Err(error) => {
                tracing::warn!("restore: listing pods: {error:#}");
                return;
            }
        };
        if fit.holds(&want, &now) {
            return;
        }
        if last.as_ref().is_some_and(|last| *last != now) {
            waiting.restart();
        }
        if waiting.over() || ceiling.over() {
            let keys: BTreeSet<_> = want.keys().chain(now.keys()).collect();
            let differing: Vec<String> = keys
                .into_iter()
                .filter(|key| want.get(*key) != now.get(*key))
                .map(|key| {
                    let (namespace, owner, node, phase) = key;
                    let node = if node.is_empty() { "no node" } else { node };
                    let count = |placed: &Placement| placed.get(key).copied().unwrap_or(0);
                    format!(
                        "{namespace} {owner} on {node} {phase}: {} now, {} in the snapshot",
                        count(&now),
                        count(&want)
                    )
                })
                .collect();
            tracing::warn!(
                "restore: pods are not placed as in the snapshot after {} s ({})",
                ceiling.started.elapsed().as_secs(),
                differing.join("; ")
            );
            return;
        }
        ceiling.tell_once_slow(Duration::from_secs(3), || {
            "pods to be placed as in the snapshot".to_string()
        });
        last = Some(now);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// How long the pods' placement may stay the same, not yet as in the snapshot, before a restore
/// stops waiting for it: three times the scheduler's longest backoff.
const PLACEMENT_STILL: Duration = Duration::from_secs(30);
/// The longest a restore waits for the pods' placement, however it moves.
const PLACEMENT_CEILING: Duration = Duration::from_secs(300);

/// How long a deleted object may take to go. A namespace waits for the namespace controller to
/// empty it, which polls again only after half the longest grace period of the pods still in it
/// (`namespace_controller.go`, `ResourcesRemainingError.Estimate`), so it gets far longer.
fn removal_budget(key: &ObjectKey) -> Duration {
    if key.0 == "namespaces" {
        Duration::from_secs(300)
    } else {
        Duration::from_secs(60)
    }
}

/// A bounded wait of the restore, which says once (at info) what it is waiting for when that
/// takes a while.
struct Waiting {
    started: tokio::time::Instant,
    budget: Duration,
    said: bool,
}

impl Waiting {
    fn new(budget: Duration) -> Waiting {
        Waiting {
            started: tokio::time::Instant::now(),
            budget,
            said: false,
        }
    }

    /// Counts the budget again from now (the thing waited for moved).
    fn restart(&mut self) {
        self.started = tokio::time::Instant::now();
    }

    fn over(&self) -> bool {
        self.started.elapsed() >= self.budget
    }

    fn tell_once_slow(&mut self, after: Duration, what: impl FnOnce() -> String) {
        if !self.said && self.started.elapsed() >= after {
            tracing::info!("restore: waiting for {}", what());
            self.said = true;
        }
    }
}

/// Waits (bounded, per object) until deleted objects are gone.
async fn wait_gone(kubectl: &Kubectl, keys: &[ObjectKey]) {
    for key in keys {
        let mut waiting = Waiting::new(removal_budget(key));
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
                _ if waiting.over() => {
                    tracing::warn!(
                        "restore: {} {} still present after {} s",
                        key.0,
                        key.2,
                        waiting.budget.as_secs()
                    );
                    break;
                }
                _ => {
                    waiting.tell_once_slow(Duration::from_secs(5), || {
                        format!("{} {} to be gone", key.0, key.2)
                    });
                    tokio::time::sleep(Duration::from_millis(250)).await
                }
            }
        }
    }
}

/// A create the cluster refuses only for now: the object's namespace is still being emptied
/// ("unable to create new content in namespace … because it is being terminated") or the object
/// itself is still on its way out ("object is being deleted: … already exists").
fn refused_for_now(error: &anyhow::Error) -> bool {
    let text = format!("{error:#}");
    text.contains("being terminated") || text.contains("object is being deleted")
}

async fn create_with_retry(kubectl: &Kubectl, key: &ObjectKey, body: &Value) {
    let waiting = Waiting::new(removal_budget(key));
    let path = api_path(key, body, false);
    loop {
        match send(kubectl, "create", &path, body).await {
            Ok(_) => return,
            Err(error) if !waiting.over() && refused_for_now(&error) => {
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
    fn a_job_is_put_back_without_its_generated_selector() {
        let job = json!({"kind": "Job", "metadata": {"name": "j", "uid": "u1"},
            "spec": {"selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u1"}},
                "template": {"metadata": {"labels": {"app": "a", "controller-uid": "u1",
                    "batch.kubernetes.io/controller-uid": "u1", "job-name": "j"}}}}});
        let clean = sanitized("jobs.batch", &job);
        let mut again = job.clone();
        again["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"] =
            json!("u2");
        assert_eq!(comparable(&job), comparable(&again));
        assert!(clean["spec"].get("selector").is_none());
        assert_eq!(
            clean["spec"]["template"]["metadata"]["labels"],
            json!({"app": "a", "job-name": "j"})
        );
        let mut manual = job.clone();
        manual["spec"]["manualSelector"] = json!(true);
        assert!(sanitized("jobs.batch", &manual)["spec"]
            .get("selector")
            .is_some());
    }

    #[test]
    fn a_patched_node_capacity_is_a_change() {
        let before =
            json!({"metadata": {"name": "n"}, "status": {"capacity": {"nvidia.com/gpu": "1"}}});
        let after =
            json!({"metadata": {"name": "n"}, "status": {"capacity": {"nvidia.com/gpu": "4"}}});
        assert_ne!(comparable(&before), comparable(&after));
    }

    #[test]
    fn label_changes_are_changes() {
        let a = json!({"metadata": {"labels": {"a": "1"}, "resourceVersion": "1"}, "spec": {"x": 1}, "status": {"p": 1}});
        let b = json!({"metadata": {"labels": {"a": "1"}, "resourceVersion": "9"}, "spec": {"x": 1}, "status": {"p": 2}});
        let c = json!({"metadata": {"labels": {"a": "2"}}, "spec": {"x": 1}});
        assert_eq!(comparable(&a), comparable(&b));
        assert_ne!(comparable(&a), comparable(&c));
    }

    fn object(kind: &str, namespace: &str, name: &str, uid: &str) -> Value {
        let mut metadata = json!({"name": name, "uid": uid});
        if !namespace.is_empty() {
            metadata["namespace"] = json!(namespace);
        }
        json!({"kind": kind, "metadata": metadata, "spec": {}})
    }

    fn set(objects: &[(&str, Value)]) -> ObjectSet {
        let mut set = ObjectSet::default();
        for (resource, object) in objects {
            let key = (
                resource.to_string(),
                text(object, "/metadata/namespace").to_string(),
                text(object, "/metadata/name").to_string(),
            );
            set.objects.insert(key, object.clone());
        }
        set
    }

    fn key(resource: &str, namespace: &str, name: &str) -> ObjectKey {
        (resource.into(), namespace.into(), name.into())
    }

    fn crd(plural: &str, group: &str, kind: &str) -> Value {
        let mut crd = object(
            "CustomResourceDefinition",
            "",
            &format!("{plural}.{group}"),
            "d1",
        );
        crd["spec"] = json!({"group": group, "names": {"plural": plural, "kind": kind}});
        crd["status"] = json!({"conditions": [{"type": "Established", "status": "True"}]});
        crd
    }

    fn custom(group: &str, kind: &str, namespace: &str, name: &str, spec: Value) -> Value {
        let mut object = object(kind, namespace, name, name);
        object["apiVersion"] = json!(format!("{group}/v1"));
        object["spec"] = spec;
        object
    }

    /// A lab whose starter ships a CRD: its custom resources are state like any object, made
    /// again after their CRD and before pods; a CRD that appeared takes its objects with it.
    #[test]
    fn custom_resources_come_back_after_their_crd() {
        let monitors = "servicemonitors.monitoring.coreos.com";
        let monitor = |name: &str, port: &str| {
            custom(
                "monitoring.coreos.com",
                "ServiceMonitor",
                "lab",
                name,
                json!({"port": port}),
            )
        };
        let target = set(&[
            ("namespaces", object("Namespace", "", "lab", "n1")),
            (
                CRDS,
                crd("servicemonitors", "monitoring.coreos.com", "ServiceMonitor"),
            ),
            (monitors, monitor("dcgm", "metrics")),
            (monitors, monitor("gone", "metrics")),
            ("pods", object("Pod", "lab", "p", "p1")),
        ]);
        assert_eq!(custom_resources(&target), vec![monitors.to_string()]);
        assert_eq!(
            custom_resource_of(&target, &monitor("x", "y")).as_deref(),
            Some(monitors)
        );
        let order = recreate_order(&[&target]);
        let at = |resource: &str| order.iter().position(|r| r == resource);
        assert!(at("namespaces") < at(CRDS) && at(CRDS) < at(monitors));
        assert!(at("horizontalpodautoscalers.autoscaling") < at(monitors));
        assert!(at(monitors) < at("pods"));

        // Without its CRD: all of it comes back, the CRD first.
        let bare = set(&[
            ("namespaces", object("Namespace", "", "lab", "n1")),
            ("pods", object("Pod", "lab", "p", "p1")),
        ]);
        assert_eq!(
            plan(&target, &bare).put_back,
            vec![
                (key(CRDS, "", monitors), PutBack::Create),
                (key(monitors, "lab", "dcgm"), PutBack::Create),
                (key(monitors, "lab", "gone"), PutBack::Create),
            ]
        );

        // One changed, one deleted, one added, and another CRD with an object of its own.
        let alerts = "alerts.example.com";
        let changed = set(&[
            ("namespaces", object("Namespace", "", "lab", "n1")),
            (
                CRDS,
                crd("servicemonitors", "monitoring.coreos.com", "ServiceMonitor"),
            ),
            (CRDS, crd("alerts", "example.com", "Alert")),
            (monitors, monitor("dcgm", "web")),
            (monitors, monitor("new", "metrics")),
            (
                alerts,
                custom("example.com", "Alert", "lab", "a", json!({})),
            ),
            ("pods", object("Pod", "lab", "p", "p1")),
        ]);
        let plan = plan(&target, &changed);
        assert_eq!(
            plan.delete,
            vec![
                (key(CRDS, "", alerts), false),
                (key(monitors, "lab", "new"), false)
            ],
            "the alert goes with its CRD"
        );
        assert_eq!(
            plan.wait,
            vec![key(CRDS, "", alerts), key(monitors, "lab", "new")]
        );
        assert_eq!(
            plan.put_back,
            vec![
                (key(monitors, "lab", "dcgm"), PutBack::Replace),
                (key(monitors, "lab", "gone"), PutBack::Create),
            ]
        );
    }

    #[test]
    fn a_vanished_namespace_comes_back_before_what_lives_in_it() {
        let target = set(&[
            ("configmaps", object("ConfigMap", "legacy", "old", "c1")),
            ("namespaces", object("Namespace", "", "legacy", "n1")),
            ("secrets", object("Secret", "legacy", "token", "s1")),
        ]);
        let plan = plan(&target, &ObjectSet::default());
        assert_eq!(
            plan.put_back,
            vec![
                (key("namespaces", "", "legacy"), PutBack::Create),
                (key("configmaps", "legacy", "old"), PutBack::Create),
                (key("secrets", "legacy", "token"), PutBack::Create),
            ]
        );
        assert!(plan.delete.is_empty() && plan.wait.is_empty());
    }

    #[test]
    fn a_terminating_namespace_is_waited_for_and_made_again() {
        let target = set(&[
            ("namespaces", object("Namespace", "", "legacy", "n1")),
            ("configmaps", object("ConfigMap", "legacy", "old", "c1")),
        ]);
        let mut going = object("Namespace", "", "legacy", "n1");
        going["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
        let current = set(&[
            ("namespaces", going),
            ("configmaps", object("ConfigMap", "legacy", "old", "c1")),
        ]);
        let plan = plan(&target, &current);
        assert!(plan.delete.is_empty(), "{plan:?}");
        // The namespace is gone only once its content is.
        assert_eq!(plan.wait, vec![key("namespaces", "", "legacy")]);
        assert_eq!(
            plan.put_back,
            vec![
                (key("namespaces", "", "legacy"), PutBack::Create),
                (key("configmaps", "legacy", "old"), PutBack::Create),
            ]
        );
    }

    /// After a restore made them again, the namespace and its content have new uids: they are the
    /// target's objects all the same, and the next restore leaves them alone.
    #[test]
    fn objects_made_again_under_new_uids_stay() {
        let target = set(&[
            ("namespaces", object("Namespace", "", "legacy", "n1")),
            ("configmaps", object("ConfigMap", "legacy", "old", "c1")),
        ]);
        let current = set(&[
            ("namespaces", object("Namespace", "", "legacy", "n2")),
            ("configmaps", object("ConfigMap", "legacy", "old", "c2")),
        ]);
        assert_eq!(plan(&target, &current), Plan::default());
    }

    /// Pods made again by their controllers have other names; what counts is how many of each
    /// owner are bound, and which run on the nodes that take no new pods.
    #[test]
    fn placement_counts_pods_by_owner_node_and_phase() {
        let pod = |name: &str, node: &str, phase: &str| {
            let mut pod = object("Pod", "lab", name, name);
            pod["metadata"]["ownerReferences"] =
                json!([{"kind": "ReplicaSet", "name": "web-1", "controller": true}]);
            pod["spec"] = json!({"nodeName": node});
            pod["status"] = json!({"phase": phase});
            pod
        };
        let before = [
            pod("web-1-a", "n1", "Running"),
            pod("web-1-b", "n2", "Running"),
        ];
        let mut leaving = pod("web-1-c", "n1", "Running");
        leaving["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
        let remade = [
            pod("web-1-x", "n2", "Running"),
            pod("web-1-y", "n1", "Running"),
            leaving,
        ];
        let pinned = BTreeSet::from(["n1".to_string()]);
        let placed = |pods: &[Value]| placement(pods.iter(), &pinned);
        assert_eq!(placed(&before), placed(&remade));
        // Off the pinned nodes, any node will do; a pod not bound is not placed.
        let moved = [
            pod("web-1-x", "n3", "Running"),
            pod("web-1-y", "n1", "Running"),
        ];
        assert_eq!(placed(&before), placed(&moved));
        let off_pinned = [
            pod("web-1-x", "n2", "Running"),
            pod("web-1-y", "n3", "Running"),
        ];
        assert_ne!(placed(&before), placed(&off_pinned));
        let pending = [
            pod("web-1-x", "n1", "Running"),
            pod("web-1-y", "", "Pending"),
        ];
        assert_ne!(placed(&before), placed(&pending));
    }

    /// gpudrv step 6: a refused drain leaves lab-node-1 cordoned with its trainer still on it.
    /// Made again from nothing, the trainer could never go back there while the node is cordoned.
    #[test]
    fn a_cordoned_node_is_relaxed_until_its_pods_are_back() {
        let mut cordoned = object("Node", "", "n1", "u1");
        cordoned["spec"] = json!({"unschedulable": true, "taints": [
            {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"},
            {"key": "soft", "effect": "PreferNoSchedule"}]});
        let mut trainer = object("Pod", "lab", "trainer-a", "p1");
        trainer["metadata"]["ownerReferences"] =
            json!([{"kind": "ReplicaSet", "name": "trainer-1", "controller": true}]);
        trainer["spec"] = json!({"nodeName": "n1"});
        trainer["status"] = json!({"phase": "Running"});
        let target = set(&[("nodes", cordoned.clone()), ("pods", trainer.clone())]);

        let bare = set(&[("nodes", object("Node", "", "n1", "u1"))]);
        let plan_from_bare = plan(&target, &bare);
        assert_eq!(plan_from_bare.relax, vec![key("nodes", "", "n1")]);
        assert_eq!(
            plan_from_bare.put_back,
            vec![(key("nodes", "", "n1"), PutBack::Replace)]
        );
        assert_eq!(
            relaxed(&cordoned)["spec"],
            json!({"taints": [{"key": "soft", "effect": "PreferNoSchedule"}]})
        );

        // The pod is already where it was: nothing to relax.
        let mut remade = trainer;
        remade["metadata"]["name"] = json!("trainer-b");
        let same = set(&[("nodes", cordoned), ("pods", remade)]);
        assert_eq!(plan(&target, &same), Plan::default());
    }

    /// A cordoned node with one trainer on it and a second trainer Pending (the cordon keeps it
    /// off): while the node is relaxed both land there; closed again, the one made last goes,
    /// and its replacement waits Pending as in the snapshot.
    #[test]
    fn a_relaxed_node_gives_back_the_pods_the_snapshot_has_pending() {
        let mut cordoned = object("Node", "", "n1", "u1");
        cordoned["spec"] = json!({"unschedulable": true});
        let trainer = |name: &str, node: &str, phase: &str, created: &str| {
            let mut pod = object("Pod", "lab", name, name);
            pod["metadata"]["ownerReferences"] =
                json!([{"kind": "ReplicaSet", "name": "trainer-1", "controller": true}]);
            pod["metadata"]["creationTimestamp"] = json!(created);
            pod["spec"] = json!({"nodeName": node});
            pod["status"] = json!({"phase": phase});
            pod
        };
        let target = set(&[
            ("nodes", cordoned),
            (
                "pods",
                trainer("trainer-a", "n1", "Running", "2026-01-01T00:00:00Z"),
            ),
            (
                "pods",
                trainer("trainer-b", "", "Pending", "2026-01-01T00:00:01Z"),
            ),
        ]);
        let relaxed = BTreeSet::from(["n1"]);
        let both_on_n1 = [
            trainer("trainer-c", "n1", "Running", "2026-01-01T00:01:00Z"),
            trainer("trainer-d", "n1", "Running", "2026-01-01T00:01:01Z"),
        ];
        assert_eq!(
            surplus(&target, &both_on_n1, &relaxed),
            vec![key("pods", "lab", "trainer-d")]
        );
        // Not on a relaxed node, or as many as the snapshot has: nothing to give back.
        assert!(surplus(&target, &both_on_n1, &BTreeSet::new()).is_empty());
        assert!(surplus(&target, &both_on_n1[..1], &relaxed).is_empty());

        let pinned = restricted_nodes(&target);
        let want = placement(pods_of(&target), &pinned);
        let now = |pods: &[Value]| placement(pods.iter(), &pinned);
        // While relaxed, the wait is over once the node has its pod back, extra or not.
        assert!(Fit::PinnedTakenBack.holds(&want, &now(&both_on_n1)));
        assert!(!Fit::Exact.holds(&want, &now(&both_on_n1)));
        let pending = trainer("trainer-e", "", "Pending", "2026-01-01T00:01:02Z");
        assert!(!Fit::PinnedTakenBack.holds(&want, &now(std::slice::from_ref(&pending))));
        // Given back, the replacement waits Pending: placed as in the snapshot.
        let settled = [both_on_n1[0].clone(), pending];
        assert!(Fit::Exact.holds(&want, &now(&settled)));
    }

    #[test]
    fn what_appeared_goes_and_what_changed_is_replaced() {
        let mut labelled = object("Node", "", "lab-node-1", "u1");
        labelled["metadata"]["labels"] = json!({"owner": "ops"});
        let target = set(&[
            ("nodes", labelled),
            ("namespaces", object("Namespace", "", "team", "t1")),
        ]);
        let mut relabelled = object("Node", "", "lab-node-1", "u1");
        relabelled["metadata"]["labels"] = json!({"owner": "lab"});
        let mut pod = object("Pod", "team", "api-1", "p1");
        pod["metadata"]["ownerReferences"] = json!([{"kind": "ReplicaSet", "name": "api"}]);
        let current = set(&[
            ("nodes", relabelled),
            ("nodes", object("Node", "", "spare-node-x2k4p", "u9")),
            ("namespaces", object("Namespace", "", "team", "t1")),
            ("namespaces", object("Namespace", "", "halt-lab", "h1")),
            (
                "configmaps",
                object("ConfigMap", "halt-lab", "settings", "c2"),
            ),
            ("secrets", object("Secret", "team", "token", "s2")),
            ("pods", pod),
        ]);
        let plan = plan(&target, &current);
        // The new namespace's content goes with it; owned pods are left to their controllers.
        assert_eq!(
            plan.delete,
            vec![
                (key("namespaces", "", "halt-lab"), false),
                (key("nodes", "", "spare-node-x2k4p"), true),
                (key("secrets", "team", "token"), false),
            ]
        );
        assert_eq!(
            plan.put_back,
            vec![(key("nodes", "", "lab-node-1"), PutBack::Replace)]
        );
    }

    #[test]
    fn objects_are_sent_to_their_api_paths() {
        let mut deployment = object("Deployment", "lab", "web", "d1");
        deployment["apiVersion"] = json!("apps/v1");
        assert_eq!(
            api_path(&key("deployments.apps", "lab", "web"), &deployment, true),
            "/apis/apps/v1/namespaces/lab/deployments/web"
        );
        let mut node = object("Node", "", "lab-node-0", "n1");
        node["apiVersion"] = json!("v1");
        assert_eq!(
            api_path(&key("nodes", "", "lab-node-0"), &node, false),
            "/api/v1/nodes"
        );
        let monitor = custom(
            "monitoring.example.com",
            "ServiceMonitor",
            "lab",
            "m",
            json!({}),
        );
        assert_eq!(
            api_path(
                &key("servicemonitors.monitoring.example.com", "lab", "m"),
                &monitor,
                false
            ),
            "/apis/monitoring.example.com/v1/namespaces/lab/servicemonitors"
        );
    }

    fn volume(claim_uid: &str) -> Value {
        let mut pv = object("PersistentVolume", "", "pv-a", "v1");
        pv["metadata"]["annotations"] = json!({"pv.kubernetes.io/bound-by-controller": "yes"});
        pv["spec"] = json!({"capacity": {"storage": "1Gi"}, "storageClassName": "manual",
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "lab", "name": "data",
                         "uid": claim_uid, "resourceVersion": "7"}});
        pv
    }

    fn claim(uid: &str, bound_by_controller: bool) -> Value {
        let mut pvc = object("PersistentVolumeClaim", "lab", "data", uid);
        let mut annotations = json!({"pv.kubernetes.io/bind-completed": "yes"});
        if bound_by_controller {
            annotations["pv.kubernetes.io/bound-by-controller"] = json!("yes");
        }
        pvc["metadata"]["annotations"] = annotations;
        pvc["spec"] = json!({"storageClassName": "manual", "volumeName": "pv-a"});
        pvc
    }

    /// A claim bound again under a new uid (pre-bound by name after a restore, so without the
    /// binder's `bound-by-controller`) is the claim of the snapshot: nothing to do.
    #[test]
    fn a_binding_made_again_under_new_uids_is_no_change() {
        let target = set(&[
            ("persistentvolumes", volume("c1")),
            ("persistentvolumeclaims", claim("c1", true)),
        ]);
        let current = set(&[
            ("persistentvolumes", volume("c2")),
            ("persistentvolumeclaims", claim("c2", false)),
        ]);
        assert_eq!(plan(&target, &current), Plan::default());
    }

    /// The learner deleted the claim: it comes back pre-bound to its volume (no binder marks),
    /// and the volume, released with the old claim's uid, is put back before it without that uid.
    #[test]
    fn a_deleted_claim_comes_back_after_its_volume_pre_bound_by_name() {
        let target = set(&[
            ("persistentvolumes", volume("c1")),
            ("persistentvolumeclaims", claim("c1", true)),
        ]);
        let current = set(&[("persistentvolumes", volume("c1"))]);
        let plan = plan(&target, &current);
        assert_eq!(
            plan.put_back,
            vec![
                (key("persistentvolumes", "", "pv-a"), PutBack::Rebind),
                (
                    key("persistentvolumeclaims", "lab", "data"),
                    PutBack::Create
                ),
            ]
        );
        let body = sanitized("persistentvolumes", &volume("c1"));
        assert_eq!(
            body["spec"]["claimRef"],
            json!({"kind": "PersistentVolumeClaim", "namespace": "lab", "name": "data"})
        );
        let body = sanitized("persistentvolumeclaims", &claim("c1", true));
        assert_eq!(body["metadata"]["annotations"], json!({}));
        assert_eq!(body["spec"]["volumeName"], "pv-a");
    }

    /// The learner deleted the claim and applied it again: the volume still names the old
    /// claim's uid, which the new claim never matches; it is put back pre-bound by name.
    #[test]
    fn a_volume_bound_to_an_older_claim_of_the_name_is_pre_bound_again() {
        let target = set(&[
            ("persistentvolumes", volume("c1")),
            ("persistentvolumeclaims", claim("c1", true)),
        ]);
        let mut pending = claim("c2", false);
        pending["metadata"]["annotations"] = json!({});
        let current = set(&[
            ("persistentvolumes", volume("c1")),
            ("persistentvolumeclaims", pending),
        ]);
        let plan = plan(&target, &current);
        assert_eq!(
            plan.put_back,
            vec![(key("persistentvolumes", "", "pv-a"), PutBack::Rebind)]
        );
        assert!(plan.delete.is_empty());
    }

    /// A claim applied again without the volume it had: made again, and deleted before its
    /// volume is put back (which the volume controller would otherwise bind to it once more).
    #[test]
    fn a_claim_with_another_spec_goes_before_its_volume_is_put_back() {
        let target = set(&[
            ("persistentvolumes", volume("c1")),
            ("persistentvolumeclaims", claim("c1", true)),
        ]);
        let mut unbound = claim("c2", false);
        unbound["spec"] = json!({"storageClassName": "manual"});
        let current = set(&[
            ("persistentvolumes", volume("c2")),
            ("persistentvolumeclaims", unbound),
        ]);
        let plan = plan(&target, &current);
        let claim_key = key("persistentvolumeclaims", "lab", "data");
        assert_eq!(plan.delete, vec![(claim_key.clone(), false)]);
        assert_eq!(plan.wait, vec![claim_key.clone()]);
        assert_eq!(
            plan.put_back,
            vec![
                (key("persistentvolumes", "", "pv-a"), PutBack::Rebind),
                (claim_key, PutBack::Create),
            ]
        );
    }

    /// Only the claim's labels changed: replaced, not made again.
    #[test]
    fn a_relabelled_claim_is_replaced() {
        let target = set(&[("persistentvolumeclaims", claim("c1", true))]);
        let mut labelled = claim("c1", true);
        labelled["metadata"]["labels"] = json!({"tier": "fast"});
        let current = set(&[("persistentvolumeclaims", labelled)]);
        assert_eq!(
            plan(&target, &current).put_back,
            vec![(
                key("persistentvolumeclaims", "lab", "data"),
                PutBack::Replace
            )]
        );
    }

    /// A volume replaced while its claim stays keeps the claim's uid, or the bound claim would
    /// count it lost.
    #[test]
    fn a_volume_replaced_under_a_staying_claim_keeps_its_uid() {
        let mut labelled = volume("c1");
        labelled["metadata"]["labels"] = json!({"tier": "fast"});
        let target = set(&[
            ("persistentvolumes", labelled.clone()),
            ("persistentvolumeclaims", claim("c2", true)),
        ]);
        let current = set(&[
            ("persistentvolumes", volume("c2")),
            ("persistentvolumeclaims", claim("c2", true)),
        ]);
        assert_eq!(
            plan(&target, &current).put_back,
            vec![(key("persistentvolumes", "", "pv-a"), PutBack::Replace)]
        );
        let body = keeping_binding(
            sanitized("persistentvolumes", &labelled),
            Some(&volume("c2")),
        );
        assert_eq!(body["spec"]["claimRef"]["uid"], "c2");
    }

    /// gpushare step 2: the learner's cuda-burst (requests and limits) holds both GPUs when the
    /// reference's (limits only) is put back. Rolled, its surge pod would wait for a GPU forever.
    #[test]
    fn a_workload_with_another_template_is_made_again_not_rolled() {
        let deployment = |replicas: u32, requests: bool| {
            let mut resources = json!({"limits": {"nvidia.com/gpu": "1"}});
            if requests {
                resources["requests"] = json!({"nvidia.com/gpu": "1"});
            }
            let mut object = object("Deployment", "lab", "burst", "d1");
            object["spec"] = json!({"replicas": replicas, "template": {"spec": {
                "containers": [{"name": "cuda", "resources": resources}]}}});
            object
        };
        let namespace = ("namespaces", object("Namespace", "", "lab", "n1"));
        let target = set(&[
            namespace.clone(),
            ("deployments.apps", deployment(3, false)),
        ]);
        let learner = set(&[namespace.clone(), ("deployments.apps", deployment(3, true))]);
        assert_eq!(
            plan(&target, &learner).put_back,
            vec![(key("deployments.apps", "lab", "burst"), PutBack::Recreate)]
        );
        // Scaled only: scaled back.
        let scaled = set(&[namespace, ("deployments.apps", deployment(8, false))]);
        assert_eq!(
            plan(&target, &scaled).put_back,
            vec![(key("deployments.apps", "lab", "burst"), PutBack::Replace)]
        );
    }

    #[test]
    fn a_changed_role_is_replaced_and_a_rebound_binding_made_again() {
        let role = |verbs: Value| {
            let mut role = object("ClusterRole", "", "auditor", "r1");
            role["rules"] = json!([{"apiGroups": [""], "resources": ["pods"], "verbs": verbs}]);
            role
        };
        let binding = |kind: &str| {
            let mut binding = object("ClusterRoleBinding", "", "auditor", "b1");
            binding["roleRef"] = json!({"kind": kind, "name": "auditor"});
            binding
        };
        const ROLES: &str = "clusterroles.rbac.authorization.k8s.io";
        const BINDINGS: &str = "clusterrolebindings.rbac.authorization.k8s.io";
        let target = set(&[
            (ROLES, role(json!(["get", "list"]))),
            (BINDINGS, binding("ClusterRole")),
        ]);
        let current = set(&[(ROLES, role(json!(["*"]))), (BINDINGS, binding("Role"))]);
        assert_eq!(
            plan(&target, &current).put_back,
            vec![
                (key(ROLES, "", "auditor"), PutBack::Replace),
                (key(BINDINGS, "", "auditor"), PutBack::Recreate),
            ]
        );
    }

    #[test]
    fn the_control_planes_own_objects_are_not_state() {
        let mut view = object("ClusterRole", "", "view", "u");
        view["metadata"]["labels"] = json!({"kubernetes.io/bootstrapping": "rbac-defaults"});
        assert!(automatic("clusterroles.rbac.authorization.k8s.io", &view));
        assert!(automatic(
            "clusterrolebindings.rbac.authorization.k8s.io",
            &object(
                "ClusterRoleBinding",
                "",
                "system:controller:job-controller",
                "u"
            )
        ));
        assert!(!automatic(
            "clusterroles.rbac.authorization.k8s.io",
            &object("ClusterRole", "", "gpu-auditor", "u")
        ));
        assert!(automatic(
            "priorityclasses.scheduling.k8s.io",
            &object("PriorityClass", "", "system-node-critical", "u")
        ));
        let token = json!({"kind": "Secret", "type": "kubernetes.io/service-account-token",
            "metadata": {"name": "robot-token-x2k4p", "annotations": {"kubernetes.io/service-account.uid": "u"}}});
        assert!(automatic("secrets", &token));
        assert!(automatic(
            "serviceaccounts",
            &object("ServiceAccount", "team", "default", "u")
        ));
        assert!(!automatic(
            "serviceaccounts",
            &object("ServiceAccount", "team", "robot", "u")
        ));
        assert!(!automatic(
            "secrets",
            &object("Secret", "default", "token", "u")
        ));
    }
}
