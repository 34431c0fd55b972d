//! PATCH bodies: RFC 6902 operation lists over the paths a Kubernetes object has, merge patches
//! shaped like the object, and strategic merge patches with their `$` directives.

use kwok::resource::ResourceDef;
use proptest::prelude::*;

use super::json_text::{any_json, any_json_with, JStr, DIRECTIVE_KEYS, DIRECTIVE_VALUES, J};
use super::k8s_docs::{document, Noise};

const POINTERS: &[&str] = &[
    "",
    "/",
    "/metadata",
    "/metadata/name",
    "/metadata/labels",
    "/metadata/labels/app",
    "/metadata/labels/example.com~1role",
    "/metadata/annotations/a~0b",
    "/metadata/finalizers/0",
    "/metadata/finalizers/-",
    "/spec",
    "/spec/replicas",
    "/spec/containers",
    "/spec/containers/0",
    "/spec/containers/-",
    "/spec/containers/0/image",
    "/spec/containers/1/name",
    "/spec/containers/99",
    "/spec/containers/-1",
    "/spec/containers/01",
    "/spec/containers/+1",
    "/spec/containers/18446744073709551616",
    "/spec/template/spec/containers/0/resources/limits/cpu",
    "/data/key",
    "/a/b/c",
    "/x~2",
    "/x~",
    "metadata",
    "//",
];

const OPS: &[&str] = &[
    "add", "remove", "replace", "move", "copy", "test", "bogus", "",
];

fn operation() -> impl Strategy<Value = J> {
    (
        prop::option::weighted(0.95, prop::sample::select(OPS)),
        prop::option::weighted(0.95, prop::sample::select(POINTERS)),
        prop::option::weighted(0.6, any_json()),
        prop::option::weighted(0.3, prop::sample::select(POINTERS)),
        prop::option::weighted(0.05, any_json()),
    )
        .prop_map(|(op, path, value, from, junk)| {
            let mut entries = Vec::new();
            if let Some(op) = op {
                entries.push((JStr::text("op"), J::s(op)));
            }
            if let Some(path) = path {
                entries.push((JStr::text("path"), J::s(path)));
            }
            if let Some(value) = value {
                entries.push((JStr::text("value"), value));
            }
            if let Some(from) = from {
                entries.push((JStr::text("from"), J::s(from)));
            }
            if let Some(junk) = junk {
                entries.push((JStr::text("path"), junk));
            }
            J::Obj(entries)
        })
}

/// A JSON patch body: an operation list, now and then something else entirely.
pub fn json_patch() -> impl Strategy<Value = J> {
    prop_oneof![
        10 => prop::collection::vec(operation(), 0..5).prop_map(J::Arr),
        1 => any_json(),
    ]
}

/// A merge patch body: a partial object of the kind with nulls for deletion, or any JSON.
pub fn merge_patch(res: &'static ResourceDef) -> impl Strategy<Value = J> {
    prop_oneof![
        3 => document(Noise::LOW, res),
        1 => document(Noise::HIGH, res),
        2 => any_json(),
        1 => Just(J::Null),
    ]
}

/// Strategic merge patch directives in a random tree.
fn directive_tree() -> impl Strategy<Value = J> {
    let directive_value = prop_oneof![
        prop::sample::select(DIRECTIVE_VALUES).prop_map(J::s),
        any_json(),
    ];
    (
        any_json_with(DIRECTIVE_KEYS),
        prop::collection::vec(
            (
                prop::sample::select(DIRECTIVE_KEYS).prop_map(JStr::text),
                directive_value,
            ),
            0..3,
        ),
    )
        .prop_map(|(tree, directives)| match tree {
            J::Obj(mut entries) => {
                entries.extend(directives);
                J::Obj(entries)
            }
            other => J::Obj(
                directives
                    .into_iter()
                    .chain(std::iter::once((JStr::text("spec"), other)))
                    .collect(),
            ),
        })
}

/// Containers keyed by name (the merge key), with list directives beside them.
fn containers_patch() -> impl Strategy<Value = J> {
    const NAMES: &[&str] = &["a", "b", "c"];
    let container = (
        prop::sample::select(NAMES),
        prop::option::of(prop::sample::select(&["nginx", "busybox"][..])),
        prop::option::weighted(0.2, prop::sample::select(DIRECTIVE_VALUES)),
    )
        .prop_map(|(name, image, patch)| {
            let mut e = vec![("name", J::s(name))];
            if let Some(image) = image {
                e.push(("image", J::s(image)));
            }
            if let Some(p) = patch {
                e.push(("$patch", J::s(p)));
            }
            J::obj(e)
        });
    (
        prop::collection::vec(container, 0..4),
        prop::option::of(prop::collection::vec(prop::sample::select(NAMES), 0..4)),
        prop::option::of(prop::collection::vec(
            prop::sample::select(&["x", "y"][..]),
            0..3,
        )),
    )
        .prop_map(|(containers, order, delete_from)| {
            let mut spec = vec![("containers", J::Arr(containers))];
            if let Some(order) = order {
                let order = order
                    .into_iter()
                    .map(|n| J::obj(vec![("name", J::s(n))]))
                    .collect();
                spec.push(("$setElementOrder/containers", J::Arr(order)));
            }
            let mut meta = Vec::new();
            if let Some(d) = delete_from {
                meta.push((
                    "$deleteFromPrimitiveList/finalizers",
                    J::Arr(d.into_iter().map(J::s).collect()),
                ));
            }
            J::obj(vec![("metadata", J::obj(meta)), ("spec", J::obj(spec))])
        })
}

/// A strategic merge patch body for `res`.
pub fn strategic_patch(res: &'static ResourceDef) -> impl Strategy<Value = J> {
    prop_oneof![
        2 => document(Noise::LOW, res),
        1 => document(Noise::HIGH, res),
        3 => directive_tree(),
        2 => containers_patch(),
        1 => any_json(),
        1 => Just(J::Null),
    ]
}

/// The object being patched: the kind's shape, as valid JSON.
pub fn original(res: &'static ResourceDef) -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        6 => document(Noise::LOW, res).prop_map(|j| j.to_value()),
        1 => containers_patch().prop_map(|j| j.to_value()),
    ]
    .prop_map(|v| match v {
        serde_json::Value::Object(_) => v,
        other => serde_json::json!({ "spec": other }),
    })
}
