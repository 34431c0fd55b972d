//! A command run in a fake node's container (`kubectl exec`), as kwok's `ExecInContainer` runs
//! it: on the host, where the pod's `Exec` or `ClusterExec` target says, with its variables added
//! to the server's own. Who runs it is the embedder's choice ([`ExecRunner`]): kwok's way is
//! [`LocalRunner`]; a grader gives a runner that keeps the command away from its own files.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::config::ExecTargetLocal;

/// One command to run, from an exec request and its target.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecCall {
    /// The command and its arguments; never empty.
    pub command: Vec<String>,
    /// The target's working directory; empty for the server's own.
    pub work_dir: PathBuf,
    /// Added to the server's environment (kwok's `WithEnv`).
    pub env: Vec<(String, String)>,
    /// The user and group the target names.
    pub run_as: (Option<i64>, Option<i64>),
    /// What the client sent on stdin, when it asked to send any.
    pub stdin: Option<Vec<u8>>,
}

impl ExecCall {
    pub fn new(command: Vec<String>, local: &ExecTargetLocal, stdin: Option<Vec<u8>>) -> Self {
        let run_as = local
            .security_context
            .as_ref()
            .map(|s| (s.run_as_user, s.run_as_group))
            .unwrap_or_default();
        ExecCall {
            command,
            work_dir: PathBuf::from(&local.work_dir),
            env: local
                .envs
                .iter()
                .map(|e| (e.name.clone(), e.value.clone()))
                .collect(),
            run_as,
            stdin,
        }
    }

    /// The command as kwok's errors show it: `name args...` (a space even when there are none).
    pub fn shown(&self) -> String {
        let (name, args) = self
            .command
            .split_first()
            .map_or(("", &[][..]), |(n, a)| (n, a));
        format!("{name} {}", args.join(" "))
    }
}

/// What a command did.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecOutput {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub ended: Ended,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Ended {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal.
    Signaled(i32),
    /// Could not start; the text is Go's `exec` error (`exec: "x": executable file not found in
    /// $PATH`).
    NotStarted(String),
}

impl ExecOutput {
    /// kwok's `exec.Command` error for a command that did not succeed: `cmd start: …` or
    /// `cmd wait: …: exit status N`, the latter followed by the command's stderr when the client
    /// did not ask for it (kwok buffered it).
    pub fn error(&self, call: &ExecCall, stderr_streamed: bool) -> Option<String> {
        let waited = |status: String| {
            let mut text = format!("cmd wait: {}: {status}", call.shown());
            if !stderr_streamed {
                text.push('\n');
                text.push_str(&String::from_utf8_lossy(&self.stderr));
            }
            text
        };
        match &self.ended {
            Ended::Exited(0) => None,
            Ended::Exited(code) => Some(waited(format!("exit status {code}"))),
            Ended::Signaled(signal) => Some(waited(format!("signal: {}", signal_name(*signal)))),
            Ended::NotStarted(why) => Some(format!("cmd start: {}: {why}", call.shown())),
        }
    }
}

/// Go's `syscall.Signal.String` for the signals a command is usually ended by.
fn signal_name(signal: i32) -> String {
    match signal {
        1 => "hangup".into(),
        2 => "interrupt".into(),
        6 => "aborted".into(),
        9 => "killed".into(),
        11 => "segmentation fault".into(),
        13 => "broken pipe".into(),
        15 => "terminated".into(),
        n => format!("signal {n}"),
    }
}

/// Runs exec commands for the embedded cluster. Called on a blocking thread; the whole output is
/// returned at once.
pub trait ExecRunner: std::fmt::Debug + Send + Sync + 'static {
    fn run(&self, call: &ExecCall) -> ExecOutput;
}

/// kwok's own way: a process of the server's user on the server's host.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalRunner;

impl ExecRunner for LocalRunner {
    fn run(&self, call: &ExecCall) -> ExecOutput {
        let not_started = |why: String| ExecOutput {
            stdout: Vec::new(),
            stderr: Vec::new(),
            ended: Ended::NotStarted(why),
        };
        let Some(name) = call.command.first() else {
            return not_started("no command".into());
        };
        let path = match look_path(name, std::env::var_os("PATH").as_deref()) {
            Ok(path) => path,
            Err(why) => return not_started(why),
        };
        let mut command = Command::new(&path);
        command
            .args(&call.command[1..])
            .envs(call.env.iter().map(|(k, v)| (k, v)))
            .stdin(if call.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if !call.work_dir.as_os_str().is_empty() {
            command.current_dir(&call.work_dir);
        }
        {
            use std::os::unix::process::CommandExt;
            if let Some(uid) = call.run_as.0.and_then(|u| u32::try_from(u).ok()) {
                command.uid(uid);
            }
            if let Some(gid) = call.run_as.1.and_then(|g| u32::try_from(g).ok()) {
                command.gid(gid);
            }
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => return not_started(spawn_error(&path, &call.work_dir, &e)),
        };
        if let (Some(mut pipe), Some(input)) = (child.stdin.take(), call.stdin.clone()) {
            // Written beside the reads, so a command that answers before reading all its input
            // cannot block on a full pipe.
            std::thread::spawn(move || {
                let _ = pipe.write_all(&input);
            });
        }
        match child.wait_with_output() {
            Ok(output) => ExecOutput {
                stdout: output.stdout,
                stderr: output.stderr,
                ended: ended_by(output.status),
            },
            Err(e) => not_started(e.to_string()),
        }
    }
}

/// How a process's status reads as [`Ended`].
pub fn ended_by(status: std::process::ExitStatus) -> Ended {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Ended::Exited(code),
        (None, Some(signal)) => Ended::Signaled(signal),
        (None, None) => Ended::Exited(-1),
    }
}

