//! Where Proctor keeps what it computes once and reuses (reference runs): `$PROCTOR_CACHE`, else
//! `$XDG_CACHE_HOME/proctor`, else `~/.cache/proctor`. The reference cache writes there and the
//! script sandbox hides it, so both ask here.

use std::path::PathBuf;

pub fn cache_root() -> Option<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(dir) = set("PROCTOR_CACHE") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = set("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("proctor"));
    }
    set("HOME").map(|home| PathBuf::from(home).join(".cache").join("proctor"))
}
