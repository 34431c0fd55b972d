//! Protobuf request bodies: the `k8s\0` envelope (`runtime.Unknown`) around messages that follow
//! the field numbers of the Kubernetes `generated.proto` files, mixed with random fields, wrong
//! wire types and byte-level damage.

use proptest::prelude::*;

use super::json_text::{any_json, deep, mutate, mutations};

/// One encoded field.
#[derive(Debug, Clone)]
pub enum F {
    Varint(u32, u64),
    Fixed64(u32, u64),
    Fixed32(u32, u32),
    Bytes(u32, Vec<u8>),
    Msg(u32, Vec<F>),
    /// A key with the given wire type and nothing checked after it (groups, wire types 6/7).
    Key(u32, u8),
}

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn key(out: &mut Vec<u8>, number: u32, wire: u8) {
    put_varint(out, (u64::from(number) << 3) | u64::from(wire));
}

pub fn encode(fields: &[F]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in fields {
        match f {
            F::Varint(n, v) => {
                key(&mut out, *n, 0);
                put_varint(&mut out, *v);
            }
            F::Fixed64(n, v) => {
                key(&mut out, *n, 1);
                out.extend_from_slice(&v.to_le_bytes());
            }
            F::Fixed32(n, v) => {
                key(&mut out, *n, 5);
                out.extend_from_slice(&v.to_le_bytes());
            }
            F::Bytes(n, b) => {
                key(&mut out, *n, 2);
                put_varint(&mut out, b.len() as u64);
                out.extend_from_slice(b);
            }
            F::Msg(n, fields) => {
                let inner = encode(fields);
                key(&mut out, *n, 2);
                put_varint(&mut out, inner.len() as u64);
                out.extend_from_slice(&inner);
            }
            F::Key(n, wire) => key(&mut out, *n, *wire),
        }
    }
    out
}

/// The envelope magic, `protoEncodingPrefix` in apimachinery's protobuf.go.
pub const MAGIC: &[u8] = b"k8s\x00";

type Fields = BoxedStrategy<Vec<F>>;
type One = BoxedStrategy<F>;

fn field_number() -> impl Strategy<Value = u32> {
    prop_oneof![
        10 => 1u32..24,
        1 => Just(0u32),
        1 => Just((1u32 << 29) - 1),
        1 => 19000u32..19999,
        1 => any::<u32>(),
    ]
}

fn varint_value() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => 0u64..200,
        1 => Just(u64::MAX),
        1 => Just(i64::MIN as u64),
        1 => Just((-1i64) as u64),
        1 => Just(u64::from(u32::MAX)),
        1 => Just(253_402_300_800), // 10000-01-01T00:00:00Z in Unix seconds
        1 => Just(1_000_000_000),
        1 => any::<u64>(),
    ]
}

/// Bytes for a `string` field: mostly text, sometimes not UTF-8.
fn text() -> impl Strategy<Value = Vec<u8>> {
    const S: &[&str] = &[
        "", "web", "v1", "apps/v1", "default", "nginx", "100m", "1Gi", "25%", "TCP", "Always",
        "app", "x=y", "In", "Exists", "1e3", "-1", "abc",
    ];
    prop_oneof![
        8 => prop::sample::select(S).prop_map(|s| s.as_bytes().to_vec()),
        2 => "[a-z0-9.-]{0,12}".prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..8),
    ]
    .boxed()
}

/// Any field, with nested messages of random fields.
pub fn random_field() -> One {
    let leaf = prop_oneof![
        (field_number(), varint_value()).prop_map(|(n, v)| F::Varint(n, v)),
        (field_number(), any::<u64>()).prop_map(|(n, v)| F::Fixed64(n, v)),
        (field_number(), any::<u32>()).prop_map(|(n, v)| F::Fixed32(n, v)),
        (field_number(), text()).prop_map(|(n, b)| F::Bytes(n, b)),
        (
            field_number(),
            prop_oneof![Just(3u8), Just(4u8), Just(6u8), Just(7u8)]
        )
            .prop_map(|(n, w)| F::Key(n, w)),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        (field_number(), prop::collection::vec(inner, 0..4)).prop_map(|(n, fs)| F::Msg(n, fs))
    })
    .boxed()
}

fn s(n: u32) -> One {
    prop_oneof![8 => text().prop_map(move |b| F::Bytes(n, b)), 1 => random_field()].boxed()
}

fn v(n: u32) -> One {
    prop_oneof![8 => varint_value().prop_map(move |x| F::Varint(n, x)), 1 => random_field()].boxed()
}

fn m(n: u32, inner: Fields) -> One {
    prop_oneof![8 => inner.prop_map(move |fs| F::Msg(n, fs)), 1 => random_field()].boxed()
}