/// Go's `exec.LookPath` against the server's own `PATH` (as `exec.Command` looks a name up
/// before the target's variables apply), with its error texts.
pub fn look_path(name: &str, path: Option<&std::ffi::OsStr>) -> Result<PathBuf, String> {
    let quoted = crate::error::go_quote(name);
    if name.contains('/') {
        return Ok(PathBuf::from(name));
    }
    if name.is_empty() {
        return Err(format!(
            "exec: {quoted}: executable file not found in $PATH"
        ));
    }
    let dirs = path.map(std::env::split_paths).into_iter().flatten();
    for dir in dirs {
        // An empty or relative entry would find the name in the working directory, which Go
        // refuses (`ErrDot`); kwok's PATH has none, and neither is looked in here.
        if !dir.is_absolute() {
            continue;
        }
        let candidate = dir.join(name);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(format!(
        "exec: {quoted}: executable file not found in $PATH"
    ))
}

/// Whether a command named by its path (`/opt/tool`) can start, with Go's `fork/exec` error when
/// it cannot: the file must exist and be an executable file.
pub fn startable(path: &Path) -> Result<(), String> {
    match std::fs::metadata(path) {
        Err(e) => Err(spawn_error(path, Path::new(""), &e)),
        Ok(_) if is_executable(path) => Ok(()),
        Ok(_) => Err(format!("fork/exec {}: permission denied", path.display())),
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Go's `os/exec` start errors: `chdir DIR: …` for a missing working directory, `fork/exec
/// PATH: …` otherwise, with the `syscall.Errno` texts.
fn spawn_error(path: &Path, work_dir: &Path, e: &std::io::Error) -> String {
    let errno = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory",
        std::io::ErrorKind::PermissionDenied => "permission denied",
        _ => return format!("fork/exec {}: {e}", path.display()),
    };
    if !work_dir.as_os_str().is_empty() && !work_dir.is_dir() {
        return format!("chdir {}: {errno}", work_dir.display());
    }
    format!("fork/exec {}: {errno}", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(command: &[&str], work_dir: &str) -> ExecCall {
        ExecCall {
            command: command.iter().map(|s| s.to_string()).collect(),
            work_dir: PathBuf::from(work_dir),
            env: vec![("GREETING".into(), "hello".into())],
            run_as: (None, None),
            stdin: None,
        }
    }

    /// The texts kwok v0.7.0 answered on a kwokctl cluster (`kubectl exec p -- …`).
    #[test]
    fn errors_read_as_kwoks() {
        let dir = tempfile::tempdir().expect("dir");
        let work_dir = dir.path().display().to_string();
        let failing = call(&["sh", "-c", "echo err >&2; exit 3"], &work_dir);
        let out = LocalRunner.run(&failing);
        assert_eq!(out.ended, Ended::Exited(3));
        assert_eq!(
            out.error(&failing, true).as_deref(),
            Some("cmd wait: sh -c echo err >&2; exit 3: exit status 3")
        );
        assert_eq!(
            out.error(&failing, false).as_deref(),
            Some("cmd wait: sh -c echo err >&2; exit 3: exit status 3\nerr\n")
        );
        let missing = call(&["nosuchcmd"], &work_dir);
        assert_eq!(
            LocalRunner.run(&missing).error(&missing, true).as_deref(),
            Some(r#"cmd start: nosuchcmd : exec: "nosuchcmd": executable file not found in $PATH"#)
        );
        let nowhere = call(&["true"], "/nonexistent-dir");
        assert_eq!(
            LocalRunner.run(&nowhere).error(&nowhere, true).as_deref(),
            Some("cmd start: true : chdir /nonexistent-dir: no such file or directory")
        );
    }

    #[test]
    fn a_command_runs_in_its_directory_with_its_variables_and_input() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join("a.txt"), "in the work dir\n").expect("file");
        let mut c = call(
            &["sh", "-c", "cat a.txt; echo $GREETING; cat; pwd"],
            &dir.path().display().to_string(),
        );
        c.stdin = Some(b"from stdin\n".to_vec());
        let out = LocalRunner.run(&c);
        assert_eq!(out.ended, Ended::Exited(0));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!(
                "in the work dir\nhello\nfrom stdin\n{}\n",
                dir.path().canonicalize().expect("dir").display()
            )
        );
        assert_eq!(out.error(&c, true), None);
    }
}
