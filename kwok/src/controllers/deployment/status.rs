//! The Deployment's status (`calculateStatus`, `syncDeploymentStatus` in `sync.go`,
//! `syncRolloutStatus` in `progress.go`) and the paused conditions.

use std::time::Duration;

use chrono::Utc;
use serde_json::Value;

use super::util::*;
use super::DeploymentSync;
use crate::controllers::replicaset::{parse_time, spec_replicas, status_int};
use crate::error::{go_quote, ApiResult};
use crate::meta;

impl DeploymentSync<'_> {
    /// `calculateStatus`: counts from the ReplicaSets, and the Available condition.
    pub(super) fn calculate_status(
        &self,
        all: &[usize],
        new: Option<usize>,
    ) -> (Counts, Vec<Value>) {
        let available = self.sum(all, |rs| status_int(rs, "availableReplicas"));
        let total = self.sum(all, spec_replicas);
        let counts = Counts {
            observed_generation: self.spec.generation,
            replicas: self.sum(all, |rs| status_int(rs, "replicas")),
            updated: new.map_or(0, |i| status_int(self.rs(i), "replicas")),
            ready: self.sum(all, |rs| status_int(rs, "readyReplicas")),
            available,
            unavailable: (total - available).max(0),
        };
        let mut conditions = self.conditions();
        let now = meta::now();
        let cond = if available >= self.spec.replicas - self.spec.max_unavailable() {
            new_condition(
                AVAILABLE,
                "True",
                REASON_MIN_AVAILABLE,
                "Deployment has minimum availability.",
                &now,
            )
        } else {
            new_condition(
                AVAILABLE,
                "False",
                REASON_MIN_UNAVAILABLE,
                "Deployment does not have minimum availability.",
                &now,
            )
        };
        set_condition(&mut conditions, cond);
        (counts, conditions)
    }

    pub(super) fn status_value(&self, counts: &Counts, conditions: &[Value]) -> Value {
        status_json(counts, conditions, self.dv["status"].get("collisionCount"))
    }

    /// `syncDeploymentStatus`.
    pub(super) fn sync_deployment_status(
        &mut self,
        all: &[usize],
        new: Option<usize>,
    ) -> ApiResult<()> {
        let (counts, conditions) = self.calculate_status(all, new);
        let status = self.status_value(&counts, &conditions);
        if status == self.dv["status"] {
            return Ok(());
        }
        self.dv["status"] = status;
        self.write_deployment()
    }

    /// `syncRolloutStatus`: the status plus the Progressing condition and replica failures.
    pub(super) fn sync_rollout_status(
        &mut self,
        all: &[usize],
        new: Option<usize>,
    ) -> ApiResult<()> {
        let (counts, mut conditions) = self.calculate_status(all, new);
        let (now_s, now) = now_pair();
        let deadline = self.spec.progress_deadline;
        if deadline.is_none() {
            remove_condition(&mut conditions, PROGRESSING);
        }
        let current = get_condition(&self.conditions(), PROGRESSING).cloned();
        let provisional = self.status_value(&counts, &conditions);
        let complete_already = counts.replicas == counts.updated
            && current
                .as_ref()
                .is_some_and(|c| c["reason"] == REASON_NEW_RS_AVAILABLE);
        let new_name = new.map(|i| self.sets[i].name().to_string());
        let describe = |what: &str| match &new_name {
            Some(n) => format!("ReplicaSet {} {what}", go_quote(n)),
            None => format!("Deployment {} {what}", go_quote(self.d.name())),
        };
        if deadline.is_some() && !complete_already {
            if deployment_complete(&self.spec, &provisional) {
                let msg = describe("has successfully progressed.");
                set_condition(
                    &mut conditions,
                    new_condition(PROGRESSING, "True", REASON_NEW_RS_AVAILABLE, &msg, &now_s),
                );
            } else if deployment_progressing(&self.dv["status"], &provisional) {
                let msg = describe("is progressing.");
                let mut cond = new_condition(PROGRESSING, "True", REASON_RS_UPDATED, &msg, &now_s);
                if let Some(cur) = &current {
                    if cur["status"] == "True" {
                        cond["lastTransitionTime"] = cur["lastTransitionTime"].clone();
                    }
                    remove_condition(&mut conditions, PROGRESSING);
                }
                set_condition(&mut conditions, cond);
            } else if deployment_timed_out(&self.spec, &conditions, now) {
                let msg = describe("has timed out progressing.");
                set_condition(
                    &mut conditions,
                    new_condition(PROGRESSING, "False", REASON_TIMED_OUT, &msg, &now_s),
                );
            }
        }
        match self.replica_failure(all, new) {
            Some(c) => set_condition(&mut conditions, c),
            None => remove_condition(&mut conditions, REPLICA_FAILURE),
        }
        let status = self.status_value(&counts, &conditions);
        if status == self.dv["status"] {
            self.requeue = self.requeue_stuck(&status);
            return Ok(());
        }
        self.dv["status"] = status;
        self.write_deployment()
    }

    /// `getReplicaFailures`: the new ReplicaSet's failure first, else any old one's.
    pub(super) fn replica_failure(&self, all: &[usize], new: Option<usize>) -> Option<Value> {
        let failure = |i: usize| {
            self.rs(i)["status"]["conditions"]
                .as_array()
                .and_then(|cs| cs.iter().find(|c| c["type"] == REPLICA_FAILURE))
                .map(rs_condition_to_deployment)
        };
        new.and_then(failure)
            .or_else(|| all.iter().find_map(|&i| failure(i)))
    }

    /// `requeueStuckDeployment`: look again when the progress deadline would pass.
    pub(super) fn requeue_stuck(&self, status: &Value) -> Option<Duration> {
        let deadline = self.spec.progress_deadline?;
        let conditions = self.conditions();
        let cur = get_condition(&conditions, PROGRESSING)?;
        if deployment_complete(&self.spec, status) || cur["reason"] == REASON_TIMED_OUT {
            return None;
        }
        let last = parse_time(&cur["lastUpdateTime"])?;
        let after = (last + chrono::Duration::seconds(deadline) - Utc::now())
            .to_std()
            .unwrap_or_default();
        Some(if after < Duration::from_secs(1) {
            Duration::from_secs(1)
        } else {
            after + Duration::from_secs(1)
        })
    }

    /// `checkPausedConditions`: Progressing=Unknown while paused, and on resume.
    pub(super) fn check_paused_conditions(&mut self) -> ApiResult<()> {
        if self.spec.progress_deadline.is_none() {
            return Ok(());
        }
        let conditions = self.conditions();
        let cond = get_condition(&conditions, PROGRESSING);
        if cond.is_some_and(|c| c["reason"] == REASON_TIMED_OUT) {
            return Ok(());
        }
        let paused_exists = cond.is_some_and(|c| c["reason"] == REASON_PAUSED);
        let now = meta::now();
        if self.spec.paused && !paused_exists {
            self.set_condition(new_condition(
                PROGRESSING,
                "Unknown",
                REASON_PAUSED,
                "Deployment is paused",
                &now,
            ));
        } else if !self.spec.paused && paused_exists {
            self.set_condition(new_condition(
                PROGRESSING,
                "Unknown",
                REASON_RESUMED,
                "Deployment is resumed",
                &now,
            ));
        } else {
            return Ok(());
        }
        self.write_deployment()
    }
}
