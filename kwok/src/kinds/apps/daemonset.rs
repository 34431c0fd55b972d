//! DaemonSets (`pkg/registry/apps/daemonset/strategy.go`).
//!
//! The internal type's `Spec.TemplateGeneration` is the v1 annotation
//! `deprecated.daemonset.template.generation`; v1 conversion writes it, so it lives in metadata
//! here.

use chrono::{DateTime, Utc};
use k8s_openapi::api::apps::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::error::FieldError;
use crate::meta;
use crate::meta::{first_generation, keep, keep_status_bump_generation_on_spec};
use crate::printers::{workloads as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, FULL_VERBS};
use crate::validation::apps::{self as validation, Workload};

/// The annotation v1 DaemonSets carry `Spec.TemplateGeneration` in.
pub const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "apps",
    version: "v1",
    kind: "DaemonSet",
    plural: "daemonsets",
    singular: "daemonset",
    namespaced: true,
    short_names: &["ds"],
    categories: &["all"],
    verbs: FULL_VERBS,
    subresources: &[status("DaemonSet")],
    strategy: &DaemonSet,
};

#[derive(Debug)]
pub struct DaemonSet;

/// `util.GetTemplateGeneration`: the template generation the DaemonSet carries, if any.
pub(crate) fn template_generation(ds: &Value) -> Option<i64> {
    meta::annotation(ds, TEMPLATE_GENERATION).and_then(|s| s.parse().ok())
}

/// The stored one, which every DaemonSet is created with.
fn stored_template_generation(old: &Value) -> i64 {
    template_generation(old).unwrap_or(1)
}

fn set_template_generation(obj: &mut Value, generation: i64) {
    let annotations = meta::meta_mut(obj)
        .entry("annotations")
        .or_insert_with(|| json!({}));
    if let Some(a) = annotations.as_object_mut() {
        a.insert(TEMPLATE_GENERATION.into(), json!(generation.to_string()));
    }
}

crate::kinds::decodes_as!(DaemonSet, k8s::DaemonSet);

impl Strategy for DaemonSet {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::apps_v1::DAEMON_SET)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::workloads::daemon_set(obj);
    }

    /// A fresh status with Go's required zeros, generation 1, template generation 1.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"currentNumberScheduled": 0, "numberMisscheduled": 0,
            "desiredNumberScheduled": 0, "numberReady": 0});
        first_generation(obj);
        set_template_generation(obj, 1);
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        crate::warnings::pod::spec_template(obj)
    }

    /// A new template generation, not a new object generation, brings the template's warnings.
    fn warnings_on_update(&self, new: &Value, old: &Value) -> Vec<String> {
        if template_generation(new) == template_generation(old) {
            return Vec::new();
        }
        crate::warnings::pod::spec_template(new)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::validate_create(Workload::DaemonSet, obj)
    }

    /// The status and the template generation stay (`Spec.TemplateGeneration = old`); a spec
    /// change bumps the generation, a template change the template generation too.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep_status_bump_generation_on_spec(new, old);
        let template_changed = new["spec"]["template"] != old["spec"]["template"];
        set_template_generation(
            new,
            stored_template_generation(old) + i64::from(template_changed),
        );
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_update(Workload::DaemonSet, new, old)
    }

    /// `daemonSetStatusStrategy.PrepareForUpdate` resets the spec, the template generation
    /// included.
    fn prepare_for_status_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "spec");
        set_template_generation(new, stored_template_generation(old));
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_status_update(Workload::DaemonSet, new, old)
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::WORKLOAD
    }

    fn columns(&self) -> &'static [Column] {
        printer::DAEMONSET_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::daemonset_cells(obj, now)
    }

    /// The template generation is spec in the internal type, so partial metadata has none.
    fn internal_metadata(&self, metadata: &mut Value) {
        if let Some(annotations) = metadata
            .get_mut("annotations")
            .and_then(Value::as_object_mut)
        {
            annotations.remove(TEMPLATE_GENERATION);
            if annotations.is_empty() {
                metadata.as_object_mut().map(|m| m.remove("annotations"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn daemonset(template_generation: &str, image: &str) -> Value {
        json!({"metadata": {"generation": 2,
                "annotations": {TEMPLATE_GENERATION: template_generation}},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}})
    }

    /// `daemonSetStrategy.PrepareForUpdate`: a client cannot set the template generation; a
    /// template change moves it and the generation by one.
    #[test]
    fn the_template_generation_is_the_servers() {
        let old = daemonset("3", "a:1");
        let mut edited = daemonset("7", "a:1");
        DaemonSet.prepare_for_update(&mut edited, &old);
        assert_eq!(meta::annotation(&edited, TEMPLATE_GENERATION), Some("3"));
        let mut rolled = daemonset("3", "a:2");
        DaemonSet.prepare_for_update(&mut rolled, &old);
        assert_eq!(meta::annotation(&rolled, TEMPLATE_GENERATION), Some("4"));
        assert_eq!(rolled["metadata"]["generation"], 3);
        let mut status_write = daemonset("9", "a:5");
        DaemonSet.prepare_for_status_update(&mut status_write, &old);
        assert_eq!(
            meta::annotation(&status_write, TEMPLATE_GENERATION),
            Some("3")
        );
        assert_eq!(status_write["spec"], old["spec"]);
    }
}
