//! events.k8s.io/v1 Events: the core Event storage seen through the v1 conversion
//! (`pkg/apis/events/v1/conversion.go`). The core Event strategy serves both groups, as upstream's
//! does with the request's group version ([`crate::kinds::core::event`]).

use crate::kinds::core::event::Event;
use crate::resource::{ResourceDef, FULL_VERBS};

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "events.k8s.io",
    version: "v1",
    kind: "Event",
    plural: "events",
    singular: "event",
    namespaced: true,
    short_names: &["ev"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &Event { events_api: true },
};
