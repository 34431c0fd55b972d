//! The CronJob controller (`pkg/controller/cronjob/cronjob_controllerv2.go`, `utils.go`) on the
//! cluster's clock: it creates a Job named `<cronjob>-<minutes since the epoch>` for the most
//! recent schedule time not yet run (only the latest of several missed ones), honours
//! `startingDeadlineSeconds`, `concurrencyPolicy`, `suspend` and `timeZone`, keeps
//! `status.active`, `lastScheduleTime` and `lastSuccessfulTime`, removes finished Jobs past the
//! history limits, and wakes 100 ms after the next schedule time.

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use serde_json::{json, Map, Value};

use super::events::Recorder;
use super::job::finished_condition;
use super::{just_after, Controller, Pass};
use crate::api::{Api, DeleteOptions, Propagation, WriteOptions};
use crate::cron::{self, Schedule};
use crate::kinds::batch::cronjob::SCHEDULED_TIMESTAMP_ANNOTATION;
use crate::meta;
use crate::podutil::parse_time;
use crate::registry;
use crate::store::{Event, Stored};

/// The event source of this controller.
pub const COMPONENT: &str = "cronjob-controller";
/// `nextScheduleDelta`.
const NEXT_SCHEDULE_DELTA: TimeDelta = TimeDelta::milliseconds(100);

pub struct CronJobController {
    recorder: Recorder,
    /// (cronjob uid, job uid) already reported as UnexpectedJob: upstream reports once per sync
    /// of that CronJob, this controller syncs on every change, so it reports once.
    reported: BTreeSet<(String, String)>,
}

impl Default for CronJobController {
    fn default() -> Self {
        Self {
            recorder: Recorder::new(COMPONENT),
            reported: BTreeSet::new(),
        }
    }
}

impl Controller for CronJobController {
    fn name(&self) -> &'static str {
        COMPONENT
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::CRONJOBS) || std::ptr::eq(ev.res, &registry::JOBS)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        self.reconcile_at(api, Utc::now())
    }
}

impl CronJobController {
    /// A pass as of `now`, the cluster's clock.
    fn reconcile_at(&mut self, api: &Api, now: DateTime<Utc>) -> Pass {
        let mut pass = Pass::default();
        let (cronjobs, _) = api.store().list(&registry::CRONJOBS, None);
        let (jobs, _) = api.store().list(&registry::JOBS, None);
        for cj in &cronjobs {
            // `getJobsToBeReconciled`: the namespace's jobs whose controller has the CronJob's name.
            let owned: Vec<&Stored> = jobs
                .iter()
                .filter(|j| j.namespace() == cj.namespace())
                .filter(|j| meta::controller_ref(&j.value).is_some_and(|r| r["name"] == cj.name()))
                .collect();
            let synced = Sync {
                api,
                recorder: &self.recorder,
                reported: &mut self.reported,
                cj,
                now,
            }
            .run(&owned);
            pass.absorb(synced);
        }
        pass
    }
}

/// One sync of one CronJob (`sync`).
struct Sync<'a> {
    api: &'a Api,
    recorder: &'a Recorder,
    reported: &'a mut BTreeSet<(String, String)>,
    cj: &'a Stored,
    now: DateTime<Utc>,
}

/// `status.active` entries: object references to running jobs.
fn active_has(status: &Map<String, Value>, uid: &str) -> bool {
    active(status).iter().any(|r| r["uid"] == uid)
}

