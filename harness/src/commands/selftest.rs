//! `proctor selftest <lab>`, on one runtime or on both (`--cluster both`: each selftest, then the
//! grades of each submission compared across them).

use super::common::{private_cluster, Globals, Verdict};
use crate::cli::SelftestArgs;
use crate::report::{style::Stream, Style};
use crate::runner::{same_grades, selftest, Selftest, SelftestLine, SelftestOptions};

pub async fn run(globals: &Globals, args: &SelftestArgs) -> anyhow::Result<Verdict> {
    globals.grading_isolation()?;
    let kinds = args.cluster.kinds();
    // Every runtime's refusal comes before anything runs on any of them.
    let mut labs = Vec::new();
    for &kind in kinds {
        let on = Globals {
            cluster: kind,
            ..globals.clone()
        };
        let lab = on.lab(&args.lab)?;
        labs.push((on, lab));
    }
    let options = SelftestOptions {
        use_cache: !args.no_cache,
        submissions: !args.no_submissions,
    };
    let style = Style::resolve(globals.color, Stream::Stdout);
    let mut done: Vec<(&str, Selftest)> = Vec::new();
    let mut failed = 0;
    let mut total = 0;
    for (on, lab) in &labs {
        let runtime = on.runtime().name();
        crate::runner::flows::preflight::check(lab).await?;
        let mut progress = on.progress(false);
        let Some(target) = private_cluster(on, lab).await? else {
            return Ok(Verdict::Interrupted);
        };
        let result = tokio::select! {
            result = selftest(lab, &target, options, progress.as_mut()) => Some(result),
            _ = crate::interrupt::interrupted() => None,
        };
        target.shutdown().await;
        let Some(result) = result else {
            return Ok(Verdict::Interrupted);
        };
        let result = result?;
        let title = match kinds.len() {
            1 => format!("selftest of {}", lab.name()),
            _ => format!("selftest of {} on {runtime}", lab.name()),
        };
        failed += print_lines(&style, &title, &result.lines);
        total += result.lines.len();
        done.push((runtime, result));
    }
    if let [first, second] = &done[..] {
        let lines = same_grades((first.0, &first.1), (second.0, &second.1));
        let title = format!("the same grades on {} and {}", first.0, second.0);
        failed += print_lines(&style, &title, &lines);
        total += lines.len();
    }
    println!("\n{} passed, {} failed", total - failed, failed);
    Ok(Verdict::from_passed(failed == 0))
}

/// Prints a titled block of lines, each failing one with its detail; returns how many failed.
fn print_lines(style: &Style, title: &str, lines: &[SelftestLine]) -> usize {
    println!("{}", style.bold(title));
    for line in lines {
        let mark = if line.passed {
            style.pass_mark()
        } else {
            style.fail_mark()
        };
        println!("  {mark} {}", line.name);
        if !line.passed {
            for detail in line.detail.lines().filter(|l| !l.trim().is_empty()) {
                println!("      {detail}");
            }
        }
    }
    lines.iter().filter(|line| !line.passed).count()
}
