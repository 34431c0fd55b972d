//! Where the upstream binaries are: built once per machine by `upstream/build.sh` from the Go
//! modules pinned in the repository (kube-apiserver, kube-controller-manager, kube-scheduler,
//! etcd, kwok, kwokctl, metrics-server). kubectl is the one on PATH. Nothing here builds or downloads them.

use std::path::{Path, PathBuf};

/// The command that builds them, named in every error about a missing binary.
pub const BUILD_COMMAND: &str = "upstream/build.sh";

/// Every binary `kwokctl --runtime binary` is given, and kwokctl itself.
pub const BINARIES: [&str; 7] = [
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "etcd",
    "kwok",
    "kwokctl",
    "metrics-server",
];

/// The directory holding the binaries: `$PROCTOR_UPSTREAM_BIN`, else `current/bin` of
/// `$PROCTOR_UPSTREAM` (default `$XDG_CACHE_HOME/proctor-upstream`, else
/// `~/.cache/proctor-upstream`), where `upstream/build.sh` puts them.
pub fn bin_dir() -> Option<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(dir) = set("PROCTOR_UPSTREAM_BIN") {
        return Some(PathBuf::from(dir));
    }
    let root = match set("PROCTOR_UPSTREAM") {
        Some(root) => PathBuf::from(root),
        None => match set("XDG_CACHE_HOME") {
            Some(cache) => PathBuf::from(cache).join("proctor-upstream"),
            None => PathBuf::from(set("HOME")?).join(".cache/proctor-upstream"),
        },
    };
    Some(root.join("current/bin"))
}

/// The built binaries, all of them present.
#[derive(Debug, Clone)]
pub struct Upstream {
    bin: PathBuf,
}

impl Upstream {
    /// Finds the binaries, or says which are missing and how to build them.
    pub fn find() -> anyhow::Result<Upstream> {
        let Some(bin) = bin_dir() else {
            anyhow::bail!(
                "cannot tell where the upstream binaries are (HOME is not set); set \
                 PROCTOR_UPSTREAM_BIN or build them with {BUILD_COMMAND}"
            );
        };
        Upstream::at(&bin)
    }

    pub fn at(bin: &Path) -> anyhow::Result<Upstream> {
        let missing: Vec<&str> = BINARIES
            .iter()
            .copied()
            .filter(|name| !is_executable(&bin.join(name)))
            .collect();
        let stages = stages_dir(bin);
        let missing_stages = super::kwok_stages::DEFAULT_STAGES
            .iter()
            .any(|name| !stages.join(name).is_file());
        if missing.is_empty() && missing_stages {
            anyhow::bail!(
                "the upstream build in {} has no kwok stages ({}): build it again with \
                 `{BUILD_COMMAND}` from a checkout of Proctor",
                bin.display(),
                stages.display()
            );
        }
        if !missing.is_empty() {
            anyhow::bail!(
                "the upstream control plane is not built: {} missing in {}; build it once on \
                 this machine with `{BUILD_COMMAND}` from a checkout of Proctor (needs Go 1.23 or \
                 newer; about 7 minutes on 2 cores)",
                missing.join(", "),
                bin.display()
            );
        }
        Ok(Upstream {
            bin: bin.to_path_buf(),
        })
    }

    pub fn binary(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }

    /// kwokctl's default stages, copied from kwok's module beside the binaries.
    pub fn stages(&self) -> PathBuf {
        stages_dir(&self.bin)
    }
}

/// Where `upstream/build.sh` puts kwok's default stages: `kwok-stages/` beside `bin/`.
fn stages_dir(bin: &Path) -> PathBuf {
    bin.parent().unwrap_or(bin).join("kwok-stages")
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_binary_is_named_with_the_build_command() {
        let dir = tempfile::tempdir().expect("dir");
        for name in BINARIES.iter().filter(|name| **name != "etcd") {
            let path = dir.path().join(name);
            std::fs::write(&path, "#!/bin/sh\n").expect("write");
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let error = Upstream::at(dir.path()).expect_err("etcd is missing");
        let message = format!("{error:#}");
        assert!(message.contains("etcd missing in"), "{message}");
        assert!(message.contains(BUILD_COMMAND), "{message}");
        std::fs::write(dir.path().join("etcd"), "").expect("write");
        assert!(
            Upstream::at(dir.path()).is_err(),
            "a binary without the exec bit does not count"
        );
    }

    #[test]
    fn a_build_without_kwoks_stages_is_built_again() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().expect("dir");
        let bin = root.path().join("bin");
        std::fs::create_dir(&bin).expect("mkdir");
        for name in BINARIES {
            std::fs::write(bin.join(name), "#!/bin/sh\n").expect("write");
            let executable = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(bin.join(name), executable).expect("chmod");
        }
        let message = format!("{:#}", Upstream::at(&bin).expect_err("no stages"));
        assert!(message.contains("has no kwok stages"), "{message}");
        assert!(message.contains(BUILD_COMMAND), "{message}");
        let stages = root.path().join("kwok-stages");
        std::fs::create_dir(&stages).expect("mkdir");
        for name in crate::cluster::kwok_stages::DEFAULT_STAGES {
            std::fs::write(stages.join(name), "").expect("write");
        }
        let found = Upstream::at(&bin).expect("complete");
        assert_eq!(found.stages(), stages);
    }
}