fn repeated(item: One, max: usize) -> Fields {
    prop::collection::vec(item, 0..max).boxed()
}

/// A message: each listed field present at random (repeated ones flattened), in order, plus now and
/// then a random field.
fn message(fields: Vec<Fields>) -> Fields {
    let extra =
        prop_oneof![6 => Just(Vec::new()), 1 => prop::collection::vec(random_field(), 1..3)];
    (fields, extra)
        .prop_map(|(groups, extra)| groups.into_iter().flatten().chain(extra).collect())
        .boxed()
}

fn opt(f: One) -> Fields {
    prop::option::weighted(0.6, f)
        .prop_map(|o| o.into_iter().collect())
        .boxed()
}

/// A `map<string,string>` entry list on field `n`.
fn string_map(n: u32) -> Fields {
    repeated(m(n, message(vec![opt(s(1)), opt(s(2))])), 3)
}

/// `metav1.Time`/`MicroTime`: `Timestamp{seconds = 1, nanos = 2}`.
fn time(n: u32) -> One {
    m(n, message(vec![opt(v(1)), opt(v(2))]))
}

/// `resource.Quantity{string = 1}`.
fn quantity_map(n: u32) -> Fields {
    repeated(
        m(
            n,
            message(vec![opt(s(1)), opt(m(2, message(vec![opt(s(1))])))]),
        ),
        3,
    )
}

/// `intstr.IntOrString{type = 1, intVal = 2, strVal = 3}`.
fn int_or_string(n: u32) -> One {
    m(n, message(vec![opt(v(1)), opt(v(2)), opt(s(3))]))
}

pub fn object_meta() -> Fields {
    message(vec![
        opt(s(1)),
        opt(s(2)),
        opt(s(3)),
        opt(s(5)),
        opt(s(6)),
        opt(v(7)),
        opt(time(8)),
        opt(time(9)),
        opt(v(10)),
        string_map(11),
        string_map(12),
        repeated(
            m(
                13,
                message(vec![
                    opt(s(5)),
                    opt(s(1)),
                    opt(s(3)),
                    opt(s(4)),
                    opt(v(6)),
                    opt(v(7)),
                ]),
            ),
            2,
        ),
        repeated(s(14), 2),
        repeated(
            m(
                17,
                message(vec![
                    opt(s(1)),
                    opt(s(2)),
                    opt(s(3)),
                    opt(time(4)),
                    opt(s(6)),
                    opt(m(7, raw_json())),
                ]),
            ),
            1,
        ),
    ])
}

/// `runtime.RawExtension` / `metav1.FieldsV1`: JSON bytes in field 1, valid or not, deep or not.
fn raw_json() -> Fields {
    prop_oneof![
        4 => any_json().prop_map(|j| j.render()),
        1 => (0usize..400, 0u8..3).prop_map(|(d, style)| deep(d, style, b"1")),
        1 => prop::collection::vec(any::<u8>(), 0..16),
    ]
    .prop_map(|raw| vec![F::Bytes(1, raw)])
    .boxed()
}

fn label_selector() -> Fields {
    message(vec![
        string_map(1),
        repeated(
            m(2, message(vec![opt(s(1)), opt(s(2)), repeated(s(3), 3)])),
            2,
        ),
    ])
}

fn container() -> Fields {
    message(vec![
        opt(s(1)),
        opt(s(2)),
        repeated(s(3), 2),
        repeated(s(4), 2),
        repeated(
            m(6, message(vec![opt(s(1)), opt(v(2)), opt(v(3)), opt(s(4))])),
            2,
        ),
        repeated(m(7, message(vec![opt(s(1)), opt(s(2))])), 2),
        opt(m(8, message(vec![quantity_map(1), quantity_map(2)]))),
        opt(s(14)),
    ])
}

fn pod_spec() -> Fields {
    message(vec![
        repeated(m(2, container()), 3),
        opt(s(3)),
        opt(v(4)),
        string_map(7),
        opt(s(8)),
        opt(s(10)),
        repeated(
            m(
                22,
                message(vec![opt(s(1)), opt(s(2)), opt(s(3)), opt(s(4)), opt(v(5))]),
            ),
            2,
        ),
    ])
}

fn pod_template(n: u32) -> One {
    m(
        n,
        message(vec![opt(m(1, object_meta())), opt(m(2, pod_spec()))]),
    )
}

