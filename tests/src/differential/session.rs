//! A differential session, as data: the commands a learner, a lab's reference or a client would
//! run, each run on the embedded cluster and on the upstream one from the same state, and what
//! to compare.

use std::path::Path;

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Session {
    /// What the session is about, for the report.
    pub title: String,
    /// A lab of `scenarios/`: the clusters start in its starting state (nodes and manifests, as
    /// grading prepares them), every step runs in a lab dir holding its starter files with
    /// `SCENARIO_DIR` set, and without `steps` the steps are the lab's reference shells, each
    /// compared by its output and by the files it leaves in the lab dir.
    #[serde(default)]
    pub lab: Option<String>,
    /// Commands that build the starting state (nodes, namespaces); each must succeed on both
    /// clusters, and their output is not compared.
    #[serde(default)]
    pub setup: Vec<Step>,
    #[serde(default)]
    pub steps: Vec<Step>,
    /// `kubectl get` arguments (`nodes`, `pods -n diff`) whose `-o json` is compared once the
    /// steps are done: every object the session touched.
    #[serde(default)]
    pub objects: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Step {
    /// A bash snippet; `kubectl` is the one on PATH, or the version `kubectl` names.
    pub run: String,
    #[serde(default)]
    pub stdin: Option<String>,
    /// Run with `kubectl.<version>` as `kubectl` (`"1.27"`, `"1.33"`).
    #[serde(default)]
    pub kubectl: Option<String>,
    /// Wait for both clusters' controllers to settle after the step. By default a step that
    /// may write (any kubectl verb but the read-only ones) settles, so that the next step reads
    /// both clusters after their controllers have acted.
    #[serde(default)]
    pub settle: Option<bool>,
    /// What to compare (default all three).
    #[serde(default = "all_fields")]
    pub compare: Vec<Field>,
    /// Shell run before `run` and left out of reports: the helpers a lab's reference calls.
    #[serde(skip)]
    pub prelude: String,
    /// The step must exit 0 on both clusters, or the session is broken rather than different
    /// (a lab's reference step: one that fails alike on both sides compares nothing).
    #[serde(default)]
    pub must_succeed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Field {
    Stdout,
    Stderr,
    Exit,
    /// The lab dir's files after the step, with their contents.
    Files,
    Objects,
}

impl Field {
    pub fn name(self) -> &'static str {
        match self {
            Field::Stdout => "stdout",
            Field::Stderr => "stderr",
            Field::Exit => "exit",
            Field::Files => "files",
            Field::Objects => "objects",
        }
    }
}

impl Step {
    pub fn new(run: &str, compare: Vec<Field>) -> Step {
        Step {
            run: run.to_string(),
            stdin: None,
            kubectl: None,
            settle: None,
            compare,
            prelude: String::new(),
            must_succeed: false,
        }
    }

    pub fn settles(&self) -> bool {
        self.settle.unwrap_or_else(|| !read_only(&self.run))
    }
}

/// kubectl verbs that never change the cluster.
const READ_VERBS: [&str; 13] = [
    "get",
    "describe",
    "explain",
    "api-resources",
    "api-versions",
    "version",
    "events",
    "auth",
    "logs",
    "wait",
    "top",
    "config",
    "diff",
];

/// Whether every kubectl call of a snippet only reads (`kubectl get ... | jq ...`).
fn read_only(run: &str) -> bool {
    run.split(['|', ';', '&', '\n', '(', ')'])
        .filter_map(|segment| {
            let mut words = segment.split_whitespace();
            words.find(|w| *w == "kubectl")?;
            Some(words.find(|w| !w.starts_with('-')).unwrap_or(""))
        })
        .all(|verb| READ_VERBS.contains(&verb))
}

fn all_fields() -> Vec<Field> {
    vec![Field::Stdout, Field::Stderr, Field::Exit]
}

/// Reads a session strictly: an unknown key or a wrong type is an error naming file:line:col.
pub fn load(path: &Path) -> anyhow::Result<Session> {
    super::load_yaml(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_that_may_write_settle() {
        assert!(read_only("kubectl get nodes -o name | sort"));
        assert!(read_only("kubectl -n diff describe pod x"));
        assert!(!read_only("kubectl get nodes; kubectl label node a b=c"));
        assert!(!read_only("kubectl apply -f -"));
        assert!(read_only("echo hello"));
    }

    #[test]
    fn unknown_keys_are_refused_with_their_line() {
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("s.yaml");
        std::fs::write(
            &file,
            "title: t\nsteps:\n  - run: kubectl get nodes\n    stdn: x\n",
        )
        .expect("write");
        let error = format!("{:#}", load(&file).expect_err("stdn is not a key"));
        assert!(error.contains("s.yaml:4:"), "{error}");
        assert!(error.contains("stdn"), "{error}");
    }
}
