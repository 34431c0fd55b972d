//! `field.Path` and the `field.Error` constructors (apimachinery util/validation/field).

use crate::error::{go_quote, FieldError, FieldErrorKind};

/// A field path: `spec.containers[0].name`, `data[key]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Path(String);

impl Path {
    pub fn new(root: &str) -> Path {
        Path(root.to_string())
    }

    /// `NewPath(a, b, ...)`.
    pub fn of(parts: &[&str]) -> Path {
        Path(parts.join("."))
    }

    pub fn child(&self, name: &str) -> Path {
        if self.0.is_empty() {
            Path(name.to_string())
        } else {
            Path(format!("{}.{name}", self.0))
        }
    }

    pub fn index(&self, i: usize) -> Path {
        Path(format!("{}[{i}]", self.0))
    }

    pub fn key(&self, k: &str) -> Path {
        Path(format!("{}[{k}]", self.0))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

pub fn invalid(p: &Path, value: impl Into<String>, detail: impl Into<String>) -> FieldError {
    FieldError::invalid(p.as_str(), value.into(), detail)
}

pub fn required(p: &Path, detail: impl Into<String>) -> FieldError {
    FieldError::required(p.as_str(), detail)
}

pub fn forbidden(p: &Path, detail: impl Into<String>) -> FieldError {
    FieldError::forbidden(p.as_str(), detail)
}

pub fn not_supported(p: &Path, value: impl Into<String>, valid: &[&str]) -> FieldError {
    FieldError::unsupported(p.as_str(), value.into(), valid)
}

pub fn duplicate(p: &Path, value: impl Into<String>) -> FieldError {
    FieldError::new(
        FieldErrorKind::Duplicate,
        p.as_str(),
        Some(value.into()),
        "",
    )
}

pub fn not_found(p: &Path, value: impl Into<String>) -> FieldError {
    FieldError::new(FieldErrorKind::NotFound, p.as_str(), Some(value.into()), "")
}

/// `TooLong(path, _, max)`: `may not be more than N bytes`.
pub fn too_long(p: &Path, max: usize) -> FieldError {
    let unit = if max == 1 { "byte" } else { "bytes" };
    FieldError::new(
        FieldErrorKind::TooLong,
        p.as_str(),
        None,
        format!("may not be more than {max} {unit}"),
    )
}

/// `TooMany(path, actual, max)`: `must have at most N items`.
pub fn too_many(p: &Path, actual: usize, max: usize) -> FieldError {
    FieldError::new(
        FieldErrorKind::TooMany,
        p.as_str(),
        Some(actual.to_string()),
        format!("must have at most {max} items"),
    )
}

/// `ValidateNonnegativeField`.
pub fn nonnegative(value: Option<i64>, p: &Path) -> Vec<FieldError> {
    match value {
        Some(v) if v < 0 => vec![invalid(
            p,
            v.to_string(),
            "must be greater than or equal to 0",
        )],
        _ => Vec::new(),
    }
}

/// `InclusiveRangeError`.
pub fn inclusive_range(lo: i64, hi: i64) -> String {
    format!("must be between {lo} and {hi}, inclusive")
}

/// `validatePathNoBacksteps`: no `..` element in a path.
pub fn no_backsteps(path: &str, p: &Path) -> Option<FieldError> {
    path.split('/')
        .any(|part| part == "..")
        .then(|| invalid(p, go_quote(path), "must not contain '..'"))
}

/// `validateLocalDescendingPath`: a relative path without `..`.
pub fn local_descending_path(path: &str, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if path.starts_with('/') {
        errs.push(invalid(p, go_quote(path), "must be a relative path"));
    }
    errs.extend(no_backsteps(path, p));
    errs
}

/// `apimachineryvalidation.FieldImmutableErrorMsg`.
pub const IMMUTABLE: &str = "field is immutable";
