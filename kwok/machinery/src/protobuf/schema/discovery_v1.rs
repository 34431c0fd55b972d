//! `discovery/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bool, Msg, Str, I32};
use super::{core_v1, keep, list, map, message, meta_v1, Message};

pub static ENDPOINT: Message = message(
    "Endpoint",
    &[
        list(1, "addresses", Str),
        keep(2, "conditions", Msg(&ENDPOINT_CONDITIONS)),
        keep(3, "hostname", Str),
        keep(4, "targetRef", Msg(&core_v1::OBJECT_REFERENCE)),
        map(5, "deprecatedTopology", Str),
        keep(6, "nodeName", Str),
        keep(7, "zone", Str),
        keep(8, "hints", Msg(&ENDPOINT_HINTS)),
    ],
);

pub static ENDPOINT_CONDITIONS: Message = message(
    "EndpointConditions",
    &[
        keep(1, "ready", Bool),
        keep(2, "serving", Bool),
        keep(3, "terminating", Bool),
    ],
);

pub static ENDPOINT_HINTS: Message =
    message("EndpointHints", &[list(1, "forZones", Msg(&FOR_ZONE))]);

pub static ENDPOINT_PORT: Message = message(
    "EndpointPort",
    &[
        keep(1, "name", Str),
        keep(2, "protocol", Str),
        keep(3, "port", I32),
        keep(4, "appProtocol", Str),
    ],
);

pub static ENDPOINT_SLICE: Message = message(
    "EndpointSlice",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(4, "addressType", Str),
        list(2, "endpoints", Msg(&ENDPOINT)),
        list(3, "ports", Msg(&ENDPOINT_PORT)),
    ],
);

pub static FOR_ZONE: Message = message("ForZone", &[keep(1, "name", Str)]);
