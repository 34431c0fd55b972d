//! `node/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Msg, Quantity, Str};
use super::{core_v1, keep, list, map, message, meta_v1, Message};

pub static OVERHEAD: Message = message("Overhead", &[map(1, "podFixed", Quantity)]);

pub static RUNTIME_CLASS: Message = message(
    "RuntimeClass",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "handler", Str),
        keep(3, "overhead", Msg(&OVERHEAD)),
        keep(4, "scheduling", Msg(&SCHEDULING)),
    ],
);

pub static SCHEDULING: Message = message(
    "Scheduling",
    &[
        map(1, "nodeSelector", Str),
        list(2, "tolerations", Msg(&core_v1::TOLERATION)),
    ],
);
