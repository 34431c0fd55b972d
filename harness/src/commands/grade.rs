//! `proctor grade <lab> --submission DIR`

use anyhow::bail;

use super::common::{emit, private_cluster, Globals, Verdict};
use crate::cli::GradeArgs;
use crate::cluster::guard::guarded;
use crate::cluster::Target;
use crate::runner::reference::shadow::grading_reference;
use crate::runner::{grade, prepare_cluster};

pub async fn run(globals: &Globals, args: &GradeArgs) -> anyhow::Result<Verdict> {
    let submission = match (&args.submission, &args.submissions) {
        (Some(submission), _) => {
            if let Some(flag) = args.batch.given() {
                bail!("{flag} grades a batch: it goes with --submissions DIR, not --submission");
            }
            submission
        }
        (None, Some(dir)) => return super::batch::run(globals, args, dir).await,
        (None, None) => bail!("give --submission DIR or --submissions DIR"),
    };
    globals.grading_isolation()?;
    let lab = globals.lab_on(&args.lab, args.kubeconfig.as_deref())?;
    if !submission.is_dir() {
        bail!("submission {} is not a directory", submission.display());
    }
    super::common::refuse_readable(&lab, submission, "the submission")?;
    crate::runner::flows::preflight::check(&lab).await?;
    let mut progress = globals.progress(args.output.quiet);
    let target = match &args.kubeconfig {
        Some(kubeconfig) => Target::external(kubeconfig).await?,
        None => match private_cluster(globals, &lab).await? {
            Some(target) => target,
            None => return Ok(Verdict::Interrupted),
        },
    };
    let shared = target.is_shared();
    let report = guarded(&target, shared, async {
        if shared {
            prepare_cluster(&lab, &target).await?;
        }
        let reference = grading_reference(&lab, &target, !args.no_cache, progress.as_mut()).await?;
        grade(&lab, &target, &reference, submission, progress.as_mut()).await
    })
    .await;
    target.shutdown().await;
    match report? {
        Some(report) => {
            emit(&report, &args.output, globals.color)?;
            Ok(Verdict::from_passed(report.passed()))
        }
        None => Ok(Verdict::Interrupted),
    }
}
