//! The autoscaling/v1 Scale of Deployments' and ReplicaSets' `scale` subresources
//! (`pkg/registry/apps/*/storage` ScaleREST).

use k8s_openapi::api::autoscaling::v1 as k8s;
use serde_json::Value;

use crate::error::FieldError;
use crate::resource::Strategy;
use crate::resource::SubresourceDef;
use crate::validation::{core as validation, meta};

/// The `scale` subresource.
pub const fn subresource() -> SubresourceDef {
    SubresourceDef {
        name: "scale",
        kind: "Scale",
        group: "autoscaling",
        version: "v1",
        verbs: &["get", "patch", "update"],
        body: Some(&Scale),
    }
}

#[derive(Debug)]
pub struct Scale;

crate::kinds::decodes_as!(Scale, k8s::Scale);

impl Strategy for Scale {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::autoscaling_v1::SCALE)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::scale(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        meta::object_meta_update(new, old, false)
    }
}
