//! Garbage collection by owner references (`pkg/controller/garbagecollector`), plus the pod GC
//! of pods bound to nodes that no longer exist (`pkg/controller/podgc`).
//!
//! Background deletion removes dependents whose owners are all gone; an owner being deleted with
//! the `foregroundDeletion` finalizer waits for its dependents; `orphan` strips the references.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{json, Value};

use super::Controller;
use crate::api::{meta, Api, DeleteOptions, Propagation};
use crate::registry::{self, ResourceDef};
use crate::store::{Event, Stored};

#[derive(Default)]
pub struct GarbageCollector;

fn owner_resource(owner_ref: &Value) -> Option<&'static ResourceDef> {
    let api_version = owner_ref["apiVersion"].as_str().unwrap_or("");
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    registry::by_kind(group, owner_ref["kind"].as_str().unwrap_or(""))
}

fn refs(obj: &Value) -> Vec<Value> {
    obj["metadata"]["ownerReferences"].as_array().cloned().unwrap_or_default()
}

impl GarbageCollector {
    /// The owner an owner reference points to, if it still exists with that uid.
    fn owner(api: &Api, dependent: &Stored, r: &Value) -> Option<Stored> {
        let res = owner_resource(r)?;
        let ns = if res.namespaced { dependent.namespace() } else { "" };
        let o = api.store().get(res, ns, r["name"].as_str().unwrap_or(""))?;
        (meta::uid(&o.value) == r["uid"].as_str().unwrap_or("")).then_some(o)
    }

    fn all_dependents(api: &Api) -> Vec<(&'static ResourceDef, Stored)> {
        let mut out = Vec::new();
        for res in registry::RESOURCES.iter().copied() {
            for o in api.store().list(res, None).0 {
                if !refs(&o.value).is_empty() {
                    out.push((res, o));
                }
            }
        }
        out
    }
}

impl Controller for GarbageCollector {
    fn name(&self) -> &'static str {
        "garbage-collector"
    }

    fn interested(&self, ev: &Event) -> bool {
        ev.kind == crate::store::EventKind::Deleted
            || meta::is_deleting(&ev.object.value)
            || (std::ptr::eq(ev.res, &registry::PODS) && ev.kind == crate::store::EventKind::Added)
    }

    fn reconcile(&mut self, api: &Api) -> Option<Duration> {
        let dependents = Self::all_dependents(api);
        for (res, dep) in &dependents {
            let mut live_refs = Vec::new();
            let mut orphaned_by = Vec::new();
            for r in refs(&dep.value) {
                let Some(owner) = Self::owner(api, dep, &r) else {
                    continue;
                };
                let fins = meta::finalizers(&owner.value);
                if meta::is_deleting(&owner.value) && fins.iter().any(|f| f == "orphan") {
                    orphaned_by.push(r);
                    continue;
                }
                // Foreground: dependents go first.
                if meta::is_deleting(&owner.value)
                    && fins.iter().any(|f| f == "foregroundDeletion")
                    && !meta::is_deleting(&dep.value)
                {
                    let opts = DeleteOptions {
                        propagation: Some(Propagation::Foreground),
                        ..Default::default()
                    };
                    let _ = api.delete(res, dep.namespace(), dep.name(), &opts);
                }
                live_refs.push(r);
            }
            if !orphaned_by.is_empty() {
                let mut v = dep.value.clone();
                let keep: Vec<Value> = refs(&dep.value)
                    .into_iter()
                    .filter(|r| !orphaned_by.contains(r))
                    .collect();
                if keep.is_empty() {
                    meta::meta_mut(&mut v).remove("ownerReferences");
                } else {
                    v["metadata"]["ownerReferences"] = json!(keep);
                }
                let _ = api.store().update(res, v, Some(dep.resource_version()));
                continue;
            }
            if live_refs.is_empty() && !meta::is_deleting(&dep.value) {
                let opts = DeleteOptions {
                    propagation: Some(Propagation::Background),
                    ..Default::default()
                };
                if let Err(e) = api.delete(res, dep.namespace(), dep.name(), &opts) {
                    tracing::debug!(error = %e, "garbage collecting");
                }
            }
        }
        // Owners whose foreground or orphan finalizer has nothing left to wait for.
        for res in registry::RESOURCES.iter().copied() {
            for owner in api.store().list(res, None).0 {
                if !meta::is_deleting(&owner.value) {
                    continue;
                }
                let fins = meta::finalizers(&owner.value);
                let uid = meta::uid(&owner.value).to_string();
                let still_owned = dependents.iter().any(|(r, d)| {
                    api.store().get(r, d.namespace(), d.name()).is_some_and(|cur| {
                        refs(&cur.value).iter().any(|r| r["uid"].as_str() == Some(&uid))
                    })
                });
                let done: Vec<&str> = ["orphan", "foregroundDeletion"]
                    .into_iter()
                    .filter(|f| fins.iter().any(|x| x == f) && !still_owned)
                    .collect();
                if done.is_empty() {
                    continue;
                }
                let mut v = owner.value.clone();
                let rest: Vec<String> = fins.into_iter().filter(|f| !done.contains(&f.as_str())).collect();
                if rest.is_empty() {
                    meta::meta_mut(&mut v).remove("finalizers");
                    let _ = api.store().delete(res, owner.namespace(), owner.name(), Some(owner.resource_version()));
                } else {
                    v["metadata"]["finalizers"] = json!(rest);
                    let _ = api.store().update(res, v, Some(owner.resource_version()));
                }
            }
        }
        // podgc: pods bound to nodes that are gone.
        let nodes: HashSet<String> = api
            .store()
            .list(&registry::NODES, None)
            .0
            .iter()
            .map(|n| n.name().to_string())
            .collect();
        for pod in api.store().list(&registry::PODS, None).0 {
            let node = pod.value["spec"]["nodeName"].as_str().unwrap_or("");
            if !node.is_empty() && !nodes.contains(node) {
                let opts = DeleteOptions {
                    grace_period_seconds: Some(0),
                    ..Default::default()
                };
                let _ = api.delete(&registry::PODS, pod.namespace(), pod.name(), &opts);
            }
        }
        None
    }
}
