//! Garbage collection by owner references (`pkg/controller/garbagecollector`), plus the pod GC
//! of pods bound to nodes that no longer exist (`pkg/controller/podgc`).
//!
//! Background deletion removes dependents whose owners are all gone; an owner being deleted with
//! the `foregroundDeletion` finalizer waits for its dependents; `orphan` strips the references.
//! Each pass indexes every object by uid once, so it costs one walk of the store.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::{Controller, Pass};
use crate::api::{Api, DeleteOptions, Propagation, WriteOptions};
use crate::meta;
use crate::registry;
use crate::resource::ResourceDef;
use crate::store::{Event, EventKind, Stored};

#[derive(Default)]
pub struct GarbageCollector;

fn refs(obj: &Value) -> &[Value] {
    obj["metadata"]["ownerReferences"]
        .as_array()
        .map_or(&[], Vec::as_slice)
}

/// What the collector needs to know about a potential owner.
struct OwnerFacts {
    res: &'static ResourceDef,
    obj: Stored,
}

impl OwnerFacts {
    fn deleting_with(&self, finalizer: &str) -> bool {
        meta::is_deleting(&self.obj.value)
            && meta::finalizers(&self.obj.value)
                .iter()
                .any(|f| f == finalizer)
    }
}

/// Does this owner reference point at `owner` (same uid, kind and name, right scope)?
fn points_at(r: &Value, owner: &OwnerFacts, dependent_ns: &str) -> bool {
    r["kind"].as_str() == Some(owner.res.kind)
        && r["name"].as_str() == Some(owner.obj.name())
        && (!owner.res.namespaced || owner.obj.namespace() == dependent_ns)
}