fn active(status: &Map<String, Value>) -> Vec<Value> {
    status
        .get("active")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// The reference to the job `uid` out of `status.active`.
fn remove_active(status: &mut Map<String, Value>, uid: &str) {
    let kept = active(status)
        .into_iter()
        .filter(|r| r["uid"] != uid)
        .collect();
    set_active(status, kept);
}

fn set_active(status: &mut Map<String, Value>, refs: Vec<Value>) {
    if refs.is_empty() {
        status.remove("active");
    } else {
        status.insert("active".into(), Value::Array(refs));
    }
}

/// The type of the job's finished condition, Complete or Failed.
fn finished_as(job: &Value) -> Option<&str> {
    finished_condition(job).and_then(|c| c["type"].as_str())
}

impl Sync<'_> {
    fn event(&self, type_: &str, reason: &str, message: &str) {
        self.recorder.event(
            self.api,
            &registry::CRONJOBS,
            &self.cj.value,
            type_,
            reason,
            message,
        );
    }

    fn run(mut self, jobs: &[&Stored]) -> Pass {
        let mut pass = Pass::default();
        let v = &self.cj.value;
        let mut status = v["status"].as_object().cloned().unwrap_or_default();
        let mut changed = self.cleanup_finished_jobs(jobs, &mut status, &mut pass);
        changed |= self.reconcile_jobs(jobs, &mut status, &mut pass);
        let wake = self.schedule(&mut status, &mut changed, &mut pass);
        if changed {
            let mut next = v.clone();
            next["status"] = Value::Object(status);
            let written = self.api.update_status(&registry::CRONJOBS, next);
            pass.check("writing a cronjob's status", written);
        }
        pass.wake(wake);
        pass
    }

    /// `cleanupFinishedJobs`: the oldest finished jobs past each history limit, by start time.
    fn cleanup_finished_jobs(
        &self,
        jobs: &[&Stored],
        status: &mut Map<String, Value>,
        pass: &mut Pass,
    ) -> bool {
        let spec = &self.cj.value["spec"];
        let mut changed = false;
        for (kind, key) in [
            ("Complete", "successfulJobsHistoryLimit"),
            ("Failed", "failedJobsHistoryLimit"),
        ] {
            let Some(limit) = spec[key].as_i64() else {
                continue;
            };
            let mut finished: Vec<&&Stored> = jobs
                .iter()
                .filter(|j| finished_as(&j.value) == Some(kind))
                .collect();
            let surplus = finished
                .len()
                .saturating_sub(usize::try_from(limit).unwrap_or(0));
            // `byJobStartTime`: unstarted jobs after started ones, then by name.
            finished.sort_by(|a, b| {
                let start = |j: &Stored| parse_time(&j.value["status"]["startTime"]);
                match (start(a), start(b)) {
                    (Some(x), Some(y)) if x != y => x.cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    _ => a.name().cmp(b.name()),
                }
            });
            for job in finished.into_iter().take(surplus) {
                changed |= self.delete_job(job, status, pass);
            }
        }
        changed
    }

    /// `deleteJob`: in the background; the job leaves `status.active`.
    fn delete_job(&self, job: &Stored, status: &mut Map<String, Value>, pass: &mut Pass) -> bool {
        let opts = DeleteOptions {
            propagation: Some(Propagation::Background),
            ..Default::default()
        };
        match self
            .api
            .delete(&registry::JOBS, job.namespace(), job.name(), &opts)
        {
            Ok(_) => {
                let uid = meta::uid(&job.value);
                remove_active(status, uid);
                self.event(
                    "Normal",
                    "SuccessfulDelete",
                    &format!("Deleted job {}", job.name()),
                );
                true
            }
            Err(e) if e.code == 404 => false,
            Err(e) => {
                self.event(
                    "Warning",
                    "FailedDelete",
                    &format!("Deleted job: {}", e.message),
                );
                pass.fail("deleting a cronjob's job", e);
                false
            }
        }
    }

    /// The first half of `syncCronJob`: unexpected, finished and missing jobs.
    fn reconcile_jobs(
        &mut self,
        jobs: &[&Stored],
        status: &mut Map<String, Value>,
        pass: &mut Pass,
    ) -> bool {
        let mut changed = false;
        let cj_uid = meta::uid(&self.cj.value).to_string();
        for job in jobs {
            let uid = meta::uid(&job.value);
            let listed = active_has(status, uid);
            match finished_as(&job.value) {
                None if !listed && self.reported.insert((cj_uid.clone(), uid.to_string())) => {
                    let message = format!(
                        "Saw a job that the controller did not create or forgot: {}",
                        job.name()
                    );
                    self.event("Warning", "UnexpectedJob", &message);
                }
                None => {}
                Some(condition) => {
                    if listed {
                        remove_active(status, uid);
                        let message =
                            format!("Saw completed job: {}, condition: {condition}", job.name());
                        self.event("Normal", "SawCompletedJob", &message);
                        changed = true;
                    }
                    if condition == "Complete" {
                        let done = parse_time(&job.value["status"]["completionTime"]);
                        let last = status.get("lastSuccessfulTime").and_then(parse_time);
                        if let Some(done) = done.filter(|d| last.is_none_or(|l| *d > l)) {
                            status.insert("lastSuccessfulTime".into(), json!(meta::time(done)));
                            changed = true;
                        }
                    }
                }
            }
        }
        // Active references whose job is gone.
        for reference in active(status) {
            let uid = reference["uid"].as_str().unwrap_or("");
            if jobs.iter().any(|j| meta::uid(&j.value) == uid) {
                continue;
            }
            let name = reference["name"].as_str().unwrap_or("");
            match self.api.get(&registry::JOBS, self.cj.namespace(), name) {
                Err(e) if e.code == 404 => {
                    self.event(
                        "Normal",
                        "MissingJob",
                        &format!("Active job went missing: {name}"),
                    );
                    remove_active(status, uid);
                    changed = true;
                }
                Err(e) => pass.fail("reading a cronjob's job", e),
                Ok(_) => {}
            }
        }
        changed
    }

    /// The second half of `syncCronJob`: start the job due, if any; how long until the next.
    fn schedule(
        &self,
        status: &mut Map<String, Value>,
        changed: &mut bool,
        pass: &mut Pass,
    ) -> Option<Duration> {
        let v = &self.cj.value;
        if meta::is_deleting(v) {
            return None;
        }
        let zone = match v["spec"]["timeZone"].as_str() {
            None => Tz::UTC,
            Some(name) => match cron::load_location(name) {
                Ok(tz) => tz,
                Err(e) => {
                    let message =
                        format!("invalid timeZone: {}: {e}", crate::error::go_quote(name));
                    self.event("Warning", "UnknownTimeZone", &message);
                    return None;
                }
            },
        };
        if v["spec"]["suspend"] == true {
            return None;
        }
        let text = v["spec"]["schedule"].as_str().unwrap_or("");
        if text.contains("TZ") {
            let message = format!("CRON_TZ or TZ used in schedule {} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details", crate::error::go_quote(text));
            self.event("Warning", "UnsupportedSchedule", &message);
        }
        let schedule = match cron::parse_standard(text) {
            Ok(s) => s,
            Err(e) => {
                let message = format!(
                    "unparseable schedule: {} : {e}",
                    crate::error::go_quote(text)
                );
                self.event("Warning", "UnparseableSchedule", &message);
                return None;
            }
        };
        let times = Times {
            cj: v,
            schedule: &schedule,
            zone,
            now: self.now,
        };
        let next_wake = times.next_wake();
        let scheduled = match times.most_recent(true) {
            Err(e) => {
                self.event(
                    "Warning",
                    "InvalidSchedule",
                    &format!("invalid schedule: {text} : {e}"),
                );
                return None;
            }
            Ok(found) => {
                if found.many_missed {
                    self.event("Warning", "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew");
                }
                match found.most_recent {
                    Some(t) if t <= self.now => t,
                    _ => return next_wake,
                }
            }
        };
        if let Some(deadline) = v["spec"]["startingDeadlineSeconds"].as_i64() {
            if scheduled + TimeDelta::seconds(deadline) < self.now {
                let when = scheduled.format("%a, %d %b %Y %H:%M:%S %z");
                self.event(
                    "Warning",
                    "MissSchedule",
                    &format!("Missed scheduled time to start a job: {when}"),
                );
                return next_wake;
            }
        }
        let name = job_name(self.cj.name(), scheduled);
        let last = status.get("lastScheduleTime").and_then(parse_time);
        if active(status).iter().any(|r| r["name"] == name.as_str()) || last == Some(scheduled) {
            return next_wake;
        }
        let running = active(status);
        match v["spec"]["concurrencyPolicy"].as_str() {
            Some("Forbid") if !running.is_empty() => {
                self.event("Normal", "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid");
                return next_wake;
            }
            Some("Replace") => {
                for reference in running {
                    let job_name = reference["name"].as_str().unwrap_or("");
                    match self.api.get(&registry::JOBS, self.cj.namespace(), job_name) {
                        Ok(job) => {
                            *changed |= self.delete_job(&job, status, pass);
                        }
                        Err(e) if e.code == 404 => {}
                        Err(e) => {
                            self.event("Warning", "FailedGet", &format!("Get job: {}", e.message));
                            pass.fail("reading a job to replace", e);
                            return next_wake;
                        }
                    }
                }
            }
            _ => {}
        }
        let Some(job) = self.create_job(&name, scheduled, zone, status, pass) else {
            return next_wake;
        };
        let mut refs = active(status);
        refs.push(
            json!({"kind": "Job", "namespace": job.namespace(), "name": job.name(),
            "uid": meta::uid(&job.value), "apiVersion": "batch/v1",
            "resourceVersion": job.resource_version().to_string()}),
        );
        set_active(status, refs);
        status.insert("lastScheduleTime".into(), json!(meta::time(scheduled)));
        *changed = true;
        next_wake
    }

    /// `getJobFromTemplate2` and the create; an existing job of that name that this CronJob
    /// controls and does not list yet is taken as created.
    fn create_job(
        &self,
        name: &str,
        scheduled: DateTime<Utc>,
        zone: Tz,
        status: &Map<String, Value>,
        pass: &mut Pass,
    ) -> Option<Stored> {
        let v = &self.cj.value;
        let template = &v["spec"]["jobTemplate"];
        let mut annotations = template["metadata"]["annotations"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let stamp = scheduled
            .with_timezone(&zone)
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        annotations.insert(SCHEDULED_TIMESTAMP_ANNOTATION.into(), json!(stamp));
        let mut metadata = json!({"name": name, "namespace": self.cj.namespace(),
            "annotations": annotations,
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": self.cj.name(),
                "uid": meta::uid(v), "controller": true, "blockOwnerDeletion": true}]});
        if let Some(labels) = template["metadata"]["labels"].as_object() {
            metadata["labels"] = json!(labels);
        }
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata,
            "spec": template["spec"]});
        let created = self.api.create(
            &registry::JOBS,
            self.cj.namespace(),
            job,
            &WriteOptions::default(),
        );
        match created {
            Ok(job) => {
                self.event(
                    "Normal",
                    "SuccessfulCreate",
                    &format!("Created job {}", job.name()),
                );
                Some(job)
            }
            Err(e) if e.has_cause("NamespaceTerminating") => {
                pass.fail("creating a cronjob's job", e);
                None
            }
            Err(e) if e.code == 409 => {
                let existing = self
                    .api
                    .get(&registry::JOBS, self.cj.namespace(), name)
                    .ok()?;
                let controlled =
                    meta::controller_ref(&existing.value).is_some_and(|r| r["uid"] == meta::uid(v));
                (controlled && !active_has(status, meta::uid(&existing.value))).then_some(existing)
            }
            Err(e) => {
                self.event(
                    "Warning",
                    "FailedCreate",
                    &format!("Error creating job: {}", e.message),
                );
                pass.fail("creating a cronjob's job", e);
                None
            }
        }
    }
}

