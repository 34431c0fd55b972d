//! Secrets (`pkg/registry/core/secret/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{Map, Value};

use crate::error::FieldError;
use crate::printers::{core as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::core as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "Secret",
    plural: "secrets",
    singular: "secret",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &Secret,
};

#[derive(Debug)]
pub struct Secret;

crate::kinds::decodes_as!(Secret, k8s::Secret);

impl Strategy for Secret {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::SECRET)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::core::secret(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::secret(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::secret_update(new, old)
    }

    fn columns(&self) -> &'static [Column] {
        printer::SECRET_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::secret_cells(obj, now)
    }
}
