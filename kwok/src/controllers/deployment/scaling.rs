//! Sizing ReplicaSets (`scale`, `scaleReplicaSet`, `isScalingEvent`, `cleanupDeployment` in
//! `sync.go`): events for every size change, proportional sharing mid-rollout, history trimming.

use serde_json::json;

use super::util::*;
use super::{with_new, DeploymentSync};
use crate::api::DeleteOptions;
use crate::controllers::replicaset::{spec_replicas, status_int};
use crate::error::ApiResult;
use crate::meta;
use crate::registry;

impl DeploymentSync<'_> {
    /// `scaleReplicaSet`: new size and replica annotations in one write, and the event when the
    /// size moved.
    pub(super) fn scale_replica_set(
        &mut self,
        i: usize,
        new_scale: i64,
        operation: &str,
    ) -> ApiResult<bool> {
        let old_scale = self.replicas(i);
        let desired = self.spec.replicas;
        let max = desired + self.spec.max_surge();
        let size_changes = old_scale != new_scale;
        if !size_changes && !replicas_annotations_need_update(self.rs(i), desired, max) {
            return Ok(false);
        }
        let mut rs = self.rs(i).clone();
        rs["spec"]["replicas"] = json!(new_scale);
        set_replicas_annotations(&mut rs, desired, max);
        let name = self.sets[i].name().to_string();
        self.write_set(i, rs)?;
        if size_changes {
            self.event(
                "Normal",
                "ScalingReplicaSet",
                &format!("Scaled {operation} replica set {name} from {old_scale} to {new_scale}"),
            );
        }
        Ok(size_changes)
    }

    /// `scaleReplicaSetAndRecordEvent`.
    pub(super) fn scale_and_record(&mut self, i: usize, new_scale: i64) -> ApiResult<bool> {
        let current = self.replicas(i);
        if current == new_scale {
            return Ok(false);
        }
        let op = if current < new_scale { "up" } else { "down" };
        self.scale_replica_set(i, new_scale, op)
    }

    /// `isScalingEvent`: an active ReplicaSet was sized for another replica count.
    pub(super) fn is_scaling_event(&mut self) -> ApiResult<bool> {
        let (new, old) = self.get_all(false)?;
        let all = self.active(&with_new(&old, new));
        Ok(all.iter().any(|&i| {
            desired_replicas_annotation(self.rs(i)).is_some_and(|d| d != self.spec.replicas)
        }))
    }

    /// `sync`: scaling (and, when paused, history cleanup) without rolling out.
    pub(super) fn sync(&mut self) -> ApiResult<()> {
        let (new, mut old) = self.get_all(false)?;
        self.scale(new, &mut old)?;
        if self.spec.paused {
            self.cleanup(&old)?;
        }
        let all = with_new(&old, new);
        self.sync_deployment_status(&all, new)
    }

    /// `FindActiveOrLatest` (which sorts the old sets newest first, as upstream does in place).
    pub(super) fn find_active_or_latest(
        &self,
        new: Option<usize>,
        old: &mut [usize],
    ) -> Option<usize> {
        if new.is_none() && old.is_empty() {
            return None;
        }
        old.sort_by(|&a, &b| by_creation(self.rs(b), self.rs(a)));
        let all = self.active(&with_new(old, new));
        match all.len() {
            0 => new.or_else(|| old.first().copied()),
            1 => Some(all[0]),
            _ => None,
        }
    }

    /// `IsSaturated`: the new ReplicaSet is at full, available size.
    pub(super) fn is_saturated(&self, new: Option<usize>) -> bool {
        let Some(i) = new else { return false };
        let rs = self.rs(i);
        desired_replicas_annotation(rs) == Some(self.spec.replicas)
            && spec_replicas(rs) == self.spec.replicas
            && status_int(rs, "availableReplicas") == self.spec.replicas
    }

    /// `scale`: one active ReplicaSet takes the whole size; otherwise a rolling deployment's
    /// change in size is shared out in proportion to the ReplicaSets' sizes.
    pub(super) fn scale(&mut self, new: Option<usize>, old: &mut [usize]) -> ApiResult<()> {
        if let Some(i) = self.find_active_or_latest(new, old) {
            if self.replicas(i) == self.spec.replicas {
                return Ok(());
            }
            self.scale_and_record(i, self.spec.replicas)?;
            return Ok(());
        }
        if self.is_saturated(new) {
            for i in self.active(old) {
                self.scale_and_record(i, 0)?;
            }
            return Ok(());
        }
        if !self.spec.rolling() {
            return Ok(());
        }
        let mut all = self.active(&with_new(old, new));
        let all_replicas = self.sum(&all, spec_replicas);
        let allowed = if self.spec.replicas > 0 {
            self.spec.replicas + self.spec.max_surge()
        } else {
            0
        };
        let to_add = allowed - all_replicas;
        // Bigger first; among equals, newer first when growing and older first when shrinking.
        let operation = match to_add.signum() {
            1 => {
                all.sort_by(|&a, &b| {
                    self.replicas(b)
                        .cmp(&self.replicas(a))
                        .then_with(|| by_creation(self.rs(b), self.rs(a)))
                });
                "up"
            }
            -1 => {
                all.sort_by(|&a, &b| {
                    self.replicas(b)
                        .cmp(&self.replicas(a))
                        .then_with(|| by_creation(self.rs(a), self.rs(b)))
                });
                "down"
            }
            _ => "",
        };
        let status_replicas = status_int(&self.dv, "replicas");
        let mut added = 0;
        let mut sizes: Vec<i64> = Vec::with_capacity(all.len());
        for &i in &all {
            if to_add != 0 {
                let p = proportion(self.rs(i), &self.spec, status_replicas, to_add, added);
                sizes.push(self.replicas(i) + p);
                added += p;
            } else {
                sizes.push(self.replicas(i));
            }
        }
        for (n, &i) in all.iter().enumerate() {
            let mut size = sizes[n];
            if n == 0 && to_add != 0 {
                // Leftovers go to the biggest ReplicaSet.
                size = (size + to_add - added).max(0);
            }
            self.scale_replica_set(i, size, operation)?;
        }
        Ok(())
    }

    /// `cleanupDeployment`: delete the oldest idle ReplicaSets beyond revisionHistoryLimit.
    pub(super) fn cleanup(&mut self, old: &[usize]) -> ApiResult<()> {
        let Some(limit) = self.spec.revision_history_limit else {
            return Ok(());
        };
        let mut cleanable: Vec<usize> = old
            .iter()
            .copied()
            .filter(|&i| !meta::is_deleting(self.rs(i)))
            .collect();
        let diff = cleanable.len() as i64 - limit;
        if diff <= 0 {
            return Ok(());
        }
        cleanable.sort_by(|&a, &b| by_revision(self.rs(a), self.rs(b)));
        for &i in cleanable.iter().take(usize::try_from(diff).unwrap_or(0)) {
            let rs = self.rs(i);
            let generation = rs["metadata"]["generation"].as_i64().unwrap_or(0);
            if status_int(rs, "replicas") != 0
                || spec_replicas(rs) != 0
                || generation > status_int(rs, "observedGeneration")
                || meta::is_deleting(rs)
            {
                continue;
            }
            let (ns, name) = (
                self.sets[i].namespace().to_string(),
                self.sets[i].name().to_string(),
            );
            match self.api.delete(
                &registry::REPLICASETS,
                &ns,
                &name,
                &DeleteOptions::default(),
            ) {
                Ok(_) => {}
                Err(e) if e.code == 404 => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}
