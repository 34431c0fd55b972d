//! `apps/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bool, IntOrString, Msg, RawExtension, Str, Time, I32, I64};
use super::{core_v1, keep, list, message, meta_v1, opt, Message};

pub static CONTROLLER_REVISION: Message = message(
    "ControllerRevision",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "data", RawExtension),
        keep(3, "revision", I64),
    ],
);

pub static DAEMON_SET: Message = message(
    "DaemonSet",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&DAEMON_SET_SPEC)),
        keep(3, "status", Msg(&DAEMON_SET_STATUS)),
    ],
);

pub static DAEMON_SET_CONDITION: Message = message(
    "DaemonSetCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastTransitionTime", Time),
        opt(4, "reason", Str),
        opt(5, "message", Str),
    ],
);

pub static DAEMON_SET_SPEC: Message = message(
    "DaemonSetSpec",
    &[
        keep(1, "selector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(2, "template", Msg(&core_v1::POD_TEMPLATE_SPEC)),
        keep(3, "updateStrategy", Msg(&DAEMON_SET_UPDATE_STRATEGY)),
        opt(4, "minReadySeconds", I32),
        keep(6, "revisionHistoryLimit", I32),
    ],
);

pub static DAEMON_SET_STATUS: Message = message(
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

pub static DAEMON_SET_UPDATE_STRATEGY: Message = message(
    "DaemonSetUpdateStrategy",
    &[
        opt(1, "type", Str),
        keep(2, "rollingUpdate", Msg(&ROLLING_UPDATE_DAEMON_SET)),
    ],
);

pub static DEPLOYMENT: Message = message(
    "Deployment",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&DEPLOYMENT_SPEC)),
        keep(3, "status", Msg(&DEPLOYMENT_STATUS)),
    ],
);

pub static DEPLOYMENT_CONDITION: Message = message(
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

pub static DEPLOYMENT_SPEC: Message = message(
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

pub static DEPLOYMENT_STATUS: Message = message(
    "DeploymentStatus",
    &[
        opt(1, "observedGeneration", I64),
        opt(2, "replicas", I32),
        opt(3, "updatedReplicas", I32),
        opt(7, "readyReplicas", I32),
        opt(4, "availableReplicas", I32),
        opt(5, "unavailableReplicas", I32),
        list(6, "conditions", Msg(&DEPLOYMENT_CONDITION)),
        keep(8, "collisionCount", I32),
    ],
);

pub static DEPLOYMENT_STRATEGY: Message = message(
    "DeploymentStrategy",
    &[
        opt(1, "type", Str),
        keep(2, "rollingUpdate", Msg(&ROLLING_UPDATE_DEPLOYMENT)),
    ],
);

pub static REPLICA_SET: Message = message(
    "ReplicaSet",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&REPLICA_SET_SPEC)),
        keep(3, "status", Msg(&REPLICA_SET_STATUS)),
    ],
);

pub static REPLICA_SET_CONDITION: Message = message(
    "ReplicaSetCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastTransitionTime", Time),
        opt(4, "reason", Str),
        opt(5, "message", Str),
    ],
);

pub static REPLICA_SET_SPEC: Message = message(
    "ReplicaSetSpec",
    &[
        keep(1, "replicas", I32),
        opt(4, "minReadySeconds", I32),
        keep(2, "selector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(3, "template", Msg(&core_v1::POD_TEMPLATE_SPEC)),
    ],
);

pub static REPLICA_SET_STATUS: Message = message(
    "ReplicaSetStatus",
    &[
        keep(1, "replicas", I32),
        opt(2, "fullyLabeledReplicas", I32),
        opt(4, "readyReplicas", I32),
        opt(5, "availableReplicas", I32),
        opt(3, "observedGeneration", I64),
        list(6, "conditions", Msg(&REPLICA_SET_CONDITION)),
    ],
);

pub static ROLLING_UPDATE_DAEMON_SET: Message = message(
    "RollingUpdateDaemonSet",
    &[
        keep(1, "maxUnavailable", IntOrString),
        keep(2, "maxSurge", IntOrString),
    ],
);

pub static ROLLING_UPDATE_DEPLOYMENT: Message = message(
    "RollingUpdateDeployment",
    &[
        keep(1, "maxUnavailable", IntOrString),
        keep(2, "maxSurge", IntOrString),
    ],
);

pub static ROLLING_UPDATE_STATEFUL_SET_STRATEGY: Message = message(
    "RollingUpdateStatefulSetStrategy",
    &[
        keep(1, "partition", I32),
        keep(2, "maxUnavailable", IntOrString),
    ],
);

pub static STATEFUL_SET: Message = message(
    "StatefulSet",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&STATEFUL_SET_SPEC)),
        keep(3, "status", Msg(&STATEFUL_SET_STATUS)),
    ],
);

pub static STATEFUL_SET_CONDITION: Message = message(
    "StatefulSetCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastTransitionTime", Time),
        opt(4, "reason", Str),
        opt(5, "message", Str),
    ],
);

pub static STATEFUL_SET_ORDINALS: Message =
    message("StatefulSetOrdinals", &[keep(1, "start", I32)]);

pub static STATEFUL_SET_PERSISTENT_VOLUME_CLAIM_RETENTION_POLICY: Message = message(
    "StatefulSetPersistentVolumeClaimRetentionPolicy",
    &[opt(1, "whenDeleted", Str), opt(2, "whenScaled", Str)],
);

pub static STATEFUL_SET_SPEC: Message = message(
    "StatefulSetSpec",
    &[
        keep(1, "replicas", I32),
        keep(2, "selector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(3, "template", Msg(&core_v1::POD_TEMPLATE_SPEC)),
        list(
            4,
            "volumeClaimTemplates",
            Msg(&core_v1::PERSISTENT_VOLUME_CLAIM),
        ),
        keep(5, "serviceName", Str),
        opt(6, "podManagementPolicy", Str),
        keep(7, "updateStrategy", Msg(&STATEFUL_SET_UPDATE_STRATEGY)),
        keep(8, "revisionHistoryLimit", I32),
        opt(9, "minReadySeconds", I32),
        keep(
            10,
            "persistentVolumeClaimRetentionPolicy",
            Msg(&STATEFUL_SET_PERSISTENT_VOLUME_CLAIM_RETENTION_POLICY),
        ),
        keep(11, "ordinals", Msg(&STATEFUL_SET_ORDINALS)),
    ],
);

pub static STATEFUL_SET_STATUS: Message = message(
    "StatefulSetStatus",
    &[
        opt(1, "observedGeneration", I64),
        keep(2, "replicas", I32),
        opt(3, "readyReplicas", I32),
        opt(4, "currentReplicas", I32),
        opt(5, "updatedReplicas", I32),
        opt(6, "currentRevision", Str),
        opt(7, "updateRevision", Str),
        keep(9, "collisionCount", I32),
        list(10, "conditions", Msg(&STATEFUL_SET_CONDITION)),
        keep(11, "availableReplicas", I32),
    ],
);

pub static STATEFUL_SET_UPDATE_STRATEGY: Message = message(
    "StatefulSetUpdateStrategy",
    &[
        opt(1, "type", Str),
        keep(
            2,
            "rollingUpdate",
            Msg(&ROLLING_UPDATE_STATEFUL_SET_STRATEGY),
        ),
    ],
);
