//! TaintNodesByCondition (plugin/pkg/admission/nodetaint): a new node starts with the not-ready
//! NoSchedule taint until the node lifecycle controller sees it Ready.

use serde_json::{json, Value};

pub(super) fn admit(node: &mut Value) {
    let taint = json!({"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"});
    let Some(obj) = node.as_object_mut() else {
        return;
    };
    let spec = obj.entry("spec").or_insert_with(|| json!({}));
    if !spec.is_object() {
        return;
    }
    let taints = spec
        .as_object_mut()
        .map(|s| s.entry("taints").or_insert_with(|| json!([])));
    if let Some(list) = taints.and_then(Value::as_array_mut) {
        if !list
            .iter()
            .any(|t| t["key"] == taint["key"] && t["effect"] == taint["effect"])
        {
            list.push(taint);
        }
    }
}
