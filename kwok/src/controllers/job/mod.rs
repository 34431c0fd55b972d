//! The Job controller (`pkg/controller/job/job_controller.go`), as 1.32 runs it with its default
//! feature gates (JobPodReplacementPolicy, JobSuccessPolicy, JobManagedBy, PodIndexLabel):
//!
//! - it keeps `min(completions - succeeded, parallelism)` pods running (the parallelism until the
//!   first success when completions is unset), each created with the
//!   `batch.kubernetes.io/job-tracking` finalizer, and waits `10s * 2^(n-1)` (at most 10 min)
//!   after the n-th failure in a row before creating the next;
//! - a terminated pod is counted exactly once: its uid goes to `uncountedTerminatedPods`, the
//!   status is written, the finalizer comes off, and the uid moves into `succeeded` or `failed`;
//! - success is `SuccessCriteriaMet`, then `Complete` with `completionTime`; failure (more failed
//!   pods than `backoffLimit`, restarts past it with `OnFailure`, or `activeDeadlineSeconds`
//!   passed) is `FailureTarget`, the active pods deleted, then `Failed` once none is terminating;
//! - `spec.suspend` deletes the active pods and sets `Suspended`; resuming resets `startTime`;
//! - `podFailurePolicy` rules decide what a failed pod means (`failure_policy.rs`), and an
//!   Indexed job runs each completion index once (`indexed.rs`).
//!
//! Success policies and per-index backoff limits are stored and validated but not acted on.

mod backoff;
mod conditions;
mod failure_policy;
mod indexed;
#[cfg(test)]
mod tests;
mod tracking;

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::events::Recorder;
use super::ownership::{adopt, claim, controller_ref, release, Claim};
use super::pod_control::PodControl;
use super::replicaset::pod_from_template;
use super::{just_after, Controller, Pass};
use crate::api::Api;
use crate::meta;
use crate::podutil::{condition, is_pod_ready, is_pod_terminal, parse_time};
use crate::registry;
use crate::selectors::LabelSelector;
use crate::store::{Event, Stored};
use conditions::{
    condition_true, push_condition, set_condition, Finish, BACKOFF_LIMIT_EXCEEDED,
    DEADLINE_EXCEEDED, POD_FAILURE_POLICY,
};
pub use conditions::{finished_condition, is_finished};
use failure_policy::Verdict;
pub use tracking::TRACKING_FINALIZER;
use tracking::{has_finalizer, remove_finalizer, Uncounted};

/// The event source of this controller.
pub const COMPONENT: &str = "job-controller";

pub struct JobController {
    recorder: Recorder,
}

impl Default for JobController {
    fn default() -> Self {
        Self {
            recorder: Recorder::new(COMPONENT),
        }
    }
}

impl Controller for JobController {
    fn name(&self) -> &'static str {
        COMPONENT
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::JOBS) || std::ptr::eq(ev.res, &registry::PODS)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let (jobs, _) = api.store().list(&registry::JOBS, None);
        let (pods, _) = api.store().list(&registry::PODS, None);
        let mut by_namespace: HashMap<&str, Vec<&Stored>> = HashMap::new();
        for pod in &pods {
            by_namespace.entry(pod.namespace()).or_default().push(pod);
        }
        let live: BTreeSet<&str> = jobs.iter().map(|j| meta::uid(&j.value)).collect();
        let now = Utc::now();
        for job in &jobs {
            let candidates = by_namespace
                .get(job.namespace())
                .map_or(&[][..], Vec::as_slice);
            let synced = Sync {
                api,
                recorder: &self.recorder,
                job,
                now,
            }
            .run(candidates);
            pass.absorb(synced);
        }
        // The orphan worker: a tracked pod whose job is gone keeps no finalizer.
        for pod in &pods {
            let owner = meta::controller_ref(&pod.value)
                .filter(|r| r["kind"] == "Job")
                .and_then(|r| r["uid"].as_str());
            if has_finalizer(pod) && owner.is_none_or(|uid| !live.contains(uid)) {
                pass.check(
                    "releasing an orphan's finalizer",
                    remove_finalizer(api, pod),
                );
            }
        }
        pass
    }
}

