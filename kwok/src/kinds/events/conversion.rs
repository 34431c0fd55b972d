//! The events.k8s.io/v1 form of a core Event and back (`pkg/apis/events/v1/conversion.go`): the
//! core Event strategy converts through it when a request names events.k8s.io/v1.

use serde_json::{Map, Value};

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

/// `value`'s fields renamed into an Event of `api_version`, then defaulted as decoding into that
/// version's type defaults it (`default`).
fn convert_fields(
    value: &Value,
    api_version: &str,
    default: fn(&mut Map<String, Value>),
    fields: impl Iterator<Item = (&'static str, &'static str)>,
) -> Value {
    let mut out = Map::new();
    out.insert("apiVersion".into(), Value::from(api_version));
    out.insert("kind".into(), Value::from("Event"));
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
    default(&mut out);
    Value::Object(out)
}

/// A stored core Event as events.k8s.io/v1 shows it.
pub(crate) fn event_core_to_v1(core: &Value) -> Value {
    convert_fields(
        core,
        "events.k8s.io/v1",
        crate::defaults::events::v1,
        EVENT_FIELDS.iter().copied(),
    )
}

/// An events.k8s.io/v1 Event in the core storage's shape.
pub(crate) fn event_v1_to_core(v1: &Value) -> Value {
    convert_fields(
        v1,
        "v1",
        crate::defaults::events::core,
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
