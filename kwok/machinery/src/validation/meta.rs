//! `metadata` on create and update (apimachinery pkg/api/validation/objectmeta.go, plus the core
//! wrappers in k8s.io/kubernetes pkg/apis/core/validation that add the finalizer-name check).

use serde_json::Value;

use super::labels::{annotations, labels};
use super::path::{forbidden, invalid, nonnegative, required, too_long, Path, IMMUTABLE};
use super::read::s;
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;

/// How names of a kind are checked (`ValidateNameFunc`); the flag is "is a generateName prefix".
pub type NameFn = fn(&str, bool) -> Vec<String>;

/// Finalizers every kind may carry without a domain prefix (`helper.IsStandardFinalizerName`).
const STANDARD_FINALIZERS: &[&str] = &["kubernetes", "orphan", "foregroundDeletion"];

fn meta(obj: &Value) -> &Value {
    obj.get("metadata").unwrap_or(&Value::Null)
}

/// `ValidateObjectMeta` (core variant when `kube_finalizers`).
pub fn object_meta(
    obj: &Value,
    namespaced: bool,
    name_fn: NameFn,
    kube_finalizers: bool,
) -> Vec<FieldError> {
    let m = meta(obj);
    let p = Path::new("metadata");
    let mut errs = Vec::new();
    let generate_name = s(m, "generateName");
    if !generate_name.is_empty() {
        for msg in name_fn(generate_name, true) {
            errs.push(invalid(
                &p.child("generateName"),
                go_quote(generate_name),
                msg,
            ));
        }
    }
    let name = s(m, "name");
    if name.is_empty() {
        errs.push(required(
            &p.child("name"),
            "name or generateName is required",
        ));
    } else {
        for msg in name_fn(name, false) {
            errs.push(invalid(&p.child("name"), go_quote(name), msg));
        }
    }
    let ns = s(m, "namespace");
    if namespaced {
        if ns.is_empty() {
            errs.push(required(&p.child("namespace"), ""));
        } else {
            for msg in names::name_is_dns_label(ns, false) {
                errs.push(invalid(&p.child("namespace"), go_quote(ns), msg));
            }
        }
    } else if !ns.is_empty() {
        errs.push(forbidden(&p.child("namespace"), "not allowed on this type"));
    }
    errs.extend(nonnegative(
        m.get("generation").and_then(Value::as_i64),
        &p.child("generation"),
    ));
    errs.extend(common(m, &p));
    errs.extend(finalizers(m, &p));
    if kube_finalizers {
        errs.extend(kube_finalizer_names(m, &p));
    }
    errs
}

/// Checks shared by create and update: labels, annotations, owner references, managed fields.
fn common(m: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = labels(m.get("labels"), &p.child("labels"));
    errs.extend(annotations(m.get("annotations"), &p.child("annotations")));
    errs.extend(owner_references(m, &p.child("ownerReferences")));
    errs.extend(managed_fields(m, &p.child("managedFields")));
    errs
}

/// `ValidateOwnerReferences` (errors on the list path, no index, as upstream).
fn owner_references(m: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let refs = m
        .get("ownerReferences")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut first_controller = String::new();
    for r in &refs {
        let api_version = s(r, "apiVersion");
        let version = api_version.rsplit('/').next().unwrap_or("");
        if version.is_empty() {
            errs.push(invalid(
                &p.child("apiVersion"),
                go_quote(api_version),
                "version must not be empty",
            ));
        }
        for (key, label) in [("kind", "kind"), ("name", "name"), ("uid", "uid")] {
            let v = s(r, key);
            if v.is_empty() {
                errs.push(invalid(&p.child(label), go_quote(v), "must not be empty"));
            }
        }
        if r.get("controller").and_then(Value::as_bool) == Some(true) {
            let current = format!("{}/{}", s(r, "kind"), s(r, "name"));
            if first_controller.is_empty() {
                first_controller = current;
            } else {
                errs.push(invalid(
                    p,
                    go_syntax::scalar(&Value::Array(refs.clone())),
                    format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {first_controller} and {current}"
                    ),
                ));
            }
        }
    }
    errs
}

/// `ValidateManagedFields`.
fn managed_fields(m: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let entries = m
        .get("managedFields")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, e) in entries.iter().enumerate() {
        let ep = p.index(i);
        let op = s(e, "operation");
        if op != "Apply" && op != "Update" {
            errs.push(invalid(
                &ep.child("operation"),
                go_quote(op),
                "must be `Apply` or `Update`",
            ));
        }
        let ft = s(e, "fieldsType");
        if !ft.is_empty() && ft != "FieldsV1" {
            errs.push(invalid(
                &ep.child("fieldsType"),
                go_quote(ft),
                "must be `FieldsV1`",
            ));
        }
        errs.extend(crate::fieldmanager::manager_errors(
            s(e, "manager"),
            ep.child("manager").as_str(),
        ));
        let sub = s(e, "subresource");
        if sub.len() > MAX_SUBRESOURCE_NAME_LENGTH {
            errs.push(too_long(
                &ep.child("subresource"),
                MAX_SUBRESOURCE_NAME_LENGTH,
            ));
        }
    }
    errs
}

