//! `proctor solve <lab> --dir D`: the reference solution, written into D and applied to the
//! cluster of `--kubeconfig`/$KUBECONFIG (a private cluster when neither is set).

use anyhow::{bail, Context};

use super::common::{private_cluster, refuse_another_labs_cluster, Globals, Verdict};
use crate::cli::SolveArgs;
use crate::cluster::Target;
use crate::runner::{prepare_cluster, solve_into};
use crate::scenario::Lab;

pub async fn run(globals: &Globals, args: &SolveArgs) -> anyhow::Result<Verdict> {
    let lab = globals.lab_on(&args.lab, args.kubeconfig.as_deref())?;
    let steps = step_range(&lab, args.from, args.until)?;
    let target = match &args.kubeconfig {
        Some(kubeconfig) => {
            refuse_another_labs_cluster(kubeconfig, &lab)?;
            let target = Target::external(kubeconfig).await?;
            prepare_cluster(&lab, &target).await?;
            target
        }
        None => match private_cluster(globals, &lab).await? {
            Some(target) => target,
            None => return Ok(Verdict::Interrupted),
        },
    };
    let result = solve_into(&lab, &target, &args.dir, steps.clone()).await;
    target.shutdown().await;
    result?;
    let all = lab.scenario.steps.len();
    let which = if *steps.start() == 0 && *steps.end() + 1 >= all {
        "reference solution".to_string()
    } else {
        let ids = |index: usize| lab.scenario.steps[index].id;
        match (ids(*steps.start()), ids(*steps.end())) {
            (first, last) if first == last => format!("reference's step {first}"),
            (first, last) => format!("reference's steps {first} to {last}"),
        }
    };
    eprintln!("{}: {which} written to {}", lab.name(), args.dir.display());
    Ok(Verdict::Passed)
}

/// The indices of the steps from `from` to `until` (step ids, both included).
fn step_range(
    lab: &Lab,
    from: Option<u32>,
    until: Option<u32>,
) -> anyhow::Result<std::ops::RangeInclusive<usize>> {
    let steps = &lab.scenario.steps;
    let index_of = |id: u32, flag: &str| {
        steps
            .iter()
            .position(|step| step.id == id)
            .with_context(|| {
                let ids: Vec<String> = steps.iter().map(|step| step.id.to_string()).collect();
                format!(
                    "{flag} {id}: {} has no step {id} (its steps: {})",
                    lab.name(),
                    ids.join(", ")
                )
            })
    };
    let first = from
        .map(|id| index_of(id, "--from"))
        .transpose()?
        .unwrap_or(0);
    let last = match until {
        Some(id) => index_of(id, "--until")?,
        None => steps.len().saturating_sub(1),
    };
    if first > last {
        bail!(
            "--from {} comes after --until {}",
            steps[first].id,
            steps[last].id
        );
    }
    Ok(first..=last)
}
