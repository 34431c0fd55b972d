//! Field selectors (`?fieldSelector=`), as `k8s.io/apimachinery/pkg/fields/selector.go` parses them:
//! comma-separated `field=value`, `field==value` or `field!=value` terms, with `\`, `,` and `=`
//! escaped by a backslash in values.

use serde_json::Value;

use super::field_labels::{convert_field_label, field_value};
use crate::error::ApiError;
use crate::resource_names::ResourceNames;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldOp {
    /// `=` or `==` (`hasTerm`).
    Equals,
    /// `!=` (`notHasTerm`).
    NotEquals,
}

/// One term, with the field label as the client spelled it and the value unescaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldTerm {
    pub field: String,
    pub op: FieldOp,
    pub value: String,
}

/// A parsed field selector: the AND of its terms (none selects everything).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector {
    terms: Vec<FieldTerm>,
}

/// `splitTerms`: split at commas not escaped by a backslash (the backslash stays in the term).
fn split_terms(selector: &str) -> Vec<&str> {
    if selector.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let mut start = 0;
    let mut in_slash = false;
    for (i, c) in selector.char_indices() {
        if in_slash {
            in_slash = false;
        } else if c == '\\' {
            in_slash = true;
        } else if c == ',' {
            terms.push(&selector[start..i]);
            start = i + 1;
        }
    }
    terms.push(&selector[start..]);
    terms
}

/// `splitTerm`: the first operator wins, `!=` and `==` checked before `=` at each position.
fn split_term(term: &str) -> Option<(&str, FieldOp, &str)> {
    for (i, _) in term.char_indices() {
        let rest = &term[i..];
        for (op, kind) in [
            ("!=", FieldOp::NotEquals),
            ("==", FieldOp::Equals),
            ("=", FieldOp::Equals),
        ] {
            if let Some(value) = rest.strip_prefix(op) {
                return Some((&term[..i], kind, value));
            }
        }
    }
    None
}

/// `UnescapeValue`, with the `InvalidEscapeSequence` / `UnescapedRune` error texts (the rune is
/// printed with Go's `%v`, i.e. as its code point number).
fn unescape_value(s: &str) -> Result<String, String> {
    if !s.contains(['\\', ',', '=']) {
        return Ok(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut in_slash = false;
    for c in s.chars() {
        if in_slash {
            match c {
                '\\' | ',' | '=' => out.push(c),
                _ => {
                    return Err(format!(
                        "invalid field selector: invalid escape sequence: \\{c}"
                    ))
                }
            }
            in_slash = false;
            continue;
        }
        match c {
            '\\' => in_slash = true,
            ',' | '=' => {
                return Err(format!(
                    "invalid field selector: unescaped character in value: {}",
                    c as u32
                ))
            }
            _ => out.push(c),
        }
    }
    if in_slash {
        return Err("invalid field selector: invalid escape sequence: \\".to_string());
    }
    Ok(out)
}

/// `EscapeValue`.
fn escape_value(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace(',', "\\,")
        .replace('=', "\\=")
}

impl FieldSelector {
    /// `fields.ParseSelector`. Terms come out sorted by their raw text, as upstream sorts them before
    /// parsing (which decides which unsupported label an error names first).
    pub fn parse(s: &str) -> Result<FieldSelector, String> {
        let mut parts = split_terms(s);
        parts.sort_unstable();
        let mut terms = Vec::new();
        for part in parts {
            if part.is_empty() {
                continue;
            }
            let Some((field, op, raw)) = split_term(part) else {
                return Err(format!(
                    "invalid selector: '{s}'; can't understand '{part}'"
                ));
            };
            terms.push(FieldTerm {
                field: field.to_string(),
                op,
                value: unescape_value(raw)?,
            });
        }
        Ok(FieldSelector { terms })
    }

    pub fn terms(&self) -> &[FieldTerm] {
        &self.terms
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The `Transform` step of the list/watch handler (`Scheme.ConvertFieldLabel` on every term): a
    /// label the kind does not support is a 400 with the conversion's own message.
    // `ApiError` is the crate-wide error type; its size is the error module's concern.
    #[allow(clippy::result_large_err)]
    pub fn validate(&self, res: &dyn ResourceNames) -> Result<(), ApiError> {
        for term in &self.terms {
            convert_field_label(res, &term.field).map_err(ApiError::bad_request)?;
        }
        Ok(())
    }

    /// Does `obj` satisfy every term? A label the kind does not select on reads as "" (as
    /// `fields.Set.Get` does), so call [`validate`](Self::validate) first to reject it instead.
    pub fn matches(&self, res: &dyn ResourceNames, obj: &Value) -> bool {
        self.terms.iter().all(|t| {
            let actual = field_value(res, obj, &t.field).unwrap_or_default();
            match t.op {
                FieldOp::Equals => actual == t.value,
                FieldOp::NotEquals => actual != t.value,
            }
        })
    }

    /// `RequiresExactMatch`: the value an `=`/`==` term pins `field` to. Pods' legacy `spec.host`
    /// spelling counts as `spec.nodeName`, as the field label conversion renames it.
    pub fn requirement(&self, field: &str) -> Option<&str> {
        self.terms
            .iter()
            .find(|t| {
                t.op == FieldOp::Equals
                    && (t.field == field || (field == "spec.nodeName" && t.field == "spec.host"))
            })
            .map(|t| t.value.as_str())
    }
}

impl std::fmt::Display for FieldSelector {
    /// `Selector.String`: terms with escaped values, joined by `,`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .terms
            .iter()
            .map(|t| {
                let op = match t.op {
                    FieldOp::Equals => "=",
                    FieldOp::NotEquals => "!=",
                };
                format!("{}{op}{}", t.field, escape_value(&t.value))
            })
            .collect();
        f.write_str(&parts.join(","))
    }
}
