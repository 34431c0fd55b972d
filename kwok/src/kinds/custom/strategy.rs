//! The strategy every custom resource shares (apiextensions-apiserver
//! `pkg/registry/customresource/strategy.go`, `status_strategy.go`), each holding its version's
//! schema and printer columns.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::columns::{self, CellPath};
use super::schema;
use crate::decode::json::Val;
use crate::decode::walker::Outcome;
use crate::decode::{Decoding, GoType};
use crate::error::{go_quote, FieldError};
use crate::meta::{first_generation, next_generation_if};
use crate::names;
use crate::printers::Column;
use crate::resource::Strategy;
use crate::validation::meta::{object_meta, object_meta_update};

#[derive(Debug)]
pub(crate) struct CustomResource {
    pub namespaced: bool,
    /// The version's `openAPIV3Schema`.
    pub schema: Value,
    pub status_subresource: bool,
    pub columns: &'static [Column],
    pub paths: Vec<CellPath>,
    /// The version's deprecation warning, when it is deprecated.
    pub deprecation: Option<String>,
    /// The definition's group and storage version.
    pub storage_version: Option<(&'static str, &'static str)>,
    /// The version's `subresources.scale`, when it has one.
    pub scale: Option<crate::resource::ScalePaths>,
}

/// Everything but `metadata` (`copyNonMetadata`): what moves the generation.
fn non_metadata(obj: &Value) -> Map<String, Value> {
    obj.as_object()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| k.as_str() != "metadata")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

impl GoType for CustomResource {
    /// An unstructured decode: duplicate keys, then the fields the schema prunes, are the
    /// strict problems.
    fn decode_into(
        &self,
        val: &Val,
        how: Decoding,
        _root: (&str, &str),
    ) -> Result<Outcome, String> {
        let check_strict = how.strict;
        let mut strict = Vec::new();
        if check_strict {
            schema::duplicates(val, "", &mut strict);
        }
        let mut object = val.to_json();
        let unknown = schema::prune_object(&mut object, &self.schema);
        if check_strict {
            strict.extend(
                unknown
                    .iter()
                    .map(|p| format!("unknown field {}", go_quote(p))),
            );
        }
        Ok(Outcome { object, strict })
    }
}

impl Strategy for CustomResource {
    /// `customResourceStrategy.GetResetFields`: the status, when it is a subresource;
    /// `statusStrategy.GetResetFields`: the spec.
    fn reset_fields(&self, subresource: &str) -> &'static [&'static str] {
        match subresource {
            "" if self.status_subresource => &["status"],
            "status" => &["spec"],
            _ => &[],
        }
    }

    fn structural_schema(&self) -> Option<&Value> {
        Some(&self.schema)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        let mut value = Value::Object(std::mem::take(obj));
        schema::default(&mut value, &self.schema);
        if let Value::Object(m) = value {
            *obj = m;
        }
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        if self.status_subresource {
            if let Some(m) = obj.as_object_mut() {
                m.remove("status");
            }
        }
        first_generation(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = object_meta(obj, self.namespaced, names::name_is_dns_subdomain, false);
        errs.extend(schema::validate(obj, &self.schema));
        errs
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        if self.status_subresource {
            if let Some(m) = new.as_object_mut() {
                match old.get("status") {
                    Some(s) => m.insert("status".into(), s.clone()),
                    None => m.remove("status"),
                };
            }
        }
        let changed = non_metadata(new) != non_metadata(old);
        next_generation_if(new, old, changed);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        let mut errs = object_meta_update(new, old, false);
        errs.extend(schema::validate(new, &self.schema));
        errs
    }

    /// A status write changes the status alone: everything else is the stored object's.
    fn prepare_for_status_update(&self, new: &mut Value, old: &Value) {
        let status = new.get("status").cloned();
        let managed = new["metadata"].get("managedFields").cloned();
        *new = old.clone();
        if let Some(m) = new.as_object_mut() {
            match status {
                Some(s) => m.insert("status".into(), s),
                None => m.remove("status"),
            };
        }
        if let Some(managed) = managed {
            new["metadata"]["managedFields"] = managed;
        }
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        let mut errs = object_meta_update(new, old, false);
        let mut only_status = Map::new();
        if let Some(s) = new.get("status") {
            only_status.insert("status".into(), s.clone());
        }
        let status_schema = serde_json::json!({"type": "object", "properties": {
            "status": self.schema["properties"].get("status").cloned().unwrap_or(Value::Null)}});
        errs.extend(schema::validate(
            &Value::Object(only_status),
            &status_schema,
        ));
        errs
    }

    fn deprecation_warning(&self) -> Option<&str> {
        self.deprecation.as_deref()
    }

    fn storage_version(&self) -> Option<(&str, &str)> {
        self.storage_version
    }

    fn scale_paths(&self) -> Option<&crate::resource::ScalePaths> {
        self.scale.as_ref()
    }

    fn allow_unconditional_update(&self) -> bool {
        false
    }

    fn columns(&self) -> &'static [Column] {
        self.columns
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        columns::cells(&self.paths, obj, now)
    }

    fn custom(&self) -> bool {
        true
    }
}
