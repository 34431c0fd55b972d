//! The pure parts of the Deployment controller (`pkg/controller/deployment/util/deployment_util.go`):
//! the spec with its API defaults, maxSurge/maxUnavailable arithmetic, revision and replica
//! annotations, template equality ignoring the hash label, conditions and proportional scaling.

use std::cmp::Ordering;

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use crate::controllers::replicaset::{parse_time, sorted, spec_replicas};
use crate::intstr::scaled_value;
use crate::meta;
use crate::validation::pod::semantic_eq;

/// `apps.DefaultDeploymentUniqueLabelKey`.
pub const HASH_LABEL: &str = "pod-template-hash";
pub const REVISION: &str = "deployment.kubernetes.io/revision";
pub const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";
pub const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
pub const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
/// `maxRevHistoryLengthInChars` of sync.go.
const MAX_REV_HISTORY_CHARS: usize = 2000;
/// Deployment annotations never copied to its ReplicaSets (`annotationsToSkip`).
const SKIP_ANNOTATIONS: [&str; 6] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    REVISION_HISTORY,
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    "deprecated.deployment.rollback.to",
];

// Condition types and reasons.
pub const AVAILABLE: &str = "Available";
pub const PROGRESSING: &str = "Progressing";
pub const REPLICA_FAILURE: &str = "ReplicaFailure";
pub const REASON_RS_UPDATED: &str = "ReplicaSetUpdated";
pub const REASON_RS_CREATE_ERROR: &str = "ReplicaSetCreateError";
pub const REASON_NEW_RS: &str = "NewReplicaSetCreated";
pub const REASON_FOUND_NEW_RS: &str = "FoundNewReplicaSet";
pub const REASON_NEW_RS_AVAILABLE: &str = "NewReplicaSetAvailable";
pub const REASON_TIMED_OUT: &str = "ProgressDeadlineExceeded";
pub const REASON_PAUSED: &str = "DeploymentPaused";
pub const REASON_RESUMED: &str = "DeploymentResumed";
pub const REASON_MIN_AVAILABLE: &str = "MinimumReplicasAvailable";
pub const REASON_MIN_UNAVAILABLE: &str = "MinimumReplicasUnavailable";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    RollingUpdate,
    Recreate,
    /// A type the controller does not know (validation normally prevents it).
    Unsupported,
}

/// The parts of a Deployment's spec the controller reads, with the apps/v1 defaults applied
/// (`SetDefaults_Deployment`): replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit 10,
/// progressDeadlineSeconds 600.
#[derive(Debug, Clone)]
pub struct Spec {
    pub replicas: i64,
    pub strategy: Strategy,
    /// `rollingUpdate.maxSurge` as written (int or percentage).
    pub surge: Value,
    pub unavailable: Value,
    pub min_ready_seconds: i64,
    pub revision_history_limit: Option<i64>,
    /// `None` when there is no deadline (absent after defaulting can't happen; MaxInt32 means none).
    pub progress_deadline: Option<i64>,
    pub paused: bool,
    pub generation: i64,
}

impl Spec {
    pub fn of(d: &Value) -> Spec {
        let spec = &d["spec"];
        let strategy = match spec["strategy"]["type"].as_str() {
            None | Some("") | Some("RollingUpdate") => Strategy::RollingUpdate,
            Some("Recreate") => Strategy::Recreate,
            Some(_) => Strategy::Unsupported,
        };
        let rolling = &spec["strategy"]["rollingUpdate"];
        let or_default = |v: &Value| if v.is_null() { json!("25%") } else { v.clone() };
        let deadline = match spec["progressDeadlineSeconds"].as_i64() {
            None => Some(600),
            Some(n) if n == i64::from(i32::MAX) => None,
            Some(n) => Some(n),
        };
        Spec {
            replicas: spec_replicas(d),
            strategy,
            surge: or_default(&rolling["maxSurge"]),
            unavailable: or_default(&rolling["maxUnavailable"]),
            min_ready_seconds: spec["minReadySeconds"].as_i64().unwrap_or(0),
            revision_history_limit: match &spec["revisionHistoryLimit"] {
                Value::Null => Some(10),
                v => v.as_i64(),
            },
            progress_deadline: deadline,
            paused: spec["paused"].as_bool().unwrap_or(false),
            generation: d["metadata"]["generation"].as_i64().unwrap_or(0),
        }
    }

