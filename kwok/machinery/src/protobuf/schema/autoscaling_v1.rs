//! `autoscaling/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Msg, Str, Time, I32, I64};
use super::{keep, message, meta_v1, opt, Message};

pub static CROSS_VERSION_OBJECT_REFERENCE: Message = message(
    "CrossVersionObjectReference",
    &[
        keep(1, "kind", Str),
        keep(2, "name", Str),
        opt(3, "apiVersion", Str),
    ],
);

pub static HORIZONTAL_POD_AUTOSCALER: Message = message(
    "HorizontalPodAutoscaler",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&HORIZONTAL_POD_AUTOSCALER_SPEC)),
        keep(3, "status", Msg(&HORIZONTAL_POD_AUTOSCALER_STATUS)),
    ],
);

pub static HORIZONTAL_POD_AUTOSCALER_SPEC: Message = message(
    "HorizontalPodAutoscalerSpec",
    &[
        keep(1, "scaleTargetRef", Msg(&CROSS_VERSION_OBJECT_REFERENCE)),
        keep(2, "minReplicas", I32),
        keep(3, "maxReplicas", I32),
        keep(4, "targetCPUUtilizationPercentage", I32),
    ],
);

pub static HORIZONTAL_POD_AUTOSCALER_STATUS: Message = message(
    "HorizontalPodAutoscalerStatus",
    &[
        keep(1, "observedGeneration", I64),
        keep(2, "lastScaleTime", Time),
        keep(3, "currentReplicas", I32),
        keep(4, "desiredReplicas", I32),
        keep(5, "currentCPUUtilizationPercentage", I32),
    ],
);

pub static SCALE: Message = message(
    "Scale",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SCALE_SPEC)),
        keep(3, "status", Msg(&SCALE_STATUS)),
    ],
);

pub static SCALE_SPEC: Message = message("ScaleSpec", &[opt(1, "replicas", I32)]);

pub static SCALE_STATUS: Message = message(
    "ScaleStatus",
    &[keep(1, "replicas", I32), opt(2, "selector", Str)],
);
