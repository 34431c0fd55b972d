//! The policy/v1 Eviction body of `pods/<name>/eviction`
//! (`pkg/registry/core/pod/storage/eviction.go`).

use k8s_openapi::api::policy::v1 as k8s;
use serde_json::Value;

use crate::error::FieldError;
use crate::resource::Strategy;
use crate::validation::meta;

#[derive(Debug)]
pub struct Eviction;

crate::kinds::decodes_as!(Eviction, k8s::Eviction);

impl Strategy for Eviction {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::policy_v1::EVICTION)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        meta::generic(obj, true)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        meta::object_meta_update(new, old, false)
    }
}
