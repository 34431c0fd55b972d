//! Typed copies of stored objects for the controllers, decoded once per resourceVersion.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::store::Stored;

pub struct TypedCache<T> {
    by_key: HashMap<(String, String), (u64, Arc<T>)>,
}

impl<T> Default for TypedCache<T> {
    fn default() -> Self {
        Self {
            by_key: HashMap::new(),
        }
    }
}

impl<T: serde::de::DeserializeOwned> TypedCache<T> {
    /// The typed form of `o`; `None` when it does not decode (never expected for stored objects).
    pub fn get(&mut self, o: &Stored) -> Option<Arc<T>> {
        let key = (o.namespace().to_string(), o.name().to_string());
        let rv = o.resource_version();
        if let Some((cached_rv, t)) = self.by_key.get(&key) {
            if *cached_rv == rv {
                return Some(t.clone());
            }
        }
        let t: T = match serde_json::from_value(o.value.clone()) {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!(error = %e, name = o.name(), "stored object does not decode");
                return None;
            }
        };
        let t = Arc::new(t);
        self.by_key.insert(key, (rv, t.clone()));
        Some(t)
    }

    /// Forget objects no longer stored.
    pub fn retain(&mut self, live: &[Stored]) {
        let keys: HashSet<(&str, &str)> = live.iter().map(|o| (o.namespace(), o.name())).collect();
        self.by_key
            .retain(|(ns, n), _| keys.contains(&(ns.as_str(), n.as_str())));
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
    feed(&serde_json::to_vec(template).unwrap_or_default());
    if let Some(c) = collision_count {
        feed(c.to_string().as_bytes());
    }
    h.to_string()
        .bytes()
        .map(|b| ALPHANUMS[usize::from(b) % ALPHANUMS.len()] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_use_the_safe_alphabet_and_follow_the_template() {
        let a = template_hash(&serde_json::json!({"spec": {"containers": [{"image": "a"}]}}), None);
        let b = template_hash(&serde_json::json!({"spec": {"containers": [{"image": "b"}]}}), None);
        assert_ne!(a, b);
        assert!(a.bytes().all(|c| b"bcdfghjklmnpqrstvwxz2456789".contains(&c)));
        assert_eq!(a, template_hash(&serde_json::json!({"spec": {"containers": [{"image": "a"}]}}), None));
    }
}
