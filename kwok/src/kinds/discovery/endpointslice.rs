//! EndpointSlices (`pkg/registry/discovery/endpointslice/strategy.go`): written by the
//! EndpointSlice controller for services with a selector.

use chrono::{DateTime, Utc};
use k8s_openapi::api::discovery::v1 as k8s;
use serde_json::{Map, Value};

use crate::error::FieldError;
use crate::meta::{first_generation, next_generation_if};
use crate::printers::{services as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::services as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "discovery.k8s.io",
    version: "v1",
    kind: "EndpointSlice",
    plural: "endpointslices",
    singular: "endpointslice",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &EndpointSlice,
};

/// `discovery.LabelServiceName`: the service a slice belongs to.
pub const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";
/// `discovery.LabelManagedBy`.
pub const MANAGED_BY_LABEL: &str = "endpointslice.kubernetes.io/managed-by";
/// `endpointslicecontroller.ControllerName`.
pub const CONTROLLER_NAME: &str = "endpointslice-controller.k8s.io";

#[derive(Debug)]
pub struct EndpointSlice;

/// Everything but the metadata: what a generation counts.
fn body(obj: &Value) -> Value {
    let mut v = obj.clone();
    if let Some(m) = v.as_object_mut() {
        m.remove("metadata");
    }
    v
}

crate::kinds::decodes_as!(EndpointSlice, k8s::EndpointSlice);

impl Strategy for EndpointSlice {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::discovery_v1::ENDPOINT_SLICE)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::services::endpoint_slice(obj);
    }

    /// `Generation = 1`.
    fn prepare_for_create(&self, obj: &mut Value) {
        first_generation(obj);
    }

    /// Any change besides the metadata bumps the generation.
    /// Anything but metadata, or the labels, moves the generation.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        // Semantic equality: no labels and empty labels are the same.
        let labels = |o: &Value| {
            o["metadata"]["labels"]
                .as_object()
                .filter(|l| !l.is_empty())
                .cloned()
        };
        let changed = body(new) != body(old) || labels(new) != labels(old);
        next_generation_if(new, old, changed);
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        if obj["addressType"] == "FQDN" {
            // Upstream names the field under a `spec` the kind does not have.
            return vec!["spec.addressType: FQDN endpoints are deprecated".into()];
        }
        Vec::new()
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::endpoint_slice(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::endpoint_slice_update(new, old)
    }

    fn columns(&self) -> &'static [Column] {
        printer::ENDPOINT_SLICE_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::endpoint_slice_cells(obj, now)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn slice(labels: Value, annotations: Value) -> Value {
        json!({"metadata": {"name": "s", "generation": 1, "labels": labels,
                            "annotations": annotations},
               "addressType": "IPv4", "endpoints": []})
    }

    /// `PrepareForUpdate`: anything but metadata, or the labels, moves the generation.
    #[test]
    fn a_label_change_moves_the_generation_an_annotation_does_not() {
        let old = slice(json!({"a": "1"}), json!({}));
        let generation = |mut new: Value| {
            EndpointSlice.prepare_for_update(&mut new, &old);
            new["metadata"]["generation"].clone()
        };
        assert_eq!(generation(slice(json!({"a": "2"}), json!({}))), json!(2));
        assert_eq!(
            generation(slice(json!({"a": "1"}), json!({"n": "x"}))),
            json!(1)
        );
        let mut moved = slice(json!({"a": "1"}), json!({}));
        moved["endpoints"] = json!([{"addresses": ["10.0.0.1"]}]);
        assert_eq!(generation(moved), json!(2));
    }
}
