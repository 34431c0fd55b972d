//! `policy/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{IntOrString, Msg, Str, Time, I32, I64};
use super::{keep, list, map, message, meta_v1, opt, Message};

pub static EVICTION: Message = message(
    "Eviction",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "deleteOptions", Msg(&meta_v1::DELETE_OPTIONS)),
    ],
);

pub static POD_DISRUPTION_BUDGET: Message = message(
    "PodDisruptionBudget",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&POD_DISRUPTION_BUDGET_SPEC)),
        keep(3, "status", Msg(&POD_DISRUPTION_BUDGET_STATUS)),
    ],
);

pub static POD_DISRUPTION_BUDGET_SPEC: Message = message(
    "PodDisruptionBudgetSpec",
    &[
        keep(1, "minAvailable", IntOrString),
        keep(2, "selector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(3, "maxUnavailable", IntOrString),
        keep(4, "unhealthyPodEvictionPolicy", Str),
    ],
);

pub static POD_DISRUPTION_BUDGET_STATUS: Message = message(
    "PodDisruptionBudgetStatus",
    &[
        opt(1, "observedGeneration", I64),
        map(2, "disruptedPods", Time),
        keep(3, "disruptionsAllowed", I32),
        keep(4, "currentHealthy", I32),
        keep(5, "desiredHealthy", I32),
        keep(6, "expectedPods", I32),
        list(7, "conditions", Msg(&meta_v1::CONDITION)),
    ],
);
