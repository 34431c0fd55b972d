//! `authentication/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bool, Items, Msg, Str, Time, I64};
use super::{keep, list, map, message, meta_v1, opt, Message};

pub static BOUND_OBJECT_REFERENCE: Message = message(
    "BoundObjectReference",
    &[
        opt(1, "kind", Str),
        opt(2, "apiVersion", Str),
        opt(3, "name", Str),
        opt(4, "uid", Str),
    ],
);

pub static EXTRA_VALUE: Message = message("ExtraValue", &[list(1, "items", Str)]);

pub static SELF_SUBJECT_REVIEW: Message = message(
    "SelfSubjectReview",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "status", Msg(&SELF_SUBJECT_REVIEW_STATUS)),
    ],
);

pub static SELF_SUBJECT_REVIEW_STATUS: Message = message(
    "SelfSubjectReviewStatus",
    &[keep(1, "userInfo", Msg(&USER_INFO))],
);

pub static TOKEN_REQUEST: Message = message(
    "TokenRequest",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&TOKEN_REQUEST_SPEC)),
        keep(3, "status", Msg(&TOKEN_REQUEST_STATUS)),
    ],
);

pub static TOKEN_REQUEST_SPEC: Message = message(
    "TokenRequestSpec",
    &[
        list(1, "audiences", Str),
        keep(4, "expirationSeconds", I64),
        keep(3, "boundObjectRef", Msg(&BOUND_OBJECT_REFERENCE)),
    ],
);

pub static TOKEN_REQUEST_STATUS: Message = message(
    "TokenRequestStatus",
    &[keep(1, "token", Str), keep(2, "expirationTimestamp", Time)],
);

pub static TOKEN_REVIEW: Message = message(
    "TokenReview",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&TOKEN_REVIEW_SPEC)),
        keep(3, "status", Msg(&TOKEN_REVIEW_STATUS)),
    ],
);

pub static TOKEN_REVIEW_SPEC: Message = message(
    "TokenReviewSpec",
    &[opt(1, "token", Str), list(2, "audiences", Str)],
);

pub static TOKEN_REVIEW_STATUS: Message = message(
    "TokenReviewStatus",
    &[
        opt(1, "authenticated", Bool),
        keep(2, "user", Msg(&USER_INFO)),
        list(4, "audiences", Str),
        opt(3, "error", Str),
    ],
);

pub static USER_INFO: Message = message(
    "UserInfo",
    &[
        opt(1, "username", Str),
        opt(2, "uid", Str),
        list(3, "groups", Str),
        map(4, "extra", Items(&EXTRA_VALUE)),
    ],
);
