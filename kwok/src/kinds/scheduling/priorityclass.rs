//! PriorityClasses (`pkg/registry/scheduling/priorityclass/strategy.go`), with the two system
//! classes the API server creates at start (`pkg/apis/scheduling/v1 SystemPriorityClasses`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::scheduling::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::fields::default_nil;
use crate::error::FieldError;
use crate::meta::first_generation;
use crate::printers::{scheduling as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::scheduling as validation;

use crate::validation::scheduling::SYSTEM_CLASSES;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "scheduling.k8s.io",
    version: "v1",
    kind: "PriorityClass",
    plural: "priorityclasses",
    singular: "priorityclass",
    namespaced: false,
    short_names: &["pc"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &PriorityClass,
};

/// The objects the API server's bootstrap hook creates.
pub fn system_objects() -> impl Iterator<Item = Value> {
    SYSTEM_CLASSES.iter().map(|(name, value, description)| {
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value, "description": description})
    })
}

#[derive(Debug)]
pub struct PriorityClass;

crate::kinds::decodes_as!(PriorityClass, k8s::PriorityClass);

impl Strategy for PriorityClass {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::scheduling_v1::PRIORITY_CLASS)
    }

    /// `SetDefaults_PriorityClass`.
    fn default(&self, obj: &mut Map<String, Value>) {
        default_nil(obj, "preemptionPolicy", json!("PreemptLowerPriority"));
    }

    /// Generation 1; an update changes nothing of its own.
    fn prepare_for_create(&self, obj: &mut Value) {
        first_generation(obj);
    }

    /// The storage's `Delete` keeps the system classes (its `DeleteCollection` does not).
    fn refuse_delete(&self, name: &str) -> Option<&'static str> {
        SYSTEM_CLASSES
            .iter()
            .any(|(n, _, _)| *n == name)
            .then_some("this is a system priority class and cannot be deleted")
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::priority_class(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::priority_class_update(new, old)
    }

    fn columns(&self) -> &'static [Column] {
        printer::PRIORITY_CLASS_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::priority_class_cells(obj, now)
    }
}

#[cfg(test)]
mod tests {

    use crate::api::{Api, DeleteOptions, ListOptions};
    use crate::registry::PRIORITYCLASSES;

    #[test]
    fn a_system_class_cannot_be_deleted_by_name_but_goes_with_a_collection() {
        let api = Api::bootstrapped();
        let error = api
            .delete(
                &PRIORITYCLASSES,
                "",
                "system-node-critical",
                &DeleteOptions::default(),
            )
            .expect_err("refused");
        assert_eq!(error.code, 403);
        assert_eq!(
            error.message,
            "priorityclasses.scheduling.k8s.io \"system-node-critical\" is forbidden: this is a system priority class and cannot be deleted"
        );
        let deleted = api
            .delete_collection(
                &PRIORITYCLASSES,
                None,
                &ListOptions::default(),
                &DeleteOptions::default(),
            )
            .expect("DeleteCollection goes through the generic store");
        assert_eq!(deleted.len(), 2);
    }
}
