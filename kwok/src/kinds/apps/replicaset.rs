//! ReplicaSets (`pkg/registry/apps/replicaset/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::apps::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::error::FieldError;
use crate::meta::{first_generation, keep_status_bump_generation_on_spec};
use crate::printers::{workloads as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, FULL_VERBS};
use crate::validation::apps::{self as validation, Workload};

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "apps",
    version: "v1",
    kind: "ReplicaSet",
    plural: "replicasets",
    singular: "replicaset",
    namespaced: true,
    short_names: &["rs"],
    categories: &["all"],
    verbs: FULL_VERBS,
    subresources: &[
        status("ReplicaSet"),
        crate::kinds::autoscaling::scale::subresource(),
    ],
    strategy: &ReplicaSet,
};

#[derive(Debug)]
pub struct ReplicaSet;

crate::kinds::decodes_as!(ReplicaSet, k8s::ReplicaSet);

impl Strategy for ReplicaSet {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::apps_v1::REPLICA_SET)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::workloads::replica_set(obj);
    }

    /// `rs.Status = apps.ReplicaSetStatus{}; rs.Generation = 1` (`replicas` is not omitempty).
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"replicas": 0});
        first_generation(obj);
    }

    crate::kinds::spec_template_warnings!();

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::validate_create(Workload::ReplicaSet, obj)
    }

    /// The status stays; a spec change bumps the generation.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep_status_bump_generation_on_spec(new, old);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_update(Workload::ReplicaSet, new, old)
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_status_update(Workload::ReplicaSet, new, old)
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::WORKLOAD
    }

    fn columns(&self) -> &'static [Column] {
        printer::REPLICASET_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::replicaset_cells(obj, now)
    }
}
