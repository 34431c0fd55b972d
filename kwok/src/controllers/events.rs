//! Recording core/v1 Events the way client-go's recorder does, including the count-based
//! aggregation of repeats (same object, reason, message and source).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::api::{Api, WriteOptions};
use crate::meta;
use crate::registry;
use crate::resource::ResourceDef;
use crate::resource_names::ResourceNames;

/// (involved object uid, reason, message).
type EventKey = (String, String, String);
/// (namespace, name) of the recorded event.
type EventAt = (String, String);

/// Past this many remembered events the cache starts over (client-go's LRU holds 4096).
const CORRELATOR_CAP: usize = 4096;

/// One component's event recorder, as each upstream controller builds its own broadcaster and
/// recorder. It remembers which event each (object, reason, message) was recorded as, so a repeat
/// bumps `count` on that event instead of scanning the namespace (client-go's EventCorrelator).
/// Clones share the memory.
#[derive(Clone, Debug)]
pub struct Recorder {
    component: &'static str,
    seen: Arc<Mutex<HashMap<EventKey, EventAt>>>,
}

impl Recorder {
    /// The recorder of `component` (the event's `source.component`).
    pub fn new(component: &'static str) -> Self {
        Self {
            component,
            seen: Arc::default(),
        }
    }

    fn lookup(&self, key: &EventKey) -> Option<EventAt> {
        self.seen.lock().ok()?.get(key).cloned()
    }

    fn remember(&self, key: EventKey, at: EventAt) {
        if let Ok(mut m) = self.seen.lock() {
            if m.len() >= CORRELATOR_CAP {
                m.clear();
            }
            m.insert(key, at);
        }
    }

    /// Record an event about `involved` (an object of `res`).
    pub fn event(
        &self,
        api: &Api,
        res: &ResourceDef,
        involved: &Value,
        type_: &str,
        reason: &str,
        message: &str,
    ) {
        let reference = json!({
            "kind": res.kind,
            "namespace": meta::namespace(involved),
            "name": meta::name(involved),
            "uid": meta::uid(involved),
            "apiVersion": res.api_version(),
            "resourceVersion": meta::resource_version(involved),
        });
        self.event_about(api, reference, type_, reason, message);
    }

    /// Record an event about the object `reference` names (a core/v1 `ObjectReference`), as
    /// `recorder.Eventf(ref, …)` does for a reference built by hand (`RecordNodeEvent`). Like
    /// client-go's recorder it never fails its caller: an event that cannot be written is logged.
    pub fn event_about(
        &self,
        api: &Api,
        reference: Value,
        type_: &str,
        reason: &str,
        message: &str,
    ) {
        let text = |field: &str| reference[field].as_str().unwrap_or("").to_string();
        let (involved_ns, involved_name, uid) = (text("namespace"), text("name"), text("uid"));
        let ns = if involved_ns.is_empty() {
            "default"
        } else {
            involved_ns.as_str()
        };
        let now = meta::now();
        let key = (uid, reason.to_string(), message.to_string());
        let existing = self
            .lookup(&key)
            .and_then(|(ens, ename)| api.store().get(&registry::EVENTS, &ens, &ename));
        if let Some(e) = existing {
            // The correlator's repeat: the same event with its count and last time moved on.
            let mut v = e.value.clone();
            v["count"] = json!(v["count"].as_i64().unwrap_or(1) + 1);
            v["lastTimestamp"] = json!(now);
            let (ens, ename) = (e.namespace().to_string(), e.name().to_string());
            let updated = api.update(
                &registry::EVENTS,
                &ens,
                &ename,
                v,
                None,
                &WriteOptions::default(),
            );
            if let Err(e) = updated {
                tracing::debug!(error = %e, "event count not updated");
            }
            return;
        }
        let name = format!(
            "{}.{:x}",
            involved_name,
            chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0)
        );
        let ev = json!({
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": ns},
            "involvedObject": reference,
            "reason": reason,
            "message": message,
            "source": {"component": self.component},
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "type": type_,
            "eventTime": null,
            "reportingComponent": self.component,
            "reportingInstance": "",
        });
        match api.create(&registry::EVENTS, ns, ev, &WriteOptions::default()) {
            Ok(created) => self.remember(key, (ns.to_string(), created.name().to_string())),
            Err(e) => tracing::debug!(error = %e, "event not recorded"),
        }
    }
}
