//! What every workload's status says of its replicas (`ValidateReplicaSetStatus`,
//! `ValidateDeploymentStatus`, `ValidateStatefulSetStatusUpdate`,
//! `ValidateReplicationControllerStatus`): counters that cannot be negative, counts of replicas
//! that cannot exceed `status.replicas`, and available replicas that must be ready.

use serde_json::Value;

use super::path::{invalid, nonnegative, Path};
use crate::error::FieldError;

/// An integer field of `v`, if set.
pub(super) fn int(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64)
}

/// Each of `counters` in `status` (at `p`) is not negative, in the order given.
pub(super) fn nonnegative_counts(status: &Value, p: &Path, counters: &[&str]) -> Vec<FieldError> {
    counters
        .iter()
        .flat_map(|f| nonnegative(int(status, f), &p.child(f)))
        .collect()
}

/// Each of `within` is at most `status.replicas`, then `availableReplicas` at most
/// `readyReplicas`, refused with `over_ready` (the StatefulSet's message names
/// `status.readyReplicas`, the others' `readyReplicas`).
pub(super) fn replica_bounds(
    status: &Value,
    p: &Path,
    within: &[&str],
    over_ready: &str,
) -> Vec<FieldError> {
    let count = |f: &str| int(status, f).unwrap_or(0);
    let replicas = count("replicas");
    let mut errs: Vec<FieldError> = within
        .iter()
        .filter(|f| count(f) > replicas)
        .map(|f| {
            invalid(
                &p.child(f),
                count(f).to_string(),
                "cannot be greater than status.replicas",
            )
        })
        .collect();
    let available = count("availableReplicas");
    if available > count("readyReplicas") {
        errs.push(invalid(
            &p.child("availableReplicas"),
            available.to_string(),
            over_ready,
        ));
    }
    errs
}

/// `collisionCount` not decremented (`IsDecremented`): a count that was set may not go down, nor
/// be removed (its value is then 0 in the message).
pub(super) fn collision_count_kept(
    status: &Value,
    old_status: &Value,
    p: &Path,
) -> Option<FieldError> {
    let old = int(old_status, "collisionCount")?;
    let new = int(status, "collisionCount");
    new.is_none_or(|new| new < old).then(|| {
        invalid(
            &p.child("collisionCount"),
            new.unwrap_or(0).to_string(),
            "cannot be decremented",
        )
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    /// `ValidateReplicaSetStatus` of a status that miscounts, with upstream's texts and order.
    #[test]
    fn counts_above_replicas_and_unready_availability_are_refused_in_order() {
        let status = json!({
            "replicas": 1, "fullyLabeledReplicas": -1, "readyReplicas": 2, "availableReplicas": 3
        });
        let p = Path::new("status");
        let mut errs = nonnegative_counts(
            &status,
            &p,
            &[
                "replicas",
                "fullyLabeledReplicas",
                "readyReplicas",
                "availableReplicas",
            ],
        );
        errs.extend(replica_bounds(
            &status,
            &p,
            &["fullyLabeledReplicas", "readyReplicas", "availableReplicas"],
            "cannot be greater than readyReplicas",
        ));
        let texts: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "status.fullyLabeledReplicas: Invalid value: -1: must be greater than or equal to 0",
                "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
                "status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas",
                "status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas",
            ]
        );
    }

    /// `IsDecremented`: lower, or gone, is decremented; unset before, anything goes.
    #[test]
    fn a_collision_count_once_set_never_goes_down() {
        let p = Path::new("status");
        let text =
            |new: Value, old: Value| collision_count_kept(&new, &old, &p).map(|e| e.to_string());
        let decremented = |v: &str| {
            Some(format!(
                "status.collisionCount: Invalid value: {v}: cannot be decremented"
            ))
        };
        assert_eq!(
            text(json!({"collisionCount": 1}), json!({"collisionCount": 2})),
            decremented("1")
        );
        assert_eq!(
            text(json!({}), json!({"collisionCount": 0})),
            decremented("0")
        );
        assert_eq!(
            text(json!({"collisionCount": 2}), json!({"collisionCount": 2})),
            None
        );
        assert_eq!(text(json!({}), json!({})), None);
    }
}
