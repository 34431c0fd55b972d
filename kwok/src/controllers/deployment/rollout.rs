//! The two strategies: `rolloutRolling` (`rolling.go`) and `rolloutRecreate` (`recreate.go`).

use super::util::*;
use super::{with_new, DeploymentSync};
use crate::controllers::replicaset::{controller_uid, spec_replicas, status_int};
use crate::error::{ApiError, ApiResult};
use crate::meta;

impl DeploymentSync<'_> {
    /// `rolloutRolling`.
    pub(super) fn rollout_rolling(&mut self) -> ApiResult<()> {
        let (new, old) = self.get_all(true)?;
        let Some(new_i) = new else {
            return Err(ApiError::internal("new replica set missing after creation"));
        };
        let all = with_new(&old, new);
        if self.reconcile_new_replica_set(&all, new_i)? {
            return self.sync_rollout_status(&all, new);
        }
        let active_old = self.active(&old);
        if self.reconcile_old_replica_sets(&all, active_old, new_i)? {
            return self.sync_rollout_status(&all, new);
        }
        if deployment_complete(&self.spec, &self.dv["status"]) {
            self.cleanup(&old)?;
        }
        self.sync_rollout_status(&all, new)
    }

    /// `reconcileNewReplicaSet`.
    pub(super) fn reconcile_new_replica_set(
        &mut self,
        all: &[usize],
        new: usize,
    ) -> ApiResult<bool> {
        let current = self.replicas(new);
        if current == self.spec.replicas {
            return Ok(false);
        }
        if current > self.spec.replicas {
            return self.scale_and_record(new, self.spec.replicas);
        }
        let total = self.sum(all, spec_replicas);
        let count = self
            .spec
            .new_rs_replicas(total, current)
            .map_err(ApiError::bad_request)?;
        self.scale_and_record(new, count)
    }

    /// `reconcileOldReplicaSets`: scale old ReplicaSets down as far as availability allows,
    /// unhealthy replicas first.
    pub(super) fn reconcile_old_replica_sets(
        &mut self,
        all: &[usize],
        mut old: Vec<usize>,
        new: usize,
    ) -> ApiResult<bool> {
        if self.sum(&old, spec_replicas) == 0 {
            return Ok(false);
        }
        let all_pods = self.sum(all, spec_replicas);
        let min_available = self.spec.replicas - self.spec.max_unavailable();
        let new_unavailable = self.replicas(new) - status_int(self.rs(new), "availableReplicas");
        let max_scaled_down = all_pods - min_available - new_unavailable;
        if max_scaled_down <= 0 {
            return Ok(false);
        }
        // Upstream swallows these errors (the sync is retried on the next change).
        let Ok(cleaned) = self.cleanup_unhealthy_replicas(&mut old, max_scaled_down) else {
            return Ok(false);
        };
        let all = with_new(&old, Some(new));
        let Ok(scaled) = self.scale_down_old_for_rolling_update(&all, &mut old) else {
            return Ok(false);
        };
        Ok(cleaned + scaled > 0)
    }

    /// `cleanupUnhealthyReplicas`.
    pub(super) fn cleanup_unhealthy_replicas(
        &mut self,
        old: &mut [usize],
        max_cleanup: i64,
    ) -> ApiResult<i64> {
        self.sort_by_creation(old);
        let mut total = 0;
        for &i in old.iter() {
            if total >= max_cleanup {
                break;
            }
            let replicas = self.replicas(i);
            let available = status_int(self.rs(i), "availableReplicas");
            if replicas == 0 || replicas == available {
                continue;
            }
            let count = (max_cleanup - total).min(replicas - available);
            let new_count = replicas - count;
            if new_count > replicas {
                // Status behind spec (more available than asked for): never scale up here.
                return Err(ApiError::internal(format!(
                    "when cleaning up unhealthy replicas, got invalid request to scale down {}/{} {replicas} -> {new_count}",
                    self.sets[i].namespace(),
                    self.sets[i].name()
                )));
            }
            self.scale_and_record(i, new_count)?;
            total += count;
        }
        Ok(total)
    }

    /// `scaleDownOldReplicaSetsForRollingUpdate`.
    pub(super) fn scale_down_old_for_rolling_update(
        &mut self,
        all: &[usize],
        old: &mut [usize],
    ) -> ApiResult<i64> {
        let min_available = self.spec.replicas - self.spec.max_unavailable();
        let available = self.sum(all, |rs| status_int(rs, "availableReplicas"));
        if available <= min_available {
            return Ok(0);
        }
        self.sort_by_creation(old);
        let target = available - min_available;
        let mut total = 0;
        for &i in old.iter() {
            if total >= target {
                break;
            }
            let replicas = self.replicas(i);
            if replicas == 0 {
                continue;
            }
            let count = replicas.min(target - total);
            let new_count = replicas - count;
            if new_count > replicas {
                return Err(ApiError::internal(format!(
                    "when scaling down old replica set, got invalid request to scale down {}/{} {replicas} -> {new_count}",
                    self.sets[i].namespace(),
                    self.sets[i].name()
                )));
            }
            self.scale_and_record(i, new_count)?;
            total += count;
        }
        Ok(total)
    }

    /// `rolloutRecreate`: all old pods gone before the new ReplicaSet scales up.
    pub(super) fn rollout_recreate(&mut self) -> ApiResult<()> {
        let (mut new, mut old) = self.get_all(false)?;
        let mut all = with_new(&old, new);
        let mut scaled_down = false;
        for i in self.active(&old) {
            if self.scale_and_record(i, 0)? {
                scaled_down = true;
            }
        }
        if scaled_down || self.old_pods_running(new, &old) {
            return self.sync_rollout_status(&all, new);
        }
        if new.is_none() {
            (new, old) = self.get_all(true)?;
            all = with_new(&old, new);
        }
        if let Some(i) = new {
            self.scale_and_record(i, self.spec.replicas)?;
        }
        if deployment_complete(&self.spec, &self.dv["status"]) {
            self.cleanup(&old)?;
        }
        self.sync_rollout_status(&all, new)
    }

    /// `oldPodsRunning`: old ReplicaSets still report pods, or non-terminal pods of theirs exist.
    pub(super) fn old_pods_running(&self, new: Option<usize>, old: &[usize]) -> bool {
        if self.sum(old, |rs| status_int(rs, "replicas")) > 0 {
            return true;
        }
        let new_uid = new.map(|i| meta::uid(self.rs(i)));
        let old_uids: Vec<&str> = old.iter().map(|&i| meta::uid(self.rs(i))).collect();
        self.pods.get(self.api).iter().any(|p| {
            p.namespace() == self.d.namespace()
                && self.selector.matches(meta::labels(&p.value))
                && controller_uid(&p.value)
                    .is_some_and(|u| old_uids.contains(&u) && Some(u) != new_uid)
                && !crate::podutil::is_pod_terminal(&p.value)
        })
    }
}
