//! PodDisruptionBudgets (`pkg/registry/policy/poddisruptionbudget/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::policy::v1 as k8s;
use serde_json::{json, Value};

use crate::error::FieldError;
use crate::meta::{first_generation, keep_status_bump_generation_on_spec};
use crate::printers::{pdb as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, FULL_VERBS};
use crate::validation::policy as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "policy",
    version: "v1",
    kind: "PodDisruptionBudget",
    plural: "poddisruptionbudgets",
    singular: "poddisruptionbudget",
    namespaced: true,
    short_names: &["pdb"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[status("PodDisruptionBudget")],
    strategy: &PodDisruptionBudget,
};

#[derive(Debug)]
pub struct PodDisruptionBudget;

crate::kinds::decodes_as!(PodDisruptionBudget, k8s::PodDisruptionBudget);

impl Strategy for PodDisruptionBudget {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::policy_v1::POD_DISRUPTION_BUDGET)
    }

    /// A fresh status with Go's required zeros, and generation 1.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"disruptionsAllowed": 0, "currentHealthy": 0,
            "desiredHealthy": 0, "expectedPods": 0});
        first_generation(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::validate(obj)
    }

    /// The status stays; a spec change bumps the generation.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep_status_bump_generation_on_spec(new, old);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_update(new, old)
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_status_update(new, old)
    }

    /// `AllowUnconditionalUpdate` is false: a budget is only replaced knowing its version.
    fn allow_unconditional_update(&self) -> bool {
        false
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::POD_DISRUPTION_BUDGET
    }

    fn columns(&self) -> &'static [Column] {
        printer::COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::cells(obj, now)
    }
}
