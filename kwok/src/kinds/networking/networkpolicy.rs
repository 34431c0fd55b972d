//! NetworkPolicies (`pkg/registry/networking/networkpolicy/strategy.go`): no status, the
//! generation following the spec, `policyTypes` and port protocols defaulted.

use chrono::{DateTime, Utc};
use k8s_openapi::api::networking::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::fields::{child, default_nil};
use crate::error::FieldError;
use crate::meta::{field_changed, first_generation, next_generation_if};
use crate::printers::{networking as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::networking as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "networking.k8s.io",
    version: "v1",
    kind: "NetworkPolicy",
    plural: "networkpolicies",
    singular: "networkpolicy",
    namespaced: true,
    short_names: &["netpol"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &NetworkPolicy,
};

#[derive(Debug)]
pub struct NetworkPolicy;

crate::kinds::decodes_as!(NetworkPolicy, k8s::NetworkPolicy);

impl Strategy for NetworkPolicy {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::networking_v1::NETWORK_POLICY)
    }

    /// `SetDefaults_NetworkPolicy`, then `SetDefaults_NetworkPolicyPort` for every port.
    fn default(&self, obj: &mut Map<String, Value>) {
        let Some(spec) = child(obj, "spec") else {
            return;
        };
        let set = |v: Option<&Value>| v.and_then(Value::as_array).is_some_and(|a| !a.is_empty());
        if !set(spec.get("policyTypes")) {
            let mut types = vec![json!("Ingress")];
            if set(spec.get("egress")) {
                types.push(json!("Egress"));
            }
            spec.insert("policyTypes".into(), Value::Array(types));
        }
        for direction in ["ingress", "egress"] {
            let rules = spec.get_mut(direction).and_then(Value::as_array_mut);
            for rule in rules.into_iter().flatten() {
                let ports = rule.get_mut("ports").and_then(Value::as_array_mut);
                for port in ports.into_iter().flatten().filter_map(Value::as_object_mut) {
                    default_nil(port, "protocol", json!("TCP"));
                }
            }
        }
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        first_generation(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::network_policy(obj)
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        let changed = field_changed(new, old, "spec");
        next_generation_if(new, old, changed);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::network_policy_update(new, old)
    }

    fn columns(&self) -> &'static [Column] {
        printer::NETWORK_POLICY_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::network_policy_cells(obj, now)
    }
}