impl Controller for GarbageCollector {
    fn name(&self) -> &'static str {
        "garbage-collector"
    }

    fn interested(&self, ev: &Event) -> bool {
        ev.kind == EventKind::Deleted
            || meta::is_deleting(&ev.object.value)
            || (ev.kind == EventKind::Added && !refs(&ev.object.value).is_empty())
            || (std::ptr::eq(ev.res, &registry::PODS) && ev.kind == EventKind::Added)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let store = api.store();
        let mut by_uid: HashMap<String, OwnerFacts> = HashMap::new();
        let mut dependents: Vec<(&'static ResourceDef, Stored)> = Vec::new();
        for res in crate::registry::all(store).filter(|r| !crate::convert::is_view(r)) {
            for o in store.list(res, None).0 {
                if !refs(&o.value).is_empty() {
                    dependents.push((res, o.clone()));
                }
                by_uid.insert(meta::uid(&o.value).to_string(), OwnerFacts { res, obj: o });
            }
        }
        let mut still_referenced: HashSet<String> = HashSet::new();
        for (res, dep) in &dependents {
            let mut live = 0;
            let mut orphaned_by: Vec<&Value> = Vec::new();
            for r in refs(&dep.value) {
                let uid = r["uid"].as_str().unwrap_or("");
                let Some(owner) = by_uid.get(uid).filter(|o| points_at(r, o, dep.namespace()))
                else {
                    continue;
                };
                if owner.deleting_with("orphan") {
                    orphaned_by.push(r);
                    continue;
                }
                still_referenced.insert(uid.to_string());
                live += 1;
                // Foreground: dependents go first.
                if owner.deleting_with("foregroundDeletion") && !meta::is_deleting(&dep.value) {
                    let opts = DeleteOptions {
                        propagation: Some(Propagation::Foreground),
                        ..Default::default()
                    };
                    let deleted = api.delete(res, dep.namespace(), dep.name(), &opts);
                    pass.check("deleting a dependent in the foreground", deleted);
                }
            }
            if !orphaned_by.is_empty() {
                let keep: Vec<Value> = refs(&dep.value)
                    .iter()
                    .filter(|r| !orphaned_by.contains(r))
                    .cloned()
                    .collect();
                let mut v = dep.value.clone();
                if keep.is_empty() {
                    meta::meta_mut(&mut v).remove("ownerReferences");
                } else {
                    v["metadata"]["ownerReferences"] = json!(keep);
                }
                // `orphanDependents` patches the references away through the API.
                let updated = api.update(
                    res,
                    dep.namespace(),
                    dep.name(),
                    v,
                    None,
                    &WriteOptions::default(),
                );
                pass.check("orphaning a dependent", updated);
                continue;
            }
            if live == 0 && !meta::is_deleting(&dep.value) {
                let opts = DeleteOptions {
                    propagation: Some(Propagation::Background),
                    ..Default::default()
                };
                let deleted = api.delete(res, dep.namespace(), dep.name(), &opts);
                pass.check("garbage collecting", deleted);
            }
        }
        // Owners whose foreground or orphan finalizer has nothing left to wait for.
        for (uid, owner) in &by_uid {
            if !meta::is_deleting(&owner.obj.value) || still_referenced.contains(uid) {
                continue;
            }
            let fins = meta::finalizers(&owner.obj.value);
            let rest: Vec<&String> = fins
                .iter()
                .filter(|f| *f != "orphan" && *f != "foregroundDeletion")
                .collect();
            if rest.len() == fins.len() {
                continue;
            }
            // `removeFinalizer`: an update without the finalizer; the last one gone ends the
            // deletion, as for any client's update.
            let o = &owner.obj;
            let mut v = o.value.clone();
            if rest.is_empty() {
                meta::meta_mut(&mut v).remove("finalizers");
            } else {
                v["metadata"]["finalizers"] = json!(rest);
            }
            let updated = api.update(
                owner.res,
                o.namespace(),
                o.name(),
                v,
                None,
                &WriteOptions::default(),
            );
            pass.check("removing a deletion finalizer", updated);
        }
        // podgc: pods bound to nodes that are gone.
        let nodes: HashSet<String> = store
            .list(&registry::NODES, None)
            .0
            .iter()
            .map(|n| n.name().to_string())
            .collect();
        for pod in store.list(&registry::PODS, None).0 {
            let node = pod.value["spec"]["nodeName"].as_str().unwrap_or("");
            if !node.is_empty() && !nodes.contains(node) {
                let opts = DeleteOptions {
                    grace_period_seconds: Some(0),
                    ..Default::default()
                };
                let deleted = api.delete(&registry::PODS, pod.namespace(), pod.name(), &opts);
                pass.check("deleting a pod whose node is gone", deleted);
            }
        }
        pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cluster, ClusterConfig};

    async fn cluster() -> Cluster {
        Cluster::start(ClusterConfig::default().with_fake_nodes("n", 1))
            .await
            .unwrap()
    }

    fn cm(name: &str, owner: Option<&Stored>) -> Value {
        let mut v = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}});
        if let Some(o) = owner {
            v["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": o.name(), "uid": meta::uid(&o.value)}]);
        }
        v
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn background_foreground_and_orphan_deletion() {
        let c = cluster().await;
        let api = c.api();
        let w = Default::default();
        for (policy, dependent_survives) in [
            (Propagation::Background, false),
            (Propagation::Foreground, false),
            (Propagation::Orphan, true),
        ] {
            let owner = api
                .create(&registry::CONFIGMAPS, "default", cm("owner", None), &w)
                .unwrap();
            api.create(
                &registry::CONFIGMAPS,
                "default",
                cm("dep", Some(&owner)),
                &w,
            )
            .unwrap();
            let opts = DeleteOptions {
                propagation: Some(policy),
                ..Default::default()
            };
            api.delete(&registry::CONFIGMAPS, "default", "owner", &opts)
                .unwrap();
            c.settle().await;
            assert!(
                api.store()
                    .get(&registry::CONFIGMAPS, "default", "owner")
                    .is_none(),
                "{policy:?}: owner gone"
            );
            let dep = api.store().get(&registry::CONFIGMAPS, "default", "dep");
            assert_eq!(dep.is_some(), dependent_survives, "{policy:?}");
            if let Some(d) = dep {
                assert!(
                    d.value["metadata"].get("ownerReferences").is_none(),
                    "orphaned dependents lose the reference"
                );
                api.delete(&registry::CONFIGMAPS, "default", "dep", &Default::default())
                    .unwrap();
            }
        }
        c.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reference_to_a_vanished_uid_is_collected() {
        let c = cluster().await;
        let api = c.api();
        let mut v = cm("dep", None);
        v["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost", "uid": "00000000-0000-4000-8000-000000000000"}]);
        api.create(&registry::CONFIGMAPS, "default", v, &Default::default())
            .unwrap();
        c.settle().await;
        assert!(api
            .store()
            .get(&registry::CONFIGMAPS, "default", "dep")
            .is_none());
        c.shutdown().await;
    }
}
