//! `batch/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bool, Msg, Str, Time, I32, I64};
use super::{core_v1, keep, list, message, meta_v1, opt, Message};

pub static CRON_JOB: Message = message(
    "CronJob",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&CRON_JOB_SPEC)),
        keep(3, "status", Msg(&CRON_JOB_STATUS)),
    ],
);

pub static CRON_JOB_SPEC: Message = message(
    "CronJobSpec",
    &[
        keep(1, "schedule", Str),
        keep(8, "timeZone", Str),
        keep(2, "startingDeadlineSeconds", I64),
        opt(3, "concurrencyPolicy", Str),
        keep(4, "suspend", Bool),
        keep(5, "jobTemplate", Msg(&JOB_TEMPLATE_SPEC)),
        keep(6, "successfulJobsHistoryLimit", I32),
        keep(7, "failedJobsHistoryLimit", I32),
    ],
);

pub static CRON_JOB_STATUS: Message = message(
    "CronJobStatus",
    &[
        list(1, "active", Msg(&core_v1::OBJECT_REFERENCE)),
        keep(4, "lastScheduleTime", Time),
        keep(5, "lastSuccessfulTime", Time),
    ],
);

pub static JOB: Message = message(
    "Job",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&JOB_SPEC)),
        keep(3, "status", Msg(&JOB_STATUS)),
    ],
);

pub static JOB_CONDITION: Message = message(
    "JobCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastProbeTime", Time),
        keep(4, "lastTransitionTime", Time),
        opt(5, "reason", Str),
        opt(6, "message", Str),
    ],
);

pub static JOB_SPEC: Message = message(
    "JobSpec",
    &[
        keep(1, "parallelism", I32),
        keep(2, "completions", I32),
        keep(3, "activeDeadlineSeconds", I64),
        keep(11, "podFailurePolicy", Msg(&POD_FAILURE_POLICY)),
        keep(16, "successPolicy", Msg(&SUCCESS_POLICY)),
        keep(7, "backoffLimit", I32),
        keep(12, "backoffLimitPerIndex", I32),
        keep(13, "maxFailedIndexes", I32),
        keep(4, "selector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(5, "manualSelector", Bool),
        keep(6, "template", Msg(&core_v1::POD_TEMPLATE_SPEC)),
        keep(8, "ttlSecondsAfterFinished", I32),
        keep(9, "completionMode", Str),
        keep(10, "suspend", Bool),
        keep(14, "podReplacementPolicy", Str),
        keep(15, "managedBy", Str),
    ],
);

pub static JOB_STATUS: Message = message(
    "JobStatus",
    &[
        list(1, "conditions", Msg(&JOB_CONDITION)),
        keep(2, "startTime", Time),
        keep(3, "completionTime", Time),
        opt(4, "active", I32),
        opt(5, "succeeded", I32),
        opt(6, "failed", I32),
        keep(11, "terminating", I32),
        opt(7, "completedIndexes", Str),
        keep(10, "failedIndexes", Str),
        keep(
            8,
            "uncountedTerminatedPods",
            Msg(&UNCOUNTED_TERMINATED_PODS),
        ),
        keep(9, "ready", I32),
    ],
);

pub static JOB_TEMPLATE_SPEC: Message = message(
    "JobTemplateSpec",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&JOB_SPEC)),
    ],
);

pub static POD_FAILURE_POLICY: Message = message(
    "PodFailurePolicy",
    &[list(1, "rules", Msg(&POD_FAILURE_POLICY_RULE))],
);

pub static POD_FAILURE_POLICY_ON_EXIT_CODES_REQUIREMENT: Message = message(
    "PodFailurePolicyOnExitCodesRequirement",
    &[
        keep(1, "containerName", Str),
        keep(2, "operator", Str),
        list(3, "values", I32),
    ],
);

pub static POD_FAILURE_POLICY_ON_POD_CONDITIONS_PATTERN: Message = message(
    "PodFailurePolicyOnPodConditionsPattern",
    &[keep(1, "type", Str), keep(2, "status", Str)],
);

pub static POD_FAILURE_POLICY_RULE: Message = message(
    "PodFailurePolicyRule",
    &[
        keep(1, "action", Str),
        keep(
            2,
            "onExitCodes",
            Msg(&POD_FAILURE_POLICY_ON_EXIT_CODES_REQUIREMENT),
        ),
        list(
            3,
            "onPodConditions",
            Msg(&POD_FAILURE_POLICY_ON_POD_CONDITIONS_PATTERN),
        ),
    ],
);

pub static SUCCESS_POLICY: Message = message(
    "SuccessPolicy",
    &[list(1, "rules", Msg(&SUCCESS_POLICY_RULE))],
);

pub static SUCCESS_POLICY_RULE: Message = message(
    "SuccessPolicyRule",
    &[
        keep(1, "succeededIndexes", Str),
        keep(2, "succeededCount", I32),
    ],
);

pub static UNCOUNTED_TERMINATED_PODS: Message = message(
    "UncountedTerminatedPods",
    &[list(1, "succeeded", Str), list(2, "failed", Str)],
);
