//! `authorization.k8s.io/v1` and `authentication.k8s.io/v1` request messages
//! (k8s.io/api/authorization/v1, k8s.io/api/authentication/v1).
//!
//! Field numbers as in the packages' `generated.proto`; JSON names and presence as in their
//! `types.go` struct tags (see the parent module). Several messages number their fields out of
//! declaration order (SubjectAccessReviewStatus, TokenRequestSpec).

use super::meta_v1;
use super::Kind::{Bool, Msg, Str, I64};
use super::{keep, list, map, message, opt, Message};

static RESOURCE_ATTRIBUTES: Message = message(
    "ResourceAttributes",
    &[
        opt(1, "namespace", Str),
        opt(2, "verb", Str),
        opt(3, "group", Str),
        opt(4, "version", Str),
        opt(5, "resource", Str),
        opt(6, "subresource", Str),
        opt(7, "name", Str),
    ],
);

static NON_RESOURCE_ATTRIBUTES: Message = message(
    "NonResourceAttributes",
    &[opt(1, "path", Str), opt(2, "verb", Str)],
);

static EXTRA_VALUE: Message = message("ExtraValue", &[list(1, "items", Str)]);

static SELF_SUBJECT_ACCESS_REVIEW_SPEC: Message = message(
    "SelfSubjectAccessReviewSpec",
    &[
        keep(1, "resourceAttributes", Msg(&RESOURCE_ATTRIBUTES)),
        keep(2, "nonResourceAttributes", Msg(&NON_RESOURCE_ATTRIBUTES)),
    ],
);

static SUBJECT_ACCESS_REVIEW_SPEC: Message = message(
    "SubjectAccessReviewSpec",
    &[
        keep(1, "resourceAttributes", Msg(&RESOURCE_ATTRIBUTES)),
        keep(2, "nonResourceAttributes", Msg(&NON_RESOURCE_ATTRIBUTES)),
        opt(3, "user", Str),
        list(4, "groups", Str),
        map(5, "extra", Msg(&EXTRA_VALUE)),
        opt(6, "uid", Str),
    ],
);

static SUBJECT_ACCESS_REVIEW_STATUS: Message = message(
    "SubjectAccessReviewStatus",
    &[
        keep(1, "allowed", Bool),
        opt(4, "denied", Bool),
        opt(2, "reason", Str),
        opt(3, "evaluationError", Str),
    ],
);

pub(crate) static SELF_SUBJECT_ACCESS_REVIEW: Message = message(
    "SelfSubjectAccessReview",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SELF_SUBJECT_ACCESS_REVIEW_SPEC)),
        keep(3, "status", Msg(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
);

pub(crate) static SUBJECT_ACCESS_REVIEW: Message = message(
    "SubjectAccessReview",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SUBJECT_ACCESS_REVIEW_SPEC)),
        keep(3, "status", Msg(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
);

pub(crate) static LOCAL_SUBJECT_ACCESS_REVIEW: Message = message(
    "LocalSubjectAccessReview",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SUBJECT_ACCESS_REVIEW_SPEC)),
        keep(3, "status", Msg(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
);

static SELF_SUBJECT_RULES_REVIEW_SPEC: Message =
    message("SelfSubjectRulesReviewSpec", &[opt(1, "namespace", Str)]);

pub(crate) static SELF_SUBJECT_RULES_REVIEW: Message = message(
    "SelfSubjectRulesReview",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SELF_SUBJECT_RULES_REVIEW_SPEC)),
    ],
);

pub(crate) static SELF_SUBJECT_REVIEW: Message = message(
    "SelfSubjectReview",
    &[keep(1, "metadata", Msg(&meta_v1::OBJECT_META))],
);

static BOUND_OBJECT_REFERENCE: Message = message(
    "BoundObjectReference",
    &[
        opt(1, "kind", Str),
        opt(2, "apiVersion", Str),
        opt(3, "name", Str),
        opt(4, "uid", Str),
    ],
);

static TOKEN_REQUEST_SPEC: Message = message(
    "TokenRequestSpec",
    &[
        list(1, "audiences", Str),
        keep(4, "expirationSeconds", I64),
        keep(3, "boundObjectRef", Msg(&BOUND_OBJECT_REFERENCE)),
    ],
);

pub(crate) static TOKEN_REQUEST: Message = message(
    "TokenRequest",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&TOKEN_REQUEST_SPEC)),
    ],
);

static TOKEN_REVIEW_SPEC: Message = message(
    "TokenReviewSpec",
    &[opt(1, "token", Str), list(2, "audiences", Str)],
);

pub(crate) static TOKEN_REVIEW: Message = message(
    "TokenReview",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&TOKEN_REVIEW_SPEC)),
    ],
);
