//! RoleBindings (`pkg/registry/rbac/rolebinding/strategy.go`).

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
    kind: "RoleBinding",
    plural: "rolebindings",
    singular: "rolebinding",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &RoleBinding,
};

#[derive(Debug)]
pub struct RoleBinding;

crate::kinds::decodes_as!(RoleBinding, k8s::RoleBinding);

impl Strategy for RoleBinding {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::rbac_v1::ROLE_BINDING)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::rbac::binding(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::binding(obj, true)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::binding_update(new, old, true)
    }

    fn columns(&self) -> &'static [Column] {
        crate::printers::rbac::ROLE_BINDING_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        crate::printers::rbac::binding_cells(obj, now)
    }
}