    pub fn rolling(&self) -> bool {
        self.strategy == Strategy::RollingUpdate
    }

    /// `MaxSurge`: 0 unless rolling (and on unparseable values).
    pub fn max_surge(&self) -> i64 {
        if !self.rolling() {
            return 0;
        }
        resolve_fenceposts(&self.surge, &self.unavailable, self.replicas).map_or(0, |(s, _)| s)
    }

    /// `MaxUnavailable`: 0 unless rolling with replicas, never more than the replicas.
    pub fn max_unavailable(&self) -> i64 {
        if !self.rolling() || self.replicas == 0 {
            return 0;
        }
        resolve_fenceposts(&self.surge, &self.unavailable, self.replicas)
            .map_or(0, |(_, u)| u.min(self.replicas))
    }

    /// `NewRSNewReplicas`: how big the new ReplicaSet may be now, given the replicas all of the
    /// deployment's ReplicaSets ask for (`total`, the new one's included) and the new one's.
    pub fn new_rs_replicas(&self, total: i64, current_new: i64) -> Result<i64, String> {
        match self.strategy {
            Strategy::RollingUpdate => {
                let surge = scaled_value(&self.surge, self.replicas, true)?;
                let max_total = self.replicas + surge;
                if total >= max_total {
                    return Ok(current_new);
                }
                let up = (max_total - total).min(self.replicas - current_new);
                Ok(current_new + up)
            }
            Strategy::Recreate => Ok(self.replicas),
            Strategy::Unsupported => Err("deployment type isn't supported".into()),
        }
    }
}

/// `ResolveFenceposts`: surge rounds up, unavailable down; both zero means one may be
/// unavailable (surge might be impossible, e.g. under quota).
pub fn resolve_fenceposts(surge: &Value, unavailable: &Value, desired: i64) -> Option<(i64, i64)> {
    let zero = json!(0);
    let pick = |v: &Value| if v.is_null() { zero.clone() } else { v.clone() };
    let s = scaled_value(&pick(surge), desired, true).ok()?;
    let mut u = scaled_value(&pick(unavailable), desired, false).ok()?;
    if s == 0 && u == 0 {
        u = 1;
    }
    Some((s, u))
}

/// The `deployment.kubernetes.io/revision` of a ReplicaSet (`Revision`), when it parses.
pub fn revision(obj: &Value) -> Option<i64> {
    meta::annotation(obj, REVISION).and_then(|r| r.parse().ok())
}

fn annotation_int(obj: &Value, key: &str) -> Option<i64> {
    meta::annotation(obj, key).and_then(|r| r.parse().ok())
}

/// `GetDesiredReplicasAnnotation`.
pub fn desired_replicas_annotation(rs: &Value) -> Option<i64> {
    annotation_int(rs, DESIRED_REPLICAS)
}

/// The annotations map of an object, created when missing.
pub fn annotations_mut(obj: &mut Value) -> &mut Map<String, Value> {
    let m = meta::meta_mut(obj);
    meta::object_mut(m.entry("annotations").or_insert(Value::Null))
}

fn set_annotation(obj: &mut Value, key: &str, value: String) {
    let map = annotations_mut(obj);
    map.insert(key.into(), json!(value));
    *map = sorted(map);
}

