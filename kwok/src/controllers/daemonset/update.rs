//! Template history and rolling updates (`pkg/controller/daemon/update.go`).

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::manage::controller_ref;
use super::pass::Snapshot;
use super::util::{is_pod_updated, object_entry, surge_count, unavailable_count};
use super::{DaemonSetController, REVISION_HASH_LABEL};
use crate::api::{Api, DeleteOptions, WriteOptions};
use crate::controllers::ownership::{adopt, claim, release, Claim};
use crate::controllers::typed::{sorted_keys, template_hash};
use crate::meta;
use crate::podutil::is_pod_available;
use crate::registry;
use crate::selectors::LabelSelector;
use crate::store::Stored;

/// The `spec.revisionHistoryLimit` default (apps/v1 defaults).
pub(super) const DEFAULT_REVISION_HISTORY_LIMIT: i64 = 10;

/// `getPatch`: the ControllerRevision data, `{"spec":{"template":{..., "$patch":"replace"}}}`
/// with keys sorted as upstream's round trip through a Go map leaves them.
pub fn revision_data(ds: &Value) -> Value {
    let mut template = ds["spec"]["template"].clone();
    if let Some(t) = template.as_object_mut() {
        t.insert("$patch".into(), json!("replace"));
    }
    sorted_keys(&json!({"spec": {"template": template}}))
}

