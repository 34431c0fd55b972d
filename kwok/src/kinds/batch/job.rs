//! Jobs (`pkg/registry/batch/job/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::batch::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::fields::child;
use crate::error::FieldError;
use crate::meta;
use crate::meta::{first_generation, keep_status_bump_generation_on_spec};
use crate::printers::{batch as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, FULL_VERBS};
use crate::validation::batch as validation;

use crate::validation::batch::{CONTROLLER_UID_LABEL, JOB_NAME_LABEL};

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "batch",
    version: "v1",
    kind: "Job",
    plural: "jobs",
    singular: "job",
    namespaced: true,
    short_names: &[],
    categories: &["all"],
    verbs: FULL_VERBS,
    subresources: &[status("Job")],
    strategy: &Job,
};

/// `batch.LegacyControllerUidLabel`.
const LEGACY_CONTROLLER_UID_LABEL: &str = "controller-uid";
/// `batch.LegacyJobNameLabel`.
const LEGACY_JOB_NAME_LABEL: &str = "job-name";

#[derive(Debug)]
pub struct Job;

/// `generateSelector`: the job-name and controller-uid labels (legacy and prefixed) on the
/// template, unless already there, and the prefixed controller-uid in the selector.
fn generate_selector(obj: &mut Value) {
    let (name, uid) = (meta::name(obj).to_string(), meta::uid(obj).to_string());
    let Some(spec) = obj.as_object_mut().and_then(|o| child(o, "spec")) else {
        return;
    };
    let labels = child(spec, "template")
        .and_then(|t| child(t, "metadata"))
        .and_then(|m| child(m, "labels"));
    if let Some(labels) = labels {
        for (key, value) in [
            (LEGACY_JOB_NAME_LABEL, &name),
            (JOB_NAME_LABEL, &name),
            (LEGACY_CONTROLLER_UID_LABEL, &uid),
            (CONTROLLER_UID_LABEL, &uid),
        ] {
            labels.entry(key).or_insert_with(|| json!(value));
        }
    }
    if let Some(match_labels) = child(spec, "selector").and_then(|s| child(s, "matchLabels")) {
        match_labels
            .entry(CONTROLLER_UID_LABEL)
            .or_insert_with(|| json!(uid));
    }
}

fn template_labels(obj: &Value) -> Option<&Value> {
    obj.pointer("/spec/template/metadata/labels")
        .filter(|l| l.is_object())
}

crate::kinds::decodes_as!(Job, k8s::Job);

impl Strategy for Job {
    /// `deleteOptionWarnings`: batch/v1 orphans a Job's pods unless told otherwise.
    fn delete_warning(&self, opts: &crate::options::DeleteOptions) -> Option<&'static str> {
        (!opts.policy_given).then_some(
            "child pods are preserved by default when jobs are deleted; set \
             propagationPolicy=Background to remove them or set propagationPolicy=Orphan to \
             suppress this warning",
        )
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::batch::job(obj);
    }

    /// `generateSelectorIfNeeded`, an empty status and generation 1. Defaulting gave the job its
    /// template's labels when it had none; upstream shares that map with the template, so the
    /// generated labels show on the job too.
    fn prepare_for_create(&self, obj: &mut Value) {
        let own = obj.pointer("/metadata/labels").cloned();
        let shared = own.is_none() || own.as_ref() == template_labels(obj);
        if obj.pointer("/spec/manualSelector") != Some(&json!(true)) {
            generate_selector(obj);
        }
        if shared {
            if let Some(labels) = template_labels(obj).cloned() {
                meta::meta_mut(obj).insert("labels".into(), labels);
            }
        }
        obj["status"] = json!({});
        first_generation(obj);
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        crate::warnings::job::on_create(obj)
    }

    fn warnings_on_update(&self, new: &Value, old: &Value) -> Vec<String> {
        crate::warnings::job::on_update(new, old)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::validate_job(obj)
    }

    /// The status stays; a spec change bumps the generation.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep_status_bump_generation_on_spec(new, old);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_job_update(new, old)
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_job_status_update(new, old)
    }

    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::batch_v1::JOB)
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::WORKLOAD
    }

    fn columns(&self) -> &'static [Column] {
        printer::JOB_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::job_cells(obj, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn created(metadata: Value, spec: Value) -> Value {
        let mut obj = json!({"metadata": metadata, "spec": spec});
        if let Some(m) = obj.as_object_mut() {
            crate::defaults::batch::job(m);
        }
        Job.prepare_for_create(&mut obj);
        obj
    }

    #[test]
    fn a_delete_that_leaves_dependents_to_the_default_is_warned() {
        let opts = |policy_given| crate::options::DeleteOptions {
            policy_given,
            ..Default::default()
        };
        let warning = Job.delete_warning(&opts(false)).expect("warned");
        assert!(warning.starts_with("child pods are preserved by default when jobs are deleted"));
        assert_eq!(Job.delete_warning(&opts(true)), None);
    }

    #[test]
    fn the_selector_and_labels_are_generated_and_shared_with_the_job() {
        let obj = created(
            json!({"name": "train", "uid": "u-1"}),
            json!({"template": {"metadata": {"labels": {"app": "gpu"}}, "spec": {}}}),
        );
        let expected = json!({"app": "gpu", "batch.kubernetes.io/controller-uid": "u-1",
            "batch.kubernetes.io/job-name": "train", "controller-uid": "u-1", "job-name": "train"});
        assert_eq!(obj["spec"]["template"]["metadata"]["labels"], expected);
        assert_eq!(obj["metadata"]["labels"], expected);
        assert_eq!(
            obj["spec"]["selector"],
            json!({"matchLabels": {"batch.kubernetes.io/controller-uid": "u-1"}})
        );
        assert_eq!(
            (&obj["status"], &obj["metadata"]["generation"]),
            (&json!({}), &json!(1))
        );
    }

    #[test]
    fn own_labels_and_a_manual_selector_are_left_alone() {
        let obj = created(
            json!({"name": "train", "uid": "u-1", "labels": {"team": "ml"}}),
            json!({"manualSelector": true, "selector": {"matchLabels": {"app": "gpu"}},
                "template": {"metadata": {"labels": {"app": "gpu"}}, "spec": {}}}),
        );
        assert_eq!(obj["metadata"]["labels"], json!({"team": "ml"}));
        assert_eq!(
            obj["spec"]["template"]["metadata"]["labels"],
            json!({"app": "gpu"})
        );
        assert_eq!(
            obj["spec"]["selector"],
            json!({"matchLabels": {"app": "gpu"}})
        );
    }
}
