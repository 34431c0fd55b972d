//! The clean environment a script runs with: what a learner's login shell in the lab would have that
//! matters to a script, nothing of the grader's.

use super::RunSpec;
use std::path::{Path, PathBuf};

/// Name of the variable that tags every process of a run when there is no PID namespace, so that
/// leftovers can be found and killed (see `sweep`).
pub(crate) const MARKER_VAR: &str = "PROCTOR_SANDBOX_RUN";

/// The directories a login shell's `PATH` holds, in its order.
pub const STANDARD_PATH: &[&str] = &[
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
];

/// `PATH` (the directories holding kubectl and jq first, then the standard ones), `LANG`, a
/// writable kubectl discovery cache, then `spec.env` (which overrides), then the run's own `HOME`
/// (never the grader's) and the marker.
pub(crate) fn build(
    spec: &RunSpec,
    kube_cache: &str,
    marker: Option<&str>,
    home: &str,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = vec![
        ("PATH".into(), default_path()),
        ("LANG".into(), "C.UTF-8".into()),
        // kubectl caches discovery under $HOME/.kube/cache, which is read-only in the sandbox.
        ("KUBECACHEDIR".into(), kube_cache.into()),
    ];
    // Learner's and reference's runs alike; a scenario's own env wins.
    for (key, value) in short_lived_go(spec.limits.memory_bytes / GO_HEAP_SHARE) {
        set(&mut env, key, &value);
    }
    for (key, value) in &spec.env {
        set(&mut env, key, value);
    }
    set(&mut env, "HOME", home);
    if let Some(marker) = marker {
        set(&mut env, MARKER_VAR, marker);
    }
    env
}

/// A script's Go programs each collect once their heap passes this share of the run's memory
/// limit (128 MiB of the default 1 GiB): eight kubectl at once, each far past what one needs,
/// still fit in the run's limit. A kubectl run allocates a few tens of MiB, so it never collects.
const GO_HEAP_SHARE: u64 = 8;

/// The environment of a short-lived Go program (kubectl) that collects garbage only once its
/// heap nears `heap_bytes`. kubectl is most of a grading's CPU, and a quarter of a short run's
/// is collection while it starts; this is Go's own advice for such tools (`GOGC=off` with a
/// `GOMEMLIMIT`). Below the bound a program holds what it allocated; past it, Go collects as
/// often as it must to stay near it.
pub fn short_lived_go(heap_bytes: u64) -> [(&'static str, String); 2] {
    [
        ("GOGC", "off".to_string()),
        (
            "GOMEMLIMIT",
            format!("{}B", heap_bytes.max(16 * 1024 * 1024)),
        ),
    ]
}

pub(crate) fn set(env: &mut Vec<(String, String)>, key: &str, value: &str) {
    match env.iter_mut().find(|(k, _)| k == key) {
        Some(entry) => entry.1 = value.to_string(),
        None => env.push((key.to_string(), value.to_string())),
    }
}

/// Where the grader's `PATH` finds `tool`.
pub fn on_path(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|candidate| candidate.is_file())
}

/// The grader's directories holding `kubectl` and `jq`, then the standard directories.
pub(crate) fn default_path() -> String {
    let mut dirs: Vec<String> = Vec::new();
    for tool in ["kubectl", "jq"] {
        let found = on_path(tool).and_then(|file| file.parent().map(Path::to_path_buf));
        if let Some(dir) = found.and_then(|d| d.to_str().map(str::to_string)) {
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    for dir in STANDARD_PATH {
        if !dirs.iter().any(|d| d == dir) {
            dirs.push(dir.to_string());
        }
    }
    dirs.join(":")
}

/// Absolute paths named in the environment's values (`KUBECONFIG=/tmp/x/kubeconfig`,
/// `PATH=/tmp/shims:...`, `SCENARIO_DIR=...`), and the files a kubeconfig named there refers to
/// (`certificate-authority: /tmp/x/ca.crt`): the sandbox keeps these visible.
pub(crate) fn named_paths(env: &[(String, String)]) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let add = |path: PathBuf, paths: &mut Vec<PathBuf>| {
        if path.is_absolute() && path.exists() && !paths.contains(&path) {
            paths.push(path);
        }
    };
    for (key, value) in env {
        for piece in value.split(':') {
            add(PathBuf::from(piece), &mut paths);
            if key == "KUBECONFIG" {
                for referenced in kubeconfig_files(Path::new(piece)) {
                    add(referenced, &mut paths);
                }
            }
        }
    }
    paths
}

/// Files a kubeconfig points at by path; relative paths are relative to the kubeconfig's directory
/// (client-go `clientcmd.ResolvePaths`).
fn kubeconfig_files(kubeconfig: &Path) -> Vec<PathBuf> {
    const KEYS: [&str; 4] = [
        "certificate-authority",
        "client-certificate",
        "client-key",
        "tokenFile",
    ];
    let Ok(text) = std::fs::read_to_string(kubeconfig) else {
        return Vec::new();
    };
    let base = kubeconfig.parent().unwrap_or(Path::new("/"));
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.trim().trim_start_matches("- ").split_once(':')?;
            KEYS.contains(&key.trim())
                .then(|| value.trim().trim_matches(|c| c == '"' || c == '\''))
        })
        .filter(|value| !value.is_empty())
        .map(|value| base.join(value))
        .collect()
}
