//! One graded check of a step, and the four kinds a check can be (file, script, object,
//! manifest). Exactly one kind must be set; `validate` enforces that.

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use graders::text::Normaliser;

use super::units::HumanDuration;

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Check {
    pub id: String,
    pub title: String,
    #[serde(default = "one_point")]
    pub points: f64,
    #[serde(default)]
    pub visibility: Visibility,
    /// What a failure shows of the expected output; a hidden check shows only its message.
    #[serde(default)]
    pub feedback: Feedback,
    #[serde(default = "both_modes")]
    pub modes: Vec<Mode>,
    /// Shown on failure when no targeted hint matches.
    #[serde(default)]
    pub hint: Option<String>,
    /// Targeted hints, first match wins, tested against the learner's actual output and diff.
    #[serde(default)]
    pub hints: Vec<TargetedHint>,
    #[serde(default)]
    pub file: Option<FileCheck>,
    #[serde(default)]
    pub script: Option<ScriptCheck>,
    #[serde(default)]
    pub object: Option<ObjectCheck>,
    #[serde(default)]
    pub manifest: Option<ManifestCheck>,
}

fn one_point() -> f64 {
    1.0
}

fn both_modes() -> Vec<Mode> {
    vec![Mode::Check, Mode::Grade]
}

/// The kind of a check, borrowed from whichever field is set.
#[derive(Debug, Clone, Copy)]
pub enum CheckKind<'a> {
    File(&'a FileCheck),
    Script(&'a ScriptCheck),
    Object(&'a ObjectCheck),
    Manifest(&'a ManifestCheck),
}

impl Check {
    /// All kinds that are set; a valid check has exactly one.
    pub fn kinds(&self) -> Vec<CheckKind<'_>> {
        let mut kinds = Vec::new();
        if let Some(file) = &self.file {
            kinds.push(CheckKind::File(file));
        }
        if let Some(script) = &self.script {
            kinds.push(CheckKind::Script(script));
        }
        if let Some(object) = &self.object {
            kinds.push(CheckKind::Object(object));
        }
        if let Some(manifest) = &self.manifest {
            kinds.push(CheckKind::Manifest(manifest));
        }
        kinds
    }

    /// The single kind of a validated check.
    pub fn kind(&self) -> Option<CheckKind<'_>> {
        match self.kinds().as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    pub fn runs_in(&self, mode: Mode) -> bool {
        self.modes.contains(&mode)
    }
}

impl CheckKind<'_> {
    pub fn name(&self) -> &'static str {
        match self {
            CheckKind::File(_) => "file",
            CheckKind::Script(_) => "script",
            CheckKind::Object(_) => "object",
            CheckKind::Manifest(_) => "manifest",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Visibility {
    /// Self-check and grading.
    #[default]
    Visible,
    /// Grading only.
    Hidden,
}

/// How much of the expected output a failing check shows the learner.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Feedback {
    /// The whole diff of expected and actual output.
    Diff,
    /// Where the output first differs: one expected and one actual line.
    #[default]
    FirstDifference,
    /// The message and hints only.
    Message,
}

impl Check {
    /// What this check's failures show: a hidden check never shows expected output.
    pub fn shown_feedback(&self) -> Feedback {
        match self.visibility {
            Visibility::Hidden => Feedback::Message,
            Visibility::Visible => self.feedback,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    /// `proctor check`: the learner's live cluster and lab dir.
    Check,
    /// `proctor grade`: a submitted lab dir against the reference states.
    Grade,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TargetedHint {
    /// A regex tested against the learner's actual output / diff text.
    #[serde(rename = "match")]
    pub pattern: String,
    pub say: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileCheck {
    pub path: PathBuf,
    #[serde(default)]
    pub compare: FileCompare,
    /// The text to compare with instead of the reference's file: needed by `literal` and
    /// `pattern` (one regular expression per line), optional for `contains`.
    #[serde(default)]
    pub expected: Option<String>,
    #[serde(default)]
    pub normalise: Vec<Normaliser>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FileCompare {
    #[default]
    Exact,
    LinesUnordered,
    /// Semantic comparison of `kubectl drain` transcripts: refused vs drained.
    Drain,
    /// Against the fixed `expected` string instead of the reference file.
    Literal,
    /// The learner's file holds every line of `expected` (or of the reference's file), in order,
    /// among any others.
    Contains,
    /// Each line of the learner's file matches, whole, the regular expression on the same line of
    /// `expected`.
    Pattern,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScriptCheck {
    pub path: PathBuf,
    /// `{node}` expands to each selected node's name.
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub nodes: Option<NodeSelection>,
    /// Perturbation names to inject before running (removed afterwards).
    #[serde(default)]
    pub inject: Vec<String>,
    #[serde(default = "stdout_and_exit_code")]
    pub compare: Vec<ScriptCompare>,
}

fn stdout_and_exit_code() -> Vec<ScriptCompare> {
    vec![ScriptCompare::Stdout, ScriptCompare::ExitCode]
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NodeSelection {
    /// Label selector (`key`, `key=value`, `!key`, ...); all nodes when absent.
    #[serde(default)]
    pub selector: Option<String>,
    /// Whether injected nodes are among the nodes the script is called for.
    #[serde(default = "include_injected_default")]
    pub include_injected: bool,
}

fn include_injected_default() -> bool {
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ScriptCompare {
    Stdout,
    Stderr,
    ExitCode,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ObjectCheck {
    /// Plural, kind or short name known to kubectl (`nodes`, `Deployment`, `ds`).
    pub resource: String,
    #[serde(default)]
    pub api_version: Option<String>,
    #[serde(default)]
    pub namespace: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    /// Label selector.
    #[serde(default)]
    pub selector: Option<String>,
    #[serde(default)]
    pub field_selector: Option<String>,
    /// Partial match every selected object must satisfy.
    #[serde(default)]
    pub expect: Option<Value>,
    /// Exact number of matching objects.
    #[serde(default)]
    pub count: Option<usize>,
    /// The object must not exist.
    #[serde(default)]
    pub absent: bool,
    #[serde(default = "ten_seconds")]
    pub timeout: HumanDuration,
    /// Consecutive matching samples required.
    #[serde(default)]
    pub stable: Option<u32>,
}

fn ten_seconds() -> HumanDuration {
    HumanDuration::from_secs(10)
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ManifestCheck {
    pub path: PathBuf,
    pub objects: Vec<ManifestObject>,
    /// Whether the objects must also be in the cluster, as the file declares them.
    #[serde(default)]
    pub cluster: InCluster,
}

/// What a manifest check asks of the cluster.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum InCluster {
    /// Each object must be in the cluster, with the expected shape there too.
    #[default]
    Required,
    /// An object in the cluster must have the expected shape there; one that is gone (a later
    /// command of the step deleted it) is judged from the file alone, and the report says so.
    IfPresent,
    /// The file alone is judged (a manifest the learner writes but never applies).
    Ignored,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ManifestObject {
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub namespace: Option<String>,
    #[serde(default)]
    pub api_version: Option<String>,
    #[serde(default)]
    pub expect: Option<Value>,
    /// Exact lengths of lists at dotted paths.
    #[serde(default)]
    pub len: BTreeMap<String, usize>,
}
