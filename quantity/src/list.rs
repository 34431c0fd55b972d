//! `corev1.ResourceList`: quantities by resource name, as quotas, requests and limits hold them.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::Quantity;

/// `corev1.ResourceList`, sorted by name.
pub type ResourceList = BTreeMap<String, Quantity>;

/// The resource list at `v` (a JSON object of quantity strings); unparsable entries are left out,
/// as the API server refuses them on write.
pub fn parse_list(v: &Value) -> ResourceList {
    v.as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, q)| Some((k.clone(), Quantity::parse(q.as_str()?).ok()?)))
        .collect()
}

/// The JSON object of a resource list, each quantity in its serialized form.
pub fn list_value(list: &ResourceList) -> Value {
    Value::Object(
        list.iter()
            .map(|(k, q)| (k.clone(), Value::String(q.canonical())))
            .collect::<Map<_, _>>(),
    )
}
