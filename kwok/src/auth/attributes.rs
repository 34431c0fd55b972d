//! What a request asks to do (`authorizer.AttributesRecord` from `RequestInfoFactory`), and the
//! Forbidden answer when it may not (`responsewriters.Forbidden`).

use crate::error::ApiError;
use crate::http::route::Target;

/// The attributes the authorizer decides on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attributes {
    pub verb: String,
    pub resource_request: bool,
    pub group: String,
    pub version: String,
    pub resource: String,
    pub subresource: String,
    pub namespace: String,
    pub name: String,
    /// A non-resource request's path.
    pub path: String,
}

impl Attributes {
    /// `RequestInfoFactory.NewRequestInfo` for a served path; anything else is a non-resource
    /// request on its path.
    pub fn of_request(method: &str, path: &str, target: &Target, watch: bool) -> Attributes {
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

    /// `forbiddenMessage`.
    fn forbidden_message(&self, user: &str) -> String {
        if !self.resource_request {
            return format!("User {user:?} cannot {} path {:?}", self.verb, self.path);
        }
        let mut resource = self.resource.clone();
        if !self.subresource.is_empty() {
            resource = format!("{resource}/{}", self.subresource);
        }
        if self.namespace.is_empty() {
            format!(
                "User {user:?} cannot {} resource {resource:?} in API group {:?} at the cluster scope",
                self.verb, self.group
            )
        } else {
            format!(
                "User {user:?} cannot {} resource {resource:?} in API group {:?} in the namespace {:?}",
                self.verb, self.group, self.namespace
            )
        }
    }

    /// `responsewriters.Forbidden`: `<resource>[.<group>] ["name"] is forbidden: <message>[:
    /// <reason>]`.
    pub fn forbidden(&self, user: &str, reason: &str) -> ApiError {
        let mut why = self.forbidden_message(user);
        if !reason.is_empty() {
            why = format!("{why}: {reason}");
        }
        let why = why
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        let qualified = if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        };
        let message = match (qualified.is_empty(), self.name.is_empty()) {
            (true, _) => format!("forbidden: {why}"),
            (false, true) => format!("{qualified} is forbidden: {why}"),
            (false, false) => format!("{qualified} {:?} is forbidden: {why}", self.name),
        };
        let mut details = serde_json::Map::new();
        if !self.name.is_empty() {
            details.insert("name".into(), self.name.clone().into());
        }
        if !self.group.is_empty() {
            details.insert("group".into(), self.group.clone().into());
        }
        if !self.resource.is_empty() {
            details.insert("kind".into(), self.resource.clone().into());
        }
        ApiError::new(403, "Forbidden", message).with_details(serde_json::Value::Object(details))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::route;

    fn request(method: &str, path: &str, watch: bool) -> Attributes {
        Attributes::of_request(method, path, &route::parse(path, route::BUILT_IN), watch)
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
