//! `autoscaling/v2` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Msg, Quantity, Str, Time, I32, I64};
use super::{keep, list, message, meta_v1, opt, Message};

pub static CONTAINER_RESOURCE_METRIC_SOURCE: Message = message(
    "ContainerResourceMetricSource",
    &[
        keep(1, "name", Str),
        keep(2, "target", Msg(&METRIC_TARGET)),
        keep(3, "container", Str),
    ],
);

pub static CONTAINER_RESOURCE_METRIC_STATUS: Message = message(
    "ContainerResourceMetricStatus",
    &[
        keep(1, "name", Str),
        keep(2, "current", Msg(&METRIC_VALUE_STATUS)),
        keep(3, "container", Str),
    ],
);

pub static CROSS_VERSION_OBJECT_REFERENCE: Message = message(
    "CrossVersionObjectReference",
    &[
        keep(1, "kind", Str),
        keep(2, "name", Str),
        opt(3, "apiVersion", Str),
    ],
);

pub static EXTERNAL_METRIC_SOURCE: Message = message(
    "ExternalMetricSource",
    &[
        keep(1, "metric", Msg(&METRIC_IDENTIFIER)),
        keep(2, "target", Msg(&METRIC_TARGET)),
    ],
);

pub static EXTERNAL_METRIC_STATUS: Message = message(
    "ExternalMetricStatus",
    &[
        keep(1, "metric", Msg(&METRIC_IDENTIFIER)),
        keep(2, "current", Msg(&METRIC_VALUE_STATUS)),
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

pub static HORIZONTAL_POD_AUTOSCALER_BEHAVIOR: Message = message(
    "HorizontalPodAutoscalerBehavior",
    &[
        keep(1, "scaleUp", Msg(&HPA_SCALING_RULES)),
        keep(2, "scaleDown", Msg(&HPA_SCALING_RULES)),
    ],
);

pub static HORIZONTAL_POD_AUTOSCALER_CONDITION: Message = message(
    "HorizontalPodAutoscalerCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastTransitionTime", Time),
        opt(4, "reason", Str),
        opt(5, "message", Str),
    ],
);

pub static HORIZONTAL_POD_AUTOSCALER_SPEC: Message = message(
    "HorizontalPodAutoscalerSpec",
    &[
        keep(1, "scaleTargetRef", Msg(&CROSS_VERSION_OBJECT_REFERENCE)),
        keep(2, "minReplicas", I32),
        keep(3, "maxReplicas", I32),
        list(4, "metrics", Msg(&METRIC_SPEC)),
        keep(5, "behavior", Msg(&HORIZONTAL_POD_AUTOSCALER_BEHAVIOR)),
    ],
);

pub static HORIZONTAL_POD_AUTOSCALER_STATUS: Message = message(
    "HorizontalPodAutoscalerStatus",
    &[
        keep(1, "observedGeneration", I64),
        keep(2, "lastScaleTime", Time),
        opt(3, "currentReplicas", I32),
        keep(4, "desiredReplicas", I32),
        list(5, "currentMetrics", Msg(&METRIC_STATUS)),
        list(6, "conditions", Msg(&HORIZONTAL_POD_AUTOSCALER_CONDITION)),
    ],
);

pub static HPA_SCALING_POLICY: Message = message(
    "HPAScalingPolicy",
    &[
        keep(1, "type", Str),
        keep(2, "value", I32),
        keep(3, "periodSeconds", I32),
    ],
);

pub static HPA_SCALING_RULES: Message = message(
    "HPAScalingRules",
    &[
        keep(3, "stabilizationWindowSeconds", I32),
        keep(1, "selectPolicy", Str),
        list(2, "policies", Msg(&HPA_SCALING_POLICY)),
    ],
);

pub static METRIC_IDENTIFIER: Message = message(
    "MetricIdentifier",
    &[
        keep(1, "name", Str),
        keep(2, "selector", Msg(&meta_v1::LABEL_SELECTOR)),
    ],
);

pub static METRIC_SPEC: Message = message(
    "MetricSpec",
    &[
        keep(1, "type", Str),
        keep(2, "object", Msg(&OBJECT_METRIC_SOURCE)),
        keep(3, "pods", Msg(&PODS_METRIC_SOURCE)),
        keep(4, "resource", Msg(&RESOURCE_METRIC_SOURCE)),
        keep(
            7,
            "containerResource",
            Msg(&CONTAINER_RESOURCE_METRIC_SOURCE),
        ),
        keep(5, "external", Msg(&EXTERNAL_METRIC_SOURCE)),
    ],
);

pub static METRIC_STATUS: Message = message(
    "MetricStatus",
    &[
        keep(1, "type", Str),
        keep(2, "object", Msg(&OBJECT_METRIC_STATUS)),
        keep(3, "pods", Msg(&PODS_METRIC_STATUS)),
        keep(4, "resource", Msg(&RESOURCE_METRIC_STATUS)),
        keep(
            7,
            "containerResource",
            Msg(&CONTAINER_RESOURCE_METRIC_STATUS),
        ),
        keep(5, "external", Msg(&EXTERNAL_METRIC_STATUS)),
    ],
);

pub static METRIC_TARGET: Message = message(
    "MetricTarget",
    &[
        keep(1, "type", Str),
        keep(2, "value", Quantity),
        keep(3, "averageValue", Quantity),
        keep(4, "averageUtilization", I32),
    ],
);

pub static METRIC_VALUE_STATUS: Message = message(
    "MetricValueStatus",
    &[
        keep(1, "value", Quantity),
        keep(2, "averageValue", Quantity),
        keep(3, "averageUtilization", I32),
    ],
);

pub static OBJECT_METRIC_SOURCE: Message = message(
    "ObjectMetricSource",
    &[
        keep(1, "describedObject", Msg(&CROSS_VERSION_OBJECT_REFERENCE)),
        keep(2, "target", Msg(&METRIC_TARGET)),
        keep(3, "metric", Msg(&METRIC_IDENTIFIER)),
    ],
);

pub static OBJECT_METRIC_STATUS: Message = message(
    "ObjectMetricStatus",
    &[
        keep(1, "metric", Msg(&METRIC_IDENTIFIER)),
        keep(2, "current", Msg(&METRIC_VALUE_STATUS)),
        keep(3, "describedObject", Msg(&CROSS_VERSION_OBJECT_REFERENCE)),
    ],
);

pub static PODS_METRIC_SOURCE: Message = message(
    "PodsMetricSource",
    &[
        keep(1, "metric", Msg(&METRIC_IDENTIFIER)),
        keep(2, "target", Msg(&METRIC_TARGET)),
    ],
);

pub static PODS_METRIC_STATUS: Message = message(
    "PodsMetricStatus",
    &[
        keep(1, "metric", Msg(&METRIC_IDENTIFIER)),
        keep(2, "current", Msg(&METRIC_VALUE_STATUS)),
    ],
);

pub static RESOURCE_METRIC_SOURCE: Message = message(
    "ResourceMetricSource",
    &[keep(1, "name", Str), keep(2, "target", Msg(&METRIC_TARGET))],
);

pub static RESOURCE_METRIC_STATUS: Message = message(
    "ResourceMetricStatus",
    &[
        keep(1, "name", Str),
        keep(2, "current", Msg(&METRIC_VALUE_STATUS)),
    ],
);
