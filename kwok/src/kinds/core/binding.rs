//! Bindings (`pkg/registry/core/pod/storage` BindingREST): the scheduler's pod-to-node
//! assignment, created under `pods/<name>/binding` or as `bindings`.

use k8s_openapi::api::core::v1 as k8s;
use serde_json::Value;

use crate::error::FieldError;
use crate::resource::ResourceDef;
use crate::resource::Strategy;
use crate::validation::{core as validation, meta};

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "Binding",
    plural: "bindings",
    singular: "binding",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: &["create"],
    subresources: &[],
    strategy: &Binding,
};

#[derive(Debug)]
pub struct Binding;

crate::kinds::decodes_as!(Binding, k8s::Binding);

impl Strategy for Binding {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::BINDING)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::binding(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        meta::object_meta_update(new, old, true)
    }
}
