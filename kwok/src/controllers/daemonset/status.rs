//! The DaemonSet status (`updateDaemonSetStatus`, `storeDaemonSetStatus`).

use serde_json::{json, Map, Value};

use crate::api::Api;
use crate::error::ApiError;
use crate::registry;
use crate::store::Stored;

/// The DaemonSet status counters (`updateDaemonSetStatus`).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) desired: i64,
    pub(super) current: i64,
    pub(super) misscheduled: i64,
    pub(super) ready: i64,
    pub(super) updated: i64,
    pub(super) available: i64,
    pub(super) unavailable: i64,
}

/// `storeDaemonSetStatus`: a status update only when a counter or observedGeneration moved.
pub(super) fn store_status(api: &Api, ds: &Stored, c: &Counts) -> Result<(), ApiError> {
    let status = &ds.value["status"];
    let get = |k: &str| status[k].as_i64().unwrap_or(0);
    let generation = ds.value["metadata"]["generation"].as_i64().unwrap_or(0);
    let stored = Counts {
        desired: get("desiredNumberScheduled"),
        current: get("currentNumberScheduled"),
        misscheduled: get("numberMisscheduled"),
        ready: get("numberReady"),
        updated: get("updatedNumberScheduled"),
        available: get("numberAvailable"),
        unavailable: get("numberUnavailable"),
    };
    if stored == *c && get("observedGeneration") >= generation {
        return Ok(());
    }
    // DaemonSetStatus field order; the omitempty fields are left out at zero.
    let mut s = Map::new();
    s.insert("currentNumberScheduled".into(), json!(c.current));
    s.insert("numberMisscheduled".into(), json!(c.misscheduled));
    s.insert("desiredNumberScheduled".into(), json!(c.desired));
    s.insert("numberReady".into(), json!(c.ready));
    for (key, value) in [
        ("observedGeneration", generation),
        ("updatedNumberScheduled", c.updated),
        ("numberAvailable", c.available),
        ("numberUnavailable", c.unavailable),
    ] {
        if value != 0 {
            s.insert(key.into(), json!(value));
        }
    }
    for key in ["collisionCount", "conditions"] {
        if let Some(v) = status.get(key).filter(|v| !v.is_null()) {
            s.insert(key.into(), v.clone());
        }
    }
    let mut updated = ds.value.clone();
    updated["status"] = Value::Object(s);
    match api.update_status(&registry::DAEMONSETS, updated.clone()) {
        Ok(_) => Ok(()),
        // One retry against the latest version (StatusUpdateRetries).
        Err(e) if e.code == 409 => {
            let fresh = api.get(&registry::DAEMONSETS, ds.namespace(), ds.name())?;
            let mut retry = fresh.value.clone();
            retry["status"] = updated["status"].clone();
            for key in ["collisionCount", "conditions"] {
                if let Some(v) = fresh.value["status"].get(key).filter(|v| !v.is_null()) {
                    retry["status"][key] = v.clone();
                }
            }
            api.update_status(&registry::DAEMONSETS, retry).map(|_| ())
        }
        Err(e) => Err(e),
    }
}
