//! Stand-in with the sandbox API until `src/sandbox/` lands: runs without isolation.
#![allow(dead_code)]

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct Limits {
    pub timeout: Duration,
    pub output_bytes: usize,
    pub processes: u64,
    pub memory_bytes: u64,
}

#[derive(Debug, Clone)]
pub struct RunSpec {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub run_dir: PathBuf,
    pub map_at: PathBuf,
    pub env: Vec<(String, String)>,
    pub limits: Limits,
    pub shell: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExitStatus {
    Code(i32),
    Signal(i32),
    TimedOut,
    OutputLimit,
    SpawnError(String),
}

#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit: ExitStatus,
    pub problems: Vec<String>,
    pub isolation: &'static str,
    pub duration: Duration,
}

pub fn run(spec: &RunSpec) -> RunOutcome {
    let start = Instant::now();
    let mut command = match &spec.shell {
        Some(snippet) => {
            let mut c = Command::new("bash");
            c.arg("-c").arg(snippet);
            c
        }
        None => {
            let mut c = Command::new(spec.run_dir.join(&spec.program));
            c.args(&spec.args);
            c
        }
    };
    command.current_dir(&spec.run_dir).stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::null());
    for (k, v) in &spec.env {
        command.env(k, v);
    }
    let mut problems = Vec::new();
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            problems.push(format!("{}: {e}", spec.program.display()));
            return RunOutcome { stdout: vec![], stderr: vec![], exit: ExitStatus::SpawnError(e.to_string()), problems, isolation: "none", duration: start.elapsed() };
        }
    };
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let t_out = std::thread::spawn(move || { let mut b = Vec::new(); if let Some(o) = out.as_mut() { let _ = o.read_to_end(&mut b); } b });
    let t_err = std::thread::spawn(move || { let mut b = Vec::new(); if let Some(o) = err.as_mut() { let _ = o.read_to_end(&mut b); } b });
    let exit = loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                use std::os::unix::process::ExitStatusExt;
                break match (status.code(), status.signal()) { (Some(c), _) => ExitStatus::Code(c), (_, Some(s)) => ExitStatus::Signal(s), _ => ExitStatus::Code(-1) };
            }
            Ok(None) if start.elapsed() > spec.limits.timeout => { let _ = child.kill(); let _ = child.wait(); break ExitStatus::TimedOut; }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => break ExitStatus::SpawnError(e.to_string()),
        }
    };
    RunOutcome { stdout: t_out.join().unwrap_or_default(), stderr: t_err.join().unwrap_or_default(), exit, problems, isolation: "none", duration: start.elapsed() }
}
