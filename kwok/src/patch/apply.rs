//! Server-side apply (`application/apply-patch+yaml`), without field ownership.
//!
//! The real server merges the applied configuration into the live object with
//! structured-merge-diff and records which manager owns which field, so that fields a manager
//! stops applying are removed and fields owned by others conflict. Ownership (`managedFields`,
//! conflicts, `force`) is out of scope here: the applied configuration is merged into the live
//! object — objects recursively, associative lists by their key, sets by value, everything else
//! replaced — which is what an apply does the first time a manager sets those fields.
//!
//! The request checks and their messages follow endpoints/handlers/patch.go `applyPatcher` and
//! the field manager chain (`versionCheckManager`, `structuredMergeManager`).

use serde_json::{Map, Value};

use super::strategic::{Schema, Strategy};
use crate::error::ApiError;
use crate::go_json;
use crate::registry::ResourceDef;

/// Fields whose Go types are atomic for server-side apply (`+mapType=atomic` /
/// `+structType=atomic`): node selectors and label selectors are replaced as a whole.
const ATOMIC_FIELDS: &[&str] = &[
    "nodeSelector",
    "selector",
    "labelSelector",
    "namespaceSelector",
];

/// Apply the configuration in `body` to `original` (pass `{}` when the object does not exist yet:
/// apply creates it).
pub(crate) fn apply(
    res: &'static ResourceDef,
    original: &Value,
    body: &[u8],
) -> Result<Value, ApiError> {
    let applied = decode(body)?;
    check_kind(res, &applied)?;
    if applied
        .get("metadata")
        .and_then(|m| m.get("managedFields"))
        .is_some_and(|f| !f.is_null())
    {
        return Err(ApiError::bad_request("metadata.managedFields must be nil"));
    }
    let mut live = match original {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    merge_object(&mut live, applied, res.strategy.merge_schema());
    Ok(Value::Object(live))
}

/// `yaml.Unmarshal(body, &map[string]interface{})` (sigs.k8s.io/yaml: YAML to JSON, then JSON).
fn decode(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    let bad = |msg: String| ApiError::bad_request(format!("error decoding YAML: {msg}"));
    let value: Value = serde_yaml::from_slice(body)
        .map_err(|e| bad(format!("error converting YAML to JSON: yaml: {e}")))?;
    match value {
        Value::Object(m) => Ok(m),
        // A nil map: the object then has no kind, which the kind check reports.
        Value::Null => Ok(Map::new()),
        other => Err(bad(format!(
            "error unmarshaling JSON: while decoding JSON: {}",
            go_json::type_error(&other, "map[string]interface {}")
        ))),
    }
}

/// `versionCheckManager.Apply`: the applied object must be of the endpoint's group, version and
/// kind; the message prints the `schema.GroupVersionKind` as Go does (`apps/v1, Kind=DaemonSet`).
fn check_kind(res: &ResourceDef, applied: &Map<String, Value>) -> Result<(), ApiError> {
    let api_version = applied
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = applied.get("kind").and_then(Value::as_str).unwrap_or("");
    if api_version == res.api_version() && kind == res.kind {
        return Ok(());
    }
    // `schema.ParseGroupVersion`: "v1" is the core group; more than one '/' does not parse and
    // leaves the whole kind empty.
    let (group, version, kind) = match api_version.matches('/').count() {
        0 => ("", api_version, kind),
        1 => {
            let (g, v) = api_version.split_once('/').unwrap_or(("", ""));
            (g, v, kind)
        }
        _ => ("", "", ""),
    };
    Err(ApiError::bad_request(format!(
        "invalid object type: {group}/{version}, Kind={kind}"
    )))
}

/// Merge the applied fields into a live object.
fn merge_object(
    live: &mut Map<String, Value>,
    applied: Map<String, Value>,
    schema: &'static Schema,
) {
    for (key, value) in applied {
        if value.is_null() {
            live.shift_remove(&key);
            continue;
        }
        // A struct without JSON fields (RawExtension) is opaque: replace it.
        let meta = schema.lookup(&key).ok();
        let atomic = ATOMIC_FIELDS.contains(&key.as_str()) || meta.is_none();
        match (live.get_mut(&key), value, meta) {
            (Some(Value::Object(l)), Value::Object(a), Some(meta)) if !atomic => {
                merge_object(l, a, meta.schema);
            }
            (Some(Value::Array(l)), Value::Array(a), Some(meta))
                if meta.strategy == Strategy::Merge =>
            {
                merge_list(l, a, meta.merge_key, meta.schema);
            }
            (_, value, _) => {
                live.insert(key, prune_nulls(value));
            }
        }
    }
}

/// Associative lists merge items by key; sets add the values they lack.
fn merge_list(live: &mut Vec<Value>, applied: Vec<Value>, key: &str, schema: &'static Schema) {
    for item in applied {
        if key.is_empty() {
            if !live.contains(&item) {
                live.push(item);
            }
            continue;
        }
        let wanted = item.get(key).cloned();
        let existing = wanted
            .as_ref()
            .and_then(|w| live.iter_mut().find(|l| l.get(key) == Some(w)));
        match (existing, item) {
            (Some(Value::Object(l)), Value::Object(a)) => merge_object(l, a, schema),
            (_, item) => live.push(prune_nulls(item)),
        }
    }
}

/// A new value carries no null fields (they mean "unset").
fn prune_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, prune_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(prune_nulls).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{DEPLOYMENTS, PODS};
    use serde_json::json;

    #[test]
    fn applies_into_the_live_object() {
        let live = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "d", "labels": {"a": "1"}},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web", "old": "x"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                    "nodeSelector": {"zone": "a"},
                    "containers": [{"name": "web", "image": "nginx:1", "env": [{"name": "A", "value": "1"}]}]}}}});
        let body = br#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {b: "2"}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    spec:
      nodeSelector: {gpu: "true"}
      containers:
      - name: web
        image: nginx:2
        env: [{name: B, value: "2"}]
      - name: side
        image: busybox
