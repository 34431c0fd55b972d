//! Example submissions composed from a base: a bundled submission or test fixture names another
//! submission it starts from (`base: perfect` in its `expect.yaml`) and holds only the files it
//! changes, plus the files of the base it removes (`delete: [path, ...]`). Graders, selftests and
//! demos see the whole tree, made in a scratch directory, exactly as if it had been copied.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::expect::{load_case, CaseFile};

/// Bases deeper than this are a mistake (or a cycle).
const MAX_DEPTH: usize = 8;

/// Where a case's `base` is looked for: among the lab's bundled submissions first (a test
/// fixture starts from the lab's `perfect`), then beside the case.
pub fn resolve_base(case: &Path, base: &str, bundled: &Path) -> anyhow::Result<PathBuf> {
    if base.is_empty() || base.contains('/') || base == "." || base == ".." {
        bail!("base {base:?} is not the name of a submission");
    }
    let candidates = [
        Some(bundled.join(base)),
        case.parent().map(|p| p.join(base)),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|dir| dir.join("expect.yaml").is_file() && dir != case)
        .with_context(|| {
            format!(
                "base {base:?} of {} is neither a submission beside it nor one of {}",
                case.display(),
                bundled.display()
            )
        })
}

/// The chain of directories whose files make the case, the case last (base first).
fn chain(case: &Path, bundled: &Path) -> anyhow::Result<Vec<(PathBuf, CaseFile)>> {
    let mut chain = Vec::new();
    let mut dir = case.to_path_buf();
    loop {
        let spec = load_case(&dir.join("expect.yaml"))?;
        let base = spec.base.clone();
        if chain
            .iter()
            .any(|(seen, _): &(PathBuf, CaseFile)| *seen == dir)
        {
            bail!("{}: its bases form a cycle", case.display());
        }
        chain.push((dir.clone(), spec));
        if chain.len() > MAX_DEPTH {
            bail!("{}: more than {MAX_DEPTH} bases deep", case.display());
        }
        match base {
            Some(base) => dir = resolve_base(&dir, &base, bundled)?,
            None => break,
        }
    }
    chain.reverse();
    Ok(chain)
}

/// Write the whole tree of the case at `case` into `into` (which must not exist yet): its base's
/// tree, without the paths it deletes, with its own files (its `expect.yaml` too) over it — the
/// folder it would be had it been copied whole.
pub fn materialize(case: &Path, bundled: &Path, into: &Path) -> anyhow::Result<()> {
    if into.symlink_metadata().is_ok() {
        bail!(
            "{} exists already: a submission is made into a new folder",
            into.display()
        );
    }
    let chain = chain(case, bundled)?;
    let bases = chain.len().saturating_sub(1);
    for (dir, _) in &chain[..bases] {
        // A link in a base would let a later layer's copy or deletion reach outside `into`.
        if let Some(link) = first_symlink(dir) {
            bail!(
                "{} is a symbolic link in {}, which another submission starts from: a base holds \
                 plain files only",
                link.display(),
                dir.display()
            );
        }
    }
    for (dir, spec) in chain {
        for path in &spec.delete {
            let target = into.join(path);
            let removed = if target.is_dir() {
                std::fs::remove_dir_all(&target)
            } else {
                std::fs::remove_file(&target)
            };
            removed.with_context(|| {
                format!(
                    "{}: `delete` names {}, which its base does not have",
                    dir.join("expect.yaml").display(),
                    path.display()
                )
            })?;
        }
        crate::tree::copy_dir(&dir, into)?;
    }
    Ok(())
}

/// What `lint` reports of a composed case: a base that cannot be resolved, a deleted path the base
/// lacks, and files that are the same as the base's (a composed case holds only what differs).
pub fn problems(case: &Path, bundled: &Path) -> Vec<String> {
    let spec = match load_case(&case.join("expect.yaml")) {
        Ok(spec) => spec,
        Err(error) => return vec![error.to_string()],
    };
    let Some(base) = spec.base else {
        return Vec::new();
    };
    let Ok(scratch) = tempfile::tempdir() else {
        return vec!["cannot make a scratch directory".into()];
    };
    let base_tree = scratch.path().join("base");
    let made = resolve_base(case, &base, bundled)
        .and_then(|dir| materialize(&dir, bundled, &base_tree))
        .and_then(|()| materialize(case, bundled, &scratch.path().join("case")));
    if let Err(error) = made {
        return vec![format!("{error:#}")];
    }
    let mut problems = Vec::new();
    for file in files(case) {
        let rel = file.strip_prefix(case).unwrap_or(&file);
        if rel == Path::new("expect.yaml") {
            continue;
        }
        let in_base = base_tree.join(rel);
        let same = match (std::fs::read(&file), std::fs::read(&in_base)) {
            (Ok(mine), Ok(theirs)) => mine == theirs && same_mode(&file, &in_base),
            _ => false,
        };
        if same {
            problems.push(format!(
                "{} is the same as in its base {base:?}: remove it",
                rel.display()
            ));
        }
    }
    problems
}

fn same_mode(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777);
    matches!((mode(a), mode(b)), (Ok(x), Ok(y)) if x == y)
}

