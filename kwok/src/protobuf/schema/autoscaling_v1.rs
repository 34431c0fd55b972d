//! `autoscaling/v1` messages (k8s.io/api/autoscaling/v1).
//!
//! Field numbers as in `staging/src/k8s.io/api/autoscaling/v1/generated.proto`; JSON names and presence as in the
//! package's `types.go` struct tags (see the parent module).

use super::meta_v1;
use super::Kind::{Msg, Str, I32};
use super::{keep, message, opt, Message};

pub(crate) static SCALE: Message = message(
    "Scale",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SCALE_SPEC)),
        keep(3, "status", Msg(&SCALE_STATUS)),
    ],
);

pub(super) static SCALE_SPEC: Message = message("ScaleSpec", &[opt(1, "replicas", I32)]);

pub(super) static SCALE_STATUS: Message = message(
    "ScaleStatus",
    &[keep(1, "replicas", I32), opt(2, "selector", Str)],
);
