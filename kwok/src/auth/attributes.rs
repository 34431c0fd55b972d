//! What a request asks to do (`authorizer.AttributesRecord` from `RequestInfoFactory`), and the
//! Forbidden answer when it may not (`responsewriters.Forbidden`).

use crate::error::ApiError;

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
