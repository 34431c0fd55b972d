//! `SetDefaults_ResourceList` (k8s.io/kubernetes pkg/apis/core/v1/defaults.go): every quantity of
//! a `v1.ResourceList` is rounded up to milli scale on decode ("to maintain API compatibility"),
//! so a request of `0.0001` cpu is stored as `1m` and `1.1e-3` as `2e-3`. The generated
//! defaulters call it for each ResourceList field of a kind; the kinds here call [`resource_list`]
//! and [`requirements`] for theirs.

use serde_json::{Map, Value};

use super::fields::existing;
use crate::quantity::Quantity;

/// `milliScale` in `SetDefaults_ResourceList`.
const MILLI_SCALE: i32 = -3;

/// Rounds up each quantity of the list under `key` of `parent`, when there is one.
pub fn resource_list(parent: &mut Map<String, Value>, key: &str) {
    let Some(list) = existing(parent, key) else {
        return;
    };
    for value in list.values_mut() {
        let Some(text) = value.as_str() else {
            continue;
        };
        // Decoding has already refused what does not parse.
        let Ok(mut quantity) = Quantity::parse(text) else {
            continue;
        };
        quantity.round_up(MILLI_SCALE);
        let canonical = quantity.canonical();
        if canonical != text {
            *value = Value::String(canonical);
        }
    }
}

/// The `limits` and `requests` of the `ResourceRequirements` under `key` of `parent`.
pub fn requirements(parent: &mut Map<String, Value>, key: &str) {
    if let Some(resources) = existing(parent, key) {
        resource_list(resources, "limits");
        resource_list(resources, "requests");
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rounded(text: &str) -> Value {
        let mut parent = json!({"list": {"cpu": text}});
        let parent = parent.as_object_mut().expect("object");
        resource_list(parent, "list");
        parent["list"]["cpu"].clone()
    }

    /// What kube-apiserver v1.32.13 stores for a container's memory limit written so
    /// (tests/differential/sessions/quantities.yaml).
    #[test]
    fn quantities_finer_than_milli_are_rounded_up_to_it() {
        assert_eq!(rounded("1n"), json!("1m"));
        assert_eq!(rounded("1100e-6"), json!("2e-3"));
        assert_eq!(rounded("120e-3"), json!("120e-3"));
        assert_eq!(rounded("1500m"), json!("1500m"));
        assert_eq!(rounded("1536Mi"), json!("1536Mi"));
        assert_eq!(rounded("1e-9"), json!("1e-3"));
        assert_eq!(rounded("-1n"), json!("-1m"));
    }
}
