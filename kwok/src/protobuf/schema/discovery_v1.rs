//! `discovery.k8s.io/v1` messages (k8s.io/api/discovery/v1).
//!
//! Field numbers as in `staging/src/k8s.io/api/discovery/v1/generated.proto`; JSON names and
//! presence as in the package's `types.go` struct tags (see the parent module).

use super::core_v1::OBJECT_REFERENCE;
use super::meta_v1;
use super::Kind::{Bool, Msg, Str, I32};
use super::{keep, list, map, message, Message};

pub(crate) static ENDPOINT_SLICE: Message = message(
    "EndpointSlice",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(4, "addressType", Str),
        list(2, "endpoints", Msg(&ENDPOINT)),
        list(3, "ports", Msg(&ENDPOINT_PORT)),
    ],
);

static ENDPOINT: Message = message(
    "Endpoint",
    &[
        list(1, "addresses", Str),
        keep(2, "conditions", Msg(&ENDPOINT_CONDITIONS)),
        keep(3, "hostname", Str),
        keep(4, "targetRef", Msg(&OBJECT_REFERENCE)),
        map(5, "deprecatedTopology", Str),
        keep(6, "nodeName", Str),
        keep(7, "zone", Str),
        keep(8, "hints", Msg(&ENDPOINT_HINTS)),
    ],
);

static ENDPOINT_CONDITIONS: Message = message(
    "EndpointConditions",
    &[
        keep(1, "ready", Bool),
        keep(2, "serving", Bool),
        keep(3, "terminating", Bool),
    ],
);

static ENDPOINT_HINTS: Message = message("EndpointHints", &[list(1, "forZones", Msg(&FOR_ZONE))]);

static FOR_ZONE: Message = message("ForZone", &[keep(1, "name", Str)]);

static ENDPOINT_PORT: Message = message(
    "EndpointPort",
    &[
        keep(1, "name", Str),
        keep(2, "protocol", Str),
        keep(3, "port", I32),
        keep(4, "appProtocol", Str),
    ],
);
