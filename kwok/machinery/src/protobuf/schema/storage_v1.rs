//! `storage/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bool, Msg, Str};
use super::{core_v1, keep, list, map, message, meta_v1, Message};

pub static STORAGE_CLASS: Message = message(
    "StorageClass",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "provisioner", Str),
        map(3, "parameters", Str),
        keep(4, "reclaimPolicy", Str),
        list(5, "mountOptions", Str),
        keep(6, "allowVolumeExpansion", Bool),
        keep(7, "volumeBindingMode", Str),
        list(
            8,
            "allowedTopologies",
            Msg(&core_v1::TOPOLOGY_SELECTOR_TERM),
        ),
    ],
);
