//! `proctor check <lab> [--step N] [--dir D]`: the learner's self-check.

use anyhow::{bail, Context};

use super::common::{emit, Globals, Verdict};
use super::guard::guarded;
use crate::cli::CheckArgs;
use crate::cluster::Target;
use crate::runner::reference::copy_starter;
use crate::runner::shadow::shadow_reference;
use crate::runner::{self_check, CheckOptions};

pub async fn run(globals: &Globals, args: &CheckArgs) -> anyhow::Result<Verdict> {
    let lab = globals.lab(&args.lab)?;
    if let Some(step) = args.step {
        if !lab.scenario.steps.iter().any(|s| s.id == step) {
            bail!(
                "{} has no step {step} (steps 1..{})",
                lab.name(),
                lab.scenario.steps.len()
            );
        }
    }
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| lab.scenario.lab_dir.clone());
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    copy_starter(&lab, &dir, false)?;
    let mut progress = globals.progress(args.output.quiet);
    let live = Target::external(&args.kubeconfig).await?;
    let shadow = tokio::select! {
        shadow = shadow_reference(&lab, globals.cluster, progress.as_mut()) => shadow?,
        _ = super::common::interrupted() => return Ok(Verdict::Interrupted),
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
