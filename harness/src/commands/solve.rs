//! `proctor solve <lab> --dir D`: the reference solution, written into D and applied to the
//! cluster of `--kubeconfig`/$KUBECONFIG (a private cluster when neither is set).

use super::common::{private_cluster, Globals, Verdict};
use crate::cli::SolveArgs;
use crate::cluster::Target;
use crate::runner::{prepare_cluster, solve_into};

pub async fn run(globals: &Globals, args: &SolveArgs) -> anyhow::Result<Verdict> {
    let lab = globals.lab(&args.lab)?;
    let target = match &args.kubeconfig {
        Some(kubeconfig) => {
            let target = Target::external(kubeconfig).await?;
            prepare_cluster(&lab, &target).await?;
            target
        }
        None => match private_cluster(globals, &lab).await? {
            Some(target) => target,
            None => return Ok(Verdict::Interrupted),
        },
    };
    let result = solve_into(&lab, &target, &args.dir).await;
    target.shutdown().await;
    result?;
    eprintln!(
        "{}: reference solution written to {}",
        lab.name(),
        args.dir.display()
    );
    Ok(Verdict::Passed)
}
