//! `proctor selftest <lab>`

use super::common::{private_cluster, Globals, Verdict};
use crate::cli::SelftestArgs;
use crate::report::{style::Stream, Style};
use crate::runner::{selftest, SelftestOptions};

pub async fn run(globals: &Globals, args: &SelftestArgs) -> anyhow::Result<Verdict> {
    globals.grading_isolation()?;
    let lab = globals.lab(&args.lab)?;
    crate::runner::preflight::check(&lab).await?;
    let mut progress = globals.progress(false);
    let options = SelftestOptions {
        use_cache: !args.no_cache,
        submissions: !args.no_submissions,
    };
    let Some(target) = private_cluster(globals, &lab).await? else {
        return Ok(Verdict::Interrupted);
    };
    let lines = tokio::select! {
        lines = selftest(&lab, &target, options, progress.as_mut()) => Some(lines),
        _ = super::common::interrupted() => None,
    };
    target.shutdown().await;
    let Some(lines) = lines else {
        return Ok(Verdict::Interrupted);
    };
    let lines = lines?;
    let style = Style::resolve(globals.color, Stream::Stdout);
    println!("{}", style.bold(&format!("selftest of {}", lab.name())));
    for line in &lines {
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
    let failed = lines.iter().filter(|line| !line.passed).count();
    println!("\n{} passed, {} failed", lines.len() - failed, failed);
    Ok(Verdict::from_passed(failed == 0))
}
