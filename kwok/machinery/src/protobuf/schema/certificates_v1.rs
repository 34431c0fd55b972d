//! `certificates/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bytes, Items, Msg, Str, Time, I32};
use super::{keep, list, map, message, meta_v1, opt, Message};

pub static CERTIFICATE_SIGNING_REQUEST: Message = message(
    "CertificateSigningRequest",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&CERTIFICATE_SIGNING_REQUEST_SPEC)),
        keep(3, "status", Msg(&CERTIFICATE_SIGNING_REQUEST_STATUS)),
    ],
);

pub static CERTIFICATE_SIGNING_REQUEST_CONDITION: Message = message(
    "CertificateSigningRequestCondition",
    &[
        keep(1, "type", Str),
        keep(6, "status", Str),
        opt(2, "reason", Str),
        opt(3, "message", Str),
        keep(4, "lastUpdateTime", Time),
        keep(5, "lastTransitionTime", Time),
    ],
);

pub static CERTIFICATE_SIGNING_REQUEST_SPEC: Message = message(
    "CertificateSigningRequestSpec",
    &[
        keep(1, "request", Bytes),
        keep(7, "signerName", Str),
        keep(8, "expirationSeconds", I32),
        list(5, "usages", Str),
        opt(2, "username", Str),
        opt(3, "uid", Str),
        list(4, "groups", Str),
        map(6, "extra", Items(&EXTRA_VALUE)),
    ],
);

pub static CERTIFICATE_SIGNING_REQUEST_STATUS: Message = message(
    "CertificateSigningRequestStatus",
    &[
        list(1, "conditions", Msg(&CERTIFICATE_SIGNING_REQUEST_CONDITION)),
        opt(2, "certificate", Bytes),
    ],
);

pub static EXTRA_VALUE: Message = message("ExtraValue", &[list(1, "items", Str)]);
