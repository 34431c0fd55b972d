//! A kubeconfig a learner's run can read under its own uid: the grader's copy may name
//! certificate and token files the run cannot reach (or must not: they lie among the grader's
//! files), so the run gets one file holding them inline, as `kubectl config view --flatten`
//! writes it.

use std::path::Path;

use anyhow::Context;
use base64::Engine;
use serde_yaml::Value;

/// The fields that name a file, and the inline field that replaces each (client-go's
/// `clientcmd.ResolvePaths` list). `tokenFile` becomes `token`, read as text.
const FILE_FIELDS: [(&str, &str, &str); 4] = [
    (
        "clusters",
        "certificate-authority",
        "certificate-authority-data",
    ),
    ("users", "client-certificate", "client-certificate-data"),
    ("users", "client-key", "client-key-data"),
    ("users", "tokenFile", "token"),
];

/// The kubeconfig at `path` with every file it names inlined. Relative paths are relative to the
/// kubeconfig's directory.
pub(crate) fn flattened(path: &Path) -> anyhow::Result<String> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut config: Value =
        serde_yaml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("/"));
    for (list, field, inline) in FILE_FIELDS {
        let entry_key = if list == "clusters" {
            "cluster"
        } else {
            "user"
        };
        let Some(entries) = config.get_mut(list).and_then(Value::as_sequence_mut) else {
            continue;
        };
        for entry in entries {
            let Some(body) = entry.get_mut(entry_key).and_then(Value::as_mapping_mut) else {
                continue;
            };
            let Some(named) = body.remove(field) else {
                continue;
            };
            let Some(named) = named.as_str().filter(|named| !named.is_empty()) else {
                continue;
            };
            let file = base.join(named);
            let bytes =
                std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            let value = if field == "tokenFile" {
                String::from_utf8_lossy(&bytes).trim().to_string()
            } else {
                base64::engine::general_purpose::STANDARD.encode(&bytes)
            };
            body.insert(Value::from(inline), Value::from(value));
        }
    }
    serde_yaml::to_string(&config).context("writing the kubeconfig")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_become_inline_data_and_relative_paths_follow_the_kubeconfig() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("pki")).expect("mkdir");
        std::fs::write(dir.path().join("pki/ca.crt"), "CA").expect("write");
        std::fs::write(dir.path().join("key"), "KEY").expect("write");
        std::fs::write(dir.path().join("token"), "secret-token\n").expect("write");
        let config = dir.path().join("config");
        std::fs::write(
            &config,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:6443\n    certificate-authority: pki/ca.crt\nusers:\n- name: u\n  user:\n    client-key: {}\n    tokenFile: token\n",
                dir.path().join("key").display()
            ),
        )
        .expect("write");
        let flat: Value =
            serde_yaml::from_str(&flattened(&config).expect("flatten")).expect("yaml");
        let cluster = &flat["clusters"][0]["cluster"];
        assert_eq!(cluster["certificate-authority-data"], Value::from("Q0E="));
        assert!(cluster.get("certificate-authority").is_none());
        assert_eq!(cluster["server"], Value::from("https://127.0.0.1:6443"));
        let user = &flat["users"][0]["user"];
        assert_eq!(user["client-key-data"], Value::from("S0VZ"));
        assert_eq!(user["token"], Value::from("secret-token"));
        assert!(user.get("tokenFile").is_none());
    }

    #[test]
    fn a_missing_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path().join("config");
        std::fs::write(
            &config,
            "clusters:\n- name: c\n  cluster:\n    certificate-authority: /nonexistent/ca.crt\n",
        )
        .expect("write");
        let error = flattened(&config).expect_err("missing file");
        assert!(
            format!("{error:#}").contains("/nonexistent/ca.crt"),
            "{error:#}"
        );
    }
}
