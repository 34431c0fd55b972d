//! ClusterRoleBindings (`pkg/registry/rbac/clusterrolebinding/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::rbac::v1 as k8s;
use serde_json::{Map, Value};

use crate::error::FieldError;
use crate::printers::Column;
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::rbac as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    kind: "ClusterRoleBinding",
    plural: "clusterrolebindings",
    singular: "clusterrolebinding",
    namespaced: false,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &ClusterRoleBinding,
};

#[derive(Debug)]
pub struct ClusterRoleBinding;

crate::kinds::decodes_as!(ClusterRoleBinding, k8s::ClusterRoleBinding);

impl Strategy for ClusterRoleBinding {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::rbac_v1::CLUSTER_ROLE_BINDING)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::rbac::binding(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::binding(obj, false)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::binding_update(new, old, false)
    }

    fn columns(&self) -> &'static [Column] {
        crate::printers::rbac::CLUSTER_ROLE_BINDING_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        crate::printers::rbac::binding_cells(obj, now)
    }
}
