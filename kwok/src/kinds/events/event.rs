//! events.k8s.io/v1 Events: the core Event storage seen through the v1 conversion
//! (`pkg/apis/events/v1/conversion.go`). The core Event strategy serves both groups, as upstream's
//! does with the request's group version ([`crate::kinds::core::event`]).

use crate::kinds::core::event::Event;
use crate::resource::ResourceDef;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "events.k8s.io",
    strategy: &Event { events_api: true },
    ..crate::kinds::core::event::RESOURCE
};
