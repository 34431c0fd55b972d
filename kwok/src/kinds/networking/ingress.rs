//! Ingresses (`pkg/registry/networking/ingress/strategy.go`): no v1 defaults (a path's type
//! must be given), the generation following the spec, the status the controller's.

use chrono::{DateTime, Utc};
use k8s_openapi::api::networking::v1 as k8s;
use serde_json::{json, Value};

use crate::error::FieldError;
use crate::meta::{first_generation, keep_status_bump_generation_on_spec};
use crate::printers::{networking as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, SubresourceDef, FULL_VERBS};
use crate::validation::networking as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "networking.k8s.io",
    version: "v1",
    kind: "Ingress",
    plural: "ingresses",
    singular: "ingress",
    namespaced: true,
    short_names: &["ing"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[STATUS],
    strategy: &Ingress,
};

const STATUS: SubresourceDef = status("Ingress");

#[derive(Debug)]
pub struct Ingress;

/// The annotation that named an Ingress's class before `spec.ingressClassName`.
const CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";

crate::kinds::decodes_as!(Ingress, k8s::Ingress);

impl Strategy for Ingress {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::networking_v1::INGRESS)
    }

    /// `ingress.Status = networking.IngressStatus{}; ingress.Generation = 1`.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"loadBalancer": {}});
        first_generation(obj);
    }

    /// A class named only by the annotation the `ingressClassName` field replaced.
    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        let annotated = crate::meta::annotation(obj, CLASS_ANNOTATION).is_some();
        if annotated && obj["spec"]["ingressClassName"].is_null() {
            return vec![format!(
                "annotation \"{CLASS_ANNOTATION}\" is deprecated, please use 'spec.ingressClassName' instead"
            )];
        }
        Vec::new()
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::ingress(obj)
    }

    /// The status is kept; a changed spec is a new generation.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep_status_bump_generation_on_spec(new, old);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::ingress_update(new, old)
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::ingress_status_update(new, old)
    }

    fn columns(&self) -> &'static [Column] {
        printer::INGRESS_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::ingress_cells(obj, now)
    }
}
