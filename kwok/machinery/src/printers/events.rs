//! Events of both API groups (`printEvent` in printers.go). events.k8s.io/v1 is served from the same
//! storage and printed through the same internal `core.Event`, so its fields are first mapped back to
//! the core names (`pkg/apis/events/v1/conversion.go`).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::docs;
use super::duration::since;
use super::values::{at, int_at, is_set, str_at, time_at};

pub const COLUMNS: &[Column] = &[
    Column::new("Last Seen", "string", docs::EVENT_LAST_TIMESTAMP),
    Column::new("Type", "string", docs::EVENT_TYPE),
    Column::new("Reason", "string", docs::EVENT_REASON),
    Column::new("Object", "string", docs::EVENT_INVOLVED_OBJECT),
    Column::new("Subobject", "string", docs::EVENT_FIELD_PATH).wide(),
    Column::new("Source", "string", docs::EVENT_SOURCE).wide(),
    Column::new("Message", "string", docs::EVENT_MESSAGE),
    Column::new("First Seen", "string", docs::EVENT_FIRST_TIMESTAMP).wide(),
    Column::new("Count", "string", docs::EVENT_COUNT).wide(),
    Column::name().wide(),
];

/// The JSON names of the internal event's fields in one wire form.
struct Spelling {
    involved_object: &'static str,
    message: &'static str,
    source: &'static str,
    first_timestamp: &'static str,
    last_timestamp: &'static str,
    count: &'static str,
    reporting_controller: &'static str,
}

const CORE_V1: Spelling = Spelling {
    involved_object: "involvedObject",
    message: "message",
    source: "source",
    first_timestamp: "firstTimestamp",
    last_timestamp: "lastTimestamp",
    count: "count",
    // core/v1 serializes ReportingController as `reportingComponent`.
    reporting_controller: "reportingComponent",
};

const EVENTS_V1: Spelling = Spelling {
    involved_object: "regarding",
    message: "note",
    source: "deprecatedSource",
    first_timestamp: "deprecatedFirstTimestamp",
    last_timestamp: "deprecatedLastTimestamp",
    count: "deprecatedCount",
    reporting_controller: "reportingController",
};

fn first_non_empty<'a>(a: &'a str, b: &'a str) -> &'a str {
    if a.is_empty() {
        b
    } else {
        a
    }
}

/// `formatEventSource`: component (or reportingController), then `, host` (or reportingInstance).
fn source(ev: &Value, f: &Spelling) -> String {
    let component = first_non_empty(
        str_at(ev, &[f.source, "component"]),
        str_at(ev, &[f.reporting_controller]),
    );
    let instance = first_non_empty(
        str_at(ev, &[f.source, "host"]),
        str_at(ev, &["reportingInstance"]),
    );
    if instance.is_empty() {
        component.to_string()
    } else {
        format!("{component}, {instance}")
    }
}

pub fn cells(ev: &Value, events_api: bool, now: DateTime<Utc>) -> Vec<Value> {
    let f = if events_api { &EVENTS_V1 } else { &CORE_V1 };
    let first_seen = match time_at(ev, &[f.first_timestamp]) {
        Some(t) => since(Some(t), now),
        None => since(time_at(ev, &["eventTime"]), now),
    };
    let mut last_seen = match time_at(ev, &[f.last_timestamp]) {
        Some(t) => since(Some(t), now),
        None => first_seen.clone(),
    };
    let mut count = int_at(ev, &[f.count]);
    let series = at(ev, &["series"]);
    if is_set(series) {
        last_seen = since(time_at(series, &["lastObservedTime"]), now);
        count = int_at(series, &["count"]);
    } else if count == 0 {
        // Singleton events of the new API carry no count.
        count = 1;
    }
    let kind = str_at(ev, &[f.involved_object, "kind"]).to_lowercase();
    let object_name = str_at(ev, &[f.involved_object, "name"]);
    let target = if object_name.is_empty() {
        kind
    } else {
        format!("{kind}/{object_name}")
    };
    vec![
        Value::from(last_seen),
        Value::from(str_at(ev, &["type"])),
        Value::from(str_at(ev, &["reason"])),
        Value::from(target),
        Value::from(str_at(ev, &[f.involved_object, "fieldPath"])),
        Value::from(source(ev, f)),
        Value::from(str_at(ev, &[f.message]).trim()),
        Value::from(first_seen),
        Value::from(count),
        Value::from(str_at(ev, &["metadata", "name"])),
    ]
}
