//! PodTemplates (`pkg/registry/core/podtemplate/strategy.go`): a pod template kept for others to
//! read, with no status and no controller. Its template is defaulted and validated as a workload's;
//! a change to it moves the generation; a delete returns the object.

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{Map, Value};

use crate::error::FieldError;
use crate::meta::{field_changed, first_generation, next_generation_if};
use crate::printers::{workloads as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::pod as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "PodTemplate",
    plural: "podtemplates",
    singular: "podtemplate",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &PodTemplate,
};

#[derive(Debug)]
pub struct PodTemplate;

crate::kinds::decodes_as!(PodTemplate, k8s::PodTemplate);

impl Strategy for PodTemplate {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::POD_TEMPLATE)
    }

    /// `SetObjectDefaults_PodTemplate`: the template as every workload's.
    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::workloads::template(obj);
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        first_generation(obj);
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        crate::warnings::pod::template(
            &obj["template"],
            &crate::validation::path::Path::new("template"),
        )
    }

    fn warnings_on_update(&self, new: &Value, old: &Value) -> Vec<String> {
        if crate::meta::generation(new) == crate::meta::generation(old) {
            return Vec::new();
        }
        self.warnings_on_create(new)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::pod_template(obj)
    }

    /// Any change to the template moves the generation.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        let changed = field_changed(new, old, "template");
        next_generation_if(new, old, changed);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::pod_template_update(new, old)
    }

    /// `ReturnDeletedObject: true` in its REST storage.
    fn returns_deleted_object(&self) -> bool {
        true
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::POD_TEMPLATE
    }

    fn columns(&self) -> &'static [Column] {
        printer::POD_TEMPLATE_COLUMNS
    }

    fn cells(&self, obj: &Value, _now: DateTime<Utc>) -> Vec<Value> {
        printer::pod_template_cells(obj)
    }
}
