//! A model of JSON *text* rather than JSON values, so generated bodies can hold what a
//! `serde_json::Value` cannot: duplicate keys, number literals of any size or spelling, and strings
//! with invalid UTF-8 or broken escapes. Rendering turns the model into request-body bytes.

use proptest::prelude::*;
use serde_json::Value;

/// One part of a string's contents.
#[derive(Debug, Clone)]
pub enum Piece {
    /// Text, escaped on rendering.
    Text(String),
    /// Bytes written between the quotes exactly as they are (invalid UTF-8, bad escapes).
    Raw(&'static [u8]),
}

/// A JSON string as text.
#[derive(Debug, Clone)]
pub struct JStr(pub Vec<Piece>);

impl JStr {
    pub fn text(s: impl Into<String>) -> Self {
        JStr(vec![Piece::Text(s.into())])
    }

    /// The string a lenient reader would see (raw bytes decoded lossily, escapes left literal).
    pub fn lossy(&self) -> String {
        let mut out = String::new();
        for p in &self.0 {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Raw(b) => out.push_str(&String::from_utf8_lossy(b)),
            }
        }
        out
    }
}

/// A JSON document as text.
#[derive(Debug, Clone)]
pub enum J {
    Null,
    Bool(bool),
    /// A number literal as written, valid or not (`1e400`, `01`, `NaN`).
    Num(String),
    Str(JStr),
    Arr(Vec<J>),
    /// Entries in order; the same key may appear more than once.
    Obj(Vec<(JStr, J)>),
}

impl J {
    pub fn s(s: impl Into<String>) -> J {
        J::Str(JStr::text(s))
    }

    pub fn n(lit: impl Into<String>) -> J {
        J::Num(lit.into())
    }

    pub fn obj(entries: Vec<(&str, J)>) -> J {
        J::Obj(
            entries
                .into_iter()
                .map(|(k, v)| (JStr::text(k), v))
                .collect(),
        )
    }

    pub fn render(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.render_into(&mut out);
        out
    }

    fn render_into(&self, out: &mut Vec<u8>) {
        match self {
            J::Null => out.extend_from_slice(b"null"),
            J::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            J::Num(lit) => out.extend_from_slice(lit.as_bytes()),
            J::Str(s) => render_str(s, out),
            J::Arr(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.render_into(out);
                }
                out.push(b']');
            }
            J::Obj(entries) => {
                out.push(b'{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    render_str(k, out);
                    out.push(b':');
                    v.render_into(out);
                }
                out.push(b'}');
            }
        }
    }

    /// The `serde_json::Value` a lenient reader would make of this text: the last duplicate key
    /// wins, an unparsable number becomes `null`, strings are read lossily.
    pub fn to_value(&self) -> Value {
        match self {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Num(lit) => serde_json::from_str::<Value>(lit)
                .ok()
                .filter(Value::is_number)
                .unwrap_or(Value::Null),
            J::Str(s) => Value::String(s.lossy()),
            J::Arr(items) => Value::Array(items.iter().map(J::to_value).collect()),
            J::Obj(entries) => {
                let mut m = serde_json::Map::new();
                for (k, v) in entries {
                    m.insert(k.lossy(), v.to_value());
                }
                Value::Object(m)
            }
        }
    }
}

fn render_str(s: &JStr, out: &mut Vec<u8>) {
    out.push(b'"');
    for p in &s.0 {
        match p {
            Piece::Text(t) => {
                // serde_json's escaping, without its surrounding quotes.
                let quoted = serde_json::to_string(t).unwrap_or_else(|_| "\"\"".into());
                out.extend_from_slice(&quoted.as_bytes()[1..quoted.len() - 1]);
            }
            Piece::Raw(b) => out.extend_from_slice(b),
        }
    }
    out.push(b'"');
}

/// Number literals around every boundary a decoder cares about, and some that are not JSON.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "42",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "4294967296",
    "9007199254740993",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "-0",
    "-0.0",
    "0.5",
    "1.0",
    "1.5",
    "0.1",
    "2.5e-3",
    "1e3",
    "1E+2",
    "1e308",
    "1e309",
    "-1e400",
    "4.9e-324",
    "1e-400",
];

/// Number-looking text that is not valid JSON.
const BAD_NUMBERS: &[&str] = &[
    "01", "1.", "+1", ".5", "NaN", "Infinity", "-", "0x10", "1e", "--1", "1e+", "00",
];

