//! The kubectl cache a run starts with.
//!
//! kubectl discovers the API (a dozen requests) on its first call unless `$KUBECACHEDIR` holds a
//! fresh discovery cache for the server. A run's `/tmp` is new every time, so without a seed every
//! run would pay for discovery on its first kubectl call — more than half of a typical audit
//! script's run. The grader fills a seed once per cluster (see `Kubectl::fill_discovery_cache`)
//! and each run gets it:
//! - read-only, where the sandbox makes the file system read-only (bubblewrap, mount namespace):
//!   a run cannot poison what later runs, the reference's included, will read. kubectl serves
//!   reads from it and silently drops the writes it cannot make (it logs them at `-v=3`);
//! - as a private copy otherwise, so that a run without isolation cannot change the seed either.
//!
//! Without a seed a run gets an empty cache of its own, as before.

use std::path::Path;

use super::detect::Isolation;

/// The cache dir a run's kubectl uses, and the private dir to drop after the run (if any).
pub(crate) struct RunCache {
    pub path: String,
    _private: Option<tempfile::TempDir>,
}

/// Inside bubblewrap and the mount namespace `/tmp` is the run's own tmpfs.
const PRIVATE_TMP_CACHE: &str = "/tmp/.kube-cache";

pub(crate) fn for_run(seed: Option<&Path>, isolation: Isolation) -> RunCache {
    let seed = seed.filter(|seed| seed.is_dir());
    match (isolation, seed) {
        (Isolation::Bubblewrap | Isolation::MountNamespace, Some(seed)) => RunCache {
            path: seed.display().to_string(),
            _private: None,
        },
        (Isolation::Bubblewrap | Isolation::MountNamespace, None) => RunCache {
            path: PRIVATE_TMP_CACHE.to_string(),
            _private: None,
        },
        (Isolation::None, seed) => private_copy(seed),
    }
}

fn private_copy(seed: Option<&Path>) -> RunCache {
    let dir = tempfile::Builder::new()
        .prefix("proctor-kube-cache-")
        .tempdir();
    let Ok(dir) = dir else {
        // kubectl creates the dir itself; only the isolation between runs is lost.
        return RunCache {
            path: PRIVATE_TMP_CACHE.to_string(),
            _private: None,
        };
    };
    if let Some(seed) = seed {
        // A failed copy only costs the run its discovery requests.
        if let Err(error) = crate::tree::copy_dir(seed, dir.path()) {
            tracing::debug!("copying the kubectl cache seed: {error:#}");
        }
    }
    RunCache {
        path: dir.path().display().to_string(),
        _private: Some(dir),
    }
}
