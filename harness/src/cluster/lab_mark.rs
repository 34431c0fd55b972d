//! Which lab a learner's cluster was started for, kept in the kubeconfig `proctor up` writes: a
//! top-level `extensions` entry (`NamedExtension`, which kubectl and client-go carry along
//! unread), so that `proctor check` can refuse to grade one lab against another lab's cluster.

use std::path::Path;

use anyhow::Context;
use serde_yaml::{Mapping, Value};

/// The extension's name.
const NAME: &str = "proctor.dev/lab";

/// Records `lab` in `kubeconfig`, replacing an earlier record.
pub fn mark(kubeconfig: &Path, lab: &str) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(kubeconfig)
        .with_context(|| format!("reading {}", kubeconfig.display()))?;
    let mut config: Value = serde_yaml::from_str(&text)
        .with_context(|| format!("{} is not a kubeconfig", kubeconfig.display()))?;
    let Some(map) = config.as_mapping_mut() else {
        anyhow::bail!("{} is not a kubeconfig", kubeconfig.display());
    };
    let extensions = map
        .entry(Value::from("extensions"))
        .or_insert_with(|| Value::Sequence(Vec::new()));
    if !extensions.is_sequence() {
        *extensions = Value::Sequence(Vec::new());
    }
    if let Some(list) = extensions.as_sequence_mut() {
        list.retain(|entry| entry.get("name").and_then(Value::as_str) != Some(NAME));
        let mut extension = Mapping::new();
        extension.insert("lab".into(), lab.into());
        let mut entry = Mapping::new();
        entry.insert("name".into(), NAME.into());
        entry.insert("extension".into(), Value::Mapping(extension));
        list.push(Value::Mapping(entry));
    }
    let text = serde_yaml::to_string(&config).context("writing the kubeconfig")?;
    // Written in place: the file keeps its owner-only mode.
    std::fs::write(kubeconfig, text).with_context(|| format!("writing {}", kubeconfig.display()))
}

/// The lab `kubeconfig` was marked for, if it was.
pub fn marked(kubeconfig: &Path) -> Option<String> {
    let text = std::fs::read_to_string(kubeconfig).ok()?;
    let config: Value = serde_yaml::from_str(&text).ok()?;
    config
        .get("extensions")?
        .as_sequence()?
        .iter()
        .find(|entry| entry.get("name").and_then(Value::as_str) == Some(NAME))?
        .get("extension")?
        .get("lab")?
        .as_str()
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_is_read_back_and_replaced() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("kubeconfig");
        std::fs::write(
            &path,
            "apiVersion: v1\nkind: Config\ncurrent-context: proctor\nclusters: []\n",
        )
        .expect("write");
        assert_eq!(marked(&path), None);
        mark(&path, "gpudrv").expect("mark");
        assert_eq!(marked(&path).as_deref(), Some("gpudrv"));
        mark(&path, "gpushare").expect("mark again");
        assert_eq!(marked(&path).as_deref(), Some("gpushare"));
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(text.matches(NAME).count(), 1, "{text}");
        assert!(text.contains("current-context: proctor"), "{text}");
    }
}
