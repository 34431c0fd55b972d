//! Who runs what `kubectl exec` runs on the embedded cluster: the sandbox, as a learner's code
//! (see [`crate::sandbox`]), never the grader. kwok would run it as itself on its host; the
//! grader runs the embedded cluster in its own process, as root, beside the reference and the
//! other learners' files. The command is looked up where kwok looks it up (the lab's declared
//! commands first, then the system's) and runs in a fresh directory with the target's variables.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use kwok::debugging::exec::{look_path, startable, Ended, ExecCall, ExecOutput};

use crate::sandbox::{self, ExitStatus, Limits, RunSpec, Trust};

/// An exec is a command, not a lab step: a tenth of a step's time is plenty, and a learner's
/// script that waits on it still ends within its own limit.
const EXEC_TIMEOUT: Duration = Duration::from_secs(30);

/// How many commands of one cluster run at once. A command's processes are not the learner's
/// script's (the API server started them), so the script's own process limit does not bound
/// them: a script that starts a hundred `kubectl exec` at once has them run a few at a time.
const AT_ONCE: usize = 4;

/// Runs exec commands in the sandbox.
#[derive(Debug, Clone)]
pub struct SandboxedExec {
    /// The `PATH` a command is found on: the declared commands, then the standard directories.
    path: String,
    /// What the command must not see (the lab's reference, the reference cache).
    hidden: Vec<PathBuf>,
    /// Directories of what the lab declares that a command reads (the port replies).
    declared_data: Vec<PathBuf>,
    /// The commands running now (see [`AT_ONCE`]).
    running: Arc<(Mutex<usize>, Condvar)>,
}

impl SandboxedExec {
    pub fn new(declared: Option<PathBuf>, hidden: Vec<PathBuf>) -> SandboxedExec {
        let mut dirs: Vec<PathBuf> = declared.into_iter().collect();
        dirs.extend(sandbox::STANDARD_PATH.iter().map(PathBuf::from));
        let path = std::env::join_paths(dirs)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        SandboxedExec {
            path,
            hidden,
            declared_data: Vec::new(),
            running: Arc::default(),
        }
    }

    /// Keeps `dir` readable to every command (the sandbox keeps what the environment names).
    pub fn reading(mut self, dir: PathBuf) -> SandboxedExec {
        self.declared_data.push(dir);
        self
    }

    /// Waits for a turn among [`AT_ONCE`]; the turn ends when the guard drops.
    fn turn(&self) -> Turn<'_> {
        let (count, freed) = &*self.running;
        let mut running = count.lock().unwrap_or_else(|e| e.into_inner());
        while *running >= AT_ONCE {
            running = freed.wait(running).unwrap_or_else(|e| e.into_inner());
        }
        *running += 1;
        Turn(&self.running)
    }
}

struct Turn<'a>(&'a (Mutex<usize>, Condvar));

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let (count, freed) = self.0;
        let mut running = count.lock().unwrap_or_else(|e| e.into_inner());
        *running = running.saturating_sub(1);
        freed.notify_one();
    }
}

impl kwok::debugging::ExecRunner for SandboxedExec {
    fn run(&self, call: &ExecCall) -> ExecOutput {
        let not_started = |why: String| ExecOutput {
            stdout: Vec::new(),
            stderr: Vec::new(),
            ended: Ended::NotStarted(why),
        };
        let Some((name, args)) = call.command.split_first() else {
            return not_started("no command".into());
        };
        let program = match look_path(name, Some(self.path.as_ref())) {
            Ok(program) => program,
            Err(why) => return not_started(why),
        };
        // Started as kwok starts it: a path that cannot run is an error before anything runs
        // (the sandbox sees the host's system directories where the host has them).
        if let Err(why) = startable(&program) {
            return not_started(why);
        }
        let run_dir = match tempfile::Builder::new()
            .prefix("proctor-exec-run-")
            .tempdir()
        {
            Ok(dir) => dir,
            Err(e) => return not_started(format!("creating the command's directory: {e}")),
        };
        let mut snippet = String::from("exec ");
        snippet.push_str(&shell_quoted(&program.display().to_string()));
        for arg in args {
            snippet.push(' ');
            snippet.push_str(&shell_quoted(arg));
        }
        let mut env = vec![("PATH".to_string(), self.path.clone())];
        if let Ok(dirs) = std::env::join_paths(&self.declared_data) {
            if !self.declared_data.is_empty() {
                env.push((
                    "PROCTOR_DECLARED_DATA".to_string(),
                    dirs.to_string_lossy().into_owned(),
                ));
            }
        }
        env.extend(call.env.iter().cloned());
        let spec = RunSpec {
            program: PathBuf::new(),
            args: Vec::new(),
            // Placed beside its directory, at a path of its own: without namespaces the run is
            // linked there, and that path must not exist yet.
            map_at: run_dir.path().with_extension("work"),
            run_dir: run_dir.path().to_path_buf(),
            env,
            limits: Limits {
                timeout: EXEC_TIMEOUT,
                ..Limits::default()
            },
            shell: Some(snippet),
            kube_cache_seed: None,
            hidden: self.hidden.clone(),
            cutoff: None,
            awaited: None,
            trust: Trust::Learner,
            stdin: call.stdin.clone(),
        };
        let outcome = {
            let _turn = self.turn();
            sandbox::run(&spec)
        };
        let ended = match outcome.exit {
            ExitStatus::Code(code) => Ended::Exited(code),
            ExitStatus::Signal(signal) => Ended::Signaled(signal),
            // Stopped by the sandbox: killed, as kwok's command would be when its request ends.
            ExitStatus::TimedOut | ExitStatus::OutputLimit => Ended::Signaled(9),
            ExitStatus::SpawnError(why) => Ended::NotStarted(why),
        };
        ExecOutput {
            stdout: outcome.stdout,
            stderr: outcome.stderr,
            ended,
        }
    }
}

