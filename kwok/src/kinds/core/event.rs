//! Events (`pkg/registry/core/event/strategy.go`): one storage and one strategy for core/v1 and
//! events.k8s.io/v1, whose validation follows the request's group version
//! (`ValidateEventCreate`/`ValidateEventUpdate`); the events.k8s.io resource is a view of the core
//! storage ([`crate::kinds::events::event`]).

use chrono::{DateTime, Utc};
use k8s_openapi::api::{core::v1 as core_v1, events::v1 as events_v1};
use serde_json::{Map, Value};

use crate::decode::walker::walk;
use crate::error::FieldError;
use crate::kinds::events::conversion::{event_core_to_v1, event_v1_to_core};
use crate::printers::{events as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::core as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "Event",
    plural: "events",
    singular: "event",
    namespaced: true,
    short_names: &["ev"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &Event { events_api: false },
};

/// The Event strategy, for a request through core/v1 or through events.k8s.io/v1.
#[derive(Debug)]
pub struct Event {
    pub events_api: bool,
}

crate::kinds::decodes_as!(Event, |this| if this.events_api {
    walk::<events_v1::Event>
} else {
    walk::<core_v1::Event>
});

impl Strategy for Event {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(if self.events_api {
            &crate::protobuf::schema::events_v1::EVENT
        } else {
            &crate::protobuf::schema::core_v1::EVENT
        })
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        if self.events_api {
            crate::defaults::events::v1(obj);
        } else {
            crate::defaults::events::core(obj);
        }
    }

    /// events.k8s.io Events share the core group's storage (`AddCohabitatingResources`).
    fn storage_version(&self) -> Option<(&str, &str)> {
        Some(("", "v1"))
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::event(obj, self.events_api)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::event_update(new, old, self.events_api)
    }

    fn columns(&self) -> &'static [Column] {
        printer::COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::cells(obj, self.events_api, now)
    }

    /// events.k8s.io/v1 reads and writes the core storage.
    fn storage(&self) -> Option<&'static ResourceDef> {
        self.events_api.then_some(&RESOURCE)
    }

    fn to_storage_shape(&self, value: &Value) -> Value {
        if self.events_api {
            event_v1_to_core(value)
        } else {
            value.clone()
        }
    }

    fn to_view_shape(&self, stored: &Value) -> Value {
        if self.events_api {
            event_core_to_v1(stored)
        } else {
            stored.clone()
        }
    }
}
