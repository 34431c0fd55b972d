//! Namespaces, Nodes, ConfigMaps, Secrets, ServiceAccounts, Events, Bindings (core validation),
//! Leases (coordination validation) and Scale (autoscaling validation).

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::labels::label_name;
use super::meta::{object_meta, object_meta_update};
use super::path::{
    duplicate, forbidden, invalid, not_supported, required, too_long, Path, IMMUTABLE,
};
use super::pod::taint_effect;
use super::read::s;
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;

/// `core.MaxSecretSize`.
const MAX_SECRET_SIZE: usize = 1024 * 1024;

/// `ValidateNamespace`.
pub fn namespace(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_label, true);
    let fins = obj
        .get("spec")
        .and_then(|s| s.get("finalizers"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for f in fins {
        let f = f.as_str().unwrap_or("");
        errs.extend(finalizer_name(f, &Path::of(&["spec", "finalizers"])));
    }
    errs
}

/// `validateFinalizerName` (core): a qualified name, standard unless it has a domain.
fn finalizer_name(f: &str, p: &Path) -> Vec<FieldError> {
    let mut errs: Vec<FieldError> = names::qualified_name(f)
        .into_iter()
        .map(|m| invalid(p, go_quote(f), m))
        .collect();
    if errs.is_empty()
        && !f.contains('/')
        && !["kubernetes", "orphan", "foregroundDeletion"].contains(&f)
    {
        errs.push(invalid(
            p,
            go_quote(f),
            "name is neither a standard finalizer name nor is it fully qualified",
        ));
    }
    errs
}

/// `ValidateNamespaceUpdate` (spec and status are kept from the old object by the strategy).
pub fn namespace_update(new: &Value, old: &Value) -> Vec<FieldError> {
    object_meta_update(new, old, true)
}

/// `ValidateNode`.
pub fn node(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_subdomain, true);
    errs.extend(node_spec(obj));
    errs
}

/// Taints (on the path `metadata.taints`, as upstream) and pod CIDRs.
fn node_spec(obj: &Value) -> Vec<FieldError> {
    let spec = obj.get("spec").unwrap_or(&Value::Null);
    let mut errs = taints(
        spec.get("taints")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice),
    );
    let cidrs = spec
        .get("podCIDRs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let cp = Path::of(&["spec", "podCIDRs"]);
    for (i, c) in cidrs.iter().enumerate() {
        if !is_cidr(c.as_str().unwrap_or("")) {
            errs.push(invalid(
                &cp.index(i),
                go_syntax::string_slice(spec.get("podCIDRs")),
                "must be valid CIDR",
            ));
        }
    }
    if cidrs.len() > 1 {
        let v4 = cidrs
            .iter()
            .filter(|c| c.as_str().is_some_and(|c| !c.contains(':')))
            .count();
        if cidrs.len() > 2 || v4 != 1 {
            errs.push(invalid(
                &cp,
                go_syntax::string_slice(spec.get("podCIDRs")),
                "may specify no more than one CIDR for each IP family",
            ));
        }
        let mut seen = HashSet::new();
        for (i, c) in cidrs.iter().enumerate() {
            if !seen.insert(c.to_string()) {
                errs.push(duplicate(&cp.index(i), go_syntax::scalar(c)));
            }
        }
    }
    errs
}

fn is_cidr(c: &str) -> bool {
    let Some((ip, bits)) = c.split_once('/') else {
        return false;
    };
    let Ok(bits) = bits.parse::<u8>() else {
        return false;
    };
    match ip.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(_)) => bits <= 32,
        Ok(std::net::IpAddr::V6(_)) => bits <= 128,
        Err(_) => false,
    }
}

/// `validateNodeTaints`.
fn taints(items: &[Value]) -> Vec<FieldError> {
    let p = Path::of(&["metadata", "taints"]);
    let mut errs = Vec::new();
    let mut unique: HashSet<(String, String)> = HashSet::new();
    for (i, t) in items.iter().enumerate() {
        let tp = p.index(i);
        let key = s(t, "key");
        errs.extend(label_name(key, &tp.child("key")));
        let value = s(t, "value");
        let msgs = names::label_value(value);
        if !msgs.is_empty() {
            errs.push(invalid(&tp.child("value"), go_quote(value), msgs.join(";")));
        }
        let effect = s(t, "effect");
        if effect.is_empty() {
            errs.push(required(&tp.child("effect"), ""));
        } else {
            errs.extend(taint_effect(effect, &tp.child("effect")));
        }
        if !unique.insert((effect.to_string(), key.to_string())) {
            let mut e = duplicate(&tp, go_syntax::taint(t));
            e.detail = "taints must be unique by key and effect pair".into();
            errs.push(e);
        }
    }
    errs
}

