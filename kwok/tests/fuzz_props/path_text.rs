//! Request paths: segments the API server routes on (groups, versions, plurals, namespaces,
//! subresources, `watch`), joined with stray slashes and percent escapes, valid or not.

use kwok::registry::RESOURCES;
use proptest::prelude::*;

const SEGMENTS: &[&str] = &[
    "api",
    "apis",
    "v1",
    "v2",
    "apps",
    "policy",
    "events.k8s.io",
    "coordination.k8s.io",
    "namespaces",
    "default",
    "gpu-drv",
    "pods",
    "nodes",
    "deployments",
    "daemonsets",
    "poddisruptionbudgets",
    "leases",
    "events",
    "configmaps",
    "bindings",
    "web-1",
    "status",
    "scale",
    "eviction",
    "binding",
    "log",
    "finalize",
    "watch",
    "openapi",
    "v3",
    "version",
    "healthz",
    "readyz",
    "livez",
    "",
    "..",
    ".",
];

/// Escapes spliced into segments: valid, malformed, and ones that decode to invalid UTF-8 or `/`.
const ESCAPES: &[&str] = &[
    "%41", "%2F", "%2f", "%25", "%zz", "%", "%4", "%e9", "%c3%a9", "%00", "%ff%fe",
];

/// Segment soup from the routing vocabulary.
fn soup_path() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        10 => prop::sample::select(SEGMENTS).prop_map(String::from),
        1 => prop::sample::select(ESCAPES).prop_map(String::from),
        1 => "[a-z0-9.%-]{0,8}",
    ];
    (
        prop::sample::select(&["/", "/", "/", "", "//"][..]),
        prop::collection::vec(segment, 0..8),
        prop::sample::select(&["", "", "/", "//", "?x=1"][..]),
    )
        .prop_map(|(lead, segs, trail)| format!("{lead}{}{trail}", segs.join("/")))
}

/// `/api/v1` or `/apis/<group>/<version>`, then `[watch/][namespaces/<ns>/]<plural>[/<name>[/<sub>]]`,
/// each part sometimes swapped for a near miss.
fn resource_path() -> impl Strategy<Value = String> {
    const PREFIXES: &[&str] = &[
        "/api/v1",
        "/apis/apps/v1",
        "/apis/policy/v1",
        "/apis/coordination.k8s.io/v1",
        "/apis/events.k8s.io/v1",
        "/api/v2",
        "/apis/apps/v1beta1",
        "/apis/apps",
        "/apis/x/v1",
    ];
    const PLURALS: &[&str] = &[
        "pods",
        "nodes",
        "namespaces",
        "configmaps",
        "secrets",
        "serviceaccounts",
        "events",
        "bindings",
        "deployments",
        "replicasets",
        "daemonsets",
        "controllerrevisions",
        "poddisruptionbudgets",
        "leases",
        "widgets",
        "Pods",
        "pod",
        "",
    ];
    const NAMES: &[&str] = &[
        "web-1",
        "default",
        "status",
        "namespaces",
        "watch",
        "",
        "a%2Fb",
        "%zz",
        "x y",
    ];
    const SUBRESOURCES: &[&str] = &[
        "status", "scale", "eviction", "binding", "log", "finalize", "exec", "", "pods",
    ];
    let served = prop::sample::select(RESOURCES).prop_flat_map(|res| {
        let subs: Vec<&'static str> = res.subresources.iter().map(|s| s.name).collect();
        let sub = if subs.is_empty() {
            prop::sample::select(SUBRESOURCES).boxed()
        } else {
            prop_oneof![3 => prop::sample::select(subs), 1 => prop::sample::select(SUBRESOURCES)]
                .boxed()
        };
        (Just(res.gv_path()), Just(res.plural), sub)
    });
    let near_miss = (
        prop::sample::select(PREFIXES).prop_map(String::from),
        prop::sample::select(PLURALS),
        prop::sample::select(SUBRESOURCES),
    );
    (
        prop_oneof![4 => served, 1 => near_miss],
        prop::option::weighted(0.15, Just("/watch")),
        prop::option::of(prop::sample::select(NAMES)),
        prop::option::weighted(0.7, prop::sample::select(NAMES)),
        any::<bool>(),
        prop::sample::select(&["", "", "", "", "/", "/x", "/x/y"][..]),
    )
        .prop_map(|((prefix, plural, sub), watch, ns, name, with_sub, tail)| {
            let mut p = prefix;
            p.push_str(watch.unwrap_or(""));
            if let Some(ns) = ns {
                p.push_str("/namespaces/");
                p.push_str(ns);
            }
            p.push('/');
            p.push_str(plural);
            if let Some(name) = name {
                p.push('/');
                p.push_str(name);
                if with_sub {
                    p.push('/');
                    p.push_str(sub);
                }
            }
            p.push_str(tail);
            p
        })
}

/// A path from the routing vocabulary.
pub fn grammar_path() -> impl Strategy<Value = String> {
    prop_oneof![3 => resource_path(), 1 => soup_path()]
}

/// Percent-encode the characters of `path` chosen by `mask` (never `/`), as a client may.
pub fn percent_encode_some(path: &str, mask: &[bool]) -> String {
    let mut out = String::with_capacity(path.len() * 3);
    for (i, c) in path.chars().enumerate() {
        let pick = mask.get(i % mask.len().max(1)).copied().unwrap_or(false);
        if pick && c.is_ascii_alphanumeric() {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}