/// `findUpdatedPodsOnNode`: at most one new and one old non-deleted pod, or `None` when there
/// are more (manage prunes those first).
pub(super) fn updated_pods_on_node<'a>(
    pods: &'a [Stored],
    hash: &str,
    generation: Option<&str>,
) -> Option<(Option<&'a Stored>, Option<&'a Stored>)> {
    let mut new = None;
    let mut old = None;
    for pod in pods.iter().filter(|p| !meta::is_deleting(&p.value)) {
        let slot = if is_pod_updated(&pod.value, hash, generation) {
            &mut new
        } else {
            &mut old
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(pod);
    }
    Some((new, old))
}

/// `rollingUpdate`: old pods to delete (and, when surging, nodes to create on) within
/// maxUnavailable / maxSurge.
pub(super) fn rolling_update(
    ds: &Stored,
    entries: &[(&str, bool, &[Stored])],
    hash: &str,
    generation: Option<&str>,
    min_ready: i64,
    now: DateTime<Utc>,
) -> (Vec<String>, Vec<String>) {
    let strategy = &ds.value["spec"]["updateStrategy"];
    let desired = entries.iter().filter(|(_, run, _)| *run).count() as i64;
    let (Ok(mut max_unavailable), Ok(max_surge)) = (
        unavailable_count(strategy, desired),
        surge_count(strategy, desired),
    ) else {
        return (Vec::new(), Vec::new());
    };
    if desired > 0 && max_unavailable == 0 && max_surge == 0 {
        max_unavailable = 1;
    }
    let available = |p: &Stored| is_pod_available(&p.value, min_ready, now);

    if max_surge == 0 {
        let mut num_unavailable = 0;
        let mut replacements = Vec::new();
        let mut candidates = Vec::new();
        for (_, _, pods) in entries {
            let Some((new, old)) = updated_pods_on_node(pods, hash, generation) else {
                num_unavailable += 1;
                continue;
            };
            match (new, old) {
                (None, None) | (Some(_), Some(_)) => num_unavailable += 1,
                (Some(new), None) => {
                    if !available(new) {
                        num_unavailable += 1;
                    }
                }
                (None, Some(old)) => {
                    if !available(old) {
                        replacements.push(old.name().to_string());
                        num_unavailable += 1;
                    } else if num_unavailable < max_unavailable {
                        candidates.push(old.name().to_string());
                    }
                }
            }
        }
        let remaining =
            (max_unavailable - num_unavailable).clamp(0, candidates.len() as i64) as usize;
        replacements.extend(candidates.into_iter().take(remaining));
        return (replacements, Vec::new());
    }

    let mut old_to_delete = Vec::new();
    let mut should_not_run = Vec::new();
    let mut candidate_nodes = Vec::new();
    let mut allowed_nodes = Vec::new();
    let mut num_surge = 0;
    let mut num_available = 0;
    for (node, runs, pods) in entries {
        let Some((new, old)) = updated_pods_on_node(pods, hash, generation) else {
            num_surge += 1;
            continue;
        };
        if let Some(p) = old.or(new) {
            if available(p) {
                num_available += 1;
            }
        }
        match (new, old) {
            (_, None) => {}
            (None, Some(old)) => {
                if !available(old) {
                    if !*runs {
                        old_to_delete.push(old.name().to_string());
                        continue;
                    }
                    allowed_nodes.push(node.to_string());
                } else {
                    if !*runs {
                        should_not_run.push(old.name().to_string());
                        continue;
                    }
                    if num_surge >= max_surge {
                        continue;
                    }
                    candidate_nodes.push(node.to_string());
                }
            }
            (Some(new), Some(old)) => {
                if !available(new) {
                    num_surge += 1;
                    continue;
                }
                old_to_delete.push(old.name().to_string());
            }
        }
    }
    let deletable = (num_available - desired).min(should_not_run.len() as i64);
    if deletable > 0 {
        old_to_delete.extend(should_not_run.into_iter().take(deletable as usize));
    }
    let remaining = (max_surge - num_surge).clamp(0, candidate_nodes.len() as i64) as usize;
    allowed_nodes.extend(candidate_nodes.into_iter().take(remaining));
    (old_to_delete, allowed_nodes)
}

impl DaemonSetController {
    /// `controlledHistories` + `constructHistory`: the current revision's hash and the old ones.
    pub(super) fn construct_history(
        &self,
        api: &Api,
        ds: &Stored,
        selector: &LabelSelector,
        claimed_pods: &[Stored],
        snap: &Snapshot,
    ) -> Result<(String, Vec<Stored>), String> {
        let ns = ds.namespace();
        let uid = meta::uid(&ds.value);
        let opts = WriteOptions::default();
        let mut histories = Vec::new();
        // `controlledHistories`: ClaimControllerRevisions, the same claiming as for pods.
        for cr in snap.revisions.get(ns) {
            let selected = selector.matches(meta::labels(&cr.value));
            match claim(&ds.value, &cr.value, selected) {
                Claim::Owned => histories.push((*cr).clone()),
                Claim::Release => {
                    release(api, &registry::CONTROLLERREVISIONS, cr, uid)
                        .map_err(|e| format!("releasing {}: {e}", cr.name()))?;
                }
                Claim::Adopt => {
                    let adopted = adopt(
                        api,
                        &registry::CONTROLLERREVISIONS,
                        cr,
                        controller_ref(&ds.value),
                    )
                    .map_err(|e| format!("adopting {}: {e}", cr.name()))?;
                    histories.push(adopted);
                }
                Claim::Ignore => {}
            }
        }
        let data = revision_data(&ds.value);
        let mut current = Vec::new();
        let mut old = Vec::new();
        for mut h in histories {
            // Histories without the unique label get their name as its value.
            if meta::label(&h.value, REVISION_HASH_LABEL).is_none() {
                let mut v = h.value.clone();
                let name = h.name().to_string();
                let labels = object_entry(meta::meta_mut(&mut v), "labels");
                labels.insert(REVISION_HASH_LABEL.into(), json!(name));
                h = api
                    .update(&registry::CONTROLLERREVISIONS, ns, &name, v, None, &opts)
                    .map_err(|e| e.to_string())?;
            }
            if h.value["data"] == data {
                current.push(h);
            } else {
                old.push(h);
            }
        }
        let revision = |h: &Stored| h.value["revision"].as_i64().unwrap_or(0);
        let next_revision = old.iter().map(revision).max().unwrap_or(0) + 1;
        let cur = if current.is_empty() {
            self.snapshot_revision(api, ds, &data, next_revision)?
        } else {
            let cur = self.dedup_histories(api, ds, current, claimed_pods)?;
            if revision(&cur) < next_revision {
                let mut v = cur.value.clone();
                v["revision"] = json!(next_revision);
                api.update(
                    &registry::CONTROLLERREVISIONS,
                    ns,
                    cur.name(),
                    v,
                    None,
                    &opts,
                )
                .map_err(|e| e.to_string())?
            } else {
                cur
            }
        };
        let hash = meta::label(&cur.value, REVISION_HASH_LABEL)
            .unwrap_or("")
            .to_string();
        Ok((hash, old))
    }

    /// `snapshot`: create `<ds>-<hash>`; a name taken by another template bumps collisionCount.
    pub(super) fn snapshot_revision(
        &self,
        api: &Api,
        ds: &Stored,
        data: &Value,
        revision: i64,
    ) -> Result<Stored, String> {
        let ns = ds.namespace();
        let collision = ds.value["status"]["collisionCount"].as_i64();
        let hash = template_hash(&ds.value["spec"]["template"], collision);
        let name = format!("{}-{}", ds.name(), hash);
        let mut labels: BTreeMap<String, Value> = ds.value["spec"]["template"]["metadata"]
            ["labels"]
            .as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        labels.insert(REVISION_HASH_LABEL.into(), json!(hash));
        let mut metadata = Map::new();
        metadata.insert("name".into(), json!(name));
        metadata.insert("namespace".into(), json!(ns));
        metadata.insert("labels".into(), Value::Object(labels.into_iter().collect()));
        if let Some(a) = ds.value["metadata"]["annotations"]
            .as_object()
            .filter(|a| !a.is_empty())
        {
            metadata.insert("annotations".into(), Value::Object(a.clone()));
        }
        metadata.insert("ownerReferences".into(), json!([controller_ref(&ds.value)]));
        let cr = json!({
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": metadata,
            "data": data,
            "revision": revision,
        });
        match api.create(
            &registry::CONTROLLERREVISIONS,
            ns,
            cr,
            &WriteOptions::default(),
        ) {
            Ok(c) => Ok(c),
            Err(e) if e.code == 409 => {
                let existing = api
                    .get(&registry::CONTROLLERREVISIONS, ns, &name)
                    .map_err(|e| e.to_string())?;
                if existing.value["data"] == *data {
                    return Ok(existing);
                }
                let mut v = ds.value.clone();
                v["status"]["collisionCount"] = json!(collision.unwrap_or(0) + 1);
                api.update_status(&registry::DAEMONSETS, v)
                    .map_err(|e| e.to_string())?;
                Err(e.to_string())
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// `dedupCurHistories`: keep the highest revision, relabel pods to it, delete the others.
    pub(super) fn dedup_histories(
        &self,
        api: &Api,
        ds: &Stored,
        current: Vec<Stored>,
        pods: &[Stored],
    ) -> Result<Stored, String> {
        let Some(keep) = current
            .iter()
            .fold(None::<&Stored>, |best, h| match best {
                Some(b)
                    if h.value["revision"].as_i64().unwrap_or(0)
                        < b.value["revision"].as_i64().unwrap_or(0) =>
                {
                    Some(b)
                }
                _ => Some(h),
            })
            .cloned()
        else {
            return Err("no current revision".into());
        };
        if current.len() == 1 {
            return Ok(keep);
        }
        let ns = ds.namespace();
        let keep_hash = meta::label(&keep.value, REVISION_HASH_LABEL)
            .unwrap_or("")
            .to_string();
        for pod in pods {
            if meta::label(&pod.value, REVISION_HASH_LABEL) != Some(keep_hash.as_str()) {
                let patch = json!({"metadata": {"labels": {REVISION_HASH_LABEL: keep_hash}}});
                let body = serde_json::to_vec(&patch).map_err(|e| e.to_string())?;
                api.patch(
                    &registry::PODS,
                    ns,
                    pod.name(),
                    crate::api::PatchKind::Merge,
                    &body,
                    None,
                    &WriteOptions::default(),
                )
                .map_err(|e| e.to_string())?;
            }
        }
        for h in &current {
            if h.name() != keep.name() {
                api.delete(
                    &registry::CONTROLLERREVISIONS,
                    ns,
                    h.name(),
                    &DeleteOptions::default(),
                )
                .map_err(|e| e.to_string())?;
            }
        }
        Ok(keep)
    }

    /// `cleanupHistory`: drop the oldest revisions beyond revisionHistoryLimit that no pod uses.
    pub(super) fn cleanup_history(
        &self,
        api: &Api,
        ds: &Stored,
        mut old: Vec<Stored>,
        pods: &[Stored],
    ) -> Result<(), String> {
        let keep = ds.value["spec"]["revisionHistoryLimit"]
            .as_i64()
            .unwrap_or(DEFAULT_REVISION_HISTORY_LIMIT);
        let mut to_kill = old.len() as i64 - keep;
        if to_kill <= 0 {
            return Ok(());
        }
        let live: HashSet<&str> = pods
            .iter()
            .filter_map(|p| meta::label(&p.value, REVISION_HASH_LABEL))
            .filter(|h| !h.is_empty())
            .collect();
        old.sort_by_key(|h| h.value["revision"].as_i64().unwrap_or(0));
        for h in &old {
            if to_kill <= 0 {
                break;
            }
            if meta::label(&h.value, REVISION_HASH_LABEL).is_some_and(|x| live.contains(x)) {
                continue;
            }
            let deleted = api.delete(
                &registry::CONTROLLERREVISIONS,
                ds.namespace(),
                h.name(),
                &DeleteOptions::default(),
            );
            if let Err(e) = deleted.map_err(|e| e.to_string()) {
                return Err(format!("cleaning up history: {e}"));
            }
            to_kill -= 1;
        }
        Ok(())
    }
}
