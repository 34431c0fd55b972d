//! Small accessors for `metadata` on JSON objects, the generators the server uses for names,
//! uids and timestamps, and the field assignments every `strategy.go` makes.

use rand::Rng;
use serde_json::{json, Map, Value};

/// The alphabet of `names.SimpleNameGenerator` (no vowels, no look-alikes).
const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `generateName` + 5 random characters, as the apiserver's name generator does.
pub fn generate_name(prefix: &str) -> String {
    // Names are capped at 63 characters before the suffix (MaxGeneratedNameLength).
    let prefix: String = prefix.chars().take(58).collect();
    let mut rng = rand::rng();
    let suffix: String = (0..5)
        .map(|_| NAME_ALPHABET[rng.random_range(0..NAME_ALPHABET.len())] as char)
        .collect();
    format!("{prefix}{suffix}")
}

/// A random RFC 4122 v4 uid.
pub fn new_uid() -> String {
    let b: [u8; 16] = rand::rng().random();
    format!(
        "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-4{:x}{:02x}-{:x}{:x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
        b[0], b[1], b[2], b[3], b[4], b[5], b[6] & 0x0f, b[7],
        8 | (b[8] & 0x3), b[8] >> 4, b[9], b[10], b[11], b[12], b[13], b[14], b[15]
    )
}

/// RFC 3339 with second precision, as metav1.Time serialises.
pub fn now() -> String {
    time(chrono::Utc::now())
}

/// `t` as metav1.Time serialises it.
pub fn time(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// RFC 3339 with microseconds, as metav1.MicroTime serialises (events, leases).
pub fn now_micro() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.6fZ")
        .to_string()
}

pub fn meta(obj: &Value) -> Option<&Map<String, Value>> {
    obj.get("metadata").and_then(Value::as_object)
}

/// `value` as an object, made an empty one first when it is anything else.
pub fn object_mut(value: &mut Value) -> &mut Map<String, Value> {
    if !value.is_object() {
        *value = Value::Object(Map::new());
    }
    match value {
        Value::Object(map) => map,
        _ => unreachable!("made an object above"),
    }
}

/// `metadata`, created when absent (or not an object).
pub fn meta_mut(obj: &mut Value) -> &mut Map<String, Value> {
    object_mut(object_mut(obj).entry("metadata").or_insert(Value::Null))
}

pub fn str_field<'a>(obj: &'a Value, key: &str) -> &'a str {
    meta(obj)
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

pub fn name(obj: &Value) -> &str {
    str_field(obj, "name")
}

pub fn namespace(obj: &Value) -> &str {
    str_field(obj, "namespace")
}

pub fn uid(obj: &Value) -> &str {
    str_field(obj, "uid")
}

/// `metadata.generation` (0 when unset).
pub fn generation(obj: &Value) -> i64 {
    obj["metadata"]["generation"].as_i64().unwrap_or(0)
}

pub fn resource_version(obj: &Value) -> &str {
    str_field(obj, "resourceVersion")
}

pub fn labels(obj: &Value) -> Option<&Map<String, Value>> {
    meta(obj)
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
}

pub fn label<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    labels(obj).and_then(|l| l.get(key)).and_then(Value::as_str)
}

pub fn annotation<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    meta(obj)
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object)
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
}

pub fn is_deleting(obj: &Value) -> bool {
    meta(obj).is_some_and(|m| m.get("deletionTimestamp").is_some_and(|v| !v.is_null()))
}

pub fn finalizers(obj: &Value) -> Vec<String> {
    meta(obj)
        .and_then(|m| m.get("finalizers"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The owner reference marked `controller: true`, if any.
pub fn controller_ref(obj: &Value) -> Option<&Value> {
    meta(obj)
        .and_then(|m| m.get("ownerReferences"))
        .and_then(Value::as_array)
        .and_then(|refs| {
            refs.iter()
                .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))
        })
}

/// Set `into[key]` to `from`, or remove it when `from` is `None`: a Go assignment of a field that
/// may be unset.
pub fn restore(into: &mut Map<String, Value>, key: &str, from: Option<&Value>) {
    match from {
        Some(v) => {
            into.insert(key.to_string(), v.clone());
        }
        None => {
            into.remove(key);
        }
    }
}

/// `newObj.Spec = oldObj.Spec` for a top-level field.
pub fn keep(new: &mut Value, old: &Value, key: &str) {
    if let Some(map) = new.as_object_mut() {
        restore(map, key, old.get(key));
    }
}

/// The same for a metadata field (`newObj.Labels = oldObj.Labels`).
pub fn keep_meta(new: &mut Value, old: &Value, key: &str) {
    restore(meta_mut(new), key, old["metadata"].get(key));
}

/// `ResetObjectMetaForStatus`: a status write changes none of the metadata the main resource
/// owns (the deletion mark and generation, which every update keeps, are kept too).
pub fn reset_meta_for_status(new: &mut Value, old: &Value) {
    for key in [
        "deletionTimestamp",
        "generation",
        "labels",
        "annotations",
        "finalizers",
        "ownerReferences",
    ] {
        keep_meta(new, old, key);
    }
}

/// `Generation = 1`, which the strategies of kinds that track spec changes set on create.
pub fn first_generation(obj: &mut Value) {
    obj["metadata"]["generation"] = json!(1);
}

/// `Generation = old.Generation + 1` when `changed`; `rest.BeforeUpdate` has already copied the old
/// generation.
pub fn next_generation_if(new: &mut Value, old: &Value, changed: bool) {
    if changed {
        let generation = old["metadata"]["generation"].as_i64().unwrap_or(0);
        new["metadata"]["generation"] = json!(generation + 1);
    }
}

/// The `PrepareForUpdate` most kinds with a status subresource share: `newObj.Status =
/// oldObj.Status`, and a new generation when the spec changed.
pub fn keep_status_bump_generation_on_spec(new: &mut Value, old: &Value) {
    keep(new, old, "status");
    let changed = field_changed(new, old, "spec");
    next_generation_if(new, old, changed);
}

/// `apiequality.Semantic.DeepEqual` of one top-level field.
pub fn field_changed(new: &Value, old: &Value, key: &str) -> bool {
    new.get(key) != old.get(key)
}

/// `Semantic.DeepEqual` of a metadata map (labels, annotations): a missing map and an empty one
/// are equal.
pub fn meta_map_changed(new: &Value, old: &Value, key: &str) -> bool {
    let map = |v: &Value| {
        v["metadata"]
            .get(key)
            .and_then(Value::as_object)
            .filter(|m| !m.is_empty())
            .cloned()
    };
    map(new) != map(old)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_names_use_the_kubernetes_alphabet() {
        let n = generate_name("gpu-agent-");
        assert_eq!(n.len(), "gpu-agent-".len() + 5);
        assert!(n["gpu-agent-".len()..]
            .bytes()
            .all(|c| NAME_ALPHABET.contains(&c)));
    }

    #[test]
    fn uids_look_like_uuids() {
        let u = new_uid();
        assert_eq!(u.len(), 36);
        assert_eq!(u.as_bytes()[14], b'4');
    }
}
