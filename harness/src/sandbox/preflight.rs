//! Mistakes in a submitted script that the lab's shell would trip over, named before the run so the
//! learner gets a precise hint. The run still happens: the script then fails exactly as
//! `./drv-tag.sh` fails in the lab (bash's 126/127 and message).

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Problems with `program` (relative to `run_dir`), in learner-facing words.
pub(crate) fn check(run_dir: &Path, program: &Path) -> Vec<String> {
    let name = program.display().to_string();
    let path = run_dir.join(program);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(_) => return vec![format!("{name}: no such file in the submission")],
    };
    if meta.is_dir() {
        return vec![format!("{name} is a directory, not a script")];
    }
    // A symlink is judged by its target; a dangling one is missing.
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(_) => {
            return vec![format!(
                "{name}: no such file in the submission (it is a dangling symlink)"
            )]
        }
    };
    let mut problems = Vec::new();
    if meta.permissions().mode() & 0o111 == 0 {
        problems.push(format!(
            "{name} is not executable: the grader runs it as ./{name}, as the lab does (chmod +x {name})"
        ));
    }
    if has_crlf(&path) {
        problems.push(format!(
            "{name} has Windows (CRLF) line endings, so its first line names no interpreter: convert it (dos2unix {name}, or sed -i 's/\\r$//' {name})"
        ));
    }
    problems
}

/// True when the start of the file (64 KiB is plenty for a lab script) has a `\r\n` line ending.
fn has_crlf(path: &Path) -> bool {
    let mut head = Vec::new();
    match std::fs::File::open(path) {
        Ok(file) => {
            if file.take(64 * 1024).read_to_end(&mut head).is_err() {
                return false;
            }
        }
        Err(_) => return false,
    }
    head.windows(2).any(|w| w == b"\r\n")
}
