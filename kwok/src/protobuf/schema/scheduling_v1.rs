//! `scheduling.k8s.io/v1` messages (k8s.io/api/scheduling/v1).
//!
//! Field numbers as in `staging/src/k8s.io/api/scheduling/v1/generated.proto`; JSON names and
//! presence as in the package's `types.go` struct tags (see the parent module).

use super::meta_v1;
use super::Kind::{Bool, Msg, Str, I32};
use super::{keep, message, opt, Message};

pub(crate) static PRIORITY_CLASS: Message = message(
    "PriorityClass",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "value", I32),
        opt(3, "globalDefault", Bool),
        opt(4, "description", Str),
        keep(5, "preemptionPolicy", Str),
    ],
);
