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
    } else if let Some(missing) = missing_interpreter(&path) {
        problems.push(format!(
            "{name} starts with #!{missing}, which this machine does not have, so it cannot \
             start: name one that exists (#!/bin/bash, or #!/usr/bin/env bash)"
        ));
    }
    problems
}

/// The interpreter `path`'s `#!` line names when it does not exist (`#!/bin/zsh` on a machine
/// without zsh, `#!/usr/bin/env pyhton3`): what the kernel then refuses to start.
fn missing_interpreter(path: &Path) -> Option<String> {
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(256)
        .read_to_end(&mut head)
        .ok()?;
    let line = head.strip_prefix(b"#!")?;
    let line = String::from_utf8_lossy(line.split(|b| *b == b'\n').next()?).into_owned();
    let mut words = line.split_whitespace();
    let interpreter = words.next()?;
    if !Path::new(interpreter).is_file() {
        return Some(line.trim().to_string());
    }
    // `#!/usr/bin/env NAME`: NAME must be found on the PATH the runs get.
    if Path::new(interpreter)
        .file_name()
        .is_some_and(|n| n == "env")
    {
        let program = words.find(|word| !word.starts_with('-'))?;
        let on_path = ["/usr/local/bin", "/usr/bin", "/bin"]
            .iter()
            .any(|dir| Path::new(dir).join(program).is_file());
        if !on_path && !program.contains('/') {
            return Some(line.trim().to_string());
        }
    }
    None
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn script(dir: &Path, name: &str, text: &str) {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[test]
    fn an_interpreter_the_machine_lacks_is_named() {
        let dir = tempfile::tempdir().expect("tmp");
        script(dir.path(), "ok.sh", "#!/bin/bash\necho hi\n");
        script(dir.path(), "env.sh", "#!/usr/bin/env bash\necho hi\n");
        script(dir.path(), "none.sh", "echo hi\n");
        script(dir.path(), "zsh.sh", "#!/bin/no-such-shell -e\necho hi\n");
        script(dir.path(), "typo.sh", "#!/usr/bin/env bsah\necho hi\n");
        for fine in ["ok.sh", "env.sh", "none.sh"] {
            assert!(check(dir.path(), Path::new(fine)).is_empty(), "{fine}");
        }
        assert_eq!(
            check(dir.path(), Path::new("zsh.sh")),
            ["zsh.sh starts with #!/bin/no-such-shell -e, which this machine does not have, so it cannot start: name one that exists (#!/bin/bash, or #!/usr/bin/env bash)"]
        );
        assert!(check(dir.path(), Path::new("typo.sh"))[0]
            .starts_with("typo.sh starts with #!/usr/bin/env bsah,"));
        // CRLF says it all: the interpreter's name then ends in a carriage return.
        script(dir.path(), "crlf.sh", "#!/bin/bash\r\necho hi\r\n");
        let crlf = check(dir.path(), Path::new("crlf.sh"));
        assert_eq!(crlf.len(), 1);
        assert!(crlf[0].contains("CRLF"));
    }
}
