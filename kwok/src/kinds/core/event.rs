//! Core Events (`pkg/registry/core/event/strategy.go`). The same storage serves events.k8s.io/v1
//! Events (see [`crate::kinds::events::event`]).

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{Map, Value};

use crate::decode::json::Val;
use crate::decode::walker::{walk, Outcome};
use crate::error::FieldError;
use crate::kinds::Strategy;
use crate::printers::{events as printer, Column};
use crate::registry::{ResourceDef, FULL_VERBS};
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
    strategy: &Event,
};

#[derive(Debug)]
pub struct Event;

impl Strategy for Event {
    fn decode(&self, val: &Val, check_strict: bool, root: (&str, &str)) -> Result<Outcome, String> {
        walk::<k8s::Event>(val, check_strict, root)
    }

    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::EVENT)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::events::core(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::event(obj, false)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::event_update(new, old, false)
    }

    fn columns(&self) -> &'static [Column] {
        printer::COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::cells(obj, false, now)
    }
}