/// `ValidateNodeUpdate`.
pub fn node_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let (ns, os) = (
        new.get("spec").unwrap_or(&Value::Null),
        old.get("spec").unwrap_or(&Value::Null),
    );
    let old_cidrs = os
        .get("podCIDRs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let new_cidrs = ns
        .get("podCIDRs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if !old_cidrs.is_empty() && old_cidrs != new_cidrs {
        errs.push(forbidden(
            &Path::of(&["spec", "podCIDRs"]),
            "node updates may not change podCIDR except from \"\" to valid",
        ));
    }
    let old_provider = s(os, "providerID");
    if !old_provider.is_empty() && old_provider != s(ns, "providerID") {
        errs.push(forbidden(
            &Path::of(&["spec", "providerID"]),
            "node updates may not change providerID except from \"\" to valid",
        ));
    }
    errs.extend(taints(
        ns.get("taints")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice),
    ));
    errs
}

/// `ValidateConfigMap`.
pub fn config_map(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    let empty = Map::new();
    let data = obj.get("data").and_then(Value::as_object).unwrap_or(&empty);
    let binary = obj
        .get("binaryData")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut size = 0;
    let mut keys: Vec<&String> = data.keys().collect();
    keys.sort();
    for k in keys {
        let kp = Path::new("data").key(k);
        for msg in names::config_map_key(k) {
            errs.push(invalid(&kp, go_quote(k), msg));
        }
        if binary.contains_key(k) {
            errs.push(invalid(
                &kp,
                go_quote(k),
                "duplicate of key present in binaryData",
            ));
        }
        size += data[k.as_str()].as_str().map_or(0, str::len);
    }
    let mut keys: Vec<&String> = binary.keys().collect();
    keys.sort();
    for k in keys {
        for msg in names::config_map_key(k) {
            errs.push(invalid(&Path::new("binaryData").key(k), go_quote(k), msg));
        }
        size += decoded_len(&binary[k.as_str()]);
    }
    if size > MAX_SECRET_SIZE {
        errs.push(too_long(&Path::new(""), MAX_SECRET_SIZE));
    }
    errs
}

/// `ValidateConfigMapUpdate`: an immutable ConfigMap keeps its data.
pub fn config_map_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(immutable_data(new, old, &["data", "binaryData"]));
    errs.extend(config_map(new));
    errs
}

fn immutable_data(new: &Value, old: &Value, keys: &[&str]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if old.get("immutable").and_then(Value::as_bool) == Some(true) {
        if new.get("immutable").and_then(Value::as_bool) != Some(true) {
            errs.push(forbidden(
                &Path::new("immutable"),
                "field is immutable when `immutable` is set",
            ));
        }
        for k in keys {
            if new.get(*k) != old.get(*k) {
                errs.push(forbidden(
                    &Path::new(k),
                    "field is immutable when `immutable` is set",
                ));
            }
        }
    }
    errs
}

fn decoded_len(v: &Value) -> usize {
    use base64::Engine;
    v.as_str()
        .and_then(|s| base64::engine::general_purpose::STANDARD.decode(s).ok())
        .map_or(0, |b| b.len())
}

/// `ValidateSecret`.
pub fn secret(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    let dp = Path::new("data");
    let empty = Map::new();
    let data = obj.get("data").and_then(Value::as_object).unwrap_or(&empty);
    let mut size = 0;
    let mut keys: Vec<&String> = data.keys().collect();
    keys.sort();
    for k in keys {
        for msg in names::config_map_key(k) {
            errs.push(invalid(&dp.key(k), go_quote(k), msg));
        }
        size += decoded_len(&data[k.as_str()]);
    }
    if size > MAX_SECRET_SIZE {
        errs.push(too_long(&dp, MAX_SECRET_SIZE));
    }
    let has = |k: &str| data.contains_key(k);
    match s(obj, "type") {
        "kubernetes.io/service-account-token" => {
            let sa = obj
                .get("metadata")
                .and_then(|m| m.get("annotations"))
                .map(|a| s(a, "kubernetes.io/service-account.name"))
                .unwrap_or("");
            if sa.is_empty() {
                errs.push(required(
                    &Path::of(&["metadata", "annotations"])
                        .key("kubernetes.io/service-account.name"),
                    "",
                ));
            }
        }
        "kubernetes.io/dockercfg" if !has(".dockercfg") => {
            errs.push(required(&dp.key(".dockercfg"), ""))
        }
        "kubernetes.io/dockerconfigjson" if !has(".dockerconfigjson") => {
            errs.push(required(&dp.key(".dockerconfigjson"), ""))
        }
        "kubernetes.io/basic-auth" if !has("username") && !has("password") => {
            errs.push(required(&dp.key("username"), ""));
            errs.push(required(&dp.key("password"), ""));
        }
        "kubernetes.io/ssh-auth" if !has("ssh-privatekey") => {
            errs.push(required(&dp.key("ssh-privatekey"), ""))
        }
        "kubernetes.io/tls" => {
            if !has("tls.crt") {
                errs.push(required(&dp.key("tls.crt"), ""));
            }
            if !has("tls.key") {
                errs.push(required(&dp.key("tls.key"), ""));
            }
        }
        _ => {}
    }
    errs
}

