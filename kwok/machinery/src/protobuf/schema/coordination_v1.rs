//! `coordination/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{MicroTime, Msg, Str, I32};
use super::{keep, message, meta_v1, Message};

pub static LEASE: Message = message(
    "Lease",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&LEASE_SPEC)),
    ],
);

pub static LEASE_SPEC: Message = message(
    "LeaseSpec",
    &[
        keep(1, "holderIdentity", Str),
        keep(2, "leaseDurationSeconds", I32),
        keep(3, "acquireTime", MicroTime),
        keep(4, "renewTime", MicroTime),
        keep(5, "leaseTransitions", I32),
        keep(6, "strategy", Str),
        keep(7, "preferredHolder", Str),
    ],
);
