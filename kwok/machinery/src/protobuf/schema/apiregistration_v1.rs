//! `apiregistration/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bool, Bytes, Msg, Str, Time, I32};
use super::{keep, list, message, meta_v1, opt, Message};

pub static API_SERVICE: Message = message(
    "APIService",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&API_SERVICE_SPEC)),
        keep(3, "status", Msg(&API_SERVICE_STATUS)),
    ],
);

pub static API_SERVICE_CONDITION: Message = message(
    "APIServiceCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastTransitionTime", Time),
        opt(4, "reason", Str),
        opt(5, "message", Str),
    ],
);

pub static API_SERVICE_SPEC: Message = message(
    "APIServiceSpec",
    &[
        keep(1, "service", Msg(&SERVICE_REFERENCE)),
        opt(2, "group", Str),
        opt(3, "version", Str),
        opt(4, "insecureSkipTLSVerify", Bool),
        opt(5, "caBundle", Bytes),
        keep(7, "groupPriorityMinimum", I32),
        keep(8, "versionPriority", I32),
    ],
);

pub static API_SERVICE_STATUS: Message = message(
    "APIServiceStatus",
    &[list(1, "conditions", Msg(&API_SERVICE_CONDITION))],
);

pub static SERVICE_REFERENCE: Message = message(
    "ServiceReference",
    &[
        opt(1, "namespace", Str),
        opt(2, "name", Str),
        keep(3, "port", I32),
    ],
);