/// `ValidateSecretUpdate`: the type never changes; immutable secrets keep their data.
pub fn secret_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let (nt, ot) = (s(new, "type"), s(old, "type"));
    if nt != ot {
        errs.push(invalid(&Path::new("type"), go_quote(nt), IMMUTABLE));
    }
    errs.extend(immutable_data(new, old, &["data"]));
    errs.extend(secret(new));
    errs
}

/// `ValidateServiceAccount`.
pub fn service_account(obj: &Value) -> Vec<FieldError> {
    object_meta(obj, true, names::name_is_dns_subdomain, true)
}

/// `ValidatePodBinding`.
pub fn binding(obj: &Value) -> Vec<FieldError> {
    let target = obj.get("target").unwrap_or(&Value::Null);
    let mut errs = Vec::new();
    let kind = s(target, "kind");
    if !kind.is_empty() && kind != "Node" {
        errs.push(not_supported(
            &Path::of(&["target", "kind"]),
            go_quote(kind),
            &["Node", "<empty>"],
        ));
    }
    if s(target, "name").is_empty() {
        errs.push(required(&Path::of(&["target", "name"]), ""));
    }
    errs
}

/// `ValidateEventCreate` for core/v1 and events.k8s.io/v1 bodies: the legacy checks, and for
/// events.k8s.io the strict ones.
pub fn event(obj: &Value, events_api: bool) -> Vec<FieldError> {
    let mut errs = event_legacy(obj, events_api);
    if events_api {
        errs.extend(object_meta(obj, true, names::name_is_dns_subdomain, true));
        errs.extend(event_strict(obj));
    }
    errs
}

/// `ValidateEventUpdate`: legacy checks, plus the metadata rules for events.k8s.io.
pub fn event_update(new: &Value, old: &Value, events_api: bool) -> Vec<FieldError> {
    let mut errs = event_legacy(new, events_api);
    if events_api {
        errs.extend(object_meta_update(new, old, true));
    }
    errs
}

/// `legacyValidateEvent`. Both APIs are checked on the internal event, so field paths use the
/// core names (`involvedObject`, `message`) even for events.k8s.io bodies.
fn event_legacy(obj: &Value, events_api: bool) -> Vec<FieldError> {
    let get = |core: &str, events: &str| {
        let key = if events_api { events } else { core };
        obj.get(key).cloned().unwrap_or(Value::Null)
    };
    let ns = obj
        .get("metadata")
        .map(|m| s(m, "namespace"))
        .unwrap_or("")
        .to_string();
    let involved = get("involvedObject", "regarding");
    let involved_ns = s(&involved, "namespace").to_string();
    let event_time = get("eventTime", "eventTime");
    let mut errs = Vec::new();
    let ns_path = Path::of(&["involvedObject", "namespace"]);
    if event_time.is_null() {
        let ok = if involved_ns.is_empty() {
            ns.is_empty() || ns == "default"
        } else {
            ns == involved_ns
        };
        if !ok {
            errs.push(invalid(
                &ns_path,
                go_quote(&involved_ns),
                "does not match event.namespace",
            ));
        }
    } else {
        if involved_ns.is_empty() && ns != "default" && ns != "kube-system" {
            errs.push(invalid(
                &ns_path,
                go_quote(&involved_ns),
                "does not match event.namespace",
            ));
        }
        let controller_field = if events_api {
            "reportingController"
        } else {
            "reportingComponent"
        };
        let controller = get("reportingComponent", "reportingController");
        let controller = controller.as_str().unwrap_or("");
        if controller.is_empty() {
            errs.push(required(&Path::new(controller_field), ""));
        }
        for msg in names::qualified_name(controller) {
            errs.push(invalid(
                &Path::new(controller_field),
                go_quote(controller),
                msg,
            ));
        }
        let checks = [
            (
                "reportingInstance",
                get("reportingInstance", "reportingInstance"),
                128,
                true,
            ),
            ("action", get("action", "action"), 128, true),
            ("reason", get("reason", "reason"), 128, true),
            ("message", get("message", "note"), 1024, false),
        ];
        for (field, v, limit, needed) in checks {
            let v = v.as_str().unwrap_or("");
            if needed && v.is_empty() {
                errs.push(required(&Path::new(field), ""));
            }
            if v.len() > limit {
                errs.push(invalid(
                    &Path::new(field),
                    "\"\"",
                    format!("can have at most {limit} characters"),
                ));
            }
        }
    }
    for msg in names::dns1123_subdomain(&ns) {
        errs.push(invalid(&Path::new("namespace"), go_quote(&ns), msg));
    }
    errs
}

