//! ReplicationControllers (`pkg/registry/core/replicationcontroller/strategy.go`): the
//! ReplicaSet's predecessor, with a plain label map for a selector, defaulted from the template.

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::fields::{child, default_nil};
use crate::error::FieldError;
use crate::meta::{first_generation, keep_status_bump_generation_on_spec};
use crate::printers::{workloads as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, FULL_VERBS};
use crate::validation::replication as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "ReplicationController",
    plural: "replicationcontrollers",
    singular: "replicationcontroller",
    namespaced: true,
    short_names: &["rc"],
    categories: &["all"],
    verbs: FULL_VERBS,
    subresources: &[
        status("ReplicationController"),
        crate::kinds::autoscaling::scale::subresource(),
    ],
    strategy: &ReplicationController,
};

/// A set's `spec.selector` as a `metav1.LabelSelector`: a ReplicationController's is a plain
/// label map (`labels.SelectorFromSet`), every other workload's already a LabelSelector.
pub fn label_selector(res: &ResourceDef, obj: &Value) -> Value {
    let selector = &obj["spec"]["selector"];
    if std::ptr::eq(res, &RESOURCE) {
        json!({"matchLabels": selector})
    } else {
        selector.clone()
    }
}

#[derive(Debug)]
pub struct ReplicationController;

crate::kinds::decodes_as!(ReplicationController, k8s::ReplicationController);

impl Strategy for ReplicationController {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::REPLICATION_CONTROLLER)
    }

    /// `SetDefaults_ReplicationController`: the template's labels become the selector and the
    /// controller's own labels when those are empty; one replica.
    fn default(&self, obj: &mut Map<String, Value>) {
        let template_labels = obj
            .get("spec")
            .and_then(|s| s.get("template"))
            .and_then(|t| t.get("metadata"))
            .and_then(|m| m.get("labels"))
            .filter(|l| l.is_object())
            .cloned();
        if let Some(labels) = template_labels {
            let empty = |v: Option<&Value>| v.and_then(Value::as_object).is_none_or(Map::is_empty);
            if let Some(spec) = child(obj, "spec") {
                if empty(spec.get("selector")) {
                    spec.insert("selector".into(), labels.clone());
                }
            }
            let meta = obj.entry("metadata").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                if empty(meta.get("labels")) {
                    meta.insert("labels".into(), labels);
                }
            }
        }
        if let Some(spec) = child(obj, "spec") {
            default_nil(spec, "replicas", json!(1));
            crate::defaults::workloads::template(spec);
        }
    }

    /// `controller.Status = api.ReplicationControllerStatus{}; controller.Generation = 1`.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"replicas": 0});
        first_generation(obj);
    }

    crate::kinds::spec_template_warnings!();

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::replication_controller(obj)
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep_status_bump_generation_on_spec(new, old);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::replication_controller_update(new, old)
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::replication_controller_status_update(new, old)
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::WORKLOAD
    }

    fn columns(&self) -> &'static [Column] {
        printer::REPLICATION_CONTROLLER_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::replication_controller_cells(obj, now)
    }
}
