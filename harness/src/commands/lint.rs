//! `proctor lint <lab>...`: a scenario checked without running it (see [`crate::scenario::lint`]).

use super::common::{Globals, Verdict};
use crate::cli::LintArgs;
use crate::cluster::Target;
use crate::scenario::lint::{lint, parse_api_resources, ServedResource};
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
    let served = served_resources(globals).await?;
    let mut troubled = 0;
    for file in &files {
        let problems: Vec<String> = match Lab::load(file) {
            Ok(lab) => {
                let text = std::fs::read_to_string(file)?;
                lint(&lab, &text, &served)
                    .iter()
                    .map(ToString::to_string)
                    .collect()
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

/// What the cluster of `--cluster` serves, from a private one started for the purpose.
async fn served_resources(globals: &Globals) -> anyhow::Result<Vec<ServedResource>> {
    let target = Target::private(globals.cluster, &[]).await?;
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
    Ok(served)
}
