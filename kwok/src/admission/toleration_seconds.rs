//! DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds), on create and update:
//! a pod tolerates not-ready and unreachable nodes for 300 s unless it already tolerates them (an
//! empty key or effect matches too).

use serde_json::{json, Value};

use crate::defaults::fields::{each, str_of};

/// `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`.
const DEFAULT_TOLERATION_SECONDS: i64 = 300;
const NOT_READY: &str = "node.kubernetes.io/not-ready";
const UNREACHABLE: &str = "node.kubernetes.io/unreachable";

pub(super) fn admit(pod: &mut Value) {
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let mut tolerates_not_ready = false;
    let mut tolerates_unreachable = false;
    for t in each(spec, "tolerations") {
        let key = str_of(t, "key");
        let effect = str_of(t, "effect");
        let no_execute = effect == "NoExecute" || effect.is_empty();
        tolerates_not_ready |= (key == NOT_READY || key.is_empty()) && no_execute;
        tolerates_unreachable |= (key == UNREACHABLE || key.is_empty()) && no_execute;
    }
    let mut add = Vec::new();
    for (tolerated, key) in [
        (tolerates_not_ready, NOT_READY),
        (tolerates_unreachable, UNREACHABLE),
    ] {
        if !tolerated {
            add.push(json!({
                "key": key,
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": DEFAULT_TOLERATION_SECONDS,
            }));
        }
    }
    if add.is_empty() {
        return;
    }
    let list = spec.entry("tolerations").or_insert_with(|| json!([]));
    if list.is_null() {
        *list = json!([]);
    }
    if let Some(items) = list.as_array_mut() {
        items.extend(add);
    }
}
