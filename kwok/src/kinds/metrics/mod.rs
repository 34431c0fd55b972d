//! The `metrics.k8s.io/v1beta1` kinds metrics-server serves (`pkg/api/{node,pod,table}.go` in
//! sigs.k8s.io/metrics-server): NodeMetrics and PodMetrics, read-only and never stored. They are
//! served only where pods' resource usage is declared, as kwokctl runs metrics-server only when
//! asked; their objects are made by [`crate::debugging::metrics`].

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::decode::json::Val;
use crate::decode::walker::Outcome;
use crate::decode::{Decoding, GoType};
use crate::error::FieldError;
use crate::printers::Column;
use crate::quantity::Quantity;
use crate::resource::{ResourceDef, Strategy};

pub const GROUP: &str = "metrics.k8s.io";
pub const VERSION: &str = "v1beta1";

const VERBS: &[&str] = &["get", "list"];

pub static NODES: ResourceDef = ResourceDef {
    group: GROUP,
    version: VERSION,
    kind: "NodeMetrics",
    plural: "nodes",
    // metrics-server's storages name no singular (`GetSingularName` is empty).
    singular: "",
    namespaced: false,
    short_names: &[],
    categories: &[],
    verbs: VERBS,
    subresources: &[],
    strategy: &Metrics { pods: false },
};

pub static PODS: ResourceDef = ResourceDef {
    group: GROUP,
    version: VERSION,
    kind: "PodMetrics",
    plural: "pods",
    singular: "",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: VERBS,
    subresources: &[],
    strategy: &Metrics { pods: true },
};

/// Both kinds, in the order metrics-server installs them.
pub static RESOURCES: [&ResourceDef; 2] = [&NODES, &PODS];

/// Whether `res` is one of these kinds.
pub fn is_metrics(res: &ResourceDef) -> bool {
    res.group == GROUP
}

#[derive(Debug)]
pub struct Metrics {
    pods: bool,
}

impl GoType for Metrics {
    /// Nothing is written to these kinds: their only verbs are get and list.
    fn decode_into(&self, _: &Val, _: Decoding, _: (&str, &str)) -> Result<Outcome, String> {
        Err("metrics are read-only".into())
    }
}

/// `addNodeMetricsToTable` and `addPodMetricsToTable`: the name, each resource of the usage in
/// name order, and the window.
const COLUMNS: &[Column] = &[
    Column {
        name: "Name",
        type_: "string",
        format: "name",
        description: "Name of the resource",
        priority: 0,
    },
    Column {
        name: "cpu",
        type_: "string",
        format: "quantity",
        description: "",
        priority: 0,
    },
    Column {
        name: "memory",
        type_: "string",
        format: "quantity",
        description: "",
        priority: 0,
    },
    Column {
        name: "Window",
        type_: "string",
        format: "duration",
        description: "",
        priority: 0,
    },
];

impl Strategy for Metrics {
    fn validate(&self, _obj: &Value) -> Vec<FieldError> {
        Vec::new()
    }

    fn validate_update(&self, _new: &Value, _old: &Value) -> Vec<FieldError> {
        Vec::new()
    }

    fn stored(&self) -> bool {
        false
    }

    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }

    /// A pod's row sums its containers' usage.
    fn cells(&self, obj: &Value, _now: DateTime<Utc>) -> Vec<Value> {
        let sum = |resource: &str| -> String {
            let usages: Vec<&Value> = if self.pods {
                obj["containers"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| &c["usage"][resource])
                    .collect()
            } else {
                vec![&obj["usage"][resource]]
            };
            usages
                .into_iter()
                .filter_map(|q| Quantity::parse(q.as_str()?).ok())
                .fold(Quantity::zero(), |total, q| total.add(&q))
                .canonical()
        };
        vec![
            obj["metadata"]["name"].clone(),
            json!(sum("cpu")),
            json!(sum("memory")),
            obj["window"].clone(),
        ]
    }
}
