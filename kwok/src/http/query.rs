//! Query parameters of API requests.

use std::collections::HashMap;

use crate::api::{DeleteOptions, FieldValidation, ListOptions, Propagation, WriteOptions};
use crate::error::{ApiError, ApiResult, FieldError};
use crate::fieldmanager;
use crate::options::query_flag;
use crate::patch::PatchType;

pub struct Query(HashMap<String, String>);

impl Query {
    pub fn parse(raw: Option<&str>) -> Self {
        let mut map = HashMap::new();
        if let Some(q) = raw {
            for (k, v) in form_urlencoded::parse(q.as_bytes()) {
                map.entry(k.into_owned()).or_insert(v.into_owned());
            }
        }
        Self(map)
    }

    pub fn get(&self, k: &str) -> Option<&str> {
        self.0.get(k).map(String::as_str)
    }

    /// A boolean parameter ([`crate::options::query_flag`]).
    pub fn flag(&self, k: &str) -> bool {
        crate::options::query_flag(self.get(k))
    }

    pub fn list_options(&self) -> ApiResult<ListOptions> {
        let limit = match self.get("limit") {
            None | Some("") => None,
            Some(l) => Some(l.parse::<i64>().map_err(|_| {
                ApiError::bad_request(format!(
                    "limit: Invalid value: {l:?}: must be a valid integer"
                ))
            })?),
        };
        Ok(ListOptions {
            label_selector: self.get("labelSelector").map(String::from),
            field_selector: self.get("fieldSelector").map(String::from),
            limit: limit.filter(|l| *l > 0).map(|l| l as usize),
            continue_token: self.get("continue").map(String::from),
            resource_version: self.get("resourceVersion").map(String::from),
            allow_bookmarks: self.flag("allowWatchBookmarks"),
            timeout_seconds: self.get("timeoutSeconds").and_then(|t| t.parse().ok()),
        })
    }

    /// Options of a write; `options_kind` (`CreateOptions`, `UpdateOptions`, `PatchOptions`)
    /// names the object in validation errors, as the apiserver does; `patch` is a patch's type.
    pub fn write_options(
        &self,
        options_kind: &str,
        patch: Option<PatchType>,
    ) -> ApiResult<WriteOptions> {
        let field_manager = self.get("fieldManager").unwrap_or_default();
        let force = self.get("force").map(|f| query_flag(Some(f)));
        // `ValidatePatchOptions` and `ValidateFieldManager`.
        let mut errs = Vec::new();
        match patch {
            Some(PatchType::Apply) if field_manager.is_empty() => errs.push(FieldError::required(
                "fieldManager",
                "is required for apply patch",
            )),
            Some(t) if t != PatchType::Apply && force.is_some() => errs.push(
                FieldError::forbidden("force", "may not be specified for non-apply patch"),
            ),
            _ => {}
        }
        errs.extend(fieldmanager::manager_errors(field_manager, "fieldManager"));
        if !errs.is_empty() {
            return Err(ApiError::invalid_kind(
                &format!("{options_kind}.meta.k8s.io"),
                options_kind,
                "meta.k8s.io",
                "",
                &errs,
            ));
        }
        Ok(WriteOptions {
            dry_run: self.dry_run()?,
            field_validation: FieldValidation::parse(self.get("fieldValidation"), options_kind)?,
            field_manager: Some(field_manager.to_owned()).filter(|m| !m.is_empty()),
            force,
            ..WriteOptions::default()
        })
    }

    fn dry_run(&self) -> ApiResult<bool> {
        match self.get("dryRun") {
            None | Some("") => Ok(false),
            Some("All") => Ok(true),
            Some(other) => Err(ApiError::bad_request(format!(
                "dryRun: Unsupported value: {other:?}: supported values: \"All\""
            ))),
        }
    }

