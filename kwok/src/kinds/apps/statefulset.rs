//! StatefulSets (`pkg/registry/apps/statefulset/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::apps::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::error::FieldError;
use crate::meta::{first_generation, keep_status_bump_generation_on_spec};
use crate::printers::{workloads as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, FULL_VERBS};
use crate::validation::statefulset as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "apps",
    version: "v1",
    kind: "StatefulSet",
    plural: "statefulsets",
    singular: "statefulset",
    namespaced: true,
    short_names: &["sts"],
    categories: &["all"],
    verbs: FULL_VERBS,
    subresources: &[
        status("StatefulSet"),
        crate::kinds::autoscaling::scale::subresource(),
    ],
    strategy: &StatefulSet,
};

#[derive(Debug)]
pub struct StatefulSet;

crate::kinds::decodes_as!(StatefulSet, k8s::StatefulSet);

impl Strategy for StatefulSet {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::apps_v1::STATEFUL_SET)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::workloads::stateful_set(obj);
    }

    /// `statefulSet.Status = apps.StatefulSetStatus{}; statefulSet.Generation = 1`.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"replicas": 0, "availableReplicas": 0});
        first_generation(obj);
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        let mut warnings = crate::warnings::pod::spec_template(obj);
        warnings.extend(crate::warnings::storage::claim_templates(obj, None));
        warnings
    }

    fn warnings_on_update(&self, new: &Value, old: &Value) -> Vec<String> {
        let mut warnings = crate::warnings::pod::spec_template_on_update(new, old);
        warnings.extend(crate::warnings::storage::claim_templates(new, Some("Spec")));
        warnings
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::stateful_set(obj)
    }

    /// The status stays; only a spec change is a new generation.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep_status_bump_generation_on_spec(new, old);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::stateful_set_update(new, old)
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::stateful_set_status_update(new, old)
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::WORKLOAD
    }

    fn columns(&self) -> &'static [Column] {
        printer::STATEFULSET_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::stateful_set_cells(obj, now)
    }
}
