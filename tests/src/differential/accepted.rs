//! The one file of known differences between the embedded cluster and upstream
//! (`tests/differential/accepted.yaml`). Each divergence names where the difference shows
//! (session, step, field, and optionally a text the diff hunk contains), each rewrite a pattern
//! replaced on both sides; both carry a category and a reason, and are either `accepted` (a
//! conscious decision: not worth matching) or `open` (a gap in the embedded cluster still to
//! close). A difference nothing covers fails the suite.

use std::path::Path;

use serde::Deserialize;

use super::session::Field;

/// The file: rewrites applied to both sides before comparing (for a difference that shows in
/// many places, such as a hash in every name it is part of), then divergences matched per hunk.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Accepted {
    #[serde(default)]
    pub rewrites: Vec<Rewrite>,
    #[serde(default)]
    pub divergences: Vec<Divergence>,
    /// `rewrites` compiled (pattern, replacement), filled by [`load`].
    #[serde(skip)]
    pub compiled: Vec<(regex::Regex, String)>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Rewrite {
    /// A regular expression (Rust `regex` syntax), replaced in every compared text of both
    /// sides by `with` (which may name groups: `$1`).
    pub replace: String,
    pub with: String,
    pub category: String,
    pub status: Status,
    pub reason: String,
}

impl Rewrite {
    pub fn compile(&self) -> anyhow::Result<(regex::Regex, String)> {
        let pattern = regex::Regex::new(&self.replace)
            .map_err(|error| anyhow::anyhow!("rewrite {:?}: {error}", self.replace))?;
        Ok((pattern, self.with.clone()))
    }
}

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
    /// Only hunks in which upstream has lines the embedded cluster lacks and nothing else
    /// (kinds it does not serve, objects it does not create).
    #[serde(default)]
    pub upstream_only: bool,
    pub category: String,
    pub status: Status,
    pub reason: String,
    /// The difference shows in some runs only (its reason says why): a run that does not see it
    /// does not call the entry stale.
    #[serde(default)]
    pub intermittent: bool,
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
            && (!self.upstream_only || only_added(hunk))
    }

    /// Whether a run of `session` in which this entry covered nothing shows it stale: an entry
    /// that names the session (not `*`) and is not `intermittent` was written for a difference
    /// that session must still show. A stale entry would keep a fixed gap listed as open.
    pub fn stale_unless_used(&self, session: &str) -> bool {
        self.session == session && !self.intermittent
    }
}

/// A hunk whose changed lines are all `+` (upstream) lines.
fn only_added(hunk: &str) -> bool {
    let mut changed = hunk
        .lines()
        .filter(|line| !line.starts_with("@@"))
        .filter(|line| line.starts_with('+') || line.starts_with('-'))
        .peekable();
    changed.peek().is_some() && changed.all(|line| line.starts_with('+'))
}

pub fn load(path: &Path) -> anyhow::Result<Accepted> {
    let mut accepted: Accepted = super::load_yaml(path)?;
    accepted.compiled = accepted
        .rewrites
        .iter()
        .map(Rewrite::compile)
        .collect::<anyhow::Result<_>>()?;
    Ok(accepted)
}

#[cfg(test)]
mod tests {
    use super::{only_added, Divergence};

    #[test]
    fn only_a_constant_entry_of_the_session_can_be_stale() {
        let entry = |session: &str, intermittent: bool| Divergence {
            session: session.to_string(),
            step: Some(3),
            field: super::Field::Stdout,
            contains: None,
            upstream_only: false,
            category: "c".to_string(),
            status: super::Status::Open,
            reason: "r".to_string(),
            intermittent,
        };
        assert!(entry("kinds", false).stale_unless_used("kinds"));
        assert!(!entry("kinds", false).stale_unless_used("errors"));
        assert!(!entry("*", false).stale_unless_used("kinds"));
        assert!(!entry("kinds", true).stale_unless_used("kinds"));
    }

    #[test]
    fn a_hunk_is_upstream_only_when_it_only_adds() {
        assert!(only_added("@@ -1,2 +1,3 @@\n apps/v1\n+batch/v1\n v1\n"));
        assert!(!only_added(
            "@@ -1,2 +1,2 @@\n-Server Version: a\n+Server Version: b\n"
        ));
        assert!(!only_added("@@ -1 +1 @@\n same\n"));
    }
}
