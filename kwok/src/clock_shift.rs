//! Moves every timestamp of a snapshot forward, so a state saved a while ago can be restored as if
//! it had just been reached: ages in `kubectl get` stay what they were when it was saved, heartbeats
//! stay fresh for the node lifecycle controller, and conditions keep their relative order.
//!
//! Only fields the API server or controllers write as times are moved (metadata times, the whole
//! `status`, event and lease times); labels, annotations, `spec` and `data` are the user's and are
//! left alone even when they look like dates.

use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use serde_json::Value;

use crate::store::Snapshot;

/// `snapshot` with its clock moved forward by `by`.
pub fn shift_clock(snapshot: &Snapshot, by: TimeDelta) -> Snapshot {
    Snapshot::from_objects(snapshot.objects().map(|(res, value)| {
        let mut value = value.clone();
        shift_object(&mut value, res, by);
        (res, value)
    }))
}

fn shift_object(obj: &mut Value, res: &crate::resource::ResourceDef, by: TimeDelta) {
    if let Some(meta) = obj.get_mut("metadata") {
        for key in ["creationTimestamp", "deletionTimestamp"] {
            if let Some(v) = meta.get_mut(key) {
                shift_value(v, by);
            }
        }
        if let Some(Value::Array(entries)) = meta.get_mut("managedFields") {
            for entry in entries {
                if let Some(v) = entry.get_mut("time") {
                    shift_value(v, by);
                }
            }
        }
    }
    if let Some(status) = obj.get_mut("status") {
        shift_tree(status, by);
    }
    match res.kind {
        "Event" => {
            for key in [
                "firstTimestamp",
                "lastTimestamp",
                "eventTime",
                "deprecatedFirstTimestamp",
                "deprecatedLastTimestamp",
            ] {
                if let Some(v) = obj.get_mut(key) {
                    shift_value(v, by);
                }
            }
            if let Some(v) = obj
                .get_mut("series")
                .and_then(|s| s.get_mut("lastObservedTime"))
            {
                shift_value(v, by);
            }
        }
        "Lease" => {
            if let Some(spec) = obj.get_mut("spec") {
                for key in ["acquireTime", "renewTime"] {
                    if let Some(v) = spec.get_mut(key) {
                        shift_value(v, by);
                    }
                }
            }
        }
        _ => {}
    }
}

fn shift_tree(v: &mut Value, by: TimeDelta) {
    match v {
        Value::Object(map) => map.values_mut().for_each(|v| shift_tree(v, by)),
        Value::Array(items) => items.iter_mut().for_each(|v| shift_tree(v, by)),
        Value::String(_) => shift_value(v, by),
        _ => {}
    }
}

/// Moves an RFC 3339 UTC time (`metav1.Time` or `metav1.MicroTime`), keeping its precision;
/// anything else is left as it is.
fn shift_value(v: &mut Value, by: TimeDelta) {
    let Value::String(text) = v else {
        return;
    };
    // Cheap shape test first: status trees are mostly not times.
    if text.len() < 20 || !text.ends_with('Z') || text.as_bytes().get(10) != Some(&b'T') {
        return;
    }
    let Ok(time) = DateTime::parse_from_rfc3339(text) else {
        return;
    };
    let Some(moved) = time.with_timezone(&Utc).checked_add_signed(by) else {
        return;
    };
    let precision = if text.contains('.') {
        SecondsFormat::Micros
    } else {
        SecondsFormat::Secs
    };
    *text = moved.to_rfc3339_opts(precision, true);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{EVENTS, NODES, PODS};
    use serde_json::json;

    fn shifted(res: &'static crate::resource::ResourceDef, obj: Value, secs: i64) -> Value {
        let snap = Snapshot::from_objects([(res, obj)]);
        let out = shift_clock(&snap, TimeDelta::seconds(secs));
        let value = out.objects().next().expect("one object").1.clone();
        value
    }

    #[test]
    fn moves_server_written_times_and_keeps_their_precision() {
        let pod = shifted(
            &PODS,
            json!({
                "metadata": {"name": "p", "namespace": "x", "creationTimestamp": "2026-01-01T00:00:00Z",
                    "managedFields": [{"manager": "kubectl", "time": "2026-01-01T00:00:00Z"}],
                    "annotations": {"when": "2026-01-01T00:00:00Z"}},
                "spec": {"note": "2026-01-01T00:00:00Z"},
                "status": {"startTime": "2026-01-01T00:00:01Z",
                    "conditions": [{"type": "Ready", "lastTransitionTime": "2026-01-01T00:00:02Z", "message": "ok"}],
                    "containerStatuses": [{"state": {"running": {"startedAt": "2026-01-01T00:00:03Z"}}}]}
            }),
            3600,
        );
        assert_eq!(pod["metadata"]["creationTimestamp"], "2026-01-01T01:00:00Z");
        assert_eq!(
            pod["metadata"]["managedFields"][0]["time"],
            "2026-01-01T01:00:00Z"
        );
        assert_eq!(pod["status"]["startTime"], "2026-01-01T01:00:01Z");
        assert_eq!(
            pod["status"]["conditions"][0]["lastTransitionTime"],
            "2026-01-01T01:00:02Z"
        );
        assert_eq!(pod["status"]["conditions"][0]["message"], "ok");
        assert_eq!(
            pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"],
            "2026-01-01T01:00:03Z"
        );
        // The user's fields are not the clock's.
        assert_eq!(
            pod["metadata"]["annotations"]["when"],
            "2026-01-01T00:00:00Z"
        );
        assert_eq!(pod["spec"]["note"], "2026-01-01T00:00:00Z");
    }

    #[test]
    fn moves_event_and_heartbeat_times() {
        let event = shifted(
            &EVENTS,
            json!({"metadata": {"name": "e", "namespace": "x"},
                "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:05Z",
                "eventTime": "2026-01-01T00:00:00.123456Z"}),
            60,
        );
        assert_eq!(event["firstTimestamp"], "2026-01-01T00:01:00Z");
        assert_eq!(event["lastTimestamp"], "2026-01-01T00:01:05Z");
        assert_eq!(event["eventTime"], "2026-01-01T00:01:00.123456Z");

        let node = shifted(
            &NODES,
            json!({"metadata": {"name": "n"}, "status": {"conditions": [
                {"type": "Ready", "lastHeartbeatTime": "2026-01-01T23:59:30Z"}]}}),
            60,
        );
        assert_eq!(
            node["status"]["conditions"][0]["lastHeartbeatTime"],
            "2026-01-02T00:00:30Z"
        );
    }
}
