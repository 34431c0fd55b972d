//! Helpers shared by the commands: loading labs, starting clusters, writing reports.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cli::OutputArgs;
use crate::cluster::{ClusterKind, Target};
use crate::report::{self, ColorChoice, Progress, Report, Silent, StderrProgress, Style};
use crate::runner::{prepare_cluster, starting_setup};
use crate::scenario::{Lab, Runtime};

/// How a command ended; `main` maps it to the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every check passed (exit 0).
    Passed,
    /// A check failed (exit 1).
    Failed,
    /// Stopped by Ctrl-C / SIGTERM after cleaning up (exit 130).
    Interrupted,
}

impl Verdict {
    pub fn from_passed(passed: bool) -> Verdict {
        if passed {
            Verdict::Passed
        } else {
            Verdict::Failed
        }
    }
}

#[derive(Debug, Clone)]
pub struct Globals {
    pub color: ColorChoice,
    pub scenarios: Option<PathBuf>,
    pub cluster: ClusterKind,
    pub accept_unisolated: bool,
}

impl Globals {
    /// Before a grading runs anything of a learner's: the isolation their scripts will get, or
    /// the reason grading must not start here (exit 2, naming the fix).
    pub fn grading_isolation(&self) -> anyhow::Result<&'static str> {
        crate::sandbox::grading_isolation(self.accept_unisolated).map_err(anyhow::Error::msg)
    }

    /// The runtime of the clusters `--cluster` starts.
    pub fn runtime(&self) -> Runtime {
        match self.cluster {
            ClusterKind::Embedded => Runtime::Embedded,
            ClusterKind::Kwokctl => Runtime::Kwokctl,
        }
    }

    /// The lab `name`, to run on the cluster `--cluster` starts; see [`Globals::lab_on`].
    pub fn lab(&self, name: &str) -> anyhow::Result<Lab> {
        self.lab_on(name, None)
    }

    /// The lab `name`, to run on the cluster of `kubeconfig` if given, else on the one
    /// `--cluster` starts: refused if the lab is not written for it (`runtimes:`), or on kwokctl
    /// if it sets a fault only the embedded cluster can realise (`proctor lint --cluster kwokctl`
    /// lists the same as problems).
    pub fn lab_on(&self, name: &str, kubeconfig: Option<&Path>) -> anyhow::Result<Lab> {
        let lab = Lab::find(name, self.scenarios.as_deref())?;
        let runtime = match kubeconfig {
            Some(_) => Runtime::Kubeconfig,
            None => self.runtime(),
        };
        if let Some(refusal) = lab.scenario.refuses(runtime) {
            anyhow::bail!(refusal);
        }
        let cluster = &lab.scenario.cluster;
        let declared = [
            (!cluster.logs.is_empty()).then_some(("container logs", "cluster.logs", "logs")),
            (!cluster.exec.is_empty()).then_some((
                "container commands",
                "cluster.exec",
                "commands",
            )),
            (!cluster.port_forward.is_empty()).then_some((
                "what pods' ports answer",
                "cluster.portForward",
                "port forwards",
            )),
            (!cluster.usage.is_empty()).then_some((
                "what containers use",
                "cluster.usage",
                "metrics",
            )),
        ];
        if let (Runtime::Kubeconfig, Some((what, key, own))) =
            (runtime, declared.into_iter().flatten().next())
        {
            anyhow::bail!(
                "{} declares {what} (`{key}` in its scenario.yaml), which only the clusters \
                 Proctor starts serve (the embedded cluster and --cluster kwokctl); a cluster \
                 reached by --kubeconfig serves its own kubelets' {own}",
                lab.name()
            );
        }
        if runtime == Runtime::Kwokctl {
            let node_wide: Vec<String> = crate::scenario::lint::embedded_only(&lab)
                .iter()
                .map(ToString::to_string)
                .collect();
            if !node_wide.is_empty() {
                anyhow::bail!(
                    "{} sets a fault on a node that kwok on a real control plane cannot realise, \
                     so it would grade differently there:\n{}",
                    lab.name(),
                    node_wide.join("\n")
                );
            }
        }
        Ok(lab)
    }

    pub fn progress(&self, quiet: bool) -> Box<dyn Progress> {
        if quiet {
            Box::new(Silent)
        } else {
            Box::new(StderrProgress {
                style: Style::resolve(self.color, report::style::Stream::Stderr),
            })
        }
    }
}

/// A private cluster (of `--cluster`'s kind) in the lab's starting state; `None` when
/// interrupted first (what was started of the cluster is deleted as it is dropped).
pub async fn private_cluster(globals: &Globals, lab: &Lab) -> anyhow::Result<Option<Target>> {
    let start = async {
        let target = Target::private(globals.cluster, &starting_setup(lab)).await?;
        prepare_cluster(lab, &target).await?;
        anyhow::Ok(target)
    };
    tokio::select! {
        target = start => target.map(Some),
        _ = crate::interrupt::interrupted() => Ok(None),
    }
}

/// Renders the report and writes it to `--output` or stdout (colour only for a terminal).
pub fn emit(report: &Report, output: &OutputArgs, color: ColorChoice) -> anyhow::Result<()> {
    match &output.output {
        Some(file) => {
            let text = report::render(report, output.format, Style::plain());
            write_file(file, &text)
        }
        None => {
            let style = Style::resolve(color, report::style::Stream::Stdout);
            let text = report::render(report, output.format, style);
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .context("writing the report")?;
            stdout.flush().context("writing the report")
        }
    }
}

pub fn write_file(file: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = file
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(file, text).with_context(|| format!("writing {}", file.display()))
}

/// Refuses a cluster `proctor up` started for another lab than `lab` (recorded in its
/// kubeconfig); returns the lab it was started for, if it says.
pub fn refuse_another_labs_cluster(
    kubeconfig: &std::path::Path,
    lab: &crate::scenario::Lab,
) -> anyhow::Result<Option<String>> {
    let started_for = crate::cluster::lab_mark::marked(kubeconfig);
    if let Some(started_for) = &started_for {
        if started_for != lab.name() {
            anyhow::bail!(
                "the cluster of {} was started for lab {started_for} (`proctor up \
                 {started_for}`): use {started_for} there, or start {}'s own cluster",
                kubeconfig.display(),
                lab.name()
            );
        }
    }
    Ok(started_for)
}

/// Where learners' runs see the host's files (`unprivileged-uid`): refuses a lab (it holds
/// the reference solution) or learners' work (`what`, at `learners`) that other users could
/// read. Elsewhere there is nothing to refuse.
pub fn refuse_readable(lab: &Lab, learners: &Path, what: &str) -> anyhow::Result<()> {
    for (path, what) in [
        (lab.dir.as_path(), "the lab with its reference solution"),
        (learners, what),
    ] {
        crate::sandbox::check_private(path, what).map_err(anyhow::Error::msg)?;
    }
    Ok(())
}
