//! The one file of known differences between the embedded cluster and upstream
//! (`tests/differential/accepted.yaml`). Each entry names where the difference shows (session,
//! step, field, and optionally a text the diff contains), its category and its reason, and is
//! either `accepted` (a conscious decision: not worth matching) or `open` (a gap in the embedded
//! cluster still to close). A difference no entry covers fails the suite.

use std::path::Path;

use serde::Deserialize;

use super::session::Field;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Divergence {
    /// The session's file stem, or `*` for every session.
    pub session: String,
    /// 1-based step number; omitted for any step (and for `objects`).
    #[serde(default)]
    pub step: Option<usize>,
    pub field: Field,
    /// Only the diff hunks that contain this text (each hunk is one difference).
    #[serde(default)]
    pub contains: Option<String>,
    pub category: String,
    pub status: Status,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Accepted,
    Open,
}

impl Divergence {
    pub fn covers(&self, session: &str, step: Option<usize>, field: Field, hunk: &str) -> bool {
        (self.session == "*" || self.session == session)
            && (self.step.is_none() || self.step == step)
            && self.field == field
            && self
                .contains
                .as_deref()
                .is_none_or(|text| hunk.contains(text))
    }
}

pub fn load(path: &Path) -> anyhow::Result<Vec<Divergence>> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| anyhow::anyhow!("reading {}: {error}", path.display()))?;
    serde_yaml::from_str(&text).map_err(|error| match error.location() {
        Some(at) => anyhow::anyhow!("{}:{}:{}: {error}", path.display(), at.line(), at.column()),
        None => anyhow::anyhow!("{}: {error}", path.display()),
    })
}
