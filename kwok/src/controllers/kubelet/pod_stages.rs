//! What a fake pod does besides running: the faults graders inject by annotation, and kwok's
//! `pod-complete` stage for Job pods (`kustomize/stage/pod/fast/pod-complete.yaml`).

use serde_json::{json, Value};

use super::{EXIT_CODE, FAULT, FAULT_IMAGES};
use crate::meta;

fn glob_match(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((pre, rest)) => {
            if !text.starts_with(pre) {
                return false;
            }
            let tail = &text[pre.len()..];
            (0..=tail.len()).any(|i| tail.is_char_boundary(i) && glob_match(rest, &tail[i..]))
        }
    }
}

/// The fault a container suffers, if any: pod annotation first, then its node's.
pub(super) fn fault_for<'a>(pod: &'a Value, node: &'a Value, image: &str) -> Option<&'a str> {
    let (fault, images) = match meta::annotation(pod, FAULT) {
        Some(f) => (f, meta::annotation(pod, FAULT_IMAGES)),
        None => (
            meta::annotation(node, FAULT)?,
            meta::annotation(node, FAULT_IMAGES),
        ),
    };
    match images {
        Some(globs) if !globs.trim().is_empty() => globs
            .split(',')
            .any(|g| glob_match(g.trim(), image))
            .then_some(fault),
        _ => Some(fault),
    }
}

/// The selector of kwok's `pod-complete` stage: an owner reference of kind Job.
pub(super) fn owned_by_job(pod: &Value) -> bool {
    pod["metadata"]["ownerReferences"]
        .as_array()
        .is_some_and(|refs| refs.iter().any(|r| r["kind"] == "Job"))
}

/// kwok's `pod-complete` stage, a merge patch of the status: every container terminated with
/// exit code 0 ("Completed"), the phase Succeeded, the rest (conditions) untouched. A pod whose
/// restart policy is Never and that carries [`EXIT_CODE`] ends Failed instead, its containers
/// terminated with that code ("Error"), as a real kubelet reports a failed run.
pub(super) fn completed_pod(pod: &Value) -> Value {
    let now = meta::now();
    let exit_code = meta::annotation(pod, EXIT_CODE)
        .and_then(|c| c.trim().parse::<i32>().ok())
        .filter(|c| *c != 0 && pod["spec"]["restartPolicy"] == "Never");
    let (code, reason, phase) = match exit_code {
        Some(c) => (c, "Error", "Failed"),
        None => (0, "Completed", "Succeeded"),
    };
    let statuses: Vec<Value> = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            json!({"image": c["image"], "name": c["name"], "ready": false, "restartCount": 0,
                "started": false, "state": {"terminated": {"exitCode": code,
                "finishedAt": now, "reason": reason, "startedAt": now}}})
        })
        .collect();
    let mut p = pod.clone();
    p["status"]["containerStatuses"] = json!(statuses);
    p["status"]["phase"] = json!(phase);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_image_names() {
        assert!(glob_match(
            "nvcr.io/nvidia/driver*",
            "nvcr.io/nvidia/driver:550"
        ));
        assert!(!glob_match(
            "nvcr.io/nvidia/driver*",
            "nvcr.io/nvidia/k8s/dcgm"
        ));
        assert!(glob_match("*dcgm*", "nvcr.io/nvidia/k8s/dcgm-exporter:3"));
    }
}
