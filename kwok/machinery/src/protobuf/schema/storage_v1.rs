//! `storage/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bool, Msg, Quantity, Str, Time, I32, I64};
use super::{core_v1, keep, list, map, message, meta_v1, opt, Message};

pub static CSI_DRIVER: Message = message(
    "CSIDriver",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&CSI_DRIVER_SPEC)),
    ],
);

pub static CSI_DRIVER_SPEC: Message = message(
    "CSIDriverSpec",
    &[
        keep(1, "attachRequired", Bool),
        keep(2, "podInfoOnMount", Bool),
        list(3, "volumeLifecycleModes", Str),
        keep(4, "storageCapacity", Bool),
        keep(5, "fsGroupPolicy", Str),
        list(6, "tokenRequests", Msg(&TOKEN_REQUEST)),
        keep(7, "requiresRepublish", Bool),
        keep(8, "seLinuxMount", Bool),
    ],
);

pub static CSI_NODE: Message = message(
    "CSINode",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&CSI_NODE_SPEC)),
    ],
);

pub static CSI_NODE_DRIVER: Message = message(
    "CSINodeDriver",
    &[
        keep(1, "name", Str),
        keep(2, "nodeID", Str),
        list(3, "topologyKeys", Str),
        keep(4, "allocatable", Msg(&VOLUME_NODE_RESOURCES)),
    ],
);

pub static CSI_NODE_SPEC: Message =
    message("CSINodeSpec", &[list(1, "drivers", Msg(&CSI_NODE_DRIVER))]);

pub static CSI_STORAGE_CAPACITY: Message = message(
    "CSIStorageCapacity",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "nodeTopology", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(3, "storageClassName", Str),
        keep(4, "capacity", Quantity),
        keep(5, "maximumVolumeSize", Quantity),
    ],
);

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

pub static TOKEN_REQUEST: Message = message(
    "TokenRequest",
    &[keep(1, "audience", Str), keep(2, "expirationSeconds", I64)],
);

pub static VOLUME_ATTACHMENT: Message = message(
    "VolumeAttachment",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&VOLUME_ATTACHMENT_SPEC)),
        keep(3, "status", Msg(&VOLUME_ATTACHMENT_STATUS)),
    ],
);

pub static VOLUME_ATTACHMENT_SOURCE: Message = message(
    "VolumeAttachmentSource",
    &[
        keep(1, "persistentVolumeName", Str),
        keep(2, "inlineVolumeSpec", Msg(&core_v1::PERSISTENT_VOLUME_SPEC)),
    ],
);

pub static VOLUME_ATTACHMENT_SPEC: Message = message(
    "VolumeAttachmentSpec",
    &[
        keep(1, "attacher", Str),
        keep(2, "source", Msg(&VOLUME_ATTACHMENT_SOURCE)),
        keep(3, "nodeName", Str),
    ],
);

pub static VOLUME_ATTACHMENT_STATUS: Message = message(
    "VolumeAttachmentStatus",
    &[
        keep(1, "attached", Bool),
        map(2, "attachmentMetadata", Str),
        keep(3, "attachError", Msg(&VOLUME_ERROR)),
        keep(4, "detachError", Msg(&VOLUME_ERROR)),
    ],
);

pub static VOLUME_ERROR: Message = message(
    "VolumeError",
    &[keep(1, "time", Time), opt(2, "message", Str)],
);

pub static VOLUME_NODE_RESOURCES: Message =
    message("VolumeNodeResources", &[keep(1, "count", I32)]);
