//! Nodes (`pkg/registry/core/node/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{Map, Value};

use crate::error::FieldError;
use crate::meta::keep;
use crate::printers::{nodes as printer, Column};
use crate::resource::Strategy;
use crate::resource::{proxy, status, ResourceDef, FULL_VERBS};
use crate::validation::core as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "Node",
    plural: "nodes",
    singular: "node",
    namespaced: false,
    short_names: &["no"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[proxy("NodeProxyOptions"), status("Node")],
    strategy: &Node,
};

/// A node keeps the status its creator sends on create (the kubelet registers with one), so the
/// strategy has no PrepareForCreate.
#[derive(Debug)]
pub struct Node;

crate::kinds::decodes_as!(Node, k8s::Node);

impl Strategy for Node {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::NODE)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::core::node(obj);
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        crate::warnings::node::node_fields(obj)
    }

    fn warnings_on_update(&self, new: &Value, _old: &Value) -> Vec<String> {
        crate::warnings::node::node_fields(new)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::node(obj)
    }

    /// `newNode.Status = oldNode.Status`.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "status");
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::node_update(new, old)
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::node_update(new, old)
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::NODE
    }

    fn columns(&self) -> &'static [Column] {
        printer::COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::cells(obj, now)
    }
}
