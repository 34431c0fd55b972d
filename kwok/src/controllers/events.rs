//! Recording core/v1 Events the way client-go's recorder does, including the count-based
//! aggregation of repeats (same object, reason, message and source).

use serde_json::{json, Value};

use crate::api::{meta, Api, WriteOptions};
use crate::registry::{self, ResourceDef};

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
    let ns = match meta::namespace(involved) {
        "" => "default",
        ns => ns,
    };
    let uid = meta::uid(involved);
    let now = meta::now();
    let existing = api.store().list(&registry::EVENTS, Some(ns)).0.into_iter().find(|e| {
        let v = &e.value;
        v["involvedObject"]["uid"].as_str() == Some(uid)
            && v["reason"].as_str() == Some(reason)
            && v["message"].as_str() == Some(message)
            && v["source"]["component"].as_str() == Some(component)
    });
    if let Some(e) = existing {
        let mut v = e.value.clone();
        v["count"] = json!(v["count"].as_i64().unwrap_or(1) + 1);
        v["lastTimestamp"] = json!(now);
        let _ = api.store().update(&registry::EVENTS, v, Some(e.resource_version()));
        return;
    }
    let name = format!(
        "{}.{:x}",
        meta::name(involved),
        chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0)
    );
    let ev = json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": ns},
        "involvedObject": {
            "kind": res.kind,
            "namespace": meta::namespace(involved),
            "name": meta::name(involved),
            "uid": uid,
            "apiVersion": res.api_version(),
            "resourceVersion": meta::resource_version(involved),
        },
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
    if let Err(e) = api.create(&registry::EVENTS, ns, ev, &WriteOptions::default()) {
        tracing::debug!(error = %e, "event not recorded");
    }
}