/// `SetReplicasAnnotations`: desired and max replicas on a ReplicaSet; true when changed.
pub fn set_replicas_annotations(rs: &mut Value, desired: i64, max: i64) -> bool {
    let mut changed = false;
    for (key, n) in [(DESIRED_REPLICAS, desired), (MAX_REPLICAS, max)] {
        let want = n.to_string();
        if meta::annotation(rs, key) != Some(want.as_str()) {
            set_annotation(rs, key, want);
            changed = true;
        }
    }
    changed
}

/// `ReplicasAnnotationsNeedUpdate`.
pub fn replicas_annotations_need_update(rs: &Value, desired: i64, max: i64) -> bool {
    meta::annotation(rs, DESIRED_REPLICAS) != Some(desired.to_string().as_str())
        || meta::annotation(rs, MAX_REPLICAS) != Some(max.to_string().as_str())
}

/// `SetDeploymentRevision`: true when the deployment's revision annotation changed.
pub fn set_deployment_revision(d: &mut Value, revision: &str) -> bool {
    if meta::annotation(d, REVISION).unwrap_or("") == revision {
        return false;
    }
    set_annotation(d, REVISION, revision.to_string());
    true
}

/// `SetNewReplicaSetAnnotations`: copy the deployment's annotations, raise the revision to
/// `new_revision` (remembering the previous one in revision-history on a rollback), and on a
/// new ReplicaSet the replica annotations. True when anything changed.
pub fn set_new_rs_annotations(
    d: &Value,
    spec: &Spec,
    rs: &mut Value,
    new_revision: i64,
    exists: bool,
) -> bool {
    let mut changed = false;
    if let Some(src) = meta::meta(d)
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object)
    {
        for (k, v) in src {
            if SKIP_ANNOTATIONS.contains(&k.as_str()) {
                continue;
            }
            let map = annotations_mut(rs);
            if map.get(k) != Some(v) {
                map.insert(k.clone(), v.clone());
                changed = true;
            }
        }
    }
    let old = meta::annotation(rs, REVISION).map(str::to_string);
    let old_n = match old.as_deref() {
        None | Some("") => 0,
        Some(s) => match s.parse::<i64>() {
            Ok(n) => n,
            // An unparseable revision is left alone (upstream logs and gives up).
            Err(_) => return finish_annotations(rs, changed),
        },
    };
    if old_n < new_revision {
        set_annotation(rs, REVISION, new_revision.to_string());
        changed = true;
        if let Some(old) = old.filter(|o| !o.is_empty()) {
            let history = meta::annotation(rs, REVISION_HISTORY)
                .unwrap_or("")
                .to_string();
            if history.is_empty() {
                set_annotation(rs, REVISION_HISTORY, old);
            } else {
                let mut revs: Vec<&str> = history.split(',').collect();
                let mut total = history.len() + old.len() + 1;
                let mut start = 0;
                while total > MAX_REV_HISTORY_CHARS && start < revs.len() {
                    total -= revs[start].len() + 1;
                    start += 1;
                }
                if total <= MAX_REV_HISTORY_CHARS {
                    revs = revs.split_off(start);
                    revs.push(&old);
                    let joined = revs.join(",");
                    set_annotation(rs, REVISION_HISTORY, joined);
                }
            }
        }
    }
    if !exists && set_replicas_annotations(rs, spec.replicas, spec.replicas + spec.max_surge()) {
        changed = true;
    }
    finish_annotations(rs, changed)
}

fn finish_annotations(rs: &mut Value, changed: bool) -> bool {
    let map = annotations_mut(rs);
    *map = sorted(map);
    changed
}

/// `EqualIgnoreHash`: pod templates equal apart from the pod-template-hash label (both copies
/// lose it, then `apiequality.Semantic.DeepEqual`).
pub fn equal_ignore_hash(a: &Value, b: &Value) -> bool {
    let without_hash = |t: &Value| {
        let mut t = t.clone();
        if let Some(labels) = t
            .pointer_mut("/metadata/labels")
            .and_then(Value::as_object_mut)
        {
            labels.remove(HASH_LABEL);
        }
        t
    };
    semantic_eq(&without_hash(a), &without_hash(b))
}