/// `MaxSubresourceNameLength`.
const MAX_SUBRESOURCE_NAME_LENGTH: usize = 256;

fn finalizer_list(m: &Value) -> Vec<String> {
    m.get("finalizers")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// `ValidateFinalizers`: qualified names, not both orphan and foregroundDeletion.
fn finalizers(m: &Value, p: &Path) -> Vec<FieldError> {
    let p = p.child("finalizers");
    let list = finalizer_list(m);
    let mut errs = Vec::new();
    for f in &list {
        for msg in names::qualified_name(f) {
            errs.push(invalid(&p, go_quote(f), msg));
        }
    }
    if list.iter().any(|f| f == "orphan") && list.iter().any(|f| f == "foregroundDeletion") {
        errs.push(invalid(
            &p,
            go_syntax::string_slice(m.get("finalizers")),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
    errs
}

/// `validateKubeFinalizerName`: a finalizer without a `/` must be a standard one.
fn kube_finalizer_names(m: &Value, p: &Path) -> Vec<FieldError> {
    finalizer_list(m)
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.contains('/') && !STANDARD_FINALIZERS.contains(&f.as_str()))
        .map(|(i, f)| {
            invalid(
                &p.child("finalizers").index(i),
                go_quote(f),
                "name is neither a standard finalizer name nor is it fully qualified",
            )
        })
        .collect()
}

/// `ValidateObjectMetaUpdate` (core variant when `kube_finalizers`). The resourceVersion
/// requirement is left to the update handler, which fills it in for unconditional updates.
pub fn object_meta_update(new: &Value, old: &Value, kube_finalizers: bool) -> Vec<FieldError> {
    let (nm, om) = (meta(new), meta(old));
    let p = Path::new("metadata");
    let mut errs = Vec::new();
    if om.get("deletionTimestamp").is_some_and(|v| !v.is_null()) {
        let old_f = finalizer_list(om);
        let added: Vec<String> = finalizer_list(nm)
            .into_iter()
            .filter(|f| !old_f.contains(f))
            .collect();
        if !added.is_empty() {
            errs.push(forbidden(
                &p.child("finalizers"),
                format!("no new finalizers can be added if the object is being deleted, found new finalizers {}", go_syntax::string_slice(Some(&Value::from(added)))),
            ));
        }
    }
    let new_gen = nm.get("generation").and_then(Value::as_i64).unwrap_or(0);
    let old_gen = om.get("generation").and_then(Value::as_i64).unwrap_or(0);
    if new_gen < old_gen {
        errs.push(invalid(
            &p.child("generation"),
            new_gen.to_string(),
            "must not be decremented",
        ));
    }
    for key in ["name", "namespace", "uid"] {
        let (n, o) = (s(nm, key), s(om, key));
        if n != o {
            errs.push(invalid(&p.child(key), go_quote(n), IMMUTABLE));
        }
    }
    for key in ["creationTimestamp", "deletionTimestamp"] {
        let (n, o) = (
            nm.get(key).filter(|v| !v.is_null()),
            om.get(key).filter(|v| !v.is_null()),
        );
        if n != o {
            errs.push(invalid(&p.child(key), go_time(n), IMMUTABLE));
        }
    }
    let (n, o) = (
        nm.get("deletionGracePeriodSeconds"),
        om.get("deletionGracePeriodSeconds"),
    );
    if n.filter(|v| !v.is_null()) != o.filter(|v| !v.is_null()) {
        let shown = n
            .and_then(Value::as_i64)
            .map_or(go_syntax::NULL.to_string(), |v| v.to_string());
        errs.push(invalid(
            &p.child("deletionGracePeriodSeconds"),
            shown,
            IMMUTABLE,
        ));
    }
    errs.extend(common(nm, &p));
    if kube_finalizers {
        errs.extend(kube_finalizer_names(nm, &p));
    }
    errs
}

/// A `metav1.Time` as `%v` prints it (`time.Time.String()`, UTC), or `null`.
fn go_time(v: Option<&Value>) -> String {
    let Some(s) = v.and_then(Value::as_str) else {
        return go_syntax::NULL.into();
    };
    chrono::DateTime::parse_from_rfc3339(s)
        .map(|t| {
            t.with_timezone(&chrono::Utc)
                .format("%Y-%m-%d %H:%M:%S +0000 UTC")
                .to_string()
        })
        .unwrap_or_else(|_| go_quote(s))
}

/// Generic checks every object gets after its kind's own validation passed
/// (`rest.BeforeCreate` → `ValidateObjectMetaAccessor` with `path.ValidatePathSegmentName`).
pub fn generic(obj: &Value, namespaced: bool) -> Vec<FieldError> {
    object_meta(obj, namespaced, path_segment, false)
}

fn path_segment(name: &str, prefix: bool) -> Vec<String> {
    if prefix {
        // IsValidPathSegmentPrefix: only the "contains" checks.
        return ["/", "%"]
            .iter()
            .filter(|c| name.contains(**c))
            .map(|c| format!("may not contain '{c}'"))
            .collect();
    }
    names::path_segment_name(name)
}
