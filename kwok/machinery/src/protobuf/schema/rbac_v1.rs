//! `rbac/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Msg, Str};
use super::{keep, list, message, meta_v1, opt, Message};

pub static AGGREGATION_RULE: Message = message(
    "AggregationRule",
    &[list(
        1,
        "clusterRoleSelectors",
        Msg(&meta_v1::LABEL_SELECTOR),
    )],
);

pub static CLUSTER_ROLE: Message = message(
    "ClusterRole",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        list(2, "rules", Msg(&POLICY_RULE)),
        keep(3, "aggregationRule", Msg(&AGGREGATION_RULE)),
    ],
);

pub static CLUSTER_ROLE_BINDING: Message = message(
    "ClusterRoleBinding",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        list(2, "subjects", Msg(&SUBJECT)),
        keep(3, "roleRef", Msg(&ROLE_REF)),
    ],
);

pub static POLICY_RULE: Message = message(
    "PolicyRule",
    &[
        list(1, "verbs", Str),
        list(2, "apiGroups", Str),
        list(3, "resources", Str),
        list(4, "resourceNames", Str),
        list(5, "nonResourceURLs", Str),
    ],
);

pub static ROLE: Message = message(
    "Role",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        list(2, "rules", Msg(&POLICY_RULE)),
    ],
);

pub static ROLE_BINDING: Message = message(
    "RoleBinding",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        list(2, "subjects", Msg(&SUBJECT)),
        keep(3, "roleRef", Msg(&ROLE_REF)),
    ],
);

pub static ROLE_REF: Message = message(
    "RoleRef",
    &[
        keep(1, "apiGroup", Str),
        keep(2, "kind", Str),
        keep(3, "name", Str),
    ],
);

pub static SUBJECT: Message = message(
    "Subject",
    &[
        keep(1, "kind", Str),
        opt(2, "apiGroup", Str),
        keep(3, "name", Str),
        opt(4, "namespace", Str),
    ],
);
