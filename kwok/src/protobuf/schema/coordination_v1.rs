//! `coordination.k8s.io/v1` messages (k8s.io/api/coordination/v1).
//!
//! Field numbers as in `staging/src/k8s.io/api/coordination/v1/generated.proto`; JSON names and presence as in the
//! package's `types.go` struct tags (see the parent module).

use super::meta_v1;
use super::Kind::{MicroTime, Msg, Str, I32};
use super::{keep, message, Message};

pub(crate) static LEASE: Message = message(
    "Lease",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&LEASE_SPEC)),
    ],
);

pub(super) static LEASE_SPEC: Message = message(
    "LeaseSpec",
    &[
        keep(1, "holderIdentity", Str),
        keep(2, "leaseDurationSeconds", I32),
        keep(3, "acquireTime", MicroTime),
        keep(4, "renewTime", MicroTime),
        keep(5, "leaseTransitions", I32),
        keep(6, "strategy", Str),
        keep(7, "preferredHolder", Str),
    ],
);