/// `CloneAndAddLabel` on a template's labels.
pub fn add_template_label(template: &mut Value, value: &str) {
    let m = meta::meta_mut(template);
    let labels = m.entry("labels").or_insert_with(|| json!({}));
    if !labels.is_object() {
        *labels = json!({});
    }
    if let Value::Object(l) = labels {
        l.insert(HASH_LABEL.into(), json!(value));
        *l = sorted(l);
    }
}

/// `CloneSelectorAndAddLabel`.
pub fn selector_with_hash(selector: &Value, value: &str) -> Value {
    let mut s = selector.as_object().cloned().unwrap_or_default();
    let mut labels = s
        .get("matchLabels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    labels.insert(HASH_LABEL.into(), json!(value));
    let mut out = Map::new();
    out.insert("matchLabels".into(), Value::Object(sorted(&labels)));
    s.remove("matchLabels");
    out.extend(s);
    Value::Object(out)
}

/// `NewDeploymentCondition`.
pub fn new_condition(type_: &str, status: &str, reason: &str, message: &str, now: &str) -> Value {
    json!({
        "type": type_, "status": status, "lastUpdateTime": now, "lastTransitionTime": now,
        "reason": reason, "message": message,
    })
}

pub fn get_condition<'a>(conditions: &'a [Value], type_: &str) -> Option<&'a Value> {
    conditions.iter().find(|c| c["type"] == type_)
}

/// `SetDeploymentCondition`: nothing when status and reason are unchanged; the transition time
/// survives a same-status update; the condition moves to the end.
pub fn set_condition(conditions: &mut Vec<Value>, mut cond: Value) {
    if let Some(cur) = get_condition(conditions, cond["type"].as_str().unwrap_or("")) {
        if cur["status"] == cond["status"] && cur["reason"] == cond["reason"] {
            return;
        }
        if cur["status"] == cond["status"] {
            cond["lastTransitionTime"] = cur["lastTransitionTime"].clone();
        }
    }
    remove_condition(conditions, cond["type"].as_str().unwrap_or(""));
    conditions.push(cond);
}

pub fn remove_condition(conditions: &mut Vec<Value>, type_: &str) {
    conditions.retain(|c| c["type"] != type_);
}

/// `ReplicaSetToDeploymentCondition`.
pub fn rs_condition_to_deployment(c: &Value) -> Value {
    json!({
        "type": c["type"], "status": c["status"], "lastUpdateTime": c["lastTransitionTime"],
        "lastTransitionTime": c["lastTransitionTime"], "reason": c["reason"], "message": c["message"],
    })
}

/// The counts of a DeploymentStatus.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    pub observed_generation: i64,
    pub replicas: i64,
    pub updated: i64,
    pub ready: i64,
    pub available: i64,
    pub unavailable: i64,
}

/// A DeploymentStatus in Go's field order, zeros omitted.
pub fn status_json(c: &Counts, conditions: &[Value], collision_count: Option<&Value>) -> Value {
    let mut s = Map::new();
    for (k, n) in [
        ("observedGeneration", c.observed_generation),
        ("replicas", c.replicas),
        ("updatedReplicas", c.updated),
        ("readyReplicas", c.ready),
        ("availableReplicas", c.available),
        ("unavailableReplicas", c.unavailable),
    ] {
        if n != 0 {
            s.insert(k.into(), json!(n));
        }
    }
    if !conditions.is_empty() {
        s.insert("conditions".into(), Value::Array(conditions.to_vec()));
    }
    if let Some(cc) = collision_count.filter(|v| !v.is_null()) {
        s.insert("collisionCount".into(), cc.clone());
    }
    Value::Object(s)
}

fn status_i(status: &Value, key: &str) -> i64 {
    status[key].as_i64().unwrap_or(0)
}

