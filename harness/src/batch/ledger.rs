//! What a batch has graded, kept beside its reports (`.proctor-batch.json`) so that `--resume`
//! skips submissions graded before with the same inputs: the same submission tree, the same
//! scenario, tools and Proctor build (the reference cache's key), the same cluster kind and
//! report format. Written after every submission, so an interrupted batch loses nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::gradebook::{Row, Status};
use super::submissions::hex;

pub const FILE_NAME: &str = ".proctor-batch.json";

/// The ledger's file name: one per shard, so that shards sharing a reports folder do not
/// overwrite each other's.
pub fn file_name(shard: Option<super::shard::Shard>) -> String {
    match shard {
        Some(shard) => format!(
            ".proctor-batch-shard-{}-of-{}.json",
            shard.index, shard.count
        ),
        None => FILE_NAME.to_string(),
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Ledger {
    pub lab: String,
    pub entries: BTreeMap<String, Entry>,
    /// Its file name in the reports folder (see [`file_name`]).
    #[serde(skip)]
    file: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// See [`inputs_key`].
    pub inputs: String,
    /// The report's file name in the reports folder.
    pub report: String,
    pub row: Row,
}

/// The key of one grading: everything its result depends on.
pub fn inputs_key(reference_key: &str, setting: &str, submission_digest: &str) -> String {
    let mut hasher = Sha256::new();
    for part in [reference_key, setting, submission_digest] {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    hex(&hasher.finalize())
}

impl Ledger {
    pub fn path(&self, reports: &Path) -> PathBuf {
        reports.join(&self.file)
    }

    /// The ledger called `file` in `reports`, or an empty one when there is none yet. One that
    /// cannot be read is set aside with a warning: resuming then grades everything again.
    pub fn load(reports: &Path, file: &str, lab: &str) -> Ledger {
        let empty = Ledger {
            lab: lab.to_string(),
            entries: BTreeMap::new(),
            file: file.to_string(),
        };
        let path = empty.path(reports);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return empty,
            Err(error) => {
                tracing::warn!("not resuming from {}: {error}", path.display());
                return empty;
            }
        };
        match serde_json::from_str::<Ledger>(&text) {
            Ok(ledger) if ledger.lab == lab => Ledger {
                file: file.to_string(),
                ..ledger
            },
            Ok(ledger) => {
                tracing::warn!(
                    "not resuming from {}: it is lab {}'s, not {lab}'s",
                    path.display(),
                    ledger.lab
                );
                empty
            }
            Err(error) => {
                tracing::warn!("not resuming from {}: {error}", path.display());
                empty
            }
        }
    }

    /// The row graded before with exactly `inputs`, whose report is still there. Errors are
    /// never reused: they say that Proctor, not the submission, failed last time.
    pub fn reusable(&self, reports: &Path, name: &str, inputs: &str) -> Option<&Row> {
        let entry = self.entries.get(name)?;
        (entry.inputs == inputs
            && entry.row.status != Status::Error
            && reports.join(&entry.report).is_file())
        .then_some(&entry.row)
    }

    /// Writes the ledger (through a temporary file and a rename, so a crash leaves the old one).
    pub fn save(&self, reports: &Path) -> anyhow::Result<()> {
        let path = self.path(reports);
        let text = serde_json::to_string_pretty(self).context("serialising the batch ledger")?;
        let temporary = reports.join(format!("{}.{}.tmp", self.file, std::process::id()));
        std::fs::write(&temporary, text)
            .with_context(|| format!("writing {}", temporary.display()))?;
        std::fs::rename(&temporary, &path).with_context(|| format!("writing {}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(status: Status) -> Row {
        Row::ungraded("alice", status, 3.0, "x".into())
    }

    #[test]
    fn reuses_only_the_same_inputs_with_the_report_present() {
        let reports = tempfile::tempdir().expect("tmp");
        let mut ledger = Ledger::load(reports.path(), FILE_NAME, "gpudrv");
        assert!(ledger.entries.is_empty());
        let key = inputs_key("ref", "embedded/json", "abc");
        ledger.entries.insert(
            "alice".into(),
            Entry {
                inputs: key.clone(),
                report: "alice.json".into(),
                row: row(Status::Failed),
            },
        );
        ledger.save(reports.path()).expect("save");
        let ledger = Ledger::load(reports.path(), FILE_NAME, "gpudrv");
        // The report file is gone: grade again.
        assert!(ledger.reusable(reports.path(), "alice", &key).is_none());
        std::fs::write(reports.path().join("alice.json"), "{}").expect("write");
        assert!(ledger.reusable(reports.path(), "alice", &key).is_some());
        let other = inputs_key("ref", "embedded/json", "abd");
        assert!(ledger.reusable(reports.path(), "alice", &other).is_none());
        assert!(ledger.reusable(reports.path(), "bob", &key).is_none());
        // Another lab's ledger is not resumed.
        assert!(Ledger::load(reports.path(), FILE_NAME, "gpuops")
            .entries
            .is_empty());
    }

    #[test]
    fn errors_are_graded_again() {
        let reports = tempfile::tempdir().expect("tmp");
        std::fs::write(reports.path().join("alice.json"), "{}").expect("write");
        let mut ledger = Ledger::load(reports.path(), FILE_NAME, "gpudrv");
        ledger.entries.insert(
            "alice".into(),
            Entry {
                inputs: "k".into(),
                report: "alice.json".into(),
                row: row(Status::Error),
            },
        );
        assert!(ledger.reusable(reports.path(), "alice", "k").is_none());
    }

    #[test]
    fn shards_keep_ledgers_of_their_own() {
        let shard = |i| super::super::shard::Shard::new(i, 4).ok();
        assert_ne!(file_name(shard(0)), file_name(shard(1)));
        assert_eq!(file_name(None), FILE_NAME);
    }

    #[test]
    fn key_parts_do_not_run_together() {
        assert_ne!(inputs_key("ab", "c", "d"), inputs_key("a", "bc", "d"));
    }

    #[test]
    fn a_corrupt_ledger_is_set_aside() {
        let reports = tempfile::tempdir().expect("tmp");
        std::fs::write(reports.path().join(FILE_NAME), "{not json").expect("write");
        assert!(Ledger::load(reports.path(), FILE_NAME, "gpudrv")
            .entries
            .is_empty());
    }
}
