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
}

/// The bundle's files: path in the zip, executable or not, and bytes.
fn files(bundle: &Bundle<'_>) -> anyhow::Result<Vec<(String, bool, Vec<u8>)>> {
    let name = bundle.lab.name();
    let script = |text: &str| text.replace("@LAB@", name).into_bytes();
    let mut files = vec![
        ("setup.sh".to_string(), true, script(SETUP)),
        ("run_autograder".to_string(), true, script(RUN)),
        ("tools.sh".to_string(), false, script(TOOLS)),
    ];
    for (path, tool) in [
        ("bin/proctor", &bundle.proctor),
        ("bin/kubectl", &bundle.kubectl),
    ] {
        let bytes = std::fs::read(tool).with_context(|| format!("reading {}", tool.display()))?;
        files.push((path.to_string(), true, bytes));
    }
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
