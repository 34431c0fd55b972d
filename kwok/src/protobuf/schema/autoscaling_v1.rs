//! `autoscaling/v1` messages (k8s.io/api/autoscaling/v1).
//!
//! Field numbers as in `staging/src/k8s.io/api/autoscaling/v1/generated.proto`; JSON names and presence as in the
//! package's `types.go` struct tags (see the parent module).

use super::meta_v1;
use super::Kind::{Msg, Str, Time, I32, I64};
use super::{keep, message, opt, Message};

pub(crate) static SCALE: Message = message(
    "Scale",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SCALE_SPEC)),
        keep(3, "status", Msg(&SCALE_STATUS)),
    ],
);

pub(super) static SCALE_SPEC: Message = message("ScaleSpec", &[opt(1, "replicas", I32)]);

pub(super) static SCALE_STATUS: Message = message(
    "ScaleStatus",
    &[keep(1, "replicas", I32), opt(2, "selector", Str)],
);

pub(crate) static HORIZONTAL_POD_AUTOSCALER: Message = message(
    "HorizontalPodAutoscaler",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&HPA_SPEC)),
        keep(3, "status", Msg(&HPA_STATUS)),
    ],
);

static CROSS_VERSION_OBJECT_REFERENCE: Message = message(
    "CrossVersionObjectReference",
    &[
        keep(1, "kind", Str),
        keep(2, "name", Str),
        opt(3, "apiVersion", Str),
    ],
);

static HPA_SPEC: Message = message(
    "HorizontalPodAutoscalerSpec",
    &[
        keep(1, "scaleTargetRef", Msg(&CROSS_VERSION_OBJECT_REFERENCE)),
        keep(2, "minReplicas", I32),
        keep(3, "maxReplicas", I32),
        keep(4, "targetCPUUtilizationPercentage", I32),
    ],
);

static HPA_STATUS: Message = message(
    "HorizontalPodAutoscalerStatus",
    &[
        keep(1, "observedGeneration", I64),
        keep(2, "lastScaleTime", Time),
        keep(3, "currentReplicas", I32),
        keep(4, "desiredReplicas", I32),
        keep(5, "currentCPUUtilizationPercentage", I32),
    ],
);
