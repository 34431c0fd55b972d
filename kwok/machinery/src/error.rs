//! API errors as Kubernetes `Status` objects.
//!
//! Mirrors `k8s.io/apimachinery/pkg/api/errors`: every failure the API server returns is built here, so
//! the message formats kubectl parses (`%s %q not found`, `... is invalid: ...`) live in one place.

use serde_json::{json, Map, Value};

use crate::resource_names::ResourceNames;

/// One field error, as `k8s.io/apimachinery/pkg/util/validation/field.Error`.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub kind: FieldErrorKind,
    /// Dotted field path, e.g. `spec.template.metadata.labels`.
    pub field: String,
    /// The offending value already rendered the Go way (`"x"`, `3`, `map[string]string{...}`),
    /// or `None` for kinds that print no value.
    pub value: Option<String>,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldErrorKind {
    Invalid,
    Required,
    Unsupported,
    Duplicate,
    NotFound,
    Forbidden,
    TooLong,
    TooMany,
    Internal,
}

impl FieldErrorKind {
    /// The text kubectl shows (`field.ErrorType.String()`).
    pub fn text(self) -> &'static str {
        match self {
            Self::Invalid => "Invalid value",
            Self::Required => "Required value",
            Self::Unsupported => "Unsupported value",
            Self::Duplicate => "Duplicate value",
            Self::NotFound => "Not found",
            Self::Forbidden => "Forbidden",
            Self::TooLong => "Too long",
            Self::TooMany => "Too many",
            Self::Internal => "Internal error",
        }
    }

    /// `metav1.CauseType` for the Status cause.
    pub fn cause(self) -> &'static str {
        match self {
            Self::Invalid => "FieldValueInvalid",
            Self::Required => "FieldValueRequired",
            Self::Unsupported => "FieldValueNotSupported",
            Self::Duplicate => "FieldValueDuplicate",
            Self::NotFound => "FieldValueNotFound",
            Self::Forbidden => "FieldValueForbidden",
            Self::TooLong => "FieldValueTooLong",
            Self::TooMany => "FieldValueTooMany",
            Self::Internal => "InternalError",
        }
    }

    fn prints_value(self) -> bool {
        !matches!(
            self,
            Self::Required | Self::Forbidden | Self::TooLong | Self::Internal
        )
    }
}

impl FieldError {
    pub fn new(
        kind: FieldErrorKind,
        field: impl Into<String>,
        value: Option<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            field: field.into(),
            value,
            detail: detail.into(),
        }
    }
    pub fn invalid(field: impl Into<String>, value: String, detail: impl Into<String>) -> Self {
        Self::new(FieldErrorKind::Invalid, field, Some(value), detail)
    }
    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(FieldErrorKind::Required, field, None, detail)
    }
    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(FieldErrorKind::Forbidden, field, None, detail)
    }
    pub fn unsupported(field: impl Into<String>, value: String, valid: &[&str]) -> Self {
        let list: Vec<String> = valid.iter().map(|v| format!("{v:?}")).collect();
        let detail = if list.is_empty() {
            String::new()
        } else {
            format!("supported values: {}", list.join(", "))
        };
        Self::new(FieldErrorKind::Unsupported, field, Some(value), detail)
    }

    /// `ErrorBody()`: everything after the field path.
    pub fn body(&self) -> String {
        let mut s = self.kind.text().to_string();
        if self.kind.prints_value() {
            if let Some(v) = &self.value {
                s.push_str(": ");
                s.push_str(v);
            }
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// Go's `%q` for a string: double-quoted with Go escapes.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An API failure, rendered as a `Status` object with an HTTP code.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub code: u16,
    pub reason: String,
    pub message: String,
    pub details: Option<Value>,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.reason, self.message)
    }
}

impl std::error::Error for ApiError {}

pub type ApiResult<T> = Result<T, ApiError>;

fn details(name: &str, res: &dyn ResourceNames) -> Value {
    let mut d = Map::new();
    d.insert("name".into(), json!(name));
    if !res.group().is_empty() {
        d.insert("group".into(), json!(res.group()));
    }
    d.insert("kind".into(), json!(res.plural()));
    Value::Object(d)
}