/// The object message (what goes in `runtime.Unknown.raw`) for a kind.
pub fn object(kind: &str) -> Fields {
    let meta = opt(m(1, object_meta()));
    match kind {
        "Pod" => message(vec![meta, opt(m(2, pod_spec()))]),
        "ConfigMap" => message(vec![
            meta,
            string_map(2),
            repeated(m(3, message(vec![opt(s(1)), opt(s(2))])), 2),
            opt(v(4)),
        ]),
        "Secret" => message(vec![
            meta,
            repeated(m(2, message(vec![opt(s(1)), opt(s(2))])), 2),
            opt(s(3)),
            string_map(4),
            opt(v(5)),
        ]),
        "Namespace" => message(vec![
            meta,
            opt(m(2, message(vec![repeated(s(1), 2)]))),
            opt(m(3, message(vec![opt(s(1))]))),
        ]),
        "Deployment" | "ReplicaSet" | "DaemonSet" => message(vec![
            meta,
            opt(m(
                2,
                message(vec![
                    opt(v(1)),
                    opt(m(2, label_selector())),
                    opt(pod_template(3)),
                    opt(m(
                        4,
                        message(vec![
                            opt(s(1)),
                            opt(m(
                                2,
                                message(vec![opt(int_or_string(1)), opt(int_or_string(2))]),
                            )),
                        ]),
                    )),
                    opt(v(5)),
                    opt(v(6)),
                ]),
            )),
        ]),
        "PodDisruptionBudget" => message(vec![
            meta,
            opt(m(
                2,
                message(vec![
                    opt(int_or_string(1)),
                    opt(m(2, label_selector())),
                    opt(int_or_string(3)),
                    opt(s(4)),
                ]),
            )),
        ]),
        "Lease" => message(vec![
            meta,
            opt(m(
                2,
                message(vec![
                    opt(s(1)),
                    opt(v(2)),
                    opt(time(3)),
                    opt(time(4)),
                    opt(v(5)),
                ]),
            )),
        ]),
        "ControllerRevision" => message(vec![meta, opt(m(2, raw_json())), opt(v(3))]),
        "Eviction" => message(vec![meta, opt(m(2, delete_options()))]),
        "DeleteOptions" => delete_options(),
        "Scale" => message(vec![
            meta,
            opt(m(2, message(vec![opt(v(1))]))),
            opt(m(3, message(vec![opt(v(1)), opt(s(2))]))),
        ]),
        _ => message(vec![meta, repeated(random_field(), 3)]),
    }
}

fn delete_options() -> Fields {
    message(vec![
        opt(v(1)),
        opt(m(2, message(vec![opt(s(1)), opt(s(2))]))),
        opt(v(3)),
        opt(s(4)),
        repeated(s(5), 2),
    ])
}

/// (apiVersion, kind) pairs for the envelope: every served kind, the subresource bodies, and
/// some the server does not know.
pub const TYPES: &[(&str, &str)] = &[
    ("v1", "Pod"),
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "Namespace"),
    ("v1", "Node"),
    ("v1", "Event"),
    ("v1", "Binding"),
    ("v1", "ServiceAccount"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "DaemonSet"),
    ("apps/v1", "ControllerRevision"),
    ("policy/v1", "PodDisruptionBudget"),
    ("policy/v1", "Eviction"),
    ("coordination.k8s.io/v1", "Lease"),
    ("events.k8s.io/v1", "Event"),
    ("autoscaling/v1", "Scale"),
    ("v1", "DeleteOptions"),
    ("apps/v1", "DeleteOptions"),
    ("v1", ""),
    ("", "Pod"),
    ("v2", "Pod"),
    ("apps/v1", "Pod"),
    ("x/y/z", "Widget"),
];

/// A whole body: magic, `TypeMeta`, the object, the optional content fields, then damage.
pub fn envelope() -> impl Strategy<Value = Vec<u8>> {
    prop::sample::select(TYPES).prop_flat_map(|(api_version, kind)| {
        let type_meta = prop_oneof![
            8 => Just(vec![
                F::Bytes(1, api_version.as_bytes().to_vec()),
                F::Bytes(2, kind.as_bytes().to_vec()),
            ]),
            1 => Just(vec![F::Bytes(2, kind.as_bytes().to_vec())]),
            1 => prop::collection::vec(random_field(), 0..3),
        ];
        let content = prop_oneof![
            6 => Just(Vec::new()),
            1 => Just(vec![F::Bytes(3, Vec::new()), F::Bytes(4, b"application/vnd.kubernetes.protobuf".to_vec())]),
            1 => prop::collection::vec(random_field(), 1..3),
        ];
        (type_meta, object(kind), content, mutations()).prop_map(
            move |(type_meta, object, content, edits)| {
                let mut fields = vec![F::Msg(1, type_meta), F::Bytes(2, encode(&object))];
                fields.extend(content);
                let mut body = MAGIC.to_vec();
                body.extend(encode(&fields));
                mutate(body, &edits)
            },
        )
    })
}