/// The events.k8s.io-only part of `ValidateEventCreate`.
fn event_strict(obj: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if obj.get("eventTime").is_none_or(Value::is_null) {
        errs.push(required(&Path::new("eventTime"), ""));
    }
    let t = s(obj, "type");
    if t != "Normal" && t != "Warning" {
        errs.push(invalid(
            &Path::new("type"),
            "\"\"",
            format!("has invalid value: {t}"),
        ));
    }
    for (core, events) in [
        ("firstTimestamp", "deprecatedFirstTimestamp"),
        ("lastTimestamp", "deprecatedLastTimestamp"),
    ] {
        if obj.get(events).is_some_and(|v| !v.is_null()) {
            errs.push(invalid(&Path::new(core), "\"\"", "needs to be unset"));
        }
    }
    if obj
        .get("deprecatedCount")
        .and_then(Value::as_i64)
        .unwrap_or(0)
        != 0
    {
        errs.push(invalid(&Path::new("count"), "\"\"", "needs to be unset"));
    }
    let src = obj.get("deprecatedSource").unwrap_or(&Value::Null);
    if !s(src, "component").is_empty() || !s(src, "host").is_empty() {
        errs.push(invalid(&Path::new("source"), "\"\"", "needs to be unset"));
    }
    errs
}

/// `ValidateLease`.
pub fn lease(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    errs.extend(lease_spec(obj));
    errs
}

/// `ValidateLeaseUpdate`.
pub fn lease_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(lease_spec(new));
    errs
}

/// `ValidateLeaseSpec`.
fn lease_spec(obj: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let spec = obj.get("spec").unwrap_or(&Value::Null);
    let p = Path::new("spec");
    if let Some(d) = spec.get("leaseDurationSeconds").and_then(Value::as_i64) {
        if d <= 0 {
            errs.push(invalid(
                &p.child("leaseDurationSeconds"),
                d.to_string(),
                "must be greater than 0",
            ));
        }
    }
    if let Some(t) = spec.get("leaseTransitions").and_then(Value::as_i64) {
        if t < 0 {
            errs.push(invalid(
                &p.child("leaseTransitions"),
                t.to_string(),
                "must be greater than or equal to 0",
            ));
        }
    }
    let strategy = s(spec, "strategy");
    if spec.get("strategy").is_some_and(|v| !v.is_null()) {
        let sp = p.child("strategy").child("strategy");
        if strategy.contains('/') {
            for msg in names::qualified_name(strategy) {
                errs.push(invalid(&sp, go_quote(strategy), msg));
            }
        } else if strategy != "OldestEmulationVersion" {
            errs.push(not_supported(
                &sp,
                go_quote(strategy),
                &["OldestEmulationVersion"],
            ));
        }
    }
    if !s(spec, "preferredHolder").is_empty() && strategy.is_empty() {
        errs.push(forbidden(
            &p.child("preferredHolder"),
            "may only be specified if `strategy` is defined",
        ));
    }
    errs
}

/// `ValidateScale`.
pub fn scale(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    if let Some(r) = obj
        .get("spec")
        .and_then(|s| s.get("replicas"))
        .and_then(Value::as_i64)
    {
        if r < 0 {
            errs.push(invalid(
                &Path::of(&["spec", "replicas"]),
                r.to_string(),
                "must be greater than or equal to 0",
            ));
        }
    }
    errs
}

/// `ValidateNamespaceStatusUpdate`.
pub fn namespace_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let phase = new.get("status").map(|st| s(st, "phase")).unwrap_or("");
    let deleting = new
        .get("metadata")
        .and_then(|m| m.get("deletionTimestamp"))
        .is_some_and(|v| !v.is_null());
    let p = Path::of(&["status", "Phase"]);
    if !deleting && phase != "Active" {
        errs.push(invalid(
            &p,
            go_quote(phase),
            "may only be 'Active' if `deletionTimestamp` is empty",
        ));
    } else if deleting && phase != "Terminating" {
        errs.push(invalid(
            &p,
            go_quote(phase),
            "may only be 'Terminating' if `deletionTimestamp` is not empty",
        ));
    }
    errs
}
