//! `proctor lint <lab>...`: a scenario checked without running it (see [`crate::scenario::lint`]).

use super::common::{private_cluster, Globals, Verdict};
use crate::cli::LintArgs;
use crate::cluster::ClusterKind;
use crate::scenario::lint::{embedded_only, lint, parse_api_resources, ServedResource};
use crate::scenario::lookup::{find_scenario, list_labs};
use crate::scenario::Lab;

pub async fn run(globals: &Globals, args: &LintArgs) -> anyhow::Result<Verdict> {
    let files = if args.all {
        list_labs(globals.scenarios.as_deref())
            .into_iter()
            .map(|(_, file)| file)
            .collect()
    } else {
        args.labs
            .iter()
            .map(|lab| find_scenario(lab, globals.scenarios.as_deref()).map_err(anyhow::Error::msg))
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    if files.is_empty() {
        anyhow::bail!("no labs found (set $PROCTOR_SCENARIOS or pass --scenarios DIR)");
    }
    let mut troubled = 0;
    for file in &files {
        let problems: Vec<String> = match Lab::load(file) {
            Ok(lab) => {
                // Not a problem of the lab: it says where it runs, and that is not here.
                if let Some(refusal) = lab.scenario.refuses(globals.runtime()) {
                    eprintln!("{}: not linted: {refusal}", file.display());
                    continue;
                }
                let text = std::fs::read_to_string(file)?;
                let Some(served) = served_resources(globals, &lab).await? else {
                    return Ok(Verdict::Interrupted);
                };
                let mut problems = lint(&lab, &text, &served);
                if globals.cluster == ClusterKind::Kwokctl {
                    problems.extend(embedded_only(&lab));
                }
                problems.iter().map(ToString::to_string).collect()
            }
            Err(error) => format!("{error:#}").lines().map(str::to_string).collect(),
        };
        if problems.is_empty() {
            eprintln!("{}: no problems", file.display());
            continue;
        }
        troubled += 1;
        for problem in problems {
            println!("{problem}");
        }
    }
    if troubled > 0 {
        eprintln!("{troubled} of {} lab(s) have problems", files.len());
    }
    Ok(Verdict::from_passed(troubled == 0))
}

/// What the cluster of `--cluster` serves once the lab's own manifests and starter CRDs are
/// applied, from a private cluster started for the purpose; `None` when interrupted.
async fn served_resources(
    globals: &Globals,
    lab: &Lab,
) -> anyhow::Result<Option<Vec<ServedResource>>> {
    let Some(target) = private_cluster(globals, lab).await? else {
        return Ok(None);
    };
    // A lab may hand the learner a CRD to apply (a starter file): its kinds are the lab's too.
    for starter in &lab.scenario.starter {
        let path = lab.dir.join(&starter.from);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if !text.contains("kind: CustomResourceDefinition") {
            continue;
        }
        let path = path.display().to_string();
        let applied = target.kubectl().ok(&["apply", "-f", &path], None).await;
        let established = target
            .kubectl()
            .ok(
                &[
                    "wait",
                    "--for=condition=established",
                    "crd",
                    "--all",
                    "--timeout=30s",
                ],
                None,
            )
            .await;
        if let Err(e) = applied.and(established) {
            target.shutdown().await;
            return Err(e.context(format!("applying the starter CRD {path}")));
        }
    }
    let listed = target
        .kubectl()
        .run(&["api-resources", "--no-headers"], None)
        .await;
    target.shutdown().await;
    let output = listed?;
    let served = parse_api_resources(&output.stdout);
    if served.is_empty() {
        anyhow::bail!("kubectl api-resources: {}", output.error_text());
    }
    Ok(Some(served))
}
