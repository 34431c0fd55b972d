//! Snapshot and restore for a cluster the harness does not own (`--kubeconfig`): list the objects
//! of the kinds the labs touch, and later delete what appeared and recreate or replace what
//! vanished or changed. Objects owned by a controller (ownerReferences) are left to their
//! controllers: deleting their owner cascades, and a restored owner recreates them.

mod compare;
mod objects;
mod placement;
mod plan;
mod waiting;
mod writes;

#[cfg(test)]
mod tests;

pub use objects::{ObjectKey, ObjectSet};
pub(crate) use writes::delete_pods_on;

use std::collections::BTreeSet;

use anyhow::Context;

use super::kubectl::Kubectl;
use compare::{keeping_binding, sanitized};
use objects::{
    custom_resource_of, custom_resources, insert, list, served, text, CRDS, KINDS, VOLUMES,
};
use placement::{relaxed, surplus, wait_placed, Fit};
use plan::{plan, Plan, PutBack};
use waiting::wait_gone;
use writes::{create_with_retry, delete, delete_with, hasten_namespace_removal, replace};

pub async fn snapshot(kubectl: &Kubectl) -> anyhow::Result<ObjectSet> {
    let kinds = served(kubectl).await;
    let mut set = ObjectSet::default();
    for item in list(kubectl, &kinds).await? {
        let Some(kind) = KINDS.iter().find(|kind| kind.kind == text(&item, "/kind")) else {
            continue;
        };
        insert(&mut set, kind.resource, item);
    }
    for resource in custom_resources(&set) {
        let listed = kubectl
            .list_all(&resource)
            .await
            .with_context(|| format!("listing the custom resources {resource}"))?;
        for item in listed.unwrap_or_default() {
            if let Some(resource) = custom_resource_of(&set, &item) {
                insert(&mut set, &resource, item);
            }
        }
    }
    Ok(set)
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
    // Those deleted now and those a learner deleted that are still on their way out.
    for key in plan.wait.iter().filter(|key| key.0 == "namespaces") {
        hasten_namespace_removal(kubectl, &key.2).await;
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
    let now = kubectl.list_all("pods").await?.unwrap_or_default();
    let extra = surplus(target, &now, &relaxed);
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