/// `s` as one word of a POSIX shell.
fn shell_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kwok::debugging::ExecRunner;

    fn call(command: &[&str]) -> ExecCall {
        ExecCall {
            command: command.iter().map(|s| s.to_string()).collect(),
            work_dir: PathBuf::new(),
            env: vec![("GREETING".into(), "it's me".into())],
            run_as: (None, None),
            stdin: None,
        }
    }

    /// The command runs as a learner's code (never root), sees its variables and its input, and
    /// cannot see what is hidden.
    #[test]
    fn a_command_runs_sandboxed_with_its_variables_and_input() {
        let secret = tempfile::tempdir().expect("dir");
        std::fs::write(secret.path().join("answer"), "42").expect("file");
        let runner = SandboxedExec::new(None, vec![secret.path().to_path_buf()]);
        let mut c = call(&[
            "sh",
            "-c",
            "echo \"$GREETING\"; cat; id -u; cat \"$1\" 2>/dev/null || echo hidden",
            "sh",
            &secret.path().join("answer").display().to_string(),
        ]);
        c.stdin = Some(b"input\n".to_vec());
        let out = runner.run(&c);
        assert_eq!(out.ended, Ended::Exited(0), "{out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines[..2], ["it's me", "input"], "{stdout}");
        if nix::unistd::geteuid().is_root() {
            assert_ne!(lines[2], "0", "a learner's command never runs as root");
        }
        if sandbox::isolation_available() != "none" {
            assert_eq!(lines[3], "hidden", "{stdout}");
        }
    }

    /// Commands past the bound wait for a turn; all of them run.
    #[test]
    fn commands_take_turns() {
        let runner = SandboxedExec::new(None, Vec::new());
        let peak = Arc::new(Mutex::new((0usize, 0usize)));
        let threads: Vec<_> = (0..AT_ONCE * 2)
            .map(|_| {
                let (runner, peak) = (runner.clone(), peak.clone());
                std::thread::spawn(move || {
                    let _turn = runner.turn();
                    {
                        let mut p = peak.lock().expect("peak");
                        p.0 += 1;
                        p.1 = p.1.max(p.0);
                    }
                    std::thread::sleep(Duration::from_millis(20));
                    peak.lock().expect("peak").0 -= 1;
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
        let (now, most) = *peak.lock().expect("peak");
        assert_eq!(now, 0);
        assert!(most <= AT_ONCE, "{most} at once");
    }

    #[test]
    fn a_missing_command_is_not_started_as_kwok_says() {
        let runner = SandboxedExec::new(None, Vec::new());
        let out = runner.run(&call(&["nosuchcmd", "x"]));
        assert_eq!(
            out.ended,
            Ended::NotStarted(r#"exec: "nosuchcmd": executable file not found in $PATH"#.into())
        );
        let out = runner.run(&call(&["/nonexistent/tool"]));
        assert_eq!(
            out.ended,
            Ended::NotStarted("fork/exec /nonexistent/tool: no such file or directory".into())
        );
        let dir = tempfile::tempdir().expect("dir");
        let plain = dir.path().join("notes.txt");
        std::fs::write(&plain, "not a program").expect("file");
        let out = runner.run(&call(&[&plain.display().to_string()]));
        assert_eq!(
            out.ended,
            Ended::NotStarted(format!("fork/exec {}: permission denied", plain.display()))
        );
        let out = runner.run(&call(&["sh", "-c", "exit 4"]));
        assert_eq!(out.ended, Ended::Exited(4));
    }
}
