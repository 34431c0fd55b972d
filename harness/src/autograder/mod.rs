//! A Gradescope autograder for one lab, in the layout Gradescope documents for an autograder
//! zip: `setup.sh` and `run_autograder` at the top (Gradescope unpacks the zip to
//! `/autograder/source`, runs `setup.sh` once while building the image, and `run_autograder` for
//! each submission, which it places in `/autograder/submission` and whose grade it reads from
//! `/autograder/results/results.json`). Beside them: `bin/proctor` and `bin/kubectl` (the image
//! gets nothing else from outside but jq and bubblewrap from its package manager) and
//! `scenarios/<lab>/` without its bundled submissions.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use zip::write::SimpleFileOptions;

use crate::scenario::Lab;

const SETUP: &str = include_str!("setup.sh");
const RUN: &str = include_str!("run_autograder");
const TOOLS: &str = include_str!("tools.sh");

/// What goes into the bundle.
pub struct Bundle<'a> {
    pub lab: &'a Lab,
    /// The proctor binary to ship (it must run on Gradescope's image).
    pub proctor: PathBuf,
    /// The kubectl binary to ship.
    pub kubectl: PathBuf,
    /// When Gradescope shows a hidden check to its learner.
    pub hidden: HiddenChecks,
}

/// Gradescope's test visibilities a hidden check may take. Any of them hides the submission's
/// total score from its learner until the instructor publishes grades (Gradescope shows a total
/// only when every test is visible).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HiddenChecks {
    /// Shown once the instructor publishes grades: the learner sees what they lost points for.
    AfterPublished,
    /// Shown after the assignment's due date, published or not.
    AfterDueDate,
    /// Never shown to the learner, only to the course staff.
    Hidden,
}

impl HiddenChecks {
    fn gradescope(self) -> &'static str {
        match self {
            HiddenChecks::AfterPublished => "after_published",
            HiddenChecks::AfterDueDate => "after_due_date",
            HiddenChecks::Hidden => "hidden",
        }
    }
}

/// A shell word: `s` single-quoted.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The proctor binary without its debug information (the release build keeps line tables for
/// backtraces: 5x the size, and every autograder build uploads it), when binutils' `strip` is
/// at hand; as it is otherwise.
fn shipped_proctor(path: &Path) -> anyhow::Result<Vec<u8>> {
    let Some(strip) = crate::sandbox::on_path("strip") else {
        tracing::warn!("strip is not on PATH: bin/proctor is shipped with its debug information");
        return std::fs::read(path).with_context(|| format!("reading {}", path.display()));
    };
    let dir = tempfile::tempdir().context("a temporary directory")?;
    let out = dir.path().join("proctor");
    let status = std::process::Command::new(strip)
        .arg("--strip-debug")
        .arg("-o")
        .arg(&out)
        .arg(path)
        .status()
        .context("running strip")?;
    if !status.success() {
        bail!("strip --strip-debug {} failed ({status})", path.display());
    }
    std::fs::read(&out).with_context(|| format!("reading {}", out.display()))
}

/// The bundle's files: path in the zip, executable or not, and bytes.
fn files(bundle: &Bundle<'_>) -> anyhow::Result<Vec<(String, bool, Vec<u8>)>> {
    let name = bundle.lab.name();
    let names: Vec<String> = bundle
        .lab
        .top_level_names()
        .iter()
        .map(|n| quoted(n))
        .collect();
    let script = |text: &str| {
        text.replace("@LAB@", name)
            .replace("@HIDDEN@", bundle.hidden.gradescope())
            .replace("@NAMES@", &names.join(" "))
            .into_bytes()
    };
    let mut files = vec![
        ("setup.sh".to_string(), true, script(SETUP)),
        ("run_autograder".to_string(), true, script(RUN)),
        ("tools.sh".to_string(), false, script(TOOLS)),
    ];
    files.push((
        "bin/proctor".into(),
        true,
        shipped_proctor(&bundle.proctor)?,
    ));
    let kubectl = std::fs::read(&bundle.kubectl)
        .with_context(|| format!("reading {}", bundle.kubectl.display()))?;
    files.push(("bin/kubectl".into(), true, kubectl));
    let root = &bundle.lab.dir;
    let prefix = format!("scenarios/{name}");
    let mut seen = std::collections::HashSet::new();
    add_tree(root, Path::new(""), &prefix, &mut seen, &mut files)?;
    Ok(files)
}

/// The lab's folder, but its bundled submissions (course material, not the autograder's).
fn add_tree(
    root: &Path,
    rel: &Path,
    prefix: &str,
    seen: &mut std::collections::HashSet<PathBuf>,
    files: &mut Vec<(String, bool, Vec<u8>)>,
) -> anyhow::Result<()> {
    let dir = root.join(rel);
    // A link back up the tree would recurse for ever.
    let canonical = dir
        .canonicalize()
        .with_context(|| format!("reading {}", dir.display()))?;
    if !seen.insert(canonical) {
        bail!("{} links back into the lab's folder", dir.display());
    }
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("reading {}", dir.display()))?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let rel = rel.join(entry.file_name());
        if rel == Path::new("submissions") {
            continue;
        }
        let path = entry.path();
        // Followed: a scenario's files are the author's, and Gradescope keeps no links.
        let meta =
            std::fs::metadata(&path).with_context(|| format!("reading {}", path.display()))?;
        if meta.is_dir() {
            add_tree(root, &rel, prefix, seen, files)?;
        } else {
            use std::os::unix::fs::PermissionsExt;
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            let executable = meta.permissions().mode() & 0o111 != 0;
            files.push((format!("{prefix}/{}", rel.display()), executable, bytes));
        }
    }
    Ok(())
}

/// Writes the autograder zip to `out`.
pub fn write(bundle: &Bundle<'_>, out: &Path) -> anyhow::Result<()> {
    if bundle.lab.name().contains(['/', '"', '$', '`', '\\']) {
        bail!(
            "lab name {:?} cannot be put in a shell script",
            bundle.lab.name()
        );
    }
    let files = files(bundle)?;
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let file = std::fs::File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    for (path, executable, bytes) in files {
        let mode = if executable { 0o755 } else { 0o644 };
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(mode)
            .large_file(bytes.len() as u64 >= u32::MAX as u64);
        zip.start_file(path.as_str(), options)
            .with_context(|| format!("adding {path} to {}", out.display()))?;
        zip.write_all(&bytes)
            .with_context(|| format!("adding {path} to {}", out.display()))?;
    }
    zip.finish()
        .with_context(|| format!("writing {}", out.display()))?;
    Ok(())
}
