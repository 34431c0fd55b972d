//! What a lab declares its pods' ports answer (`cluster.portForward`), put where kwok finds it: a
//! `ClusterPortForward` document per entry, whose forward runs `cat` on a file holding the
//! declared reply. The embedded cluster and kwok under kwokctl are given the same documents and
//! files, so `kubectl port-forward` and a client through it read the same on both.

use std::os::unix::fs::PermissionsExt;

use anyhow::Context;
use serde_json::{json, Value};

use crate::scenario::model::PodPortForwardSpec;

/// The files and the documents naming them; the files last as long as this does. Readable by
/// every user: the embedded cluster reads them as the learner's uid.
pub struct PodPortForwardFiles {
    dir: tempfile::TempDir,
    documents: Vec<Value>,
}

impl PodPortForwardFiles {
    /// Writes the replies of `specs`; `None` when the lab declares none.
    pub fn write(specs: &[PodPortForwardSpec]) -> anyhow::Result<Option<PodPortForwardFiles>> {
        if specs.is_empty() {
            return Ok(None);
        }
        let dir = tempfile::Builder::new()
            .prefix("proctor-port-forward-")
            .tempdir()
            .context("creating a directory for the declared port replies")?;
        // Set after creation: a root grader's umask would narrow a mode given at creation.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .context("opening the declared port replies to their readers")?;
        let mut documents = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let reply = dir.path().join(i.to_string());
            std::fs::write(&reply, &spec.reply)
                .with_context(|| format!("writing {}", reply.display()))?;
            std::fs::set_permissions(&reply, std::fs::Permissions::from_mode(0o644))
                .with_context(|| format!("setting the mode of {}", reply.display()))?;
            let mut forward = json!({"command": ["cat", reply.display().to_string()]});
            if !spec.ports.is_empty() {
                forward["ports"] = json!(spec.ports);
            }
            documents.push(super::kwok_documents::cluster_document(
                "ClusterPortForward",
                &format!("proctor-port-forward-{i}"),
                &spec.namespaces,
                &spec.pods,
                "forwards",
                forward,
            ));
        }
        Ok(Some(PodPortForwardFiles { dir, documents }))
    }

    /// The directory of the replies, which the commands read.
    pub fn dir(&self) -> std::path::PathBuf {
        self.dir.path().to_path_buf()
    }

    pub fn documents(&self) -> &[Value] {
        &self.documents
    }

    /// The documents as a multi-document YAML stream, for kwok's configuration file.
    pub fn yaml(&self) -> anyhow::Result<String> {
        super::kwok_documents::yaml_stream(&self.documents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_entry_becomes_a_forward_that_prints_its_reply() {
        let spec = PodPortForwardSpec {
            namespaces: vec!["gpu-operator".into()],
            pods: vec![],
            ports: vec![std::num::NonZeroU16::new(9400).expect("not zero")],
            reply: "HTTP/1.0 200 OK\r\n\r\nDCGM_FI_DEV_GPU_UTIL 42\n".into(),
        };
        let files = PodPortForwardFiles::write(std::slice::from_ref(&spec))
            .expect("written")
            .expect("declared");
        let [document] = files.documents() else {
            panic!("one document: {:?}", files.documents());
        };
        assert_eq!(document["kind"], "ClusterPortForward");
        assert_eq!(
            document["spec"]["selector"],
            json!({"matchNamespaces": ["gpu-operator"]})
        );
        let forward = &document["spec"]["forwards"][0];
        assert_eq!(forward["ports"], json!([9400]));
        assert_eq!(forward["command"][0], "cat");
        let file = forward["command"][1].as_str().expect("a path");
        assert_eq!(
            std::fs::read_to_string(file).expect("the reply"),
            spec.reply
        );
        // What the embedded cluster reads them as.
        let mut config = kwok::debugging::Config::default();
        assert_eq!(config.add_document(document), Ok(true));
        assert!(PodPortForwardFiles::write(&[]).expect("nothing").is_none());
    }
}
