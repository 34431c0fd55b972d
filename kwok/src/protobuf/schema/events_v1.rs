//! `events.k8s.io/v1` messages (k8s.io/api/events/v1).
//!
//! Field numbers as in `staging/src/k8s.io/api/events/v1/generated.proto`; JSON names and presence as in the
//! package's `types.go` struct tags (see the parent module).

use super::core_v1;
use super::meta_v1;
use super::Kind::{MicroTime, Msg, Str, Time, I32};
use super::{keep, message, opt, Message};

pub(crate) static EVENT: Message = message(
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

pub(super) static EVENT_SERIES: Message = message(
    "EventSeries",
    &[
        keep(1, "count", I32),
        keep(2, "lastObservedTime", MicroTime),
    ],
);
