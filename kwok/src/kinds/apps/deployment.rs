//! Deployments (`pkg/registry/apps/deployment/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::apps::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::error::FieldError;
use crate::meta::{
    field_changed, first_generation, keep, keep_meta, meta_map_changed, next_generation_if,
};
use crate::printers::{workloads as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, FULL_VERBS};
use crate::validation::apps::{self as validation, Workload};

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "apps",
    version: "v1",
    kind: "Deployment",
    plural: "deployments",
    singular: "deployment",
    namespaced: true,
    short_names: &["deploy"],
    categories: &["all"],
    verbs: FULL_VERBS,
    subresources: &[
        status("Deployment"),
        crate::kinds::autoscaling::scale::subresource(),
    ],
    strategy: &Deployment,
};

#[derive(Debug)]
pub struct Deployment;

crate::kinds::decodes_as!(Deployment, k8s::Deployment);

impl Strategy for Deployment {
    /// `deploymentStrategy.GetResetFields`, `deploymentStatusStrategy.GetResetFields`.
    fn reset_fields(&self, subresource: &str) -> &'static [&'static str] {
        match subresource {
            "" => &["status"],
            "status" => &["spec", "metadata.labels"],
            _ => &[],
        }
    }

    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::apps_v1::DEPLOYMENT)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::workloads::deployment(obj);
    }

    /// `deployment.Status = apps.DeploymentStatus{}; deployment.Generation = 1`.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({});
        first_generation(obj);
    }

    crate::kinds::spec_template_warnings!();

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::validate_create(Workload::Deployment, obj)
    }

    /// The status stays; a spec change bumps the generation, and so does an annotation change,
    /// because annotations are copied from Deployments to their ReplicaSets.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "status");
        let changed = field_changed(new, old, "spec") || meta_map_changed(new, old, "annotations");
        next_generation_if(new, old, changed);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_update(Workload::Deployment, new, old)
    }

    /// `deploymentStatusStrategy.PrepareForUpdate`: spec and labels stay; annotations are taken.
    fn prepare_for_status_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "spec");
        keep_meta(new, old, "labels");
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_status_update(Workload::Deployment, new, old)
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::WORKLOAD
    }

    fn columns(&self) -> &'static [Column] {
        printer::DEPLOYMENT_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::deployment_cells(obj, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment(annotations: Value, replicas: i64) -> Value {
        json!({"metadata": {"generation": 3, "annotations": annotations, "labels": {"app": "a"}},
            "spec": {"replicas": replicas}, "status": {"replicas": 1}})
    }

    #[test]
    fn annotations_and_spec_move_the_generation() {
        let old = deployment(json!({"note": "one"}), 1);
        let mut same = deployment(json!({"note": "one"}), 1);
        Deployment.prepare_for_update(&mut same, &old);
        assert_eq!(same["metadata"]["generation"], 3);
        let mut annotated = deployment(json!({"note": "two"}), 1);
        Deployment.prepare_for_update(&mut annotated, &old);
        assert_eq!(annotated["metadata"]["generation"], 4);
        let mut scaled = deployment(json!({"note": "one"}), 2);
        Deployment.prepare_for_update(&mut scaled, &old);
        assert_eq!(scaled["metadata"]["generation"], 4);
    }

    /// `Semantic.DeepEqual` takes a nil map and an empty one as equal.
    #[test]
    fn empty_annotations_equal_none() {
        let old = deployment(json!({}), 1);
        let mut new = deployment(Value::Null, 1);
        new["metadata"]
            .as_object_mut()
            .map(|m| m.remove("annotations"));
        Deployment.prepare_for_update(&mut new, &old);
        assert_eq!(new["metadata"]["generation"], 3);
    }

    #[test]
    fn status_writes_keep_spec_and_labels_and_take_annotations() {
        let old = deployment(json!({"note": "one"}), 1);
        let mut new = deployment(json!({"note": "two"}), 5);
        new["metadata"]["labels"] = json!({"app": "b"});
        Deployment.prepare_for_status_update(&mut new, &old);
        assert_eq!(new["spec"]["replicas"], 1);
        assert_eq!(new["metadata"]["labels"]["app"], "a");
        assert_eq!(new["metadata"]["annotations"]["note"], "two");
    }
}
