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
    /// What follows a `proxy` subresource (`PodProxyOptions.Path`): empty for `.../proxy`, `/`
    /// for `.../proxy/`, else the rest of the path with its trailing slash kept.
    pub proxied: Option<String>,
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
        ["api", v, rest @ ..] => resource("", v, rest, trailing_slash(path), lookup),
        ["apis", g, v, rest @ ..] => resource(g, v, rest, trailing_slash(path), lookup),
        _ => Target::Unknown,
    }
}

fn trailing_slash(path: &str) -> bool {
    path.len() > 1 && path.ends_with('/')
}

fn resource(
    group: &str,
    version: &str,
    rest: &[&str],
    trailing_slash: bool,
    lookup: Lookup,
) -> Target {
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
    let (plural, name, sub, proxied) = match rest {
        [p] => (*p, None, None, None),
        [p, n] => (*p, Some(n.to_string()), None, None),
        // A connecter's path goes on past its subresource (`rest.Connecter` with a path option).
        [p, n, "proxy", tail @ ..] => {
            let mut proxied = String::new();
            for segment in tail {
                proxied.push('/');
                proxied.push_str(segment);
            }
            if trailing_slash {
                proxied.push('/');
            }
            let proxy = Some("proxy".to_string());
            (*p, Some(n.to_string()), proxy, Some(proxied))
        }
        [p, n, s] => (*p, Some(n.to_string()), Some(s.to_string()), None),
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
        proxied,
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

    #[test]
    fn a_proxy_keeps_the_path_it_passes_on() {
        let proxied = |path: &str| match parse(path, BUILT_IN) {
            Target::Resource(p) => (p.subresource, p.proxied),
            other => panic!("{path}: {other:?}"),
        };
        let proxy = || Some("proxy".to_string());
        assert_eq!(
            proxied("/api/v1/namespaces/d/pods/web:8080/proxy"),
            (proxy(), Some(String::new()))
        );
        assert_eq!(
            proxied("/api/v1/namespaces/d/services/https:web:443/proxy/"),
            (proxy(), Some("/".into()))
        );
        assert_eq!(
            proxied("/api/v1/nodes/n1/proxy/containerLogs/ns/p/c/"),
            (proxy(), Some("/containerLogs/ns/p/c/".into()))
        );
        assert_eq!(
            proxied("/api/v1/nodes/n1/status"),
            (Some("status".into()), None)
        );
        // Only the kinds with a proxy take a path past their subresource.
        assert_eq!(
            parse("/api/v1/namespaces/d/secrets/s/proxy/x", BUILT_IN),
            Target::Unknown
        );
        assert_eq!(
            parse("/api/v1/nodes/n1/status/x", BUILT_IN),
            Target::Unknown
        );
    }
}
