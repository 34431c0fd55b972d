//! `proctor demo`: every bundled submission of every lab graded on the embedded cluster, each
//! report printed, then whether each met its expect.yaml.

use super::common::{emit, private_cluster, Globals, Verdict};
use crate::cli::DemoArgs;
use crate::report::{model::points, style::Stream, Style};
use crate::runner::grade;
use crate::runner::reference::shadow::grading_reference;
use crate::scenario::lab::submissions_in;
use crate::scenario::lookup::list_labs;

struct Row {
    lab: String,
    case: String,
    score: String,
    expect: String,
    held: bool,
}

pub async fn run(globals: &Globals, args: &DemoArgs) -> anyhow::Result<Verdict> {
    globals.grading_isolation()?;
    let names: Vec<String> = if args.labs.is_empty() {
        list_labs(globals.scenarios.as_deref())
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    } else {
        args.labs.clone()
    };
    if names.is_empty() {
        anyhow::bail!("no labs found (set $PROCTOR_SCENARIOS or pass --scenarios DIR)");
    }
    let mut progress = globals.progress(args.output.quiet);
    let mut rows = Vec::new();
    for name in &names {
        let lab = globals.lab(name)?;
        crate::runner::flows::preflight::check(&lab).await?;
        let cases = match &args.cases {
            Some(root) => submissions_in(&root.join(lab.name()), &lab.dir.join("submissions"))?,
            None => lab.bundled_submissions()?,
        };
        if cases.is_empty() {
            eprintln!("{}: no submissions to grade", lab.name());
            continue;
        }
        let Some(target) = private_cluster(globals, &lab).await? else {
            return Ok(Verdict::Interrupted);
        };
        let work = async {
            let reference =
                grading_reference(&lab, &target, !args.no_cache, progress.as_mut()).await?;
            for case in &cases {
                progress.phase(&format!("{}: grading submission {}", lab.name(), case.name));
                let report = grade(&lab, &target, &reference, &case.dir, progress.as_mut()).await?;
                println!(
                    "\n=== {} / {} (expected: {}) ===",
                    lab.name(),
                    case.name,
                    case.expect
                );
                emit(&report, &args.output, globals.color)?;
                rows.push(Row {
                    lab: lab.name().to_string(),
                    case: case.name.clone(),
                    score: format!(
                        "{} / {}",
                        points(report.score()),
                        points(report.max_score())
                    ),
                    expect: case.expect.to_string(),
                    held: case.expect.holds(&report.failing_steps()),
                });
            }
            anyhow::Ok(())
        };
        let result = tokio::select! {
            result = work => Some(result),
            _ = crate::interrupt::interrupted() => None,
        };
        target.shutdown().await;
        match result {
            Some(result) => result?,
            None => return Ok(Verdict::Interrupted),
        }
    }
    let style = Style::resolve(globals.color, Stream::Stdout);
    println!("\n{}", style.bold("Summary"));
    for row in &rows {
        let mark = if row.held {
            style.pass_mark()
        } else {
            style.fail_mark()
        };
        println!(
            "  {mark} {:<8} {:<24} {:>9}  expected {}",
            row.lab, row.case, row.score, row.expect
        );
    }
    Ok(Verdict::from_passed(rows.iter().all(|row| row.held)))
}