/// `getJobName`: the CronJob's name and the scheduled time in minutes since the epoch.
fn job_name(cronjob: &str, scheduled: DateTime<Utc>) -> String {
    format!("{cronjob}-{}", scheduled.timestamp() / 60)
}

/// A CronJob's schedule read against a moment (`utils.go`).
struct Times<'a> {
    cj: &'a Value,
    schedule: &'a Schedule,
    zone: Tz,
    now: DateTime<Utc>,
}

/// What `mostRecentScheduleTime` finds.
struct MostRecent {
    earliest: DateTime<Utc>,
    most_recent: Option<DateTime<Utc>>,
    missed: bool,
    many_missed: bool,
}

impl Times<'_> {
    fn next(&self, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.schedule.next(t, self.zone)
    }

    /// `mostRecentScheduleTime`: the latest schedule time at or before now that is after the
    /// last run (or the creation), within the starting deadline when asked.
    fn most_recent(&self, with_deadline: bool) -> Result<MostRecent, String> {
        let created = parse_time(&self.cj["metadata"]["creationTimestamp"]).unwrap_or(self.now);
        let mut earliest = parse_time(&self.cj["status"]["lastScheduleTime"]).unwrap_or(created);
        if with_deadline {
            if let Some(secs) = self.cj["spec"]["startingDeadlineSeconds"].as_i64() {
                earliest = earliest.max(self.now - TimeDelta::seconds(secs));
            }
        }
        let none = |most_recent| MostRecent {
            earliest,
            most_recent,
            missed: false,
            many_missed: false,
        };
        let too_close =
            || "time difference between two schedules is less than 1 second".to_string();
        let t1 = self.next(earliest).ok_or_else(too_close)?;
        if self.now < t1 {
            return Ok(none(None));
        }
        let t2 = self.next(t1).ok_or_else(too_close)?;
        if self.now < t2 {
            return Ok(none(Some(t1)));
        }
        let between = (t2 - t1).num_milliseconds().saturating_add(500) / 1000;
        if between < 1 {
            return Err(too_close());
        }
        let missed = (self.now - t1).num_seconds() / between + 1;
        let mut t = self.next(t1 + TimeDelta::seconds((missed - 2) * between));
        let mut most_recent = None;
        while let Some(at) = t.filter(|at| *at <= self.now) {
            most_recent = Some(at);
            t = self.next(at);
        }
        Ok(MostRecent {
            earliest,
            most_recent,
            missed: missed > 0,
            many_missed: missed > 100,
        })
    }

    /// `nextScheduleTimeDuration`: 100 ms after the schedule time following the latest one.
    fn next_wake(&self) -> Option<Duration> {
        let base = match self.most_recent(false) {
            Err(_) => self.now,
            Ok(MostRecent {
                most_recent: Some(t),
                ..
            }) => t,
            Ok(found) if found.missed => self.now,
            Ok(found) => found.earliest,
        };
        let next = self.next(base)?;
        Some(just_after(next + NEXT_SCHEDULE_DELTA, self.now))
    }
}

#[cfg(test)]
mod tests;