    /// Delete options from a DeleteOptions body when one is sent, else from the query:
    /// `handlers/delete.go` reads one or the other, never both.
    pub fn delete_options(&self, body: &[u8]) -> ApiResult<DeleteOptions> {
        if !body.iter().all(u8::is_ascii_whitespace) {
            return delete_options_from_body(body);
        }
        let mut opts = DeleteOptions {
            grace_period_seconds: self.get("gracePeriodSeconds").and_then(|g| g.parse().ok()),
            propagation: None,
            precondition_uid: None,
            precondition_rv: None,
            dry_run: self.dry_run()?,
            policy_given: self.get("propagationPolicy").is_some()
                || self.get("orphanDependents").is_some(),
        };
        if let Some(p) = self.get("propagationPolicy") {
            opts.propagation = Some(parse_propagation(p)?);
        }
        if self.get("orphanDependents") == Some("true") {
            opts.propagation = Some(Propagation::Orphan);
        }
        Ok(opts)
    }
}

/// The options a DeleteOptions body carries (JSON, YAML or protobuf, validated).
fn delete_options_from_body(body: &[u8]) -> ApiResult<DeleteOptions> {
    let mut opts = DeleteOptions::default();
    let v = crate::decode::decode_delete_options(body)?;
    let errs = crate::validation::validate_delete_options(&v);
    if !errs.is_empty() {
        return Err(ApiError::invalid_kind(
            "DeleteOptions.meta.k8s.io",
            "DeleteOptions",
            "meta.k8s.io",
            "",
            &errs,
        ));
    }
    if let Some(g) = v.get("gracePeriodSeconds").and_then(|g| g.as_i64()) {
        opts.grace_period_seconds = Some(g);
    }
    opts.policy_given = !v["propagationPolicy"].is_null() || !v["orphanDependents"].is_null();
    if let Some(p) = v.get("propagationPolicy").and_then(|p| p.as_str()) {
        opts.propagation = Some(parse_propagation(p)?);
    }
    if v.get("orphanDependents").and_then(|o| o.as_bool()) == Some(true) {
        opts.propagation = Some(Propagation::Orphan);
    }
    if let Some(pre) = v.get("preconditions") {
        opts.precondition_uid = pre.get("uid").and_then(|u| u.as_str()).map(String::from);
        opts.precondition_rv = pre
            .get("resourceVersion")
            .and_then(|u| u.as_str())
            .map(String::from);
    }
    if v.get("dryRun")
        .and_then(|d| d.as_array())
        .is_some_and(|d| !d.is_empty())
    {
        opts.dry_run = true;
    }

    Ok(opts)
}

fn parse_propagation(p: &str) -> ApiResult<Propagation> {
    match p {
        "Orphan" => Ok(Propagation::Orphan),
        "Background" => Ok(Propagation::Background),
        "Foreground" => Ok(Propagation::Foreground),
        other => Err(ApiError::invalid_kind(
            "",
            "",
            "",
            "",
            &[crate::error::FieldError::unsupported(
                "propagationPolicy",
                format!("{other:?}"),
                &["Foreground", "Background", "Orphan", "nil"],
            )],
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::Query;

    #[test]
    fn boolean_parameters_read_as_the_go_conversion_does() {
        for (raw, expected) in [
            ("watch=true", true),
            ("watch=True", true),
            ("watch=1", true),
            ("watch=yes", true),
            ("watch=", true),
            ("watch=0", false),
            ("watch=false", false),
            ("watch=FALSE", false),
            ("other=true", false),
        ] {
            assert_eq!(Query::parse(Some(raw)).flag("watch"), expected, "{raw}");
        }
    }

    /// Either field, with either value, in the query or the body, is a choice made.
    #[test]
    fn a_delete_says_whether_its_caller_chose_what_happens_to_dependents() {
        let given = |query: &str, body: &str| {
            Query::parse(Some(query))
                .delete_options(body.as_bytes())
                .expect("options")
                .policy_given
        };
        assert!(!given("", ""));
        assert!(!given(
            "gracePeriodSeconds=0",
            r#"{"gracePeriodSeconds": 0}"#
        ));
        assert!(given("propagationPolicy=Background", ""));
        assert!(given("orphanDependents=false", ""));
        assert!(given("", r#"{"propagationPolicy": "Orphan"}"#));
        assert!(given("", r#"{"orphanDependents": false}"#));
        assert!(!given(
            "propagationPolicy=Background",
            r#"{"gracePeriodSeconds": 1}"#
        ));
    }
}
