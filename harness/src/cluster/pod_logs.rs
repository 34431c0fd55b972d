//! The container logs a lab declares (`cluster.logs`), put where kwok reads them: a CRI log file
//! per entry and a `ClusterLogs` document naming it. The embedded cluster and kwok under kwokctl
//! are given the same documents, so `kubectl logs` prints the same on both.

use std::os::unix::fs::PermissionsExt;

use anyhow::Context;
use serde_json::{json, Value};

use crate::scenario::model::PodLogsSpec;

/// Every declared line's time: a fixed instant, so `--timestamps`, `--since` and `--since-time`
/// read the same on every run and every machine.
pub const LOG_TIME: &str = "2025-01-01T00:00:00Z";

/// The log files and the documents naming them; the files last as long as this does, in a
/// directory only the grader can read.
pub struct PodLogFiles {
    /// Holds the files: they go when it is dropped.
    _dir: tempfile::TempDir,
    documents: Vec<Value>,
}

impl PodLogFiles {
    /// Writes the files of `specs`; `None` when the lab declares no logs.
    pub fn write(specs: &[PodLogsSpec]) -> anyhow::Result<Option<PodLogFiles>> {
        if specs.is_empty() {
            return Ok(None);
        }
        // 0700: in the unprivileged-uid mode learners share /tmp with the grader.
        let dir = tempfile::Builder::new()
            .prefix("proctor-logs-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .context("creating a directory for the declared container logs")?;
        let mut documents = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let file = |name: String, text: &str| -> anyhow::Result<String> {
                let path = dir.path().join(name);
                std::fs::write(&path, cri_lines(text))
                    .with_context(|| format!("writing {}", path.display()))?;
                Ok(path.display().to_string())
            };
            let mut log = json!({"logsFile": file(format!("{i}.log"), &spec.text)?});
            if !spec.containers.is_empty() {
                log["containers"] = json!(spec.containers);
            }
            if let Some(previous) = &spec.previous {
                log["previousLogsFile"] = json!(file(format!("{i}-previous.log"), previous)?);
            }
            documents.push(super::kwok_documents::cluster_document(
                "ClusterLogs",
                &format!("proctor-logs-{i}"),
                &spec.namespaces,
                &spec.pods,
                "logs",
                log,
            ));
        }
        Ok(Some(PodLogFiles {
            _dir: dir,
            documents,
        }))
    }

    pub fn documents(&self) -> &[Value] {
        &self.documents
    }

    /// The documents as a multi-document YAML stream, for kwok's configuration file.
    pub fn yaml(&self) -> anyhow::Result<String> {
        super::kwok_documents::yaml_stream(&self.documents)
    }

    #[cfg(test)]
    fn dir(&self) -> &std::path::Path {
        self._dir.path()
    }
}

/// `text` as a container runtime writes it: a full stdout line per line, at [`LOG_TIME`].
fn cri_lines(text: &str) -> String {
    text.lines()
        .map(|line| format!("{LOG_TIME} stdout F {line}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn spec(text: &str) -> PodLogsSpec {
        PodLogsSpec {
            namespaces: vec!["gpu-operator".into()],
            pods: vec![],
            containers: vec!["cuda-validation".into()],
            text: text.into(),
            previous: None,
        }
    }

    #[test]
    fn each_entry_is_a_cluster_logs_document_naming_a_cri_file() {
        let files = PodLogFiles::write(&[spec("Test PASSED\ndone\n")])
            .expect("written")
            .expect("declared");
        let [document] = files.documents() else {
            panic!("one document: {:?}", files.documents());
        };
        assert_eq!(document["kind"], "ClusterLogs");
        assert_eq!(
            document["spec"]["selector"],
            json!({"matchNamespaces": ["gpu-operator"]})
        );
        let log = &document["spec"]["logs"][0];
        assert_eq!(log["containers"], json!(["cuda-validation"]));
        assert!(log.get("previousLogsFile").is_none());
        let path = log["logsFile"].as_str().expect("a file");
        assert!(Path::new(path).starts_with(files.dir()));
        let mode = std::fs::metadata(files.dir())
            .expect("dir")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "only the grader reads the logs");
        assert_eq!(
            std::fs::read_to_string(path).expect("file"),
            "2025-01-01T00:00:00Z stdout F Test PASSED\n2025-01-01T00:00:00Z stdout F done\n"
        );
        assert!(files
            .yaml()
            .expect("yaml")
            .starts_with("---\napiVersion: kwok.x-k8s.io/v1alpha1\n"));
    }

    #[test]
    fn no_declaration_writes_nothing() {
        assert!(PodLogFiles::write(&[]).expect("nothing").is_none());
    }
}