impl ApiError {
    pub fn new(code: u16, reason: &str, message: impl Into<String>) -> Self {
        Self {
            code,
            reason: reason.to_string(),
            message: message.into(),
            details: None,
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// `apierrors.HasStatusCause`: does a cause of the details have this reason?
    pub fn has_cause(&self, reason: &str) -> bool {
        self.details
            .as_ref()
            .and_then(|d| d["causes"].as_array())
            .is_some_and(|causes| causes.iter().any(|c| c["reason"] == reason))
    }

    pub fn not_found(res: &dyn ResourceNames, name: &str) -> Self {
        Self::new(
            404,
            "NotFound",
            format!("{} {} not found", res.group_resource(), go_quote(name)),
        )
        .with_details(details(name, res))
    }

    /// 404 for a path no resource serves.
    pub fn unknown_path() -> Self {
        Self::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
        .with_details(json!({}))
    }

    pub fn already_exists(res: &dyn ResourceNames, name: &str) -> Self {
        Self::new(
            409,
            "AlreadyExists",
            format!("{} {} already exists", res.group_resource(), go_quote(name)),
        )
        .with_details(details(name, res))
    }

    pub fn conflict(res: &dyn ResourceNames, name: &str, why: &str) -> Self {
        Self::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} {}: {}",
                res.group_resource(),
                go_quote(name),
                why
            ),
        )
        .with_details(details(name, res))
    }

    /// `NewConflict` on a resource no served resource names (`pods/binding`).
    pub fn conflict_on(resource: &str, name: &str, why: &str) -> Self {
        Self::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {resource} {}: {why}",
                go_quote(name)
            ),
        )
        .with_details(json!({"name": name, "kind": resource}))
    }

    /// The optimistic-concurrency conflict (`registry.OptimisticLockErrorMsg`).
    pub fn stale(res: &dyn ResourceNames, name: &str) -> Self {
        Self::conflict(
            res,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// 422 Invalid with aggregated field errors. `kind` is the Kind (details.kind), `group_kind` the
    /// message prefix (`DaemonSet.apps`).
    pub fn invalid(res: &dyn ResourceNames, name: &str, errs: &[FieldError]) -> Self {
        Self::invalid_kind(&res.group_kind(), res.kind(), res.group(), name, errs)
    }

    pub fn invalid_kind(
        group_kind: &str,
        kind: &str,
        group: &str,
        name: &str,
        errs: &[FieldError],
    ) -> Self {
        let agg = aggregate(errs.iter().map(|e| e.to_string()).collect());
        let message = if group_kind.is_empty() && name.is_empty() {
            agg.clone()
        } else {
            format!("{} {} is invalid: {}", group_kind, go_quote(name), agg)
        };
        let causes: Vec<Value> = errs
            .iter()
            .map(|e| json!({"reason": e.kind.cause(), "message": e.body(), "field": e.field}))
            .collect();
        let mut d = Map::new();
        if !name.is_empty() {
            d.insert("name".into(), json!(name));
        }
        if !group.is_empty() {
            d.insert("group".into(), json!(group));
        }
        if !kind.is_empty() {
            d.insert("kind".into(), json!(kind));
        }
        d.insert("causes".into(), Value::Array(causes));
        Self::new(422, "Invalid", message).with_details(Value::Object(d))
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    pub fn forbidden(res: &dyn ResourceNames, name: &str, why: &str) -> Self {
        Self::new(
            403,
            "Forbidden",
            format!(
                "{} {} is forbidden: {}",
                res.group_resource(),
                go_quote(name),
                why
            ),
        )
        .with_details(details(name, res))
    }

    pub fn method_not_supported(res: &dyn ResourceNames, verb: &str) -> Self {
        Self::new(
            405,
            "MethodNotAllowed",
            format!(
                "{verb} is not supported on resources of kind {:?}",
                res.group_resource()
            ),
        )
        .with_details(json!({"kind": res.plural(), "group": res.group()}))
    }

    pub fn unsupported_media_type(content_type: &str) -> Self {
        Self::new(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
        )
        .with_details(json!({"causes": [{"reason": "UnexpectedServerResponse", "message": content_type}]}))
    }

    pub fn not_acceptable(accept: &str) -> Self {
        Self::new(
            406,
            "NotAcceptable",
            format!("the server was unable to respond with a content type that the client supports ({accept})"),
        )
    }

    pub fn too_many_requests(message: impl Into<String>) -> Self {
        Self::new(429, "TooManyRequests", message)
    }

    pub fn request_entity_too_large(message: impl Into<String>) -> Self {
        Self::new(413, "RequestEntityTooLarge", message)
    }

    /// 410 Gone for a watch or list resuming from a compacted resourceVersion.
    pub fn gone(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(
            500,
            "InternalError",
            format!("Internal error occurred: {}", message.into()),
        )
    }

    pub fn unauthorized() -> Self {
        Self::new(401, "Unauthorized", "Unauthorized")
    }

    /// The `Status` object body.
    pub fn to_status(&self) -> Value {
        let mut s = Map::new();
        s.insert("kind".into(), json!("Status"));
        s.insert("apiVersion".into(), json!("v1"));
        s.insert("metadata".into(), json!({}));
        s.insert("status".into(), json!("Failure"));
        s.insert("message".into(), json!(self.message));
        // Go omits an empty reason (`json:"reason,omitempty"`).
        if !self.reason.is_empty() {
            s.insert("reason".into(), json!(self.reason));
        }
        if let Some(d) = &self.details {
            s.insert("details".into(), d.clone());
        }
        s.insert("code".into(), json!(self.code));
        Value::Object(s)
    }
}

/// `utilerrors.NewAggregate(...).Error()`: one message alone, several as `[a, b]`, duplicates dropped.
pub fn aggregate(mut msgs: Vec<String>) -> String {
    let mut seen = std::collections::HashSet::new();
    msgs.retain(|m| seen.insert(m.clone()));
    match msgs.len() {
        0 => String::new(),
        1 => msgs.remove(0),
        _ => format!("[{}]", msgs.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_error_renders_like_apimachinery() {
        let e = FieldError::invalid(
            "spec.template.metadata.labels",
            "map[string]string{\"app\":\"y\"}".into(),
            "`selector` does not match template `labels`",
        );
        assert_eq!(
            e.to_string(),
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"y\"}: `selector` does not match template `labels`"
        );
        let r = FieldError::required("spec.selector", "");
        assert_eq!(r.to_string(), "spec.selector: Required value");
    }

    #[test]
    fn aggregate_brackets_several() {
        assert_eq!(aggregate(vec!["a".into()]), "a");
        assert_eq!(
            aggregate(vec!["a".into(), "b".into(), "a".into()]),
            "[a, b]"
        );
    }
}
