//! RuntimeClasses (`pkg/registry/node/runtimeclass/strategy.go`): which container runtime
//! configuration a pod runs with (`runtimeClassName: nvidia`), with the overhead and the
//! scheduling constraints the RuntimeClass admission plugin copies into its pods.

use chrono::{DateTime, Utc};
use k8s_openapi::api::node::v1 as k8s;
use serde_json::Value;

use crate::error::FieldError;
use crate::printers::{node as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::node as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "node.k8s.io",
    version: "v1",
    kind: "RuntimeClass",
    plural: "runtimeclasses",
    singular: "runtimeclass",
    namespaced: false,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &RuntimeClass,
};

#[derive(Debug)]
pub struct RuntimeClass;

crate::kinds::decodes_as!(RuntimeClass, k8s::RuntimeClass);

/// No generation, no status: `PrepareForCreate` and `PrepareForUpdate` change nothing.
impl Strategy for RuntimeClass {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::node_v1::RUNTIME_CLASS)
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        crate::warnings::node::runtime_class(obj)
    }

    fn warnings_on_update(&self, new: &Value, _old: &Value) -> Vec<String> {
        crate::warnings::node::runtime_class(new)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::runtime_class(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::runtime_class_update(new, old)
    }

    /// A PUT must name the resourceVersion it replaces.
    fn allow_unconditional_update(&self) -> bool {
        false
    }

    fn columns(&self) -> &'static [Column] {
        printer::RUNTIME_CLASS_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::runtime_class_cells(obj, now)
    }
}
