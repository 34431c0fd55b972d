//! Leases (`pkg/registry/coordination/lease/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::coordination::v1 as k8s;
use serde_json::Value;

use crate::error::FieldError;
use crate::printers::{lease as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::core as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "coordination.k8s.io",
    version: "v1",
    kind: "Lease",
    plural: "leases",
    singular: "lease",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &Lease,
};

#[derive(Debug)]
pub struct Lease;

crate::kinds::decodes_as!(Lease, k8s::Lease);

impl Strategy for Lease {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::coordination_v1::LEASE)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::lease(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::lease_update(new, old)
    }

    /// `AllowUnconditionalUpdate` is false: a Lease is only replaced knowing its version.
    fn allow_unconditional_update(&self) -> bool {
        false
    }

    fn columns(&self) -> &'static [Column] {
        printer::COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::cells(obj, now)
    }
}
