//! The grading host's own secrets, which a script run as root could otherwise print into the
//! report its author reads (password hashes, SSH keys). No lab script needs them, so every run
//! hides them, whatever else it hides (see [`super::RunSpec::hidden`]).

use std::path::PathBuf;

const HOST_SECRETS: [&str; 5] = [
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssh",
];

pub(crate) fn host_secrets() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = HOST_SECRETS.iter().map(PathBuf::from).collect();
    if let Some(home) = std::env::var_os("HOME").filter(|value| !value.is_empty()) {
        paths.push(PathBuf::from(home).join(".ssh"));
    }
    paths
}
