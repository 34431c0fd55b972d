//! Indexed jobs (`pkg/controller/job/indexed_job_utils.go`): each pod carries a completion index
//! from 0 to completions - 1, the job completes when every index has succeeded once, and
//! `status.completedIndexes` lists the succeeded ones as ordered intervals.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::meta;
use crate::store::Stored;

/// `batch.JobCompletionIndexAnnotation` (also the pod's label, `PodIndexLabel`).
pub(super) const COMPLETION_INDEX: &str = "batch.kubernetes.io/job-completion-index";

/// A pod's completion index, from its annotation (`getCompletionIndex`).
pub(super) fn index_of(pod: &Value) -> Option<i64> {
    meta::annotation(pod, COMPLETION_INDEX)?
        .parse::<i64>()
        .ok()
        .filter(|i| *i >= 0)
}

/// `parseIndexesFromString`: "1,3-5,7"; what does not parse is left out.
pub(super) fn parse(text: &str, completions: i64) -> BTreeSet<i64> {
    let mut out = BTreeSet::new();
    for part in text.split(',').filter(|p| !p.is_empty()) {
        let (first, last) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(first), Ok(last)) = (first.parse::<i64>(), last.parse::<i64>()) {
            out.extend((first..=last).filter(|i| (0..completions).contains(i)));
        }
    }
    out
}

/// `orderedIntervals.String()`: runs of three or more as `a-b`, a run of two as `a,b`.
pub(super) fn format(indexes: &BTreeSet<i64>) -> String {
    let mut runs: Vec<(i64, i64)> = Vec::new();
    for &i in indexes {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == i => *last = i,
            _ => runs.push((i, i)),
        }
    }
    runs.iter()
        .map(|&(first, last)| match last - first {
            0 => first.to_string(),
            1 => format!("{first},{last}"),
            _ => format!("{first}-{last}"),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `firstPendingIndexes`: the lowest indexes neither succeeded nor held by an active pod.
pub(super) fn pending(
    completions: i64,
    succeeded: &BTreeSet<i64>,
    active: &[&Stored],
    count: usize,
) -> Vec<i64> {
    let held: BTreeSet<i64> = active.iter().filter_map(|p| index_of(&p.value)).collect();
    (0..completions)
        .filter(|i| !succeeded.contains(i) && !held.contains(i))
        .take(count)
        .collect()
}

/// The pod of index `index` (`addCompletionIndexAnnotation`, the index label,
/// `podGenerateNameWithIndex`, the hostname, `addCompletionIndexEnvVariables`).
pub(super) fn decorate(pod: &mut Value, job_name: &str, index: i64) {
    let text = index.to_string();
    pod["metadata"]["annotations"][COMPLETION_INDEX] = json!(text);
    pod["metadata"]["labels"][COMPLETION_INDEX] = json!(text);
    pod["metadata"]["generateName"] = json!(format!("{job_name}-{index}-"));
    if pod["spec"]["hostname"].as_str().is_none_or(str::is_empty) {
        pod["spec"]["hostname"] = json!(format!("{job_name}-{index}"));
    }
    let env = json!({"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef":
        {"fieldPath": format!("metadata.labels['{COMPLETION_INDEX}']")}}});
    for key in ["initContainers", "containers"] {
        let Some(containers) = pod["spec"][key].as_array_mut() else {
            continue;
        };
        for c in containers {
            let has = c["env"]
                .as_array()
                .is_some_and(|e| e.iter().any(|v| v["name"] == "JOB_COMPLETION_INDEX"));
            if !has {
                if !c["env"].is_array() {
                    c["env"] = json!([]);
                }
                if let Some(list) = c["env"].as_array_mut() {
                    list.push(env.clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_print_as_upstream_orders_them() {
        let set: BTreeSet<i64> = [0, 1, 3, 4, 5, 7].into();
        assert_eq!(format(&set), "0,1,3-5,7");
        assert_eq!(parse("0,1,3-5,7", 10), set);
        assert_eq!(
            parse("0-9", 3),
            [0, 1, 2].into(),
            "only indexes below completions"
        );
        assert_eq!(format(&BTreeSet::new()), "");
    }
}
