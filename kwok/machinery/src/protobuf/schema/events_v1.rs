//! `events/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{MicroTime, Msg, Str, Time, I32};
use super::{core_v1, keep, message, meta_v1, opt, Message};

pub static EVENT: Message = message(
    "Event",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "eventTime", MicroTime),
        keep(3, "series", Msg(&EVENT_SERIES)),
        opt(4, "reportingController", Str),
        opt(5, "reportingInstance", Str),
        opt(6, "action", Str),
        opt(7, "reason", Str),
        keep(8, "regarding", Msg(&core_v1::OBJECT_REFERENCE)),
        keep(9, "related", Msg(&core_v1::OBJECT_REFERENCE)),
        opt(10, "note", Str),
        opt(11, "type", Str),
        keep(12, "deprecatedSource", Msg(&core_v1::EVENT_SOURCE)),
        keep(13, "deprecatedFirstTimestamp", Time),
        keep(14, "deprecatedLastTimestamp", Time),
        opt(15, "deprecatedCount", I32),
    ],
);

pub static EVENT_SERIES: Message = message(
    "EventSeries",
    &[
        keep(1, "count", I32),
        keep(2, "lastObservedTime", MicroTime),
    ],
);
