//! A loaded lab: its validated scenario and the directory it lives in (reference files,
//! starter files, bundled submissions).

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::compose;
use super::expect::{load_case, Expectation};
use super::load::load_scenario;
use super::lookup::find_scenario;
use super::model::Scenario;

#[derive(Debug, Clone)]
pub struct Lab {
    pub scenario: Scenario,
    /// Absolute `scenarios/<lab>` directory; exported to reference shells as `$SCENARIO_DIR`.
    pub dir: PathBuf,
}

/// A bundled example submission with the result it must get.
#[derive(Debug, Clone)]
pub struct BundledSubmission {
    pub name: String,
    /// Its whole tree: its own folder, or, for one composed from a base, a scratch folder holding
    /// the composition.
    pub dir: PathBuf,
    pub expect: Expectation,
    /// Keeps a composed tree for as long as the submission is in use.
    _composed: Option<std::sync::Arc<tempfile::TempDir>>,
}

impl BundledSubmission {
    /// A submission whose folder is its whole tree.
    pub fn whole(name: &str, dir: PathBuf, expect: Expectation) -> Self {
        BundledSubmission {
            name: name.to_owned(),
            dir,
            expect,
            _composed: None,
        }
    }
}

impl Lab {
    /// Finds (see `lookup`) and loads a lab by name or path.
    pub fn find(lab: &str, scenarios_root: Option<&Path>) -> anyhow::Result<Lab> {
        let file = find_scenario(lab, scenarios_root).map_err(anyhow::Error::msg)?;
        Lab::load(&file)
    }

    pub fn load(file: &Path) -> anyhow::Result<Lab> {
        let scenario = load_scenario(file)?;
        let dir = file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let dir = std::fs::canonicalize(&dir)
            .with_context(|| format!("cannot resolve scenario dir {}", dir.display()))?;
        Ok(Lab { scenario, dir })
    }

    pub fn name(&self) -> &str {
        &self.scenario.name
    }

    /// `submissions/<case>/` with an `expect.yaml`, sorted by name.
    pub fn bundled_submissions(&self) -> anyhow::Result<Vec<BundledSubmission>> {
        submissions_in(&self.dir.join("submissions"), &self.dir.join("submissions"))
    }

    /// The names at the top of a lab folder: those of the files the steps leave and the checks
    /// read, and of the starter files, the reference and the bundled submissions. An upload
    /// holding one of them is a lab folder, not a folder wrapped around one; a class folder
    /// holding one is one learner's lab folder, not a class.
    pub fn top_level_names(&self) -> Vec<String> {
        let lab = self;
        let mut names = std::collections::BTreeSet::new();
        for step in &lab.scenario.steps {
            let checked = step.checks.iter().flat_map(|check| {
                let file = check.file.as_ref().map(|f| f.path.as_path());
                let script = check.script.as_ref().map(|s| s.path.as_path());
                file.into_iter().chain(script)
            });
            for path in step.artifacts.iter().map(PathBuf::as_path).chain(checked) {
                let first = path.components().find_map(|c| match c {
                    std::path::Component::Normal(name) => name.to_str(),
                    _ => None,
                });
                if let Some(name) = first {
                    names.insert(name.to_owned());
                }
            }
        }
        let mut add = |dir: &Path| {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if let Some(name) = entry.file_name().to_str() {
                    if name != "expect.yaml" {
                        names.insert(name.to_owned());
                    }
                }
            }
        };
        add(&lab.dir.join("starter"));
        add(&lab.dir.join("reference"));
        for entry in std::fs::read_dir(lab.dir.join("submissions"))
            .into_iter()
            .flatten()
            .flatten()
        {
            add(&entry.path());
        }
        names.into_iter().collect()
    }
}

/// Submission cases (directories holding `expect.yaml`) under `root`, sorted by name; a case
/// composed from a base finds it beside itself or in `bundled` (the lab's own submissions).
pub fn submissions_in(root: &Path, bundled: &Path) -> anyhow::Result<Vec<BundledSubmission>> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Ok(Vec::new());
    };
    let mut cases = Vec::new();
    for entry in entries.flatten() {
        let dir = entry.path();
        let expect_file = dir.join("expect.yaml");
        if !expect_file.is_file() {
            continue;
        }
        let case = load_case(&expect_file)?;
        let composed = match case.base {
            Some(_) => {
                let scratch = tempfile::Builder::new()
                    .prefix("proctor-submission-")
                    .tempdir()
                    .context("making a scratch folder for a composed submission")?;
                let tree = scratch.path().join("submission");
                compose::materialize(&dir, bundled, &tree)?;
                Some((std::sync::Arc::new(scratch), tree))
            }
            None => None,
        };
        let (composed, dir) = match composed {
            Some((scratch, tree)) => (Some(scratch), tree),
            None => (None, dir),
        };
        cases.push(BundledSubmission {
            name: entry.file_name().to_string_lossy().into_owned(),
            dir,
            expect: case.expect,
            _composed: composed,
        });
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}
