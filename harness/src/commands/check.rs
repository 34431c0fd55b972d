//! `proctor check <lab> [--step N] [--dir D]`: the learner's self-check.

use anyhow::bail;

use super::common::{emit, refuse_another_labs_cluster, Globals, Verdict};
use crate::cli::CheckArgs;
use crate::cluster::guard::guarded;
use crate::cluster::Target;
use crate::runner::reference::run::copy_starter;
use crate::runner::reference::shadow::shadow_reference;
use crate::runner::{self_check, CheckOptions};

pub async fn run(globals: &Globals, args: &CheckArgs) -> anyhow::Result<Verdict> {
    // The cluster is the learner's own, started by `up`, which held the lab to its runtimes.
    let lab = crate::scenario::Lab::find(&args.lab, globals.scenarios.as_deref())?;
    if let Some(step) = args.step {
        if !lab.scenario.steps.iter().any(|s| s.id == step) {
            bail!(
                "{} has no step {step} (steps 1..{})",
                lab.name(),
                lab.scenario.steps.len()
            );
        }
    }
    let Some(kubeconfig) = &args.kubeconfig else {
        bail!(
            "no cluster to check against: start one with `proctor up {lab} --dir DIR` and \
             export the KUBECONFIG it prints (or pass --kubeconfig)",
            lab = lab.name()
        );
    };
    let started_for = refuse_another_labs_cluster(kubeconfig, &lab)?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| lab.scenario.lab_dir.clone());
    // A mistyped folder is said, not made: made and filled with starter files, it would be
    // graded as work left undone.
    if !dir.is_dir() {
        bail!(
            "the lab folder {} does not exist: pass the folder you work in with --dir (`proctor \
             up {} --dir DIR` makes one with the starter files)",
            dir.display(),
            lab.name()
        );
    }
    copy_starter(&lab, &dir, false)?;
    let mut progress = globals.progress(args.output.quiet);
    let live = match Target::external(kubeconfig).await {
        Ok(live) => live,
        // The kubeconfig `up` left behind when it was killed (a closed terminal).
        Err(error) if started_for.is_some() && refused(&format!("{error:#}")) => {
            bail!(
                "the cluster of {} is not running (its API server refuses connections): run \
                 `proctor up {}` again where you started it (it comes back as you left it) and \
                 export the KUBECONFIG it prints",
                kubeconfig.display(),
                lab.name()
            )
        }
        Err(error) => return Err(error),
    };
    let shadow = tokio::select! {
        shadow = shadow_reference(&lab, globals.cluster, progress.as_mut()) => shadow?,
        _ = crate::interrupt::interrupted() => return Ok(Verdict::Interrupted),
    };
    let options = CheckOptions {
        steps: args.step.into_iter().collect(),
        include_hidden: false,
    };
    // Nothing to restore on the learner's cluster: injected nodes are removed by the checks.
    let report = guarded(
        &live,
        false,
        self_check(&lab, &live, &dir, &shadow, &options, progress.as_mut()),
    )
    .await?;
    match report {
        Some(report) => {
            emit(&report, &args.output, globals.color)?;
            Ok(Verdict::from_passed(report.passed()))
        }
        None => Ok(Verdict::Interrupted),
    }
}

/// Whether kubectl's error says nothing listens at the server's address (`dial tcp …: connect:
/// connection refused`, or kubectl's own `The connection to the server … was refused`).
fn refused(error: &str) -> bool {
    error.contains("connection refused")
        || (error.contains("connection to the server") && error.contains("was refused"))
}