/// `DeploymentComplete`.
pub fn deployment_complete(spec: &Spec, status: &Value) -> bool {
    status_i(status, "updatedReplicas") == spec.replicas
        && status_i(status, "replicas") == spec.replicas
        && status_i(status, "availableReplicas") == spec.replicas
        && status_i(status, "observedGeneration") >= spec.generation
}

/// `DeploymentProgressing`: new pods updated, ready or available, or old ones gone.
pub fn deployment_progressing(old: &Value, new: &Value) -> bool {
    let old_old = status_i(old, "replicas") - status_i(old, "updatedReplicas");
    let new_old = status_i(new, "replicas") - status_i(new, "updatedReplicas");
    status_i(new, "updatedReplicas") > status_i(old, "updatedReplicas")
        || new_old < old_old
        || status_i(new, "readyReplicas") > status_i(old, "readyReplicas")
        || status_i(new, "availableReplicas") > status_i(old, "availableReplicas")
}

/// `DeploymentTimedOut`: the Progressing condition has not moved for progressDeadlineSeconds.
pub fn deployment_timed_out(spec: &Spec, conditions: &[Value], now: DateTime<Utc>) -> bool {
    let Some(deadline) = spec.progress_deadline else {
        return false;
    };
    let Some(cond) = get_condition(conditions, PROGRESSING) else {
        return false;
    };
    match cond["reason"].as_str() {
        Some(REASON_NEW_RS_AVAILABLE) => false,
        Some(REASON_TIMED_OUT) => true,
        _ => parse_time(&cond["lastUpdateTime"])
            .is_some_and(|from| from + chrono::Duration::seconds(deadline) < now),
    }
}

/// `ReplicaSetsByCreationTimestamp`: older first, then by name.
pub fn by_creation(a: &Value, b: &Value) -> Ordering {
    parse_time(&a["metadata"]["creationTimestamp"])
        .cmp(&parse_time(&b["metadata"]["creationTimestamp"]))
        .then_with(|| meta::name(a).cmp(meta::name(b)))
}

/// `ReplicaSetsByRevision`: lower revision first, then by creation.
pub fn by_revision(a: &Value, b: &Value) -> Ordering {
    revision(a)
        .unwrap_or(0)
        .cmp(&revision(b).unwrap_or(0))
        .then_with(|| by_creation(a, b))
}

/// `GetProportion`: the share of a scaling of the whole deployment (by `to_add`, `added` of it
/// already handed out) that falls to `rs`, never overshooting what is left.
pub fn proportion(rs: &Value, spec: &Spec, status_replicas: i64, to_add: i64, added: i64) -> i64 {
    let size = spec_replicas(rs);
    if size == 0 || to_add == 0 || to_add == added {
        return 0;
    }
    let fraction = replica_set_fraction(rs, spec, status_replicas);
    let allowed = to_add - added;
    if to_add > 0 {
        fraction.min(allowed)
    } else {
        fraction.max(allowed)
    }
}

/// `getReplicaSetFraction`: the replica set's size scaled by new/old deployment maximum.
fn replica_set_fraction(rs: &Value, spec: &Spec, status_replicas: i64) -> i64 {
    let size = spec_replicas(rs);
    if spec.replicas == 0 {
        return -size;
    }
    let max_now = spec.replicas + spec.max_surge();
    let max_before = match annotation_int(rs, MAX_REPLICAS) {
        Some(n) if n != 0 => n,
        // No (usable) annotation: fall back to the deployment's current size.
        _ if status_replicas == 0 => return 0,
        _ => status_replicas,
    };
    let scaled = (size * max_now) as f64 / max_before as f64;
    // integer.RoundToInt32.
    (scaled + 0.5).floor() as i64 - size
}

