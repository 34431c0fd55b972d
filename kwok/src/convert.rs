//! Resources served from another resource's storage. The apiserver stores one object and converts
//! it to the version a request names; here events.k8s.io/v1 Events are core Events
//! (pkg/apis/events/v1/conversion.go), so either API reads and writes every Event, each in its
//! own shape. The store converts on the way in and out; everything above it sees the shape of
//! the resource it asked for.

use serde_json::{Map, Value};

use crate::registry::{self, ResourceDef};
use crate::store::{Object, Stored};

/// The resource whose table holds `res`'s objects: itself, unless it is a view.
pub fn storage(res: &'static ResourceDef) -> &'static ResourceDef {
    if std::ptr::eq(res, &registry::EVENTS_V1) {
        &registry::EVENTS
    } else {
        res
    }
}

/// Is `res` served from another resource's storage? (Loops over every resource skip views, or
/// they would see each object twice.)
pub fn is_view(res: &'static ResourceDef) -> bool {
    !std::ptr::eq(storage(res), res)
}

/// `res`'s object in its storage's shape.
pub fn into_storage(res: &'static ResourceDef, value: Value) -> Value {
    if is_view(res) {
        event_v1_to_core(&value)
    } else {
        value
    }
}

/// A stored object as `res` shows it.
pub fn from_storage(res: &'static ResourceDef, stored: &Stored) -> Stored {
    if is_view(res) {
        Object::new(event_core_to_v1(&stored.value))
    } else {
        stored.clone()
    }
}

/// (core/v1 field, events.k8s.io/v1 field): `Convert_core_Event_To_v1_Event` and back.
const EVENT_FIELDS: [(&str, &str); 14] = [
    ("eventTime", "eventTime"),
    ("series", "series"),
    ("reportingComponent", "reportingController"),
    ("reportingInstance", "reportingInstance"),
    ("action", "action"),
    ("reason", "reason"),
    ("involvedObject", "regarding"),
    ("related", "related"),
    ("message", "note"),
    ("type", "type"),
    ("source", "deprecatedSource"),
    ("firstTimestamp", "deprecatedFirstTimestamp"),
    ("lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "deprecatedCount"),
];

fn convert(
    value: &Value,
    to: &'static ResourceDef,
    fields: impl Iterator<Item = (&'static str, &'static str)>,
) -> Value {
    let mut out = Map::new();
    out.insert("apiVersion".into(), Value::from(to.api_version()));
    out.insert("kind".into(), Value::from(to.kind));
    if let Some(metadata) = value.get("metadata") {
        out.insert("metadata".into(), metadata.clone());
    }
    for (from, into) in fields {
        if let Some(v) = value.get(from) {
            // Zero values the target's omitempty leaves out (`reportingController: ""`, a count
            // of 0); the struct and time fields come back from its defaults.
            let zero = v.is_null() || v.as_str() == Some("") || v.as_i64() == Some(0);
            if !zero {
                out.insert(into.into(), v.clone());
            }
        }
    }
    let mut out = Value::Object(out);
    crate::defaults::apply(to, &mut out);
    out
}

fn event_core_to_v1(core: &Value) -> Value {
    convert(core, &registry::EVENTS_V1, EVENT_FIELDS.iter().copied())
}

fn event_v1_to_core(v1: &Value) -> Value {
    convert(
        v1,
        &registry::EVENTS,
        EVENT_FIELDS.iter().map(|&(core, v1)| (v1, core)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What a 1.32 apiserver answered for one Event written through each API and read through
    /// the other (the differential suite's events session).
    #[test]
    fn an_event_reads_the_same_through_either_api() {
        let core = json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "core-made", "namespace": "ev"},
            "involvedObject": {"kind": "Pod", "name": "somewhere", "namespace": "ev"},
            "reason": "Testing", "message": "written through core/v1", "type": "Normal",
            "count": 2, "source": {"component": "example"},
            "firstTimestamp": null, "lastTimestamp": null, "eventTime": null,
            "reportingComponent": "", "reportingInstance": ""
        });
        assert_eq!(
            event_core_to_v1(&core),
            json!({
                "apiVersion": "events.k8s.io/v1", "kind": "Event",
                "metadata": {"name": "core-made", "namespace": "ev"},
                "deprecatedCount": 2, "deprecatedFirstTimestamp": null, "deprecatedLastTimestamp": null,
                "deprecatedSource": {"component": "example"}, "eventTime": null,
                "note": "written through core/v1", "reason": "Testing",
                "regarding": {"kind": "Pod", "name": "somewhere", "namespace": "ev"}, "type": "Normal"
            })
        );
        assert_eq!(event_v1_to_core(&event_core_to_v1(&core)), core);

        let v1 = json!({
            "apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "v1-made", "namespace": "ev"},
            "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/ctl",
            "reportingInstance": "ctl-1", "action": "Testing", "reason": "Tested", "type": "Normal",
            "note": "written through events.k8s.io/v1",
            "regarding": {"kind": "Pod", "name": "somewhere", "namespace": "ev"}
        });
        let as_core = event_v1_to_core(&v1);
        assert_eq!(
            as_core,
            json!({
                "action": "Testing", "apiVersion": "v1", "eventTime": "2026-01-01T00:00:00.000000Z",
                "firstTimestamp": null,
                "involvedObject": {"kind": "Pod", "name": "somewhere", "namespace": "ev"},
                "kind": "Event", "lastTimestamp": null, "message": "written through events.k8s.io/v1",
                "metadata": {"name": "v1-made", "namespace": "ev"}, "reason": "Tested",
                "reportingComponent": "example.com/ctl", "reportingInstance": "ctl-1", "source": {},
                "type": "Normal"
            })
        );
    }
}
