//! `authorization/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bool, Items, Msg, Str};
use super::{keep, list, map, message, meta_v1, opt, Message};

pub static EXTRA_VALUE: Message = message("ExtraValue", &[list(1, "items", Str)]);

pub static FIELD_SELECTOR_ATTRIBUTES: Message = message(
    "FieldSelectorAttributes",
    &[
        opt(1, "rawSelector", Str),
        list(2, "requirements", Msg(&meta_v1::FIELD_SELECTOR_REQUIREMENT)),
    ],
);

pub static LABEL_SELECTOR_ATTRIBUTES: Message = message(
    "LabelSelectorAttributes",
    &[
        opt(1, "rawSelector", Str),
        list(2, "requirements", Msg(&meta_v1::LABEL_SELECTOR_REQUIREMENT)),
    ],
);

pub static LOCAL_SUBJECT_ACCESS_REVIEW: Message = message(
    "LocalSubjectAccessReview",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SUBJECT_ACCESS_REVIEW_SPEC)),
        keep(3, "status", Msg(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
);

pub static NON_RESOURCE_ATTRIBUTES: Message = message(
    "NonResourceAttributes",
    &[opt(1, "path", Str), opt(2, "verb", Str)],
);

pub static NON_RESOURCE_RULE: Message = message(
    "NonResourceRule",
    &[list(1, "verbs", Str), list(2, "nonResourceURLs", Str)],
);

pub static RESOURCE_ATTRIBUTES: Message = message(
    "ResourceAttributes",
    &[
        opt(1, "namespace", Str),
        opt(2, "verb", Str),
        opt(3, "group", Str),
        opt(4, "version", Str),
        opt(5, "resource", Str),
        opt(6, "subresource", Str),
        opt(7, "name", Str),
        keep(8, "fieldSelector", Msg(&FIELD_SELECTOR_ATTRIBUTES)),
        keep(9, "labelSelector", Msg(&LABEL_SELECTOR_ATTRIBUTES)),
    ],
);

pub static RESOURCE_RULE: Message = message(
    "ResourceRule",
    &[
        list(1, "verbs", Str),
        list(2, "apiGroups", Str),
        list(3, "resources", Str),
        list(4, "resourceNames", Str),
    ],
);

pub static SELF_SUBJECT_ACCESS_REVIEW: Message = message(
    "SelfSubjectAccessReview",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SELF_SUBJECT_ACCESS_REVIEW_SPEC)),
        keep(3, "status", Msg(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
);

pub static SELF_SUBJECT_ACCESS_REVIEW_SPEC: Message = message(
    "SelfSubjectAccessReviewSpec",
    &[
        keep(1, "resourceAttributes", Msg(&RESOURCE_ATTRIBUTES)),
        keep(2, "nonResourceAttributes", Msg(&NON_RESOURCE_ATTRIBUTES)),
    ],
);

pub static SELF_SUBJECT_RULES_REVIEW: Message = message(
    "SelfSubjectRulesReview",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SELF_SUBJECT_RULES_REVIEW_SPEC)),
        keep(3, "status", Msg(&SUBJECT_RULES_REVIEW_STATUS)),
    ],
);

pub static SELF_SUBJECT_RULES_REVIEW_SPEC: Message =
    message("SelfSubjectRulesReviewSpec", &[opt(1, "namespace", Str)]);

pub static SUBJECT_ACCESS_REVIEW: Message = message(
    "SubjectAccessReview",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SUBJECT_ACCESS_REVIEW_SPEC)),
        keep(3, "status", Msg(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
);

pub static SUBJECT_ACCESS_REVIEW_SPEC: Message = message(
    "SubjectAccessReviewSpec",
    &[
        keep(1, "resourceAttributes", Msg(&RESOURCE_ATTRIBUTES)),
        keep(2, "nonResourceAttributes", Msg(&NON_RESOURCE_ATTRIBUTES)),
        opt(3, "user", Str),
        list(4, "groups", Str),
        map(5, "extra", Items(&EXTRA_VALUE)),
        opt(6, "uid", Str),
    ],
);

pub static SUBJECT_ACCESS_REVIEW_STATUS: Message = message(
    "SubjectAccessReviewStatus",
    &[
        keep(1, "allowed", Bool),
        opt(4, "denied", Bool),
        opt(2, "reason", Str),
        opt(3, "evaluationError", Str),
    ],
);

pub static SUBJECT_RULES_REVIEW_STATUS: Message = message(
    "SubjectRulesReviewStatus",
    &[
        list(1, "resourceRules", Msg(&RESOURCE_RULE)),
        list(2, "nonResourceRules", Msg(&NON_RESOURCE_RULE)),
        keep(3, "incomplete", Bool),
        opt(4, "evaluationError", Str),
    ],
);