"#;
        let out = apply(&DEPLOYMENTS, &live, body).unwrap();
        assert_eq!(out["metadata"]["labels"], json!({"a": "1", "b": "2"}));
        assert_eq!(out["spec"]["replicas"], 3);
        assert_eq!(
            out["spec"]["selector"],
            json!({"matchLabels": {"app": "web"}})
        );
        let spec = &out["spec"]["template"]["spec"];
        assert_eq!(spec["nodeSelector"], json!({"gpu": "true"}));
        assert_eq!(spec["containers"][0]["image"], "nginx:2");
        assert_eq!(
            spec["containers"][0]["env"],
            json!([{"name": "A", "value": "1"}, {"name": "B", "value": "2"}])
        );
        assert_eq!(spec["containers"][1]["name"], "side");
    }

    #[test]
    fn creates_from_nothing() {
        let body = br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}"#;
        let out = apply(&PODS, &json!({}), body).unwrap();
        assert_eq!(out, serde_json::from_slice::<Value>(body).unwrap());
    }

    #[test]
    fn request_errors() {
        let e = apply(
            &PODS,
            &json!({}),
            b"apiVersion: apps/v1\nkind: Deployment\n",
        )
        .unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (400, "invalid object type: apps/v1, Kind=Deployment")
        );
        let e = apply(&PODS, &json!({}), b"metadata: {name: p}\n").unwrap_err();
        assert_eq!(e.message, "invalid object type: /, Kind=");
        let e = apply(
            &PODS,
            &json!({}),
            b"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"managedFields\":[]}}",
        )
        .unwrap_err();
        assert_eq!(e.message, "metadata.managedFields must be nil");
        let e = apply(&PODS, &json!({}), b"[1]").unwrap_err();
        assert_eq!(
            e.message,
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"
        );
    }
}
