//! A job's conditions (`pkg/controller/job/job_controller.go`: `newCondition`,
//! `ensureJobConditionStatus`, `IsJobFinished`) and the reasons and messages 1.32 writes.

use serde_json::{json, Map, Value};

use crate::podutil::condition;

pub(super) const BACKOFF_LIMIT_EXCEEDED: (&str, &str) = (
    "BackoffLimitExceeded",
    "Job has reached the specified backoff limit",
);
pub(super) const DEADLINE_EXCEEDED: (&str, &str) = (
    "DeadlineExceeded",
    "Job was active longer than specified deadline",
);
/// `batch.JobReasonPodFailurePolicy`.
pub(super) const POD_FAILURE_POLICY: &str = "PodFailurePolicy";
pub(super) const COMPLETIONS_REACHED: (&str, &str) = (
    "CompletionsReached",
    "Reached expected number of succeeded pods",
);

/// A condition of `type_` with status True.
pub(super) fn condition_true(obj: &Value, type_: &str) -> bool {
    condition(obj, type_).is_some_and(|c| c["status"] == "True")
}

/// `jobutil.FinishedCondition`: the job's first True Complete or Failed condition.
pub fn finished_condition(job: &Value) -> Option<&Value> {
    job["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| (c["type"] == "Complete" || c["type"] == "Failed") && c["status"] == "True")
}

/// `util.IsJobFinished`.
pub fn is_finished(job: &Value) -> bool {
    finished_condition(job).is_some()
}

/// What a finishing job is waiting to become: its interim condition (FailureTarget or
/// SuccessCriteriaMet) is written first, its terminal one (Failed or Complete) once every pod is
/// counted and none is terminating.
pub(super) struct Finish {
    pub interim: &'static str,
    pub terminal: &'static str,
    pub reason: String,
    pub message: String,
}

impl Finish {
    pub(super) fn failed(reason: String, message: String) -> Self {
        Self {
            interim: "FailureTarget",
            terminal: "Failed",
            reason,
            message,
        }
    }

    pub(super) fn failed_because((reason, message): (&str, &str)) -> Self {
        Self::failed(reason.into(), message.into())
    }

    pub(super) fn complete() -> Self {
        let (reason, message) = COMPLETIONS_REACHED;
        Self {
            interim: "SuccessCriteriaMet",
            terminal: "Complete",
            reason: reason.into(),
            message: message.into(),
        }
    }
}

/// A new True condition at the end of `status.conditions`.
pub(super) fn push_condition(
    status: &mut Map<String, Value>,
    type_: &str,
    reason: &str,
    msg: &str,
    now: &str,
) {
    set_condition(status, type_, "True", reason, msg, now);
}

/// `ensureJobConditionStatus`: replace the condition of that type, or append it.
pub(super) fn set_condition(
    status: &mut Map<String, Value>,
    type_: &str,
    value: &str,
    reason: &str,
    message: &str,
    now: &str,
) {
    let c = json!({"type": type_, "status": value, "lastProbeTime": now,
        "lastTransitionTime": now, "reason": reason, "message": message});
    let list = status.entry("conditions").or_insert_with(|| json!([]));
    if !list.is_array() {
        *list = json!([]);
    }
    if let Some(items) = list.as_array_mut() {
        match items.iter_mut().find(|x| x["type"] == type_) {
            Some(existing) if existing["status"] == value => {}
            Some(existing) => *existing = c,
            None => items.push(c),
        }
    }
}
