//! Endpoints (`pkg/registry/core/endpoint/strategy.go`): written by the endpoints controller
//! for services with a selector, by hand for the others.

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{Map, Value};

use crate::error::FieldError;
use crate::printers::{services as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::services as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "Endpoints",
    plural: "endpoints",
    singular: "endpoints",
    namespaced: true,
    short_names: &["ep"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &Endpoints,
};

#[derive(Debug)]
pub struct Endpoints;

crate::kinds::decodes_as!(Endpoints, k8s::Endpoints);

impl Strategy for Endpoints {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::ENDPOINTS)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::services::endpoints(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::endpoints(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::endpoints_update(new, old)
    }

    fn columns(&self) -> &'static [Column] {
        printer::ENDPOINTS_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::endpoints_cells(obj, now)
    }
}
