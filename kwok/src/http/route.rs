//! Parsing request paths into the resource they address (`k8s.io/apiserver` RequestInfoFactory).

use crate::registry;
use crate::resource::ResourceDef;

/// What a request path names.
#[derive(Debug, PartialEq)]
pub enum Target {
    Version,
    Health,
    ApiVersions,
    ApiGroupList,
    ApiGroup(String),
    ResourceList {
        group: String,
        version: String,
    },
    OpenApiV2,
    OpenApiV3Index,
    /// A document under `/openapi/v3/`, by name (`api/v1`, `apis/apps/v1`, `version`).
    OpenApiV3(String),
    Resource(ResourcePath),
    Unknown,
}

/// A path under a group version that names a resource.
#[derive(Debug, PartialEq)]
pub struct ResourcePath {
    pub res: &'static ResourceDef,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
    /// `/watch/` prefix form (deprecated but served).
    pub watch_prefix: bool,
}

fn decode_segment(s: &str) -> Option<String> {
    // Reject malformed escapes (`%zz`, a trailing `%`) instead of passing them through.
    let b = s.as_bytes();
    for (i, c) in b.iter().enumerate() {
        if *c == b'%'
            && !(i + 2 < b.len() && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit())
        {
            return None;
        }
    }
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .ok()
        .map(|c| c.into_owned())
}

/// Finds the resources served beside the built-in ones (a cluster's custom resources).
pub type Lookup<'a> = &'a dyn Fn(&str, &str, &str) -> Option<&'static ResourceDef>;

/// Built-in resources only.
pub const BUILT_IN: Lookup<'static> = &|_, _, _| None;

pub fn parse(path: &str, lookup: Lookup) -> Target {
    let trimmed = path.trim_end_matches('/');
    let raw: Vec<&str> = trimmed.split('/').skip(1).collect();
    let mut segs = Vec::with_capacity(raw.len());
    for s in raw {
        match decode_segment(s) {
            Some(d) => segs.push(d),
            None => return Target::Unknown,
        }
    }
    let s: Vec<&str> = segs.iter().map(String::as_str).collect();
    match s.as_slice() {
        ["version"] => Target::Version,
        ["healthz"] | ["readyz"] | ["livez"] => Target::Health,
        ["healthz", ..] | ["readyz", ..] | ["livez", ..] => Target::Health,
        ["api"] => Target::ApiVersions,
        ["apis"] => Target::ApiGroupList,
        ["openapi", "v2"] => Target::OpenApiV2,
        ["openapi", "v3"] => Target::OpenApiV3Index,
        ["openapi", "v3", rest @ ..] => Target::OpenApiV3(rest.join("/")),
        ["apis", g] => Target::ApiGroup(g.to_string()),
        ["api", v] => Target::ResourceList {
            group: String::new(),
            version: v.to_string(),
        },
        ["apis", g, v] => Target::ResourceList {
            group: g.to_string(),
            version: v.to_string(),
        },
        ["api", v, rest @ ..] => resource("", v, rest, lookup),
        ["apis", g, v, rest @ ..] => resource(g, v, rest, lookup),
        _ => Target::Unknown,
    }
}

fn resource(group: &str, version: &str, rest: &[&str], lookup: Lookup) -> Target {
    let (watch_prefix, rest) = match rest.first() {
        Some(&"watch") => (true, &rest[1..]),
        _ => (false, rest),
    };
    let (namespace, rest): (Option<String>, &[&str]) = match rest {
        // /namespaces/<ns>/<resource>... ; /namespaces/<name> alone addresses the namespace itself.
        ["namespaces", ns, r, tail @ ..]
            if !r.is_empty() && (!tail.is_empty() || !is_ns_sub(r)) =>
        {
            (Some(ns.to_string()), &rest[2..])
        }
        _ => (None, rest),
    };
    let (plural, name, sub) = match rest {
        [p] => (*p, None, None),
        [p, n] => (*p, Some(n.to_string()), None),
        [p, n, s] => (*p, Some(n.to_string()), Some(s.to_string())),
        _ => return Target::Unknown,
    };
    let Some(res) =
        registry::find(group, version, plural).or_else(|| lookup(group, version, plural))
    else {
        return Target::Unknown;
    };
    if namespace.is_some() && !res.namespaced {
        return Target::Unknown;
    }
    if let Some(s) = &sub {
        if res.subresource(s).is_none() {
            return Target::Unknown;
        }
    }
    Target::Resource(ResourcePath {
        res,
        namespace,
        name,
        subresource: sub,
        watch_prefix,
    })
}

/// `namespaces/<name>/status` and `/finalize` are subresources of a namespace, not a resource
/// inside it.
fn is_ns_sub(s: &str) -> bool {
    s == "status" || s == "finalize"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_shapes_kubectl_sends() {
        let Target::Resource(p) = parse("/api/v1/namespaces/gpu-drv/pods/web-1/eviction", BUILT_IN)
        else {
            panic!("not a resource")
        };
        assert_eq!(p.res.plural, "pods");
        assert_eq!(p.namespace.as_deref(), Some("gpu-drv"));
        assert_eq!(p.name.as_deref(), Some("web-1"));
        assert_eq!(p.subresource.as_deref(), Some("eviction"));

        let Target::Resource(p) = parse("/api/v1/namespaces/gpu-drv", BUILT_IN) else {
            panic!()
        };
        assert_eq!(p.res.plural, "namespaces");
        assert_eq!(p.name.as_deref(), Some("gpu-drv"));

        let Target::Resource(p) = parse("/api/v1/namespaces/x/status", BUILT_IN) else {
            panic!()
        };
        assert_eq!(p.res.plural, "namespaces");
        assert_eq!(p.subresource.as_deref(), Some("status"));

        let Target::Resource(p) = parse("/apis/apps/v1/daemonsets", BUILT_IN) else {
            panic!()
        };
        assert!(p.namespace.is_none() && p.name.is_none());

        assert_eq!(
            parse("/api/v1/namespaces/x/nodes", BUILT_IN),
            Target::Unknown
        );
        assert_eq!(
            parse("/apis/apps/v1/namespaces/x/widgets", BUILT_IN),
            Target::Unknown
        );
        assert_eq!(parse("/api/v1/nodes/%zz", BUILT_IN), Target::Unknown);
    }
}
