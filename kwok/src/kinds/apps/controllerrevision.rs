//! ControllerRevisions (`pkg/registry/apps/controllerrevision/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::apps::v1 as k8s;
use serde_json::Value;

use crate::error::FieldError;
use crate::printers::{workloads as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::apps as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "apps",
    version: "v1",
    kind: "ControllerRevision",
    plural: "controllerrevisions",
    singular: "controllerrevision",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &ControllerRevision,
};

#[derive(Debug)]
pub struct ControllerRevision;

crate::kinds::decodes_as!(ControllerRevision, k8s::ControllerRevision);

impl Strategy for ControllerRevision {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::apps_v1::CONTROLLER_REVISION)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::controller_revision(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::controller_revision_update(new, old)
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::CONTROLLER_REVISION
    }

    fn columns(&self) -> &'static [Column] {
        printer::CONTROLLERREVISION_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::controllerrevision_cells(obj, now)
    }
}
