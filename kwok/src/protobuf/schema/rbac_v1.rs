//! `rbac.authorization.k8s.io/v1` messages (k8s.io/api/rbac/v1).
//!
//! Field numbers as in `staging/src/k8s.io/api/rbac/v1/generated.proto`; JSON names and
//! presence as in the package's `types.go` struct tags (see the parent module).

use super::meta_v1;
use super::Kind::{Msg, Str};
use super::{keep, list, message, Message};

static POLICY_RULE: Message = message(
    "PolicyRule",
    &[
        list(1, "verbs", Str),
        list(2, "apiGroups", Str),
        list(3, "resources", Str),
        list(4, "resourceNames", Str),
        list(5, "nonResourceURLs", Str),
    ],
);

static AGGREGATION_RULE: Message = message(
    "AggregationRule",
    &[list(
        1,
        "clusterRoleSelectors",
        Msg(&meta_v1::LABEL_SELECTOR),
    )],
);

static SUBJECT: Message = message(
    "Subject",
    &[
        keep(1, "kind", Str),
        super::opt(2, "apiGroup", Str),
        keep(3, "name", Str),
        super::opt(4, "namespace", Str),
    ],
);

static ROLE_REF: Message = message(
    "RoleRef",
    &[
        keep(1, "apiGroup", Str),
        keep(2, "kind", Str),
        keep(3, "name", Str),
    ],
);

pub(crate) static ROLE: Message = message(
    "Role",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        list(2, "rules", Msg(&POLICY_RULE)),
    ],
);

pub(crate) static CLUSTER_ROLE: Message = message(
    "ClusterRole",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        list(2, "rules", Msg(&POLICY_RULE)),
        keep(3, "aggregationRule", Msg(&AGGREGATION_RULE)),
    ],
);

pub(crate) static ROLE_BINDING: Message = message(
    "RoleBinding",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        list(2, "subjects", Msg(&SUBJECT)),
        keep(3, "roleRef", Msg(&ROLE_REF)),
    ],
);

pub(crate) static CLUSTER_ROLE_BINDING: Message = message(
    "ClusterRoleBinding",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        list(2, "subjects", Msg(&SUBJECT)),
        keep(3, "roleRef", Msg(&ROLE_REF)),
    ],
);