/// The current time as metav1.Time prints it, and as a `DateTime` for arithmetic.
pub fn now_pair() -> (String, DateTime<Utc>) {
    (meta::now(), Utc::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(replicas: i64, surge: Value, unavailable: Value) -> Spec {
        Spec::of(
            &json!({"metadata": {"generation": 1}, "spec": {"replicas": replicas,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}}}),
        )
    }

    #[test]
    fn defaults_follow_apps_v1() {
        let s = Spec::of(&json!({"spec": {}}));
        assert_eq!(s.replicas, 1);
        assert_eq!(s.strategy, Strategy::RollingUpdate);
        assert_eq!(
            (s.surge.clone(), s.unavailable.clone()),
            (json!("25%"), json!("25%"))
        );
        assert_eq!(s.revision_history_limit, Some(10));
        assert_eq!(s.progress_deadline, Some(600));
    }

    #[test]
    fn surge_rounds_up_and_unavailable_rounds_down() {
        let s = spec(4, json!("25%"), json!("25%"));
        assert_eq!((s.max_surge(), s.max_unavailable()), (1, 1));
        let s = spec(10, json!("25%"), json!("25%"));
        assert_eq!((s.max_surge(), s.max_unavailable()), (3, 2));
        let s = spec(4, json!("10%"), json!("10%"));
        assert_eq!((s.max_surge(), s.max_unavailable()), (1, 0));
        let s = spec(3, json!(2), json!(5));
        assert_eq!(
            (s.max_surge(), s.max_unavailable()),
            (2, 3),
            "unavailable is capped at replicas"
        );
    }

    #[test]
    fn both_fenceposts_zero_allows_one_unavailable() {
        let s = spec(4, json!(0), json!(0));
        assert_eq!((s.max_surge(), s.max_unavailable()), (0, 1));
        let s = spec(4, json!("0%"), json!("10%"));
        assert_eq!((s.max_surge(), s.max_unavailable()), (0, 1));
    }

    #[test]
    fn recreate_has_no_surge_or_unavailability_budget() {
        let s = Spec::of(&json!({"spec": {"replicas": 4, "strategy": {"type": "Recreate"}}}));
        assert_eq!((s.max_surge(), s.max_unavailable()), (0, 0));
        assert_eq!(s.new_rs_replicas(4, 0), Ok(4));
    }

    #[test]
    fn new_replica_set_grows_within_the_surge() {
        let s = spec(4, json!(1), json!(0));
        assert_eq!(s.new_rs_replicas(4, 0), Ok(1));
        assert_eq!(s.new_rs_replicas(5, 1), Ok(1));
        assert_eq!(s.new_rs_replicas(3, 1), Ok(3));
        assert_eq!(s.new_rs_replicas(3, 3), Ok(4));
    }

    fn rs(replicas: i64, max: i64) -> Value {
        json!({"metadata": {"annotations": {MAX_REPLICAS: max.to_string()}}, "spec": {"replicas": replicas}})
    }

    #[test]
    fn proportions_match_upstream_scale_tests() {
        // sync_test.go TestScale "proportional scaling: 5 -> 10" (maxSurge 0): new 2, old 3.
        let s = spec(10, json!(0), json!(0));
        let p_old = proportion(&rs(3, 5), &s, 5, 5, 0);
        let p_new = proportion(&rs(2, 5), &s, 5, 5, p_old);
        assert_eq!((3 + p_old, 2 + p_new), (6, 4));
        // "proportional scaling: 5 -> 3": old first when scaling down.
        let s = spec(3, json!(0), json!(0));
        let p_old = proportion(&rs(3, 5), &s, 5, -2, 0);
        let p_new = proportion(&rs(2, 5), &s, 5, -2, p_old);
        assert_eq!((3 + p_old, 2 + p_new), (2, 1));
        // Scaling to zero takes everything.
        let s = spec(0, json!(0), json!(0));
        assert_eq!(proportion(&rs(3, 5), &s, 5, -5, 0), -3);
    }

    #[test]
    fn templates_compare_without_the_hash_label() {
        let d = json!({"metadata": {"labels": {"app": "a"}, "creationTimestamp": null}, "spec": {"containers": [{"name": "c", "image": "i"}]}});
        let mut r = d.clone();
        add_template_label(&mut r, "abc");
        assert!(equal_ignore_hash(&d, &r));
        let mut other = r.clone();
        other["spec"]["containers"][0]["image"] = json!("j");
        assert!(!equal_ignore_hash(&d, &other));
        let bare = json!({"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "i", "env": []}]}});
        assert!(equal_ignore_hash(&d, &bare));
    }

    #[test]
    fn selector_gains_the_hash_label() {
        let sel = json!({"matchLabels": {"app": "a"}, "matchExpressions": [{"key": "k", "operator": "Exists"}]});
        assert_eq!(
            selector_with_hash(&sel, "abc"),
            json!({"matchLabels": {"app": "a", "pod-template-hash": "abc"}, "matchExpressions": [{"key": "k", "operator": "Exists"}]})
        );
    }

    #[test]
    fn rollback_revisions_are_remembered() {
        let d = json!({"metadata": {"annotations": {"kubernetes.io/change-cause": "v1", REVISION: "3"}}});
        let s = spec(4, json!(1), json!(0));
        let mut r = json!({"metadata": {"annotations": {REVISION: "1"}}});
        assert!(set_new_rs_annotations(&d, &s, &mut r, 3, true));
        assert_eq!(
            r["metadata"]["annotations"],
            json!({"deployment.kubernetes.io/revision": "3", "deployment.kubernetes.io/revision-history": "1", "kubernetes.io/change-cause": "v1"})
        );
        assert!(set_new_rs_annotations(&d, &s, &mut r, 5, true));
        assert_eq!(r["metadata"]["annotations"][REVISION_HISTORY], "1,3");
        assert!(!set_new_rs_annotations(&d, &s, &mut r, 5, true));
        let mut fresh = json!({"metadata": {}});
        assert!(set_new_rs_annotations(&d, &s, &mut fresh, 1, false));
        assert_eq!(
            fresh["metadata"]["annotations"],
            json!({"deployment.kubernetes.io/desired-replicas": "4", "deployment.kubernetes.io/max-replicas": "5", "deployment.kubernetes.io/revision": "1", "kubernetes.io/change-cause": "v1"})
        );
    }

    #[test]
    fn conditions_keep_transition_time_and_move_last() {
        let mut conds = vec![
            new_condition(PROGRESSING, "True", REASON_NEW_RS, "m", "t0"),
            new_condition(AVAILABLE, "False", REASON_MIN_UNAVAILABLE, "m", "t0"),
        ];
        set_condition(
            &mut conds,
            new_condition(PROGRESSING, "True", REASON_NEW_RS, "other", "t1"),
        );
        assert_eq!(
            conds[0]["lastUpdateTime"], "t0",
            "same status and reason: unchanged"
        );
        set_condition(
            &mut conds,
            new_condition(PROGRESSING, "True", REASON_NEW_RS_AVAILABLE, "done", "t2"),
        );
        assert_eq!(conds[1]["type"], PROGRESSING);
        assert_eq!(
            (
                conds[1]["lastTransitionTime"].as_str(),
                conds[1]["lastUpdateTime"].as_str()
            ),
            (Some("t0"), Some("t2"))
        );
    }

    #[test]
    fn timed_out_when_progress_is_older_than_the_deadline() {
        let s = spec(4, json!(1), json!(0));
        let now = Utc::now();
        let old = (now - chrono::Duration::seconds(601))
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        let conds = vec![new_condition(
            PROGRESSING,
            "True",
            REASON_RS_UPDATED,
            "m",
            &old,
        )];
        assert!(deployment_timed_out(&s, &conds, now));
        let conds = vec![new_condition(
            PROGRESSING,
            "True",
            REASON_NEW_RS_AVAILABLE,
            "m",
            &old,
        )];
        assert!(!deployment_timed_out(&s, &conds, now));
    }
}
