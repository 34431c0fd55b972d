//! Roles (`pkg/registry/rbac/role/strategy.go`).

use k8s_openapi::api::rbac::v1 as k8s;
use serde_json::Value;

use crate::error::FieldError;
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::rbac as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    kind: "Role",
    plural: "roles",
    singular: "role",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &Role,
};

#[derive(Debug)]
pub struct Role;

crate::kinds::decodes_as!(Role, k8s::Role);

impl Strategy for Role {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::rbac_v1::ROLE)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::role(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::role_update(new, old, true)
    }
}
