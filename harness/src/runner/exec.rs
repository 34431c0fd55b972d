//! Running reference shells, replays and learner scripts through the sandbox, off the async
//! runtime (the sandbox API blocks).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cluster::Target;
use crate::sandbox::{self, Cutoff, ExitStatus, Limits, RunOutcome, RunSpec, Trust};
use crate::scenario::model::LimitsSpec;
use crate::scenario::Lab;

/// Reference shells and replays may wait on the cluster (`kubectl drain --timeout=20s`,
/// `kubectl wait`), so they get at least this long whatever the per-script limit is.
const SHELL_MIN_TIMEOUT: Duration = Duration::from_secs(180);

#[derive(Debug, Clone)]
pub struct Exec {
    /// Where run dirs are mapped (the scenario's `labDir`).
    pub map_at: PathBuf,
    pub limits: LimitsSpec,
    pub env: Vec<(String, String)>,
    /// The target's filled kubectl cache, handed to every run (see `sandbox::RunSpec`).
    pub kube_cache_seed: Option<PathBuf>,
    /// What no run may read unless it names it (see `sandbox::RunSpec::hidden`).
    pub hidden: Vec<PathBuf>,
    /// Whose code the runs run: the learner's unless [`Exec::trusted`] says otherwise.
    pub trust: Trust,
    /// The target's API server, which a run may be waiting on (see `sandbox::Awaited`).
    pub awaited: Option<sandbox::Awaited>,
}

/// What no run of `lab` may read: the lab's dir (its reference solution) and the reference cache.
pub fn hidden_paths(lab: &Lab) -> Vec<PathBuf> {
    let mut hidden = vec![lab.dir.clone()];
    hidden.extend(crate::cache_dir::cache_root());
    hidden
}

impl Exec {
    /// Runs of `lab`'s scripts against `target`: its kubeconfig, and its kubectl cache when it has
    /// one. The lab's dir (the reference solution) and the reference cache are hidden.
    pub fn new(lab: &Lab, target: &Target) -> Exec {
        let hidden = hidden_paths(lab);
        Exec {
            map_at: lab.scenario.lab_dir.clone(),
            limits: lab.scenario.limits,
            env: vec![(
                "KUBECONFIG".to_string(),
                target.kubeconfig().display().to_string(),
            )],
            kube_cache_seed: target.kube_cache_seed().map(Path::to_path_buf),
            hidden,
            trust: Trust::Learner,
            awaited: target.awaited(),
        }
    }

    /// Runs of the scenario author's own code (the reference shells): they run as the grader.
    pub fn trusted(mut self) -> Exec {
        self.trust = Trust::Reference;
        self
    }

    pub fn with_env(mut self, key: &str, value: &str) -> Exec {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    fn limits(&self, at_least: Duration) -> Limits {
        Limits {
            timeout: self.limits.timeout.0.max(at_least),
            output_bytes: usize::try_from(self.limits.output.0).unwrap_or(usize::MAX),
            processes: self.limits.processes,
            memory_bytes: self.limits.memory.0,
        }
    }

    /// A bash snippet with cwd = `run_dir` mapped at the lab dir.
    pub async fn shell(&self, run_dir: &Path, snippet: &str) -> RunOutcome {
        let spec = RunSpec {
            program: PathBuf::new(),
            args: Vec::new(),
            run_dir: run_dir.to_path_buf(),
            map_at: self.map_at.clone(),
            env: self.env.clone(),
            limits: self.limits(SHELL_MIN_TIMEOUT),
            shell: Some(snippet.to_string()),
            kube_cache_seed: self.kube_cache_seed.clone(),
            hidden: self.hidden.clone(),
            cutoff: None,
            awaited: self.awaited.clone(),
            trust: self.trust,
            stdin: None,
        };
        run_blocking(spec).await
    }

    /// A script of the run dir (`program` relative to it) with `args`.
    pub async fn script(&self, run_dir: &Path, program: &Path, args: &[String]) -> RunOutcome {
        self.script_until(run_dir, program, args, None).await
    }

    /// [`Exec::script`], stopped earlier if `cutoff` is set while it runs.
    pub async fn script_until(
        &self,
        run_dir: &Path,
        program: &Path,
        args: &[String],
        cutoff: Option<Cutoff>,
    ) -> RunOutcome {
        let spec = RunSpec {
            program: program.to_path_buf(),
            args: args.to_vec(),
            run_dir: run_dir.to_path_buf(),
            map_at: self.map_at.clone(),
            env: self.env.clone(),
            limits: self.limits(Duration::ZERO),
            shell: None,
            kube_cache_seed: self.kube_cache_seed.clone(),
            hidden: self.hidden.clone(),
            cutoff,
            awaited: self.awaited.clone(),
            trust: self.trust,
            stdin: None,
        };
        run_blocking(spec).await
    }
}

async fn run_blocking(spec: RunSpec) -> RunOutcome {
    match tokio::task::spawn_blocking(move || sandbox::run(&spec)).await {
        Ok(outcome) => outcome,
        Err(error) => RunOutcome {
            stdout: Vec::new(),
            stderr: Vec::new(),
            exit: ExitStatus::SpawnError(format!("the sandbox task failed: {error}")),
            problems: Vec::new(),
            isolation: "none",
            duration: Duration::ZERO,
            cpu: Duration::ZERO,
        },
    }
}

/// `exit 1`, `killed by signal 9`, `timed out` ...
pub fn describe_exit(exit: &ExitStatus) -> String {
    match exit {
        ExitStatus::Code(code) => format!("exit {code}"),
        ExitStatus::Signal(signal) => format!("killed by signal {signal}"),
        ExitStatus::TimedOut => "timed out".to_string(),
        ExitStatus::OutputLimit => "stopped: output limit exceeded".to_string(),
        ExitStatus::SpawnError(error) => format!("could not start: {error}"),
    }
}

pub fn succeeded(outcome: &RunOutcome) -> bool {
    matches!(outcome.exit, ExitStatus::Code(0))
}

/// How much of a shell's output an error message quotes: its end, where the failure usually is.
const TRANSCRIPT_LINES: usize = 20;
const TRANSCRIPT_LINE_CHARS: usize = 200;

/// Stdout and stderr of a shell, trimmed to their last lines, for log and error messages.
pub fn transcript(outcome: &RunOutcome) -> String {
    let mut text = String::from_utf8_lossy(&outcome.stdout)
        .trim_end()
        .to_string();
    let stderr = String::from_utf8_lossy(&outcome.stderr);
    if !stderr.trim().is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(stderr.trim_end());
    }
    tail(&text)
}

/// The last [`TRANSCRIPT_LINES`] lines of `text`, each cut at [`TRANSCRIPT_LINE_CHARS`].
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let skipped = lines.len().saturating_sub(TRANSCRIPT_LINES);
    let mut out = String::new();
    if skipped > 0 {
        out.push_str(&format!("[… {skipped} earlier lines]\n"));
    }
    for (i, line) in lines[skipped..].iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match line.char_indices().nth(TRANSCRIPT_LINE_CHARS) {
            Some((cut, _)) => {
                out.push_str(&line[..cut]);
                out.push_str(" […]");
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::tail;

    #[test]
    fn transcripts_keep_the_end_and_cut_long_lines() {
        let many: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        let kept = tail(&many);
        assert!(
            kept.starts_with("[… 10 earlier lines]\nline 11\n"),
            "{kept}"
        );
        assert!(kept.ends_with("line 30"), "{kept}");
        let long = "x".repeat(5000);
        assert_eq!(tail(&long), format!("{} […]", "x".repeat(200)));
        assert_eq!(tail("short"), "short");
    }
}