/// String contents that are not clean UTF-8 text, or not valid JSON escapes.
const RAW_PIECES: &[&[u8]] = &[
    b"\xff",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xc0\x80",
    b"\\ud800",
    b"\\udc00\\ud800",
    b"\\ud83d\\ude00",
    b"\\u00e9",
    b"\\u0000",
    b"\\x41",
    b"\\u12",
    b"\\",
    b"\n",
    b"\t",
    b"\x7f",
    b"\x00",
];

/// Plain strings a Kubernetes object holds, valid or not for their field.
const STRINGS: &[&str] = &[
    "",
    "a",
    "web",
    "web-1",
    "nginx",
    "nginx:1.25",
    "registry.example.com/gpu/driver:535.104",
    "default",
    "kube-system",
    "gpu-drv",
    "v1",
    "apps/v1",
    "Pod",
    "Always",
    "IfNotPresent",
    "Never",
    "TCP",
    "UDP",
    "SCTP",
    "NoSchedule",
    "NoExecute",
    "Exists",
    "Equal",
    "In",
    "NotIn",
    "DoesNotExist",
    "RollingUpdate",
    "Recreate",
    "OnDelete",
    "Running",
    "Pending",
    "True",
    "true",
    "100m",
    "0.5",
    "1Gi",
    "512Mi",
    "1e3",
    "2Ki",
    "-1",
    "25%",
    "150%",
    "%",
    "1.5",
    "2024-01-02T03:04:05Z",
    "2024-01-02T03:04:05.123456Z",
    "2024-01-02T03:04:05+01:00",
    "0001-01-01T00:00:00Z",
    "10000-01-01T00:00:00Z",
    "yesterday",
    "aGVsbG8=",
    "aGVsbG8",
    "!!notbase64",
    "Ünïcødé ✓",
    "x=y,z",
    "gpu.example.com/driver",
    "-bad-",
    "UPPER",
    "a b",
];

pub fn number_literal() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::sample::select(NUMBERS).prop_map(String::from),
        3 => any::<i64>().prop_map(|i| i.to_string()),
        1 => any::<u64>().prop_map(|i| i.to_string()),
        1 => any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        1 => prop::sample::select(BAD_NUMBERS).prop_map(String::from),
    ]
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        6 => prop::sample::select(STRINGS).prop_map(|s| Piece::Text(s.to_string())),
        2 => "[a-z0-9.-]{0,12}".prop_map(Piece::Text),
        1 => any::<String>().prop_map(Piece::Text),
        1 => prop::sample::select(RAW_PIECES).prop_map(Piece::Raw),
    ]
}

/// A string value: mostly one plausible piece, sometimes a dirty mix, rarely huge.
pub fn jstr() -> impl Strategy<Value = JStr> {
    prop_oneof![
        12 => prop::sample::select(STRINGS).prop_map(JStr::text),
        4 => "[a-z0-9]([a-z0-9.-]{0,20}[a-z0-9])?".prop_map(JStr::text),
        3 => prop::collection::vec(piece(), 0..4).prop_map(JStr),
        1 => (0usize..70_000).prop_map(|n| JStr::text("x".repeat(n))),
    ]
}

/// Keys from the Kubernetes vocabulary (plus strategic-merge directives), so random trees
/// collide with the fields the decoders and patch engines look at.
pub const KEYS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "namespace",
    "generateName",
    "uid",
    "resourceVersion",
    "generation",
    "labels",
    "annotations",
    "finalizers",
    "ownerReferences",
    "creationTimestamp",
    "deletionTimestamp",
    "managedFields",
    "spec",
    "status",
    "template",
    "selector",
    "matchLabels",
    "matchExpressions",
    "key",
    "operator",
    "values",
    "value",
    "replicas",
    "containers",
    "initContainers",
    "image",
    "ports",
    "containerPort",
    "protocol",
    "resources",
    "limits",
    "requests",
    "cpu",
    "memory",
    "env",
    "nodeName",
    "nodeSelector",
    "tolerations",
    "affinity",
    "taints",
    "effect",
    "data",
    "binaryData",
    "stringData",
    "type",
    "minAvailable",
    "maxUnavailable",
    "maxSurge",
    "strategy",
    "rollingUpdate",
    "holderIdentity",
    "renewTime",
    "involvedObject",
    "regarding",
    "reason",
    "message",
    "count",
    "eventTime",
    "target",
    "conditions",
    "x",
    "",
];

