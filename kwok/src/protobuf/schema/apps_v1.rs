//! `apps/v1` messages (k8s.io/api/apps/v1).
//!
//! Field numbers as in `staging/src/k8s.io/api/apps/v1/generated.proto`; JSON names and presence as in the
//! package's `types.go` struct tags (see the parent module).

use super::core_v1;
use super::meta_v1;
use super::Kind::{Bool, IntOrString, Msg, RawExtension, Str, Time, I32, I64};
use super::{keep, list, message, opt, Message};

pub(crate) static CONTROLLER_REVISION: Message = message(
    "ControllerRevision",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "data", RawExtension),
        keep(3, "revision", I64),
    ],
);

pub(crate) static DAEMON_SET: Message = message(
    "DaemonSet",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&DAEMON_SET_SPEC)),
        keep(3, "status", Msg(&DAEMON_SET_STATUS)),
    ],
);

pub(super) static DAEMON_SET_CONDITION: Message = message(
    "DaemonSetCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastTransitionTime", Time),
        opt(4, "reason", Str),
        opt(5, "message", Str),
    ],
);

pub(super) static DAEMON_SET_SPEC: Message = message(
    "DaemonSetSpec",
    &[
        keep(1, "selector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(2, "template", Msg(&core_v1::POD_TEMPLATE_SPEC)),
        keep(3, "updateStrategy", Msg(&DAEMON_SET_UPDATE_STRATEGY)),
        opt(4, "minReadySeconds", I32),
        keep(6, "revisionHistoryLimit", I32),
    ],
);

pub(super) static DAEMON_SET_STATUS: Message = message(
    "DaemonSetStatus",
    &[
        keep(1, "currentNumberScheduled", I32),
        keep(2, "numberMisscheduled", I32),
        keep(3, "desiredNumberScheduled", I32),
        keep(4, "numberReady", I32),
        opt(5, "observedGeneration", I64),
        opt(6, "updatedNumberScheduled", I32),
        opt(7, "numberAvailable", I32),
        opt(8, "numberUnavailable", I32),
        keep(9, "collisionCount", I32),
        list(10, "conditions", Msg(&DAEMON_SET_CONDITION)),
    ],
);

pub(super) static DAEMON_SET_UPDATE_STRATEGY: Message = message(
    "DaemonSetUpdateStrategy",
    &[
        opt(1, "type", Str),
        keep(2, "rollingUpdate", Msg(&ROLLING_UPDATE_DAEMON_SET)),
    ],
);

pub(crate) static DEPLOYMENT: Message = message(
    "Deployment",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&DEPLOYMENT_SPEC)),
        keep(3, "status", Msg(&DEPLOYMENT_STATUS)),
    ],
);

pub(super) static DEPLOYMENT_CONDITION: Message = message(
    "DeploymentCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(6, "lastUpdateTime", Time),
        keep(7, "lastTransitionTime", Time),
        opt(4, "reason", Str),
        opt(5, "message", Str),
    ],
);

pub(super) static DEPLOYMENT_SPEC: Message = message(
    "DeploymentSpec",
    &[
        keep(1, "replicas", I32),
        keep(2, "selector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(3, "template", Msg(&core_v1::POD_TEMPLATE_SPEC)),
        keep(4, "strategy", Msg(&DEPLOYMENT_STRATEGY)),
        opt(5, "minReadySeconds", I32),
        keep(6, "revisionHistoryLimit", I32),
        opt(7, "paused", Bool),
        keep(9, "progressDeadlineSeconds", I32),
    ],
);

pub(super) static DEPLOYMENT_STATUS: Message = message(
    "DeploymentStatus",
    &[
        opt(1, "observedGeneration", I64),
        opt(2, "replicas", I32),
        opt(3, "updatedReplicas", I32),
        opt(7, "readyReplicas", I32),
        opt(4, "availableReplicas", I32),
        opt(5, "unavailableReplicas", I32),
        keep(9, "terminatingReplicas", I32),
        list(6, "conditions", Msg(&DEPLOYMENT_CONDITION)),
        keep(8, "collisionCount", I32),
    ],
);

pub(super) static DEPLOYMENT_STRATEGY: Message = message(
    "DeploymentStrategy",
    &[
        opt(1, "type", Str),
        keep(2, "rollingUpdate", Msg(&ROLLING_UPDATE_DEPLOYMENT)),
    ],
);

pub(crate) static REPLICA_SET: Message = message(
    "ReplicaSet",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&REPLICA_SET_SPEC)),
        keep(3, "status", Msg(&REPLICA_SET_STATUS)),
    ],
);

pub(super) static REPLICA_SET_CONDITION: Message = message(
    "ReplicaSetCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastTransitionTime", Time),
        opt(4, "reason", Str),
        opt(5, "message", Str),
    ],
);

pub(super) static REPLICA_SET_SPEC: Message = message(
    "ReplicaSetSpec",
    &[
        keep(1, "replicas", I32),
        opt(4, "minReadySeconds", I32),
        keep(2, "selector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(3, "template", Msg(&core_v1::POD_TEMPLATE_SPEC)),
    ],
);

pub(super) static REPLICA_SET_STATUS: Message = message(
    "ReplicaSetStatus",
    &[
        keep(1, "replicas", I32),
        opt(2, "fullyLabeledReplicas", I32),
        opt(4, "readyReplicas", I32),
        opt(5, "availableReplicas", I32),
        keep(7, "terminatingReplicas", I32),
        opt(3, "observedGeneration", I64),
        list(6, "conditions", Msg(&REPLICA_SET_CONDITION)),
    ],
);

pub(super) static ROLLING_UPDATE_DAEMON_SET: Message = message(
    "RollingUpdateDaemonSet",
    &[
        keep(1, "maxUnavailable", IntOrString),
        keep(2, "maxSurge", IntOrString),
    ],
);

pub(super) static ROLLING_UPDATE_DEPLOYMENT: Message = message(
    "RollingUpdateDeployment",
    &[
        keep(1, "maxUnavailable", IntOrString),
        keep(2, "maxSurge", IntOrString),
    ],
);
