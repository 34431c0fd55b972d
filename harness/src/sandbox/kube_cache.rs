//! The kubectl cache a run starts with.
//!
//! kubectl discovers the API (a dozen requests) on its first call unless `$KUBECACHEDIR` holds a
//! fresh discovery cache for the server. A run's `/tmp` is new every time, so without a seed every
//! run would pay for discovery on its first kubectl call — more than half of a typical audit
//! script's run. The grader fills a seed once per cluster (see `Kubectl::fill_discovery_cache`)
//! and each run gets it:
//! - read-only, where the sandbox has a view of its own (bubblewrap, mount namespace): a run
//!   cannot poison what later runs, the reference's included, will read. kubectl serves reads
//!   from it and silently drops the writes it cannot make (it logs them at `-v=3`);
//! - as a private copy in the run's own area otherwise, so that a run without a view cannot
//!   change the seed either.
//!
//! Without a seed a run gets an empty cache of its own, as before.

use std::path::Path;

use super::detect::Isolation;

/// The cache dir a run's kubectl uses.
pub(crate) struct RunCache {
    pub path: String,
}

/// Inside bubblewrap and the mount namespace `/tmp` is the run's own tmpfs.
const PRIVATE_TMP_CACHE: &str = "/tmp/.kube-cache";

/// The cache for a run; `area` is the run's private area (see `launch::Area`), where a copy goes.
pub(crate) fn for_run(seed: Option<&Path>, isolation: Isolation, area: Option<&Path>) -> RunCache {
    let seed = seed.filter(|seed| seed.is_dir());
    match (isolation.has_view(), seed, area) {
        (true, Some(seed), _) => RunCache {
            path: seed.display().to_string(),
        },
        (false, seed, Some(area)) => {
            let copy = area.join("kube-cache");
            if let Some(seed) = seed {
                // A failed copy only costs the run its discovery requests.
                if let Err(error) = crate::tree::copy_dir(seed, &copy) {
                    tracing::debug!("copying the kubectl cache seed: {error:#}");
                }
            }
            RunCache {
                path: copy.display().to_string(),
            }
        }
        _ => RunCache {
            path: PRIVATE_TMP_CACHE.to_string(),
        },
    }
}
