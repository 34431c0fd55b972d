//! A learner's cluster kept across `proctor up` restarts. `up` holds a lock beside its
//! kubeconfig while it runs, so a second `up` on the same folder is refused rather than left to
//! orphan the first; it saves the embedded cluster's whole state beside the kubeconfig every few
//! seconds when it changed, and once more when stopped, and the next `up` of the same lab there
//! restores it. A closed terminal (SIGHUP, or `kill -9`) loses seconds of work, not the lab.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use nix::fcntl::{Flock, FlockArg};
use serde_json::{json, Value};

use super::target::{Snapshot, Target};

/// How often a running `up` looks for changes to save.
pub const SAVE_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Held while an `up` serves the kubeconfig it is named for.
#[derive(Debug)]
pub struct UpLock {
    _lock: Flock<std::fs::File>,
}

/// Not `<kubeconfig>.lock`: client-go (kubectl config, kwokctl) takes that name with O_EXCL
/// whenever it writes the kubeconfig, and would fail while `up` runs.
fn lock_path(kubeconfig: &Path) -> PathBuf {
    let mut name = kubeconfig.file_name().unwrap_or_default().to_os_string();
    name.push(".up-lock");
    kubeconfig.with_file_name(name)
}

/// Takes the lock of `kubeconfig`; refuses, saying how to reach it, when another `up` holds it.
pub fn claim(kubeconfig: &Path, lab: Option<&str>) -> anyhow::Result<UpLock> {
    let path = lock_path(kubeconfig);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(mut lock) => {
            // For the refusal a second `up` prints.
            let _ = lock.set_len(0);
            let _ = write!(lock, "{}", std::process::id());
            Ok(UpLock { _lock: lock })
        }
        Err((_, _)) => {
            let pid = std::fs::read_to_string(&path).unwrap_or_default();
            let pid = pid.trim();
            let by = if pid.is_empty() {
                String::new()
            } else {
                format!(" (process {pid})")
            };
            anyhow::bail!(
                "a cluster is already up for {}{by}: use it with `export KUBECONFIG={}`, or stop \
                 that `proctor up{}` (Ctrl-C in its terminal) before starting another",
                kubeconfig.display(),
                kubeconfig.display(),
                lab.map(|lab| format!(" {lab}")).unwrap_or_default()
            )
        }
    }
}

/// Where the cluster of `lab` (plain nodes when none) served through `kubeconfig` is kept: one
/// file per lab, so that another lab's `up` in the same folder never replaces it.
pub fn state_path(kubeconfig: &Path, lab: Option<&str>) -> PathBuf {
    kubeconfig.with_file_name(format!("{}.state.json", lab.unwrap_or("cluster")))
}

/// A kept state: the snapshot and when it was saved.
pub struct Kept {
    pub snapshot: Snapshot,
    pub saved_at: chrono::DateTime<chrono::Utc>,
    /// How many objects it holds, for the note that says it was restored.
    pub objects: usize,
}

/// The state kept at `path`, if there is one. One that cannot be read is set aside (renamed
/// `*.unreadable`) with a warning rather than refused: the learner still gets a cluster.
pub fn load(path: &Path) -> Option<Kept> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return None,
        Err(error) => {
            tracing::warn!("{}: not restored: {error}", path.display());
            return None;
        }
    };
    let read = || -> anyhow::Result<Kept> {
        let doc: Value = serde_json::from_slice(&text)?;
        let saved_at = doc["savedAt"]
            .as_str()
            .context("savedAt: expected a time")?;
        let saved_at = chrono::DateTime::parse_from_rfc3339(saved_at)
            .context("savedAt")?
            .with_timezone(&chrono::Utc);
        let age = chrono::Utc::now().signed_duration_since(saved_at);
        let cluster = &doc["cluster"];
        let objects = cluster["resources"]
            .as_array()
            .map(|resources| {
                resources
                    .iter()
                    .filter_map(|r| r["items"].as_array())
                    .map(Vec::len)
                    .sum()
            })
            .unwrap_or(0);
        Ok(Kept {
            snapshot: Snapshot::from_document(cluster, age.max(chrono::TimeDelta::zero()))?,
            saved_at,
            objects,
        })
    };
    match read() {
        Ok(kept) => Some(kept),
        Err(error) => {
            let aside = path.with_extension("json.unreadable");
            let _ = std::fs::rename(path, &aside);
            tracing::warn!(
                "{}: not restored ({error:#}); set aside as {}",
                path.display(),
                aside.display()
            );
            None
        }
    }
}

/// Saves `target`'s state to `path` when it differs from `last` (the document saved before),
/// which then holds the document now on disk. Written through a rename: a crash mid-write keeps
/// the previous state whole.
pub async fn save(
    target: &Target,
    path: &Path,
    lab: Option<&str>,
    last: &mut Option<Value>,
) -> anyhow::Result<()> {
    let snapshot = target.snapshot().await?;
    let Some(cluster) = snapshot.to_document() else {
        return Ok(());
    };
    if last.as_ref() == Some(&cluster) {
        return Ok(());
    }
    let doc = json!({
        "lab": lab,
        "savedAt": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "cluster": &cluster,
    });
    let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let text = serde_json::to_vec(&doc).context("serialising the cluster state")?;
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, path))
        .with_context(|| format!("saving the cluster state to {}", path.display()))?;
    *last = Some(cluster);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_claim_is_refused_with_the_way_to_the_first() {
        let dir = tempfile::tempdir().expect("tmp");
        let kubeconfig = dir.path().join(".proctor/kubeconfig");
        let first = claim(&kubeconfig, Some("gpudrv")).expect("first claim");
        let refused = claim(&kubeconfig, Some("gpudrv")).expect_err("second claim");
        let said = format!("{refused:#}");
        assert!(said.contains("already up"), "{said}");
        assert!(
            said.contains(&format!("export KUBECONFIG={}", kubeconfig.display())),
            "{said}"
        );
        assert!(
            said.contains(&format!("process {}", std::process::id())),
            "{said}"
        );
        drop(first);
        claim(&kubeconfig, Some("gpudrv")).expect("claimed once the first is gone");
    }

    #[test]
    fn the_lock_is_not_the_one_client_go_takes() {
        let kubeconfig = Path::new("/work/.proctor/kubeconfig");
        assert_ne!(
            lock_path(kubeconfig),
            Path::new("/work/.proctor/kubeconfig.lock")
        );
    }

    #[test]
    fn each_lab_is_kept_apart() {
        let kubeconfig = Path::new("/work/.proctor/kubeconfig");
        assert_eq!(
            state_path(kubeconfig, Some("gpudrv")),
            Path::new("/work/.proctor/gpudrv.state.json")
        );
        assert_ne!(
            state_path(kubeconfig, Some("gpushare")),
            state_path(kubeconfig, None)
        );
    }

    #[test]
    fn an_unreadable_state_is_set_aside() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("gpudrv.state.json");
        std::fs::write(&path, "{not json").expect("write");
        assert!(load(&path).is_none());
        assert!(!path.exists());
        assert!(dir.path().join("gpudrv.state.json.unreadable").exists());
    }
}
