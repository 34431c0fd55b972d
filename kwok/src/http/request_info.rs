//! What a request asks to do, read off its method and path (`RequestInfoFactory` of
//! apiserver `pkg/endpoints/request`), as the authorizer's attributes.

use super::route::Target;
use crate::auth::attributes::Attributes;

/// `RequestInfoFactory.NewRequestInfo` for a served path; anything else is a non-resource
/// request on its path.
pub fn attributes(method: &str, path: &str, target: &Target, watch: bool) -> Attributes {
    let Target::Resource(p) = target else {
        return Attributes {
            verb: method.to_ascii_lowercase(),
            path: path.to_string(),
            ..Attributes::default()
        };
    };
    let named = p.name.is_some();
    let verb = match method {
        "GET" | "HEAD" if watch || p.watch_prefix => "watch",
        "GET" | "HEAD" if named => "get",
        "GET" | "HEAD" => "list",
        "POST" => "create",
        "PUT" => "update",
        "PATCH" => "patch",
        "DELETE" if named => "delete",
        "DELETE" => "deletecollection",
        other => {
            return Attributes {
                verb: other.to_ascii_lowercase(),
                path: path.into(),
                ..Default::default()
            }
        }
    };
    let name = p.name.clone().unwrap_or_default();
    // A namespace's own requests are in that namespace.
    let namespace = match (&p.namespace, p.res.plural, p.res.group) {
        (Some(ns), _, _) => ns.clone(),
        (None, "namespaces", "") => name.clone(),
        _ => String::new(),
    };
    Attributes {
        verb: verb.into(),
        resource_request: true,
        group: p.res.group.into(),
        version: p.res.version.into(),
        resource: p.res.plural.into(),
        subresource: p.subresource.clone().unwrap_or_default(),
        namespace,
        name,
        path: path.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::route;

    fn request(method: &str, path: &str, watch: bool) -> Attributes {
        attributes(method, path, &route::parse(path, route::BUILT_IN), watch)
    }

    #[test]
    fn messages_name_the_user_the_verb_and_the_scope() {
        let a = request("DELETE", "/api/v1/namespaces/gpu-share/pods/p", false);
        assert_eq!(
            a.forbidden("system:serviceaccount:gpu-share:gpu-auditor", "").message,
            "pods \"p\" is forbidden: User \"system:serviceaccount:gpu-share:gpu-auditor\" cannot delete resource \"pods\" in API group \"\" in the namespace \"gpu-share\""
        );
        let a = request("PATCH", "/api/v1/nodes/n", false);
        assert_eq!(
            a.forbidden("alice", "").message,
            "nodes \"n\" is forbidden: User \"alice\" cannot patch resource \"nodes\" in API group \"\" at the cluster scope"
        );
        let a = request("GET", "/apis/apps/v1/namespaces/d/deployments", true);
        assert_eq!((a.verb.as_str(), a.group.as_str()), ("watch", "apps"));
        let a = request("GET", "/metrics", false);
        assert_eq!(
            a.forbidden("alice", "").message,
            "forbidden: User \"alice\" cannot get path \"/metrics\""
        );
    }
}
