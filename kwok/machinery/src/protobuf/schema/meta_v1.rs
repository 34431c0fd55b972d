//! `meta/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bool, FieldsV1, Msg, Str, Time, I64};
use super::{keep, list, map, message, opt, Message};

pub static CONDITION: Message = message(
    "Condition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        opt(3, "observedGeneration", I64),
        keep(4, "lastTransitionTime", Time),
        keep(5, "reason", Str),
        keep(6, "message", Str),
    ],
);

pub static DELETE_OPTIONS: Message = message(
    "DeleteOptions",
    &[
        keep(1, "gracePeriodSeconds", I64),
        keep(2, "preconditions", Msg(&PRECONDITIONS)),
        keep(3, "orphanDependents", Bool),
        keep(4, "propagationPolicy", Str),
        list(5, "dryRun", Str),
        keep(6, "ignoreStoreReadErrorWithClusterBreakingPotential", Bool),
    ],
);

pub static FIELD_SELECTOR_REQUIREMENT: Message = message(
    "FieldSelectorRequirement",
    &[
        keep(1, "key", Str),
        keep(2, "operator", Str),
        list(3, "values", Str),
    ],
);

pub static LABEL_SELECTOR: Message = message(
    "LabelSelector",
    &[
        map(1, "matchLabels", Str),
        list(2, "matchExpressions", Msg(&LABEL_SELECTOR_REQUIREMENT)),
    ],
);

pub static LABEL_SELECTOR_REQUIREMENT: Message = message(
    "LabelSelectorRequirement",
    &[
        keep(1, "key", Str),
        keep(2, "operator", Str),
        list(3, "values", Str),
    ],
);

pub static MANAGED_FIELDS_ENTRY: Message = message(
    "ManagedFieldsEntry",
    &[
        opt(1, "manager", Str),
        opt(2, "operation", Str),
        opt(3, "apiVersion", Str),
        keep(4, "time", Time),
        opt(6, "fieldsType", Str),
        keep(7, "fieldsV1", FieldsV1),
        opt(8, "subresource", Str),
    ],
);

pub static OBJECT_META: Message = message(
    "ObjectMeta",
    &[
        opt(1, "name", Str),
        opt(2, "generateName", Str),
        opt(3, "namespace", Str),
        opt(4, "selfLink", Str),
        opt(5, "uid", Str),
        opt(6, "resourceVersion", Str),
        opt(7, "generation", I64),
        keep(8, "creationTimestamp", Time),
        keep(9, "deletionTimestamp", Time),
        keep(10, "deletionGracePeriodSeconds", I64),
        map(11, "labels", Str),
        map(12, "annotations", Str),
        list(13, "ownerReferences", Msg(&OWNER_REFERENCE)),
        list(14, "finalizers", Str),
        list(17, "managedFields", Msg(&MANAGED_FIELDS_ENTRY)),
    ],
);

pub static OWNER_REFERENCE: Message = message(
    "OwnerReference",
    &[
        keep(5, "apiVersion", Str),
        keep(1, "kind", Str),
        keep(3, "name", Str),
        keep(4, "uid", Str),
        keep(6, "controller", Bool),
        keep(7, "blockOwnerDeletion", Bool),
    ],
);

pub static PRECONDITIONS: Message = message(
    "Preconditions",
    &[keep(1, "uid", Str), keep(2, "resourceVersion", Str)],
);
