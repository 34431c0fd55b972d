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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// `ValidateReplicaSetStatus` of a status that overcounts, with upstream's texts.
    #[test]
    fn counts_above_replicas_and_unready_availability_are_refused_in_order() {
        let status = json!({"replicas": 1, "readyReplicas": 2, "availableReplicas": -3});
        let p = Path::new("status");
        let mut errs = nonnegative_counts(&status, &p, &["replicas", "availableReplicas"]);
        let status = json!({"replicas": 1, "readyReplicas": 2, "availableReplicas": 3});
        errs.extend(replica_bounds(
            &status,
            &p,
            &["readyReplicas", "availableReplicas"],
            "cannot be greater than readyReplicas",
        ));
        let texts: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "status.availableReplicas: Invalid value: -3: must be greater than or equal to 0",
                "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
                "status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas",
                "status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas",
            ]
        );
    }
}
