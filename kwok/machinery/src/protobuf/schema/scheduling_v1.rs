//! `scheduling/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bool, Msg, Str, I32};
use super::{keep, message, meta_v1, opt, Message};

pub static PRIORITY_CLASS: Message = message(
    "PriorityClass",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "value", I32),
        opt(3, "globalDefault", Bool),
        opt(4, "description", Str),
        keep(5, "preemptionPolicy", Str),
    ],
);
