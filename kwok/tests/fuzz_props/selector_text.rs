//! Label and field selector strings built from the selector grammar (`labels/selector.go`,
//! `fields/selector.go`), with whitespace, empty terms and near-miss tokens, and the label sets
//! to match them against.

use proptest::prelude::*;
use serde_json::{Map, Value};

/// Label keys: valid (plain and prefixed) and invalid ones.
pub const LABEL_KEYS: &[&str] = &[
    "app",
    "tier",
    "gpu",
    "x",
    "example.com/role",
    "a.b-c_d",
    "kubernetes.io/hostname",
    "-x",
    "x-",
    "A",
    "a/b/c",
    "/a",
    "a/",
    "in",
    "notin",
];

/// Label values, including integers for `>`/`<`.
pub const LABEL_VALUES: &[&str] = &[
    "web",
    "db",
    "",
    "1",
    "10",
    "-5",
    "007",
    "9223372036854775808",
    "a.b",
    "a_b",
    "-a",
    "a b",
    "x,y",
];

const OPS: &[&str] = &[
    "=", "==", "!=", " in ", " notin ", ">", "<", " In ", "=!", "===", " ", "",
];

const SPACES: &[&str] = &["", "", "", " ", "  ", "\t"];

fn label_key() -> impl Strategy<Value = String> {
    prop_oneof![
        10 => prop::sample::select(LABEL_KEYS).prop_map(String::from),
        1 => Just("k".repeat(64)),
        1 => Just(format!("{}/x", "p".repeat(254))),
        1 => "[a-zA-Z0-9._/-]{0,10}",
    ]
}

fn label_value() -> impl Strategy<Value = String> {
    prop_oneof![
        10 => prop::sample::select(LABEL_VALUES).prop_map(String::from),
        1 => Just("v".repeat(64)),
        1 => "[a-zA-Z0-9._-]{0,8}",
    ]
}

/// One requirement as text: `key`, `!key`, `key op value`, `key in (a,b)`.
fn term() -> impl Strategy<Value = String> {
    (
        prop::sample::select(SPACES),
        any::<bool>(),
        label_key(),
        prop::sample::select(OPS),
        prop::collection::vec(label_value(), 0..4),
        prop::sample::select(SPACES),
        prop_oneof![3 => Just(true), 1 => Just(false)],
    )
        .prop_map(|(lead, negate, key, op, values, trail, parens)| {
            let mut out = String::from(lead);
            if negate {
                out.push('!');
            }
            out.push_str(&key);
            out.push_str(op);
            let set = op.trim().eq_ignore_ascii_case("in") || op.trim() == "notin";
            if set && parens {
                out.push('(');
                out.push_str(&values.join(&format!("{trail},")));
                out.push(')');
            } else if !op.trim().is_empty() {
                out.push_str(values.first().map_or("", String::as_str));
            }
            out.push_str(trail);
            out
        })
}

/// Label selector text: grammar-built mostly, grammar alphabet soup or any string otherwise.
pub fn label_selector() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::collection::vec(term(), 0..4).prop_map(|t| t.join(",")),
        2 => "[a-z0-9=!<>(), ._/-]{0,30}",
        1 => any::<String>(),
    ]
}

const FIELDS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "spec.host",
    "status.phase",
    "spec.unschedulable",
    "involvedObject.kind",
    "type",
    "spec.schedulerName",
    "status.podIP",
    "bogus",
    "",
    "a\\,b",
    "a!",
];

const FIELD_VALUES: &[&str] = &[
    "", "web", "Running", "a\\,b", "a\\=b", "a\\\\b", "a\\b", "a,b", "a=b", "\\", "x!", "true",
];

/// Field selector text from `field op value` terms, or soup.
pub fn field_selector() -> impl Strategy<Value = String> {
    let term = (
        prop::sample::select(FIELDS),
        prop::sample::select(&["=", "==", "!=", "", "!", "=="][..]),
        prop::sample::select(FIELD_VALUES),
    )
        .prop_map(|(f, op, v)| format!("{f}{op}{v}"));
    prop_oneof![
        8 => prop::collection::vec(term, 0..4).prop_map(|t| t.join(",")),
        2 => "[a-z.=!,\\\\]{0,24}",
        1 => any::<String>(),
    ]
}

/// A label set over the same keys and values the selectors use, so requirements hit.
pub fn labels() -> impl Strategy<Value = Option<Map<String, Value>>> {
    prop::option::weighted(
        0.9,
        prop::collection::vec(
            (
                prop::sample::select(LABEL_KEYS),
                prop::sample::select(LABEL_VALUES),
            ),
            0..5,
        )
        .prop_map(|pairs| {
            pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
                .collect()
        }),
    )
}

/// A `metav1.LabelSelector` JSON value: matchLabels and matchExpressions from the same pools.
pub fn api_label_selector() -> impl Strategy<Value = Value> {
    const OPERATORS: &[&str] = &["In", "NotIn", "Exists", "DoesNotExist", "in", "Gt", ""];
    let expression = (
        prop::sample::select(LABEL_KEYS),
        prop::sample::select(OPERATORS),
        prop::option::of(prop::collection::vec(
            prop::sample::select(LABEL_VALUES),
            0..3,
        )),
    )
        .prop_map(|(key, op, values)| {
            let mut m = Map::new();
            m.insert("key".into(), key.into());
            m.insert("operator".into(), op.into());
            if let Some(values) = values {
                m.insert("values".into(), values.into());
            }
            Value::Object(m)
        });
    let match_labels = prop::collection::vec(
        (
            prop::sample::select(LABEL_KEYS),
            prop::sample::select(LABEL_VALUES),
        ),
        0..3,
    )
    .prop_map(|pairs| {
        Value::Object(
            pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
                .collect(),
        )
    });
    (
        prop::option::of(match_labels),
        prop::option::of(prop::collection::vec(expression, 0..3)),
        prop::option::weighted(0.05, Just(())),
    )
        .prop_map(|(labels, expressions, null)| {
            if null.is_some() {
                return Value::Null;
            }
            let mut m = Map::new();
            if let Some(l) = labels {
                m.insert("matchLabels".into(), l);
            }
            if let Some(e) = expressions {
                m.insert("matchExpressions".into(), e.into());
            }
            Value::Object(m)
        })
}