/// The first symbolic link under `dir`, if any.
fn first_symlink(dir: &Path) -> Option<PathBuf> {
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match entry.file_type() {
                Ok(t) if t.is_symlink() => return Some(entry.path()),
                Ok(t) if t.is_dir() => pending.push(entry.path()),
                _ => {}
            }
        }
    }
    None
}

/// Every regular file under `dir`, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => pending.push(path),
                Ok(t) if t.is_file() => out.push(path),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_case_is_its_base_with_its_own_files_over_it_and_its_deletions_out() {
        let root = tempfile::tempdir().unwrap();
        let bundled = root.path().join("bundled");
        write(&bundled.join("perfect/expect.yaml"), "score: full\n");
        write(&bundled.join("perfect/a.sh"), "echo a\n");
        write(&bundled.join("perfect/out/x.txt"), "x\r\n");
        write(&bundled.join("perfect/out/y.txt"), "y\n");
        std::fs::set_permissions(
            bundled.join("perfect/a.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        // A fixture elsewhere starts from the lab's perfect; another from the fixture.
        let fixtures = root.path().join("fixtures");
        write(
            &fixtures.join("broken/expect.yaml"),
            "base: perfect\ndelete: [out/y.txt]\nfailingSteps: [2]\n",
        );
        write(&fixtures.join("broken/out/x.txt"), "wrong\n");
        write(
            &fixtures.join("worse/expect.yaml"),
            "base: broken\nfailingSteps: [1, 2]\n",
        );
        write(&fixtures.join("worse/a.sh"), "exit 1\n");

        let into = root.path().join("made");
        materialize(&fixtures.join("worse"), &bundled, &into).unwrap();
        assert_eq!(
            std::fs::read_to_string(into.join("a.sh")).unwrap(),
            "exit 1\n"
        );
        assert_eq!(
            std::fs::read_to_string(into.join("out/x.txt")).unwrap(),
            "wrong\n"
        );
        assert!(!into.join("out/y.txt").exists());
        assert_eq!(
            std::fs::read_to_string(into.join("expect.yaml")).unwrap(),
            "base: broken\nfailingSteps: [1, 2]\n"
        );
        let broken = root.path().join("broken-made");
        materialize(&fixtures.join("broken"), &bundled, &broken).unwrap();
        // The base's bytes and mode bits come through.
        let mode = std::fs::metadata(broken.join("a.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
        assert!(problems(&fixtures.join("broken"), &bundled).is_empty());
    }

    #[test]
    fn lint_finds_unknown_bases_missing_deletions_cycles_and_copies() {
        let root = tempfile::tempdir().unwrap();
        let bundled = root.path().join("bundled");
        write(&bundled.join("perfect/expect.yaml"), "score: full\n");
        write(&bundled.join("perfect/a.sh"), "echo a\n");
        write(
            &bundled.join("copy/expect.yaml"),
            "base: perfect\nscore: full\n",
        );
        write(&bundled.join("copy/a.sh"), "echo a\n");
        write(
            &bundled.join("nobase/expect.yaml"),
            "base: nothere\nscore: full\n",
        );
        write(
            &bundled.join("gone/expect.yaml"),
            "base: perfect\ndelete: [b.sh]\nscore: full\n",
        );
        write(
            &bundled.join("loop1/expect.yaml"),
            "base: loop2\nscore: full\n",
        );
        write(
            &bundled.join("loop2/expect.yaml"),
            "base: loop1\nscore: full\n",
        );
        let one = |case: &str| problems(&bundled.join(case), &bundled).join("\n");
        assert!(one("copy").contains("a.sh is the same as in its base \"perfect\": remove it"));
        assert!(
            one("nobase").contains("base \"nothere\""),
            "{}",
            one("nobase")
        );
        assert!(
            one("gone").contains("`delete` names b.sh"),
            "{}",
            one("gone")
        );
        assert!(one("loop1").contains("cycle"), "{}", one("loop1"));
        assert!(one("perfect").is_empty());
    }

    #[test]
    fn a_base_with_a_link_is_refused_and_the_target_must_be_new() {
        let root = tempfile::tempdir().unwrap();
        let bundled = root.path().join("bundled");
        write(&bundled.join("perfect/expect.yaml"), "score: full\n");
        std::os::unix::fs::symlink("/etc", bundled.join("perfect/out")).unwrap();
        write(
            &bundled.join("flawed/expect.yaml"),
            "base: perfect\nfailingSteps: [1]\n",
        );
        write(&bundled.join("flawed/out/passwd"), "x\n");
        let err = materialize(&bundled.join("flawed"), &bundled, &root.path().join("made"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("is a symbolic link"), "{err}");
        // The case with the link is nobody's base here: its own tree keeps the link.
        let made = root.path().join("perfect-made");
        materialize(&bundled.join("perfect"), &bundled, &made).unwrap();
        assert!(made.join("out").symlink_metadata().unwrap().is_symlink());
        let again = materialize(&bundled.join("perfect"), &bundled, &made).unwrap_err();
        assert!(again.to_string().contains("exists already"), "{again}");
    }
}
