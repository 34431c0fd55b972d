//! The commands a lab declares for its containers (`cluster.exec`), put where kwok runs them: a
//! `ClusterExec` document per entry, whose target runs in a directory of its own holding what
//! each declared command prints, and one directory of commands, first on the `PATH` the command
//! is looked up in, that print it. kwok looks a command up on its own `PATH`, not the target's,
//! so the commands are the same for every entry; each one prints what the entry of the pod it
//! runs in declares (`PROCTOR_EXEC`, set by the entry), or says it is not found there.
//!
//! The embedded cluster and kwok under kwokctl are given the same documents and directories, so
//! `kubectl exec` prints the same on both.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{json, Value};

use crate::scenario::model::PodExecSpec;

/// The variable naming an entry's directory.
const ENTRY_VARIABLE: &str = "PROCTOR_EXEC";

/// Who runs the commands kwok runs for a root grader under kwokctl (`nobody`): never root.
const KWOK_EXEC_UID: i64 = 65534;

/// Whether `name` may name a declared command: a plain file name a shell finds on `PATH`.
pub fn is_command_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['.', '-'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'))
}

/// The files and the documents naming them; the files last as long as this does. Readable by
/// every user: the commands run as the learner's uid or as `nobody`, and they hold only what the
/// lab shows through `kubectl exec`.
pub struct PodExecFiles {
    dir: tempfile::TempDir,
    documents: Vec<Value>,
}

impl PodExecFiles {
    /// Writes the files of `specs`; `None` when the lab declares no commands.
    pub fn write(specs: &[PodExecSpec]) -> anyhow::Result<Option<PodExecFiles>> {
        if specs.is_empty() {
            return Ok(None);
        }
        let dir = tempfile::Builder::new()
            .prefix("proctor-exec-")
            .tempdir()
            .context("creating a directory for the declared commands")?;
        // Set after creation: a root grader's umask (077, see `harden_grader_files`) would
        // narrow a mode given at creation.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .context("opening the declared commands to their users")?;
        let bin = dir.path().join("bin");
        create_dir(&bin)?;
        let as_nobody = nix::unistd::geteuid().is_root();
        let mut documents = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let entry = dir.path().join(i.to_string());
            create_dir(&entry)?;
            for (name, text) in &spec.commands {
                anyhow::ensure!(
                    is_command_name(name),
                    "{name:?} is not a command name (cluster.exec[{i}].commands)"
                );
                write_file(&entry.join(name), text, 0o644)?;
                write_file(&bin.join(name), &command_script(name), 0o755)?;
            }
            let mut envs =
                vec![json!({"name": ENTRY_VARIABLE, "value": entry.display().to_string()})];
            envs.extend(
                spec.env
                    .iter()
                    .map(|(name, value)| json!({"name": name, "value": value})),
            );
            let mut local = json!({"workDir": entry.display().to_string(), "envs": envs});
            if as_nobody {
                local["securityContext"] =
                    json!({"runAsUser": KWOK_EXEC_UID, "runAsGroup": KWOK_EXEC_UID});
            }
            let mut exec = json!({"local": local});
            if !spec.containers.is_empty() {
                exec["containers"] = json!(spec.containers);
            }
            documents.push(super::kwok_documents::cluster_document(
                "ClusterExec",
                &format!("proctor-exec-{i}"),
                &spec.namespaces,
                &spec.pods,
                "execs",
                exec,
            ));
        }
        Ok(Some(PodExecFiles { dir, documents }))
    }

    pub fn documents(&self) -> &[Value] {
        &self.documents
    }

    /// The directory of declared commands, to put first on the `PATH` commands are found on.
    pub fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    /// The documents as a multi-document YAML stream, for kwok's configuration file.
    pub fn yaml(&self) -> anyhow::Result<String> {
        super::kwok_documents::yaml_stream(&self.documents)
    }
}

/// A declared command: prints what the entry of the pod it runs in declares for it.
fn command_script(name: &str) -> String {
    format!(
        "#!/bin/sh\n\
         # What the lab declares `{name}` prints, in the containers whose entry declares it.\n\
         if [ -n \"${{{ENTRY_VARIABLE}:-}}\" ] && [ -f \"${ENTRY_VARIABLE}/{name}\" ]; then\n\
         \texec cat \"${ENTRY_VARIABLE}/{name}\"\n\
         fi\n\
         echo \"{name}: command not found\" >&2\n\
         exit 127\n"
    )
}

fn create_dir(path: &Path) -> anyhow::Result<()> {
    std::fs::create_dir(path).with_context(|| format!("creating {}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("opening {} to the commands' users", path.display()))
}

fn write_file(path: &Path, text: &str, mode: u32) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("setting the mode of {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn spec(namespaces: &[&str], commands: &[(&str, &str)]) -> PodExecSpec {
        PodExecSpec {
            namespaces: namespaces.iter().map(|s| s.to_string()).collect(),
            pods: Vec::new(),
            containers: vec!["driver".into()],
            commands: commands
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            env: BTreeMap::from([("DRIVER".into(), "550".into())]),
        }
    }

    fn run(files: &PodExecFiles, entry: usize, command: &str) -> std::process::Output {
        let document = &files.documents()[entry];
        let local = &document["spec"]["execs"][0]["local"];
        let mut c = std::process::Command::new(files.bin().join(command));
        for env in local["envs"].as_array().expect("envs") {
            c.env(
                env["name"].as_str().expect("name"),
                env["value"].as_str().expect("value"),
            );
        }
        c.current_dir(local["workDir"].as_str().expect("dir"))
            .output()
            .expect("runs")
    }

    #[test]
    fn each_entry_prints_its_own_text_and_nothing_for_a_command_it_does_not_declare() {
        let files = PodExecFiles::write(&[
            spec(&["gpu"], &[("nvidia-smi", "GPU 0: A100\n")]),
            spec(&[], &[("lspci", "00:1e.0 3D controller\n")]),
        ])
        .expect("written")
        .expect("declared");
        let out = run(&files, 0, "nvidia-smi");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "GPU 0: A100\n");
        let out = run(&files, 1, "nvidia-smi");
        assert_eq!(out.status.code(), Some(127));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "nvidia-smi: command not found\n"
        );
        let document = &files.documents()[0];
        assert_eq!(document["kind"], "ClusterExec");
        assert_eq!(
            document["spec"]["selector"]["matchNamespaces"],
            json!(["gpu"])
        );
        assert_eq!(
            document["spec"]["execs"][0]["containers"],
            json!(["driver"])
        );
        assert_eq!(
            document["spec"]["execs"][0]["local"]["envs"][1],
            json!({"name": "DRIVER", "value": "550"})
        );
        assert!(PodExecFiles::write(&[]).expect("nothing").is_none());
    }

    #[test]
    fn command_names_are_plain_file_names() {
        for good in ["nvidia-smi", "dcgmi", "python3.11", "g++"] {
            assert!(is_command_name(good), "{good}");
        }
        for bad in ["", ".", "..", "-x", "a/b", "a b", "$(x)"] {
            assert!(!is_command_name(bad), "{bad}");
        }
    }
}