/// Strategic merge patch directives (`$patch`, `$retainKeys`, `$setElementOrder/…`,
/// `$deleteFromPrimitiveList/…`) and the plain keys next to them.
pub const DIRECTIVE_KEYS: &[&str] = &[
    "$patch",
    "$retainKeys",
    "$setElementOrder/containers",
    "$setElementOrder/env",
    "$setElementOrder/ports",
    "$setElementOrder/finalizers",
    "$deleteFromPrimitiveList/finalizers",
    "$deleteFromPrimitiveList/args",
    "$setElementOrder/tolerations",
    "$unknownDirective",
    "containers",
    "finalizers",
    "name",
    "spec",
    "metadata",
    "labels",
    "template",
    "tolerations",
    "ports",
    "containerPort",
];

pub const DIRECTIVE_VALUES: &[&str] =
    &["replace", "delete", "merge", "deleteFromPrimitiveList", "x"];

fn key_from(pool: &'static [&'static str]) -> impl Strategy<Value = JStr> {
    prop_oneof![
        10 => prop::sample::select(pool).prop_map(JStr::text),
        1 => jstr(),
    ]
}

fn leaf() -> impl Strategy<Value = J> {
    prop_oneof![
        1 => Just(J::Null),
        1 => any::<bool>().prop_map(J::Bool),
        3 => number_literal().prop_map(J::Num),
        4 => jstr().prop_map(J::Str),
    ]
}

/// Any JSON text with keys from `pool`: random nesting, wrong types everywhere, duplicates.
pub fn any_json_with(pool: &'static [&'static str]) -> BoxedStrategy<J> {
    leaf()
        .prop_recursive(4, 40, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(J::Arr),
                prop::collection::vec((key_from(pool), inner), 0..6).prop_map(J::Obj),
            ]
        })
        .boxed()
}

pub fn any_json() -> BoxedStrategy<J> {
    any_json_with(KEYS)
}

/// `depth` levels of nesting around `core`, as arrays, objects or both.
pub fn deep(depth: usize, style: u8, core: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(depth * 6 + core.len());
    for i in 0..depth {
        match (style + (i % 2) as u8) % 3 {
            0 => out.push(b'['),
            _ => out.extend_from_slice(b"{\"x\":"),
        }
    }
    out.extend_from_slice(core);
    for i in (0..depth).rev() {
        match (style + (i % 2) as u8) % 3 {
            0 => out.push(b']'),
            _ => out.push(b'}'),
        }
    }
    out
}

/// A byte-level edit of a rendered body.
#[derive(Debug, Clone)]
pub enum Mutation {
    Truncate(prop::sample::Index),
    Insert(prop::sample::Index, u8),
    Replace(prop::sample::Index, u8),
    Duplicate(prop::sample::Index, prop::sample::Index),
    Remove(prop::sample::Index),
}

pub fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    let one = prop_oneof![
        any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Replace(i, b)),
        (any::<prop::sample::Index>(), any::<prop::sample::Index>())
            .prop_map(|(a, b)| Mutation::Duplicate(a, b)),
        any::<prop::sample::Index>().prop_map(Mutation::Remove),
    ];
    prop_oneof![
        6 => Just(Vec::new()),
        1 => prop::collection::vec(one, 1..4),
    ]
}

pub fn mutate(mut bytes: Vec<u8>, edits: &[Mutation]) -> Vec<u8> {
    for edit in edits {
        if bytes.is_empty() {
            break;
        }
        match edit {
            Mutation::Truncate(i) => bytes.truncate(i.index(bytes.len())),
            Mutation::Insert(i, b) => {
                let at = i.index(bytes.len() + 1);
                bytes.insert(at, *b);
            }
            Mutation::Replace(i, b) => {
                let at = i.index(bytes.len());
                bytes[at] = *b;
            }
            Mutation::Duplicate(a, b) => {
                let (x, y) = (a.index(bytes.len()), b.index(bytes.len()));
                let (lo, hi) = (x.min(y), x.max(y));
                let chunk = bytes[lo..hi].to_vec();
                let at = hi.min(bytes.len());
                bytes.splice(at..at, chunk);
            }
            Mutation::Remove(i) => {
                let at = i.index(bytes.len());
                bytes.remove(at);
            }
        }
    }
    bytes
}
