//! Recording core/v1 Events the way client-go's recorder does, including the count-based
//! aggregation of repeats (same object, reason, message and source).

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{json, Value};

use crate::api::{meta, Api, WriteOptions};
use crate::registry::{self, ResourceDef};

/// Remembers which event each (object, reason, message, source) was recorded as, so a repeat
/// bumps `count` on that event instead of scanning the namespace (client-go's EventCorrelator).
/// (involved object uid, reason, message, source component).
type EventKey = (String, String, String, String);
/// (namespace, name) of the recorded event.
type EventAt = (String, String);

#[derive(Default)]
pub struct Correlator {
    seen: Mutex<HashMap<EventKey, EventAt>>,
}

/// Past this many remembered events the cache starts over (client-go's LRU holds 4096).
const CORRELATOR_CAP: usize = 4096;

impl Correlator {
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
}

/// Record an event about `involved` (an object of `res`), from `component`.
pub fn record(
    api: &Api,
    res: &ResourceDef,
    involved: &Value,
    type_: &str,
    reason: &str,
    message: &str,
    component: &str,
) {
    let reference = json!({
        "kind": res.kind,
        "namespace": meta::namespace(involved),
        "name": meta::name(involved),
        "uid": meta::uid(involved),
        "apiVersion": res.api_version(),
        "resourceVersion": meta::resource_version(involved),
    });
    record_reference(api, reference, type_, reason, message, component);
}

/// Record an event about the object `reference` names (a core/v1 `ObjectReference`), as
/// `recorder.Eventf(ref, …)` does for a reference built by hand (`RecordNodeEvent`).
pub fn record_reference(
    api: &Api,
    reference: Value,
    type_: &str,
    reason: &str,
    message: &str,
    component: &str,
) {
    let text = |field: &str| reference[field].as_str().unwrap_or("").to_string();
    let (involved_ns, involved_name, uid) = (text("namespace"), text("name"), text("uid"));
    let ns = if involved_ns.is_empty() {
        "default"
    } else {
        involved_ns.as_str()
    };
    let now = meta::now();
    let key = (
        uid,
        reason.to_string(),
        message.to_string(),
        component.to_string(),
    );
    let existing = api
        .event_correlator()
        .lookup(&key)
        .and_then(|(ens, ename)| api.store().get(&registry::EVENTS, &ens, &ename));
    if let Some(e) = existing {
        let mut v = e.value.clone();
        v["count"] = json!(v["count"].as_i64().unwrap_or(1) + 1);
        v["lastTimestamp"] = json!(now);
        let _ = api
            .store()
            .update(&registry::EVENTS, v, Some(e.resource_version()));
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
        "source": {"component": component},
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
        "type": type_,
        "eventTime": null,
        "reportingComponent": component,
        "reportingInstance": "",
    });
    match api.create(&registry::EVENTS, ns, ev, &WriteOptions::default()) {
        Ok(created) => api
            .event_correlator()
            .remember(key, (ns.to_string(), created.name().to_string())),
        Err(e) => tracing::debug!(error = %e, "event not recorded"),
    }
}