pub(super) fn phase(pod: &Value) -> &str {
    pod["status"]["phase"].as_str().unwrap_or("")
}

/// One sync of one job (`syncJob`).
struct Sync<'a> {
    api: &'a Api,
    recorder: &'a Recorder,
    job: &'a Stored,
    now: DateTime<Utc>,
}

/// `getFailJobMessage`: the message of the first failed pod a FailJob rule matches.
fn fail_job_message(
    policy: &Value,
    pods: &[Stored],
    is_failed: impl Fn(&Value) -> bool,
) -> Option<String> {
    if !policy.is_object() {
        return None;
    }
    pods.iter().filter(|p| is_failed(&p.value)).find_map(|p| {
        match failure_policy::verdict(policy, &p.value) {
            Verdict::FailJob(message) => Some(message),
            _ => None,
        }
    })
}

impl Sync<'_> {
    fn spec_int(&self, key: &str) -> Option<i64> {
        self.job.value["spec"][key].as_i64()
    }

    fn event(&self, type_: &str, reason: &str, message: &str) {
        self.recorder.event(
            self.api,
            &registry::JOBS,
            &self.job.value,
            type_,
            reason,
            message,
        );
    }

    /// `getPodsForJob`: the pods this job controls, adopting matching orphans and releasing
    /// pods that stopped matching.
    fn claim(&self, candidates: &[&Stored], pass: &mut Pass) -> Vec<Stored> {
        let v = &self.job.value;
        let Ok(selector) = LabelSelector::from_api(&v["spec"]["selector"]) else {
            return Vec::new();
        };
        let mut owned = Vec::new();
        for pod in candidates {
            match claim(v, &pod.value, selector.matches(meta::labels(&pod.value))) {
                Claim::Owned => owned.push((*pod).clone()),
                Claim::Adopt => {
                    let adopted = adopt(
                        self.api,
                        &registry::PODS,
                        pod,
                        controller_ref(v, &registry::JOBS),
                    );
                    owned.extend(pass.check("adopting a pod", adopted));
                }
                Claim::Release => {
                    let released = release(self.api, &registry::PODS, pod, meta::uid(v));
                    pass.check("releasing a pod", released);
                }
                Claim::Ignore => {}
            }
        }
        owned
    }

    fn run(self, candidates: &[&Stored]) -> Pass {
        let mut pass = Pass::default();
        let v = &self.job.value;
        let pods = self.claim(candidates, &mut pass);
        if is_finished(v) || meta::is_deleting(v) {
            // Finished or going: nothing is tracked any more.
            for pod in pods.iter().filter(|p| has_finalizer(p)) {
                pass.check(
                    "removing a tracking finalizer",
                    remove_finalizer(self.api, pod),
                );
            }
            return pass;
        }
        let mut status = v["status"].as_object().cloned().unwrap_or_default();
        let suspended = v["spec"]["suspend"] == true;
        let now_text = meta::time(self.now);
        let was_suspended = condition_true(v, "Suspended");
        if !suspended && (status.get("startTime").is_none_or(Value::is_null) || was_suspended) {
            status.insert("startTime".into(), json!(now_text));
        }
        let only_replace_failed = v["spec"]["podReplacementPolicy"] == "Failed"
            || v["spec"]["podFailurePolicy"].is_object();
        let is_failed = |p: &Value| {
            phase(p) == "Failed"
                || (!only_replace_failed && meta::is_deleting(p) && phase(p) != "Succeeded")
        };
        let mut active: Vec<&Stored> = pods
            .iter()
            .filter(|p| !is_pod_terminal(&p.value) && !meta::is_deleting(&p.value))
            .collect();
        let mut uncounted = Uncounted::of(&status);
        let tracked = |p: &&Stored| has_finalizer(p);
        let mut newly_succeeded: Vec<&Stored> = pods
            .iter()
            .filter(tracked)
            .filter(|p| phase(&p.value) == "Succeeded" && !uncounted.has(&p.value))
            .collect();
        // An indexed job counts each index once: a second success of an index, or one without
        // a valid index, only loses its finalizer.
        let indexed = v["spec"]["completionMode"] == "Indexed";
        let mut done_indexes = BTreeSet::new();
        let mut repeated = Vec::new();
        if indexed {
            let completions = self.spec_int("completions").unwrap_or(0);
            let text = status
                .get("completedIndexes")
                .and_then(Value::as_str)
                .unwrap_or("");
            done_indexes = indexed::parse(text, completions);
            for p in pods
                .iter()
                .filter(|p| uncounted.succeeded.iter().any(|u| u == meta::uid(&p.value)))
            {
                done_indexes.extend(indexed::index_of(&p.value));
            }
            let (fresh, again): (Vec<&Stored>, Vec<&Stored>) =
                newly_succeeded.into_iter().partition(|p| {
                    indexed::index_of(&p.value)
                        .filter(|i| *i < completions)
                        .is_some_and(|i| done_indexes.insert(i))
                });
            newly_succeeded = fresh;
            repeated = again;
        }
        // Failed pods an Ignore rule matches lose their finalizer but are never counted.
        let policy = &v["spec"]["podFailurePolicy"];
        let counts = |p: &Value| {
            !policy.is_object() || failure_policy::verdict(policy, p) != Verdict::Ignore
        };
        let (mut newly_failed, mut ignored): (Vec<&Stored>, Vec<&Stored>) = pods
            .iter()
            .filter(tracked)
            .filter(|p| is_failed(&p.value) && !uncounted.has(&p.value))
            .partition(|p| counts(&p.value));
        ignored.extend(repeated);
        let counted = |key: &str| status.get(key).and_then(Value::as_i64).unwrap_or(0);
        let succeeded = if indexed {
            done_indexes.len() as i64
        } else {
            counted("succeeded") + newly_succeeded.len() as i64 + uncounted.succeeded.len() as i64
        };
        let failed = counted("failed") + newly_failed.len() as i64 + uncounted.failed.len() as i64;

        let mut finish: Option<Finish> = None;
        if !condition_true(v, "SuccessCriteriaMet") {
            if let Some(target) = condition(v, "FailureTarget").filter(|c| c["status"] == "True") {
                // `newFailedConditionForFailureTarget`: Failed takes the target's words.
                let text = |k: &str| target[k].as_str().unwrap_or("").to_string();
                finish = Some(Finish::failed(text("reason"), text("message")));
            } else if let Some(message) = fail_job_message(policy, &pods, is_failed) {
                finish = Some(Finish::failed(POD_FAILURE_POLICY.into(), message));
            } else if failed > self.spec_int("backoffLimit").unwrap_or(6)
                || backoff::past_limit_on_failure(v, active.iter().map(|p| &p.value))
            {
                finish = Some(Finish::failed_because(BACKOFF_LIMIT_EXCEEDED));
            } else if let Some(deadline) = self.active_deadline(&status) {
                if deadline <= self.now && !suspended {
                    finish = Some(Finish::failed_because(DEADLINE_EXCEEDED));
                } else if !suspended {
                    pass.wake(Some(just_after(deadline, self.now)));
                }
            }
        }
        let mut created = 0;
        if finish.is_some() {
            // `deleteActivePods`; when the job finishes, every pod not succeeded is failed.
            for pod in active.drain(..) {
                self.delete_pod(pod, &mut pass);
            }
            let seen = |pod: &Stored, list: &[&Stored]| list.iter().any(|p| p.name() == pod.name());
            for pod in pods.iter().filter(tracked) {
                if phase(&pod.value) == "Succeeded"
                    || uncounted.has(&pod.value)
                    || seen(pod, &newly_failed)
                    || seen(pod, &ignored)
                {
                    continue;
                }
                if counts(&pod.value) {
                    newly_failed.push(pod);
                } else {
                    ignored.push(pod);
                }
            }
        } else {
            let completions = self.spec_int("completions");
            let done = match completions {
                None => succeeded > 0 && active.is_empty(),
                Some(c) => succeeded >= c && active.is_empty(),
            };
            if done {
                finish = Some(Finish::complete());
            } else if suspended {
                for pod in active.drain(..) {
                    self.delete_pod(pod, &mut pass);
                }
            } else {
                let done = indexed.then_some(&done_indexes);
                created = self.manage(&pods, &mut active, succeeded, done, &mut pass);
            }
        }
        self.suspension(&mut status, suspended, was_suspended);

        // Phase 1: the newly terminated pods into uncountedTerminatedPods, the interim condition.
        uncounted.add(&newly_succeeded, &newly_failed);
        if let Some(f) = &finish {
            if !condition_true(v, f.interim) {
                push_condition(&mut status, f.interim, &f.reason, &f.message, &now_text);
            }
        }
        let terminating = pods
            .iter()
            .filter(|p| meta::is_deleting(&p.value) && !is_pod_terminal(&p.value))
            .count()
            + if finish.is_some() {
                pods.iter()
                    .filter(|p| !is_pod_terminal(&p.value) && !meta::is_deleting(&p.value))
                    .count()
            } else {
                0
            };
        let ready = active.iter().filter(|p| is_pod_ready(&p.value)).count();
        // `active` is omitempty; `ready` and `terminating` are pointers, written even at 0.
        match active.len() + created {
            0 => status.remove("active"),
            n => status.insert("active".into(), json!(n)),
        };
        status.insert("ready".into(), json!(ready));
        status.insert("terminating".into(), json!(terminating));
        status.insert("uncountedTerminatedPods".into(), uncounted.to_json());
        if indexed && !done_indexes.is_empty() {
            status.insert(
                "completedIndexes".into(),
                json!(indexed::format(&done_indexes)),
            );
        }
        let Some(job) = self.write_status(&status, &mut pass) else {
            return pass;
        };

        // Phase 2: finalizers off every terminated pod, the ones a failed write left uncounted
        // included; then the uids move into the counters.
        let releasing: Vec<&Stored> = pods
            .iter()
            .filter(tracked)
            .filter(|p| uncounted.has(&p.value) || ignored.iter().any(|i| i.name() == p.name()))
            .collect();
        let mut held = BTreeSet::new();
        for pod in releasing {
            match remove_finalizer(self.api, pod) {
                Ok(_) => {}
                Err(e) if e.code == 404 => {}
                Err(e) => {
                    pass.fail("removing a tracking finalizer", e);
                    held.insert(meta::uid(&pod.value).to_string());
                }
            }
        }
        // A uid whose pod is gone or released is counted (`cleanUncountedPodsWithoutFinalizers`).
        let moved = uncounted.count_all_but(&mut status, &held);
        // Terminal condition once nothing is uncounted or terminating (`enactJobFinished`).
        let mut finished_as = None;
        if let Some(f) = finish {
            if uncounted.is_empty() && terminating == 0 {
                push_condition(&mut status, f.terminal, &f.reason, &f.message, &now_text);
                if f.terminal == "Complete" {
                    status.insert("completionTime".into(), json!(now_text));
                }
                finished_as = Some(f);
            }
        }
        if moved || finished_as.is_some() {
            status.insert("uncountedTerminatedPods".into(), uncounted.to_json());
            let mut next = job.value.clone();
            next["status"] = Value::Object(status);
            let written = self.api.update_status(&registry::JOBS, next);
            if pass.check("writing a job's status", written).is_none() {
                return pass;
            }
            match finished_as {
                Some(f) if f.terminal == "Complete" => {
                    self.event("Normal", "Completed", "Job completed")
                }
                Some(f) => self.event("Warning", &f.reason, &f.message),
                None => {}
            }
        }
        pass
    }

    /// The status as computed, written when it changed.
    fn write_status(&self, status: &Map<String, Value>, pass: &mut Pass) -> Option<Stored> {
        let current = self.job.value["status"].as_object();
        if current == Some(status) {
            return Some(self.job.clone());
        }
        let mut next = self.job.value.clone();
        next["status"] = Value::Object(status.clone());
        let written = self.api.update_status(&registry::JOBS, next);
        pass.check("writing a job's status", written)
    }

    /// When `activeDeadlineSeconds` runs out, counted from `startTime`.
    fn active_deadline(&self, status: &Map<String, Value>) -> Option<DateTime<Utc>> {
        let seconds = self.spec_int("activeDeadlineSeconds")?;
        let start = status.get("startTime").and_then(parse_time)?;
        Some(start + chrono::Duration::seconds(seconds))
    }

    /// `manageJob`: create or delete pods towards the wanted number of active ones; returns how
    /// many were created.
    fn manage(
        &self,
        pods: &[Stored],
        active: &mut Vec<&Stored>,
        succeeded: i64,
        done_indexes: Option<&BTreeSet<i64>>,
        pass: &mut Pass,
    ) -> usize {
        let parallelism = self.spec_int("parallelism").unwrap_or(1).max(0);
        let want = match self.spec_int("completions") {
            Some(c) => (c - succeeded).min(parallelism).max(0),
            None if succeeded > 0 => active.len() as i64,
            None => parallelism,
        };
        let want = usize::try_from(want).unwrap_or(0);
        if active.len() > want {
            // Surplus: not ready before ready, unscheduled before scheduled.
            active.sort_by_key(|p| {
                (
                    is_pod_ready(&p.value),
                    !p.value["spec"]["nodeName"]
                        .as_str()
                        .unwrap_or("")
                        .is_empty(),
                )
            });
            let surplus: Vec<&Stored> = active.drain(..active.len() - want).collect();
            for pod in surplus {
                self.delete_pod(pod, pass);
            }
            return 0;
        }
        let only_replace_failed = self.job.value["spec"]["podReplacementPolicy"] == "Failed";
        let terminating = if only_replace_failed {
            pods.iter()
                .filter(|p| meta::is_deleting(&p.value) && !is_pod_terminal(&p.value))
                .count()
        } else {
            0
        };
        let missing = want.saturating_sub(active.len() + terminating);
        if missing == 0 {
            return 0;
        }
        if let Some(wait) = backoff::remaining(pods.iter().map(|p| &p.value), self.now) {
            pass.wake(Some(wait));
            return 0;
        }
        let indexes: Vec<Option<i64>> = match done_indexes {
            Some(done) => {
                let completions = self.spec_int("completions").unwrap_or(0);
                indexed::pending(completions, done, active, missing)
                    .into_iter()
                    .map(Some)
                    .collect()
            }
            None => vec![None; missing],
        };
        let mut created = 0;
        for index in indexes {
            if self.create_pod(index, pass) {
                created += 1;
            }
        }
        created
    }

    /// One pod from the template, with the tracking finalizer (`CreatePodsWithGenerateName`).
    fn create_pod(&self, index: Option<i64>, pass: &mut Pass) -> bool {
        let mut pod = pod_from_template(&self.job.value, &registry::JOBS);
        if let Some(index) = index {
            indexed::decorate(&mut pod, self.job.name(), index);
        }
        let mut finalizers = meta::finalizers(&pod);
        if !finalizers.iter().any(|f| f == TRACKING_FINALIZER) {
            finalizers.push(TRACKING_FINALIZER.to_string());
        }
        pod["metadata"]["finalizers"] = json!(finalizers);
        match self.pods().create(self.job.namespace(), pod) {
            Ok(_) => true,
            Err(e) => {
                if !e.has_cause("NamespaceTerminating") {
                    pass.fail("creating a job's pod", e);
                }
                false
            }
        }
    }

    fn delete_pod(&self, pod: &Stored, pass: &mut Pass) {
        if let Err(e) = self.pods().delete(pod.namespace(), pod.name()) {
            pass.fail("deleting a job's pod", e);
        }
    }

    fn pods(&self) -> PodControl<'_> {
        PodControl {
            api: self.api,
            recorder: self.recorder,
            kind: &registry::JOBS,
            owner: &self.job.value,
        }
    }

    /// The `Suspended` condition and its events as `spec.suspend` changes.
    fn suspension(&self, status: &mut Map<String, Value>, suspended: bool, was: bool) {
        let now = meta::time(self.now);
        if suspended && !was {
            set_condition(
                status,
                "Suspended",
                "True",
                "JobSuspended",
                "Job suspended",
                &now,
            );
            self.event("Normal", "Suspended", "Job suspended");
        } else if !suspended && was {
            set_condition(
                status,
                "Suspended",
                "False",
                "JobResumed",
                "Job resumed",
                &now,
            );
            self.event("Normal", "Resumed", "Job resumed");
        }
    }
}
