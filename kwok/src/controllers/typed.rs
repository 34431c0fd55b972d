//! Typed copies of stored objects for the controllers, decoded once per resourceVersion.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::store::Stored;

/// Keyed by resourceVersion: it is unique per stored object version across the whole store, so
/// a lookup needs no allocation and a changed object is a new key.
pub struct TypedCache<T> {
    by_rv: HashMap<u64, Arc<T>>,
}

impl<T> Default for TypedCache<T> {
    fn default() -> Self {
        Self {
            by_rv: HashMap::new(),
        }
    }
}

impl<T: serde::de::DeserializeOwned> TypedCache<T> {
    /// The typed form of `o`; `None` when it does not decode (never expected for stored objects).
    pub fn get(&mut self, o: &Stored) -> Option<Arc<T>> {
        let rv = o.resource_version();
        if let Some(t) = self.by_rv.get(&rv) {
            return Some(t.clone());
        }
        // Deserialize from the borrowed value: no clone of the whole object.
        let t: T = match T::deserialize(&o.value) {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!(error = %e, name = o.name(), "stored object does not decode");
                return None;
            }
        };
        let t = Arc::new(t);
        self.by_rv.insert(rv, t.clone());
        Some(t)
    }

    /// Forget versions no longer stored.
    pub fn retain(&mut self, live: &[Stored]) {
        if self.by_rv.len() <= live.len() {
            return;
        }
        let keep: HashSet<u64> = live.iter().map(|o| o.resource_version()).collect();
        self.by_rv.retain(|rv, _| keep.contains(rv));
    }
}

/// `controller.ComputeHash`'s output format: a 32-bit FNV-1a hash of the template, printed in
/// decimal and mapped through the apiserver's safe alphabet (`rand.SafeEncodeString`), which is
/// why pod-template-hash values look like `6d4f8b7c9d`.
pub fn template_hash(template: &serde_json::Value, collision_count: Option<i64>) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut h: u32 = 0x811c_9dc5;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h ^= u32::from(*b);
            h = h.wrapping_mul(0x0100_0193);
        }
    };
    // Upstream hashes the Go struct, whatever encoding the template arrived in; the stored JSON
    // keeps its decoder's key order (protobuf and JSON bodies list fields differently).
    feed(&serde_json::to_vec(&sorted_keys(template)).unwrap_or_default());
    if let Some(c) = collision_count {
        feed(c.to_string().as_bytes());
    }
    h.to_string()
        .bytes()
        .map(|b| ALPHANUMS[usize::from(b) % ALPHANUMS.len()] as char)
        .collect()
}

/// Recursively sorted object keys: what Go's `json.Marshal` of a `map[string]interface{}` gives,
/// and a form that does not depend on the order a decoder stored the keys in.
pub fn sorted_keys(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => {
            let sorted: std::collections::BTreeMap<&String, serde_json::Value> =
                m.iter().map(|(k, v)| (k, sorted_keys(v))).collect();
            serde_json::Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
        }
        serde_json::Value::Array(a) => {
            serde_json::Value::Array(a.iter().map(sorted_keys).collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same template decoded from a protobuf body and from JSON (keys in another order)
    /// hashes the same: `kubectl create deployment` and `kubectl create -f` of its JSON name
    /// the same ReplicaSet.
    #[test]
    fn the_order_of_a_templates_keys_does_not_change_its_hash() {
        let json_order: serde_json::Value = serde_json::from_str(
            r#"{"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx"}], "restartPolicy": "Always"}}"#,
        )
        .expect("json");
        let other_order: serde_json::Value = serde_json::from_str(
            r#"{"spec": {"restartPolicy": "Always", "containers": [{"image": "nginx", "name": "nginx"}]}, "metadata": {"labels": {"app": "web"}}}"#,
        )
        .expect("json");
        assert_eq!(
            template_hash(&json_order, None),
            template_hash(&other_order, None)
        );
    }

    #[test]
    fn hashes_use_the_safe_alphabet_and_follow_the_template() {
        let a = template_hash(
            &serde_json::json!({"spec": {"containers": [{"image": "a"}]}}),
            None,
        );
        let b = template_hash(
            &serde_json::json!({"spec": {"containers": [{"image": "b"}]}}),
            None,
        );
        assert_ne!(a, b);
        assert!(a
            .bytes()
            .all(|c| b"bcdfghjklmnpqrstvwxz2456789".contains(&c)));
        assert_eq!(
            a,
            template_hash(
                &serde_json::json!({"spec": {"containers": [{"image": "a"}]}}),
                None
            )
        );
    }
}
