//! Where scenarios are found. Nothing is embedded in the binary; the lookup order is:
//!
//! 1. `LAB` given as a path (it contains a `/`, or names a `scenario.yaml` file): used as is.
//! 2. `--scenarios DIR` or `$PROCTOR_SCENARIOS`: when set, the only root searched.
//! 3. `scenarios/` in the current directory or any ancestor (a checkout of the repository).
//! 4. `scenarios/` next to the binary or any ancestor of it (`target/debug/proctor` in a
//!    checkout), then `../share/proctor/scenarios` relative to the binary (an installed copy).
//!
//! A root holds one directory per lab, `<root>/<lab>/scenario.yaml`.

use std::path::{Path, PathBuf};

pub const SCENARIO_FILE: &str = "scenario.yaml";
pub const ENV_SCENARIOS: &str = "PROCTOR_SCENARIOS";

/// Candidate roots, in lookup order. `explicit` is `--scenarios`/`$PROCTOR_SCENARIOS`.
pub fn roots(explicit: Option<&Path>) -> Vec<PathBuf> {
    if let Some(root) = explicit {
        return vec![root.to_path_buf()];
    }
    let mut roots = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        roots.extend(cwd.ancestors().map(|dir| dir.join("scenarios")));
    }
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    {
        roots.extend(exe_dir.ancestors().map(|dir| dir.join("scenarios")));
        roots.push(exe_dir.join("../share/proctor/scenarios"));
    }
    let mut unique = Vec::new();
    for root in roots {
        if !unique.contains(&root) {
            unique.push(root);
        }
    }
    unique
}

/// The scenario file for `lab`, or an explanation of where it was looked for.
pub fn find_scenario(lab: &str, explicit: Option<&Path>) -> Result<PathBuf, String> {
    let as_path = Path::new(lab);
    if lab.contains('/') || lab.ends_with(".yaml") || lab.ends_with(".yml") {
        return if as_path.is_dir() {
            Ok(as_path.join(SCENARIO_FILE))
        } else {
            Ok(as_path.to_path_buf())
        };
    }
    let roots = roots(explicit);
    for root in &roots {
        let candidate = root.join(lab).join(SCENARIO_FILE);
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    let searched: Vec<String> = roots
        .iter()
        .filter(|root| root.is_dir())
        .map(|root| root.display().to_string())
        .collect();
    let known = list_labs(explicit);
    Err(format!(
        "no lab named {lab:?}: searched {}{}",
        if searched.is_empty() {
            format!("no scenarios directory (set ${ENV_SCENARIOS} or pass --scenarios)")
        } else {
            searched.join(", ")
        },
        if known.is_empty() {
            String::new()
        } else {
            format!(
                "; known labs: {}",
                known
                    .iter()
                    .map(|(name, _)| name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    ))
}

/// Labs in the first root that has any, sorted by name, with their scenario files.
pub fn list_labs(explicit: Option<&Path>) -> Vec<(String, PathBuf)> {
    for root in roots(explicit) {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut labs: Vec<(String, PathBuf)> = entries
            .flatten()
            .filter_map(|entry| {
                let file = entry.path().join(SCENARIO_FILE);
                file.is_file()
                    .then(|| (entry.file_name().to_string_lossy().into_owned(), file))
            })
            .collect();
        if !labs.is_empty() {
            labs.sort();
            return labs;
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_root_is_the_only_root() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("alpha")).expect("mkdir");
        std::fs::write(dir.path().join("alpha").join(SCENARIO_FILE), "x").expect("write");
        assert_eq!(roots(Some(dir.path())), vec![dir.path().to_path_buf()]);
        assert_eq!(
            find_scenario("alpha", Some(dir.path())),
            Ok(dir.path().join("alpha").join(SCENARIO_FILE))
        );
        let error = find_scenario("beta", Some(dir.path())).expect_err("unknown lab");
        assert!(error.contains("no lab named \"beta\""), "{error}");
        assert!(error.contains("known labs: alpha"), "{error}");
    }

    #[test]
    fn paths_are_used_as_given() {
        assert_eq!(
            find_scenario("./x/scenario.yaml", None),
            Ok(PathBuf::from("./x/scenario.yaml"))
        );
    }
}
