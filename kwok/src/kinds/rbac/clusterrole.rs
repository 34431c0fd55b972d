//! ClusterRoles (`pkg/registry/rbac/clusterrole/strategy.go`).

use k8s_openapi::api::rbac::v1 as k8s;
use serde_json::Value;

use crate::error::FieldError;
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::rbac as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    kind: "ClusterRole",
    plural: "clusterroles",
    singular: "clusterrole",
    namespaced: false,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &ClusterRole,
};

#[derive(Debug)]
pub struct ClusterRole;

crate::kinds::decodes_as!(ClusterRole, k8s::ClusterRole);

impl Strategy for ClusterRole {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::rbac_v1::CLUSTER_ROLE)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::cluster_role(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::role_update(new, old, false)
    }
}
