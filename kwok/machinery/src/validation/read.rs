//! Reading the JSON objects validation walks, with Go's zero values for what is absent: an
//! unset string is `""`, an unset list is empty.

use serde_json::Value;

use super::path::Path;

/// The string at `key`, or `""`.
pub(super) fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The list at `key`, or none.
pub(super) fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// `pods.VisitContainersWithPath`: a pod spec's init containers, containers and ephemeral
/// containers, in that order, each with its path under `spec_path`.
pub fn containers_with_path<'a>(spec: &'a Value, spec_path: &Path) -> Vec<(&'a Value, Path)> {
    ["initContainers", "containers", "ephemeralContainers"]
        .iter()
        .flat_map(|key| {
            let path = spec_path.child(key);
            list(spec, key)
                .iter()
                .enumerate()
                .map(move |(i, c)| (c, path.index(i)))
        })
        .collect()
}
