//! What a restore does, worked out before anything is sent: what goes, what is replaced, what is
//! made again and in which order.

use std::collections::BTreeSet;

use serde_json::Value;

use super::compare::{claim_of, comparable, must_recreate};
use super::objects::{
    owned, terminating, text, Kind, ObjectKey, ObjectSet, CLAIMS, CRDS, KINDS, VOLUMES,
};
use super::placement::{placement, pods_of, restricted_nodes, Placement};

/// Every resource of `sets` in the order objects are made again: the built-in kinds of
/// [`KINDS`] (namespaces and CRDs first), then custom resources (their CRDs exist by then; they
/// may own pods), then pods.
pub(super) fn recreate_order(sets: &[&ObjectSet]) -> Vec<String> {
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

/// What a restore does, worked out from the target and the current state.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Plan {
    /// Objects to delete, and whether pods bound to them go too (nodes that are not coming back).
    pub(super) delete: Vec<(ObjectKey, bool)>,
    /// Objects to wait for until they are gone: the deleted ones, the ones already on their way
    /// out, and the contents of namespaces that go.
    pub(super) wait: Vec<ObjectKey>,
    /// Objects to put back, in recreate order: (key, how).
    pub(super) put_back: Vec<(ObjectKey, PutBack)>,
    /// Nodes the target has cordoned or tainted against new pods while pods the controllers
    /// are yet to make again ran on them: they are put back without those restrictions until the
    /// pods are placed, then with them (a cordon after a pod was placed cannot be replayed in
    /// the other order).
    pub(super) relax: Vec<ObjectKey>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum PutBack {
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

pub(super) fn plan(target: &ObjectSet, current: &ObjectSet) -> Plan {
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
