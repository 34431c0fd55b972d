//! IngressClasses (`pkg/registry/networking/ingressclass/strategy.go`): cluster-scoped, the
//! generation following the spec, a parameters reference scoped to the cluster by default.

use chrono::{DateTime, Utc};
use k8s_openapi::api::networking::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::fields::{child, default_nil, existing};
use crate::error::FieldError;
use crate::meta::{field_changed, first_generation, next_generation_if};
use crate::printers::{networking as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::networking as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "networking.k8s.io",
    version: "v1",
    kind: "IngressClass",
    plural: "ingressclasses",
    singular: "ingressclass",
    namespaced: false,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &IngressClass,
};

/// `AnnotationIsDefaultIngressClass`.
pub const DEFAULT_CLASS_ANNOTATION: &str = "ingressclass.kubernetes.io/is-default-class";

#[derive(Debug)]
pub struct IngressClass;

crate::kinds::decodes_as!(IngressClass, k8s::IngressClass);

impl Strategy for IngressClass {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::networking_v1::INGRESS_CLASS)
    }

    /// `SetDefaults_IngressClass`.
    fn default(&self, obj: &mut Map<String, Value>) {
        // A pointer: defaulted only when given.
        let params = child(obj, "spec").and_then(|s| existing(s, "parameters"));
        if let Some(params) = params {
            default_nil(params, "scope", json!("Cluster"));
        }
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        first_generation(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::ingress_class(obj)
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        let changed = field_changed(new, old, "spec");
        next_generation_if(new, old, changed);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::ingress_class_update(new, old)
    }

    fn columns(&self) -> &'static [Column] {
        printer::INGRESS_CLASS_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::ingress_class_cells(obj, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `parameters` is a pointer: defaulted (scope Cluster) when given, never made.
    #[test]
    fn parameters_are_defaulted_only_when_given() {
        let mut without = json!({"spec": {"controller": "example.com/ingress"}});
        let mut with = json!({"spec": {"controller": "example.com/ingress",
                                       "parameters": {"kind": "Params", "name": "p"}}});
        for obj in [&mut without, &mut with] {
            if let Some(m) = obj.as_object_mut() {
                IngressClass.default(m);
            }
        }
        assert_eq!(
            without,
            json!({"spec": {"controller": "example.com/ingress"}})
        );
        assert_eq!(with["spec"]["parameters"]["scope"], "Cluster");
    }
}
