//! `proctor grade <lab> --submissions DIR`: a class graded in one go (see [`crate::batch`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context};

use super::common::{private_cluster, Globals, Verdict};
use crate::batch::gradebook::{Gradebook, Status, StepColumn};
use crate::batch::ledger::{self, Ledger};
use crate::batch::progress::BatchProgress;
use crate::batch::roster::Roster;
use crate::batch::shard::Shard;
use crate::batch::{self, class_report, submissions, Batch};
use crate::cli::{BatchArgs, GradeArgs, DEFAULT_REPORTS};
use crate::cluster::{ClusterKind, Target};
use crate::report::model::points;
use crate::report::{style::Stream, Silent, Style};
use crate::runner::reference::shadow::grading_reference;
use crate::scenario::Lab;

/// The environment variable a Kubernetes Indexed Job gives each pod.
const JOB_INDEX: &str = "JOB_COMPLETION_INDEX";

pub async fn run(globals: &Globals, args: &GradeArgs, dir: &Path) -> anyhow::Result<Verdict> {
    globals.grading_isolation()?;
    let lab = globals.lab_on(&args.lab, args.kubeconfig.as_deref())?;
    let options = &args.batch;
    let shard = shard(options)?;
    let with_shard = |path: &Path| expand_shard(path, shard);
    for gradebook in &options.gradebook {
        crate::batch::gradebook::Format::of(gradebook)?;
    }
    // Read before any grading: a roster that cannot be used must not cost a class's grading.
    let roster = options.roster.as_deref().map(Roster::read).transpose()?;
    super::common::refuse_readable(&lab, dir, "the class's submissions")?;
    refuse_one_lab_folder(&lab, dir)?;
    crate::runner::flows::preflight::check(&lab).await?;
    let mut all = submissions::list(dir)?;
    refuse_unknown_names(&options.only, &all, dir)?;
    if all.is_empty() {
        // Most often a volume mounted at the wrong place: said, though not an error.
        eprintln!("warning: {} holds no submissions", dir.display());
    }
    let reports_path = with_shard(
        options
            .reports
            .as_deref()
            .unwrap_or(Path::new(DEFAULT_REPORTS)),
    );
    let gradebooks: Vec<PathBuf> = options
        .gradebook
        .iter()
        .map(|path| with_shard(path))
        .collect();
    let report_html = options.report_html.as_deref().map(with_shard);
    let outputs: Vec<PathBuf> = std::iter::once(&reports_path)
        .chain(&gradebooks)
        .chain(&report_html)
        .map(|path| submissions::resolve(path))
        .collect();
    all.retain(|submission| {
        let output = submissions::holds_output(submission, &outputs);
        if output {
            tracing::info!(entry = %submission.name, "not a submission: it holds this batch's output");
        }
        !output
    });
    std::fs::create_dir_all(&reports_path)
        .with_context(|| format!("creating the reports folder {}", reports_path.display()))?;
    let reports = reports_path;
    let found = all.len();
    if let Some(shard) = shard {
        all.retain(|submission| shard.picks(&submission.name));
        tracing::info!(%shard, found, picked = all.len(), "sharding the submissions");
    }
    let ledger = Ledger::load(&reports, &ledger::file_name(shard), lab.name());
    let kept = match options.only.as_slice() {
        [] => Vec::new(),
        only => keep_all_but(only, &mut all, &ledger),
    };
    let style = Style::resolve(globals.color, Stream::Stderr);
    let progress = BatchProgress::new(all.len(), args.output.quiet, style);
    let shard_note = match (shard, kept.len()) {
        (Some(s), _) => format!(" (shard {s} of {found})"),
        (None, 0) => String::new(),
        (None, kept) => format!(" (--only: {kept} other row(s) kept as they were)"),
    };
    progress.phase(&format!(
        "{}: {} submission(s) in {}{shard_note}",
        lab.name(),
        all.len(),
        dir.display()
    ));

    let setting = format!(
        "{:?}/{:?}/{}",
        cluster_kind(globals, args),
        args.output.format,
        args.no_cache
    );
    let expected = all.len();
    // --only grades its submissions again whatever the ledger holds: that is what it is for.
    let resume = options.resume && options.only.is_empty();
    let (known, pending) = batch::plan(&lab, all, &setting, &ledger, &reports, resume);
    for row in &known {
        progress.finished(row, None);
    }
    let ledger = Mutex::new(ledger);
    let mut rows = known;
    if !pending.is_empty() {
        let work = grade_on_clusters(globals, args, &lab, &reports, pending, &ledger, &progress);
        // Interrupts are handled inside: scripts stopped, a shared cluster restored.
        match work.await? {
            Some(graded) => rows.extend(graded),
            None => {
                progress.finish();
                eprintln!(
                    "interrupted: what was graded is kept in {}; --resume goes on from there",
                    reports.display()
                );
                return Ok(Verdict::Interrupted);
            }
        }
    }
    progress.finish();

    if rows.len() != expected {
        bail!(
            "{} of {expected} submissions have a row: a batch must account for every one",
            rows.len()
        );
    }
    rows.extend(kept);
    if let Some(roster) = &roster {
        let unknown = roster.apply(&mut rows, batch::max_score(&lab));
        if !unknown.is_empty() {
            eprintln!(
                "warning: not on the roster (their learner columns are empty): {}",
                unknown.join(", ")
            );
        }
    }
    let mut gradebook = Gradebook {
        steps: StepColumn::of(&lab),
        submissions: rows,
    };
    gradebook.sort();
    for path in &gradebooks {
        gradebook.write(path)?;
    }
    summarise(&gradebook, &reports, globals);
    if !options.no_report_html {
        let page = report_html
            .clone()
            .unwrap_or_else(|| reports.join(class_report_name(shard)));
        write_class_report(&lab, &gradebook, &reports, args.output.format, &page)?;
    }
    // A batch did its job when every submission was graded: learners' scores are the
    // gradebook's, not the exit status's (a Job's pod must not fail because a learner did).
    let errors = gradebook
        .submissions
        .iter()
        .filter(|row| row.status == Status::Error)
        .count();
    if errors > 0 {
        bail!(
            "{errors} submission(s) could not be graded (status error in the gradebook); \
             --resume grades just those again"
        );
    }
    Ok(Verdict::Passed)
}

/// Refuses a `--submissions` folder that is one learner's lab folder (it holds `out/`, a step's
/// script, …): each of its folders would be graded as a learner, into the class's reports.
fn refuse_one_lab_folder(lab: &Lab, dir: &Path) -> anyhow::Result<()> {
    let names = lab.top_level_names();
    let found: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
        .filter(|name| names.contains(name))
        .collect();
    if found.is_empty() {
        return Ok(());
    }
    bail!(
        "{} looks like one learner's {} lab folder, not a class (it holds {}): grade it with \
         `proctor grade {} --submission {}`, or give --submissions the folder that holds one \
         folder per learner",
        dir.display(),
        lab.name(),
        found.join(", "),
        lab.name(),
        dir.display()
    )
}

/// Refuses `--only` names that are not submissions of `dir`, before anything is written.
fn refuse_unknown_names(
    only: &[String],
    all: &[submissions::Submission],
    dir: &Path,
) -> anyhow::Result<()> {
    let unknown: Vec<&str> = only
        .iter()
        .filter(|name| !all.iter().any(|submission| &submission.name == *name))
        .map(String::as_str)
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    bail!(
        "--only: {} has no submission named {}",
        dir.display(),
        unknown.join(", ")
    )
}

/// For `--only`: keeps in `all` the named submissions (and those graded without a cluster), and
/// returns the rows the ledger holds for the others, which the gradebook keeps as they were.
fn keep_all_but(
    only: &[String],
    all: &mut Vec<submissions::Submission>,
    ledger: &Ledger,
) -> Vec<batch::gradebook::Row> {
    let mut kept = Vec::new();
    let mut never = Vec::new();
    // Rows that need no grading (a stray file, an empty folder) are made again, as always.
    let needs_no_grading = |submission: &submissions::Submission| {
        submissions::malformed(submission).is_some() || submissions::is_empty(&submission.path)
    };
    all.retain(|submission| {
        if only.contains(&submission.name) || needs_no_grading(submission) {
            return true;
        }
        match ledger.entries.get(&submission.name) {
            Some(entry) => kept.push(entry.row.clone()),
            None => never.push(submission.name.clone()),
        }
        false
    });
    if !never.is_empty() {
        eprintln!(
            "warning: never graded into this reports folder, so not in its gradebook: {}",
            never.join(", ")
        );
    }
    kept
}

/// The class report's default file name in the reports folder: one per shard, as the ledger.
fn class_report_name(shard: Option<Shard>) -> String {
    match shard {
        Some(shard) => format!("index-shard-{}-of-{}.html", shard.index, shard.count),
        None => class_report::FILE_NAME.to_string(),
    }
}

/// Writes the class report of `gradebook` to `page` and says where.
fn write_class_report(
    lab: &Lab,
    gradebook: &Gradebook,
    reports: &Path,
    format: crate::report::Format,
    page: &Path,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let bytes = class_report::write(lab, gradebook, reports, format, page)?;
    println!(
        "class report: {} ({} KB, written in {} ms)",
        page.display(),
        bytes.div_ceil(1024),
        started.elapsed().as_millis()
    );
    Ok(())
}

/// The cluster kind the batch grades on, for its inputs key.
fn cluster_kind(globals: &Globals, args: &GradeArgs) -> String {
    match &args.kubeconfig {
        Some(kubeconfig) => format!("external:{}", kubeconfig.display()),
        None => format!("{:?}", globals.cluster),
    }
}

/// Starts the clusters and the reference, then grades; `None` when interrupted while starting.
async fn grade_on_clusters(
    globals: &Globals,
    args: &GradeArgs,
    lab: &Lab,
    reports: &Path,
    pending: Vec<batch::Pending>,
    ledger: &Mutex<Ledger>,
    progress: &BatchProgress,
) -> anyhow::Result<Option<Vec<batch::gradebook::Row>>> {
    let embedded = args.kubeconfig.is_none() && globals.cluster == ClusterKind::Embedded;
    let jobs = jobs(args.batch.jobs.map(usize::from), embedded)
        .min(pending.len())
        .max(1);
    progress.phase(&format!(
        "{}: grading {} submission(s), {jobs} at a time",
        lab.name(),
        pending.len()
    ));
    let mut targets = Vec::with_capacity(jobs);
    let started = start_clusters(globals, args, lab, jobs, &mut targets).await;
    let outcome = match started {
        Ok(true) => {
            let first = &targets[0];
            let shared = first.is_shared();
            let reference = crate::cluster::guard::guarded(first, shared, async {
                if shared {
                    crate::runner::prepare_cluster(lab, first).await?;
                }
                progress.phase(&format!("{}: preparing the reference run", lab.name()));
                let reference = grading_reference(lab, first, !args.no_cache, &mut Silent).await?;
                progress.grading_starts();
                let batch = Batch {
                    lab,
                    reference: &reference,
                    format: args.output.format,
                    reports,
                };
                Ok(batch::grade_pending(&batch, &targets, pending, ledger, progress).await)
            })
            .await;
            reference
        }
        Ok(false) => Ok(None),
        Err(error) => Err(error),
    };
    for target in targets {
        target.shutdown().await;
    }
    outcome
}

/// Starts `jobs` clusters into `targets`; false when interrupted first.
async fn start_clusters(
    globals: &Globals,
    args: &GradeArgs,
    lab: &Lab,
    jobs: usize,
    targets: &mut Vec<Target>,
) -> anyhow::Result<bool> {
    if let Some(kubeconfig) = &args.kubeconfig {
        targets.push(Target::external(kubeconfig).await?);
        return Ok(true);
    }
    for _ in 0..jobs {
        match private_cluster(globals, lab).await? {
            Some(target) => targets.push(target),
            None => return Ok(false),
        }
    }
    Ok(true)
}

/// Workers: as asked, else two per core (a grading spends much of its time waiting for the
/// cluster to settle and for kubectl: on 2 cores, 20 gpudrv submissions took 71.7 s at 2 jobs,
/// 55.5 s at 4, 59.5 s at 8); one where the cluster is not a private embedded one (a
/// `--kubeconfig` cluster is a single shared state, a kwokctl control plane costs a core).
fn jobs(asked: Option<usize>, embedded: bool) -> usize {
    if !embedded {
        if asked.is_some_and(|jobs| jobs > 1) {
            tracing::warn!("grading one submission at a time: only the embedded cluster is cheap to run several of");
        }
        return 1;
    }
    asked.unwrap_or_else(|| 2 * std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn shard(options: &BatchArgs) -> anyhow::Result<Option<Shard>> {
    if let Some(shard) = options.shard {
        return Ok(Some(shard));
    }
    let Some(count) = options.shard_count else {
        return Ok(None);
    };
    let index = std::env::var(JOB_INDEX).with_context(|| {
        format!("--shard-count needs ${JOB_INDEX} (set by an Indexed Job), or use --shard I/N")
    })?;
    let index: u64 = index
        .trim()
        .parse()
        .with_context(|| format!("${JOB_INDEX} is {index:?}, not a whole number"))?;
    Shard::new(index, count)
        .map(Some)
        .map_err(anyhow::Error::msg)
}

/// `{shard}` in a path becomes the shard's index (0 without sharding).
fn expand_shard(path: &Path, shard: Option<Shard>) -> PathBuf {
    let text = path.to_string_lossy();
    if !text.contains("{shard}") {
        return path.to_path_buf();
    }
    let index = shard.map_or(0, |shard| shard.index);
    PathBuf::from(text.replace("{shard}", &index.to_string()))
}

fn summarise(gradebook: &Gradebook, reports: &Path, globals: &Globals) {
    let style = Style::resolve(globals.color, Stream::Stdout);
    println!("{}", style.bold("Gradebook"));
    for row in &gradebook.submissions {
        let mark = if row.status == Status::Passed {
            style.pass_mark()
        } else {
            style.fail_mark()
        };
        println!(
            "  {mark} {:<24} {:>9}  {}",
            row.name,
            format!("{} / {}", points(row.score), points(row.max_score)),
            row.status
        );
    }
    let count = |status: Status| {
        gradebook
            .submissions
            .iter()
            .filter(|row| row.status == status)
            .count()
    };
    let mut counts = vec![
        format!("{} passed", count(Status::Passed)),
        format!("{} failed", count(Status::Failed)),
    ];
    for (status, what) in [
        (Status::TimedOut, "timed out"),
        (Status::Empty, "empty"),
        (Status::Missing, "missing"),
        (Status::Malformed, "malformed"),
        (Status::Error, "error(s)"),
    ] {
        // The rare ones only when they happen; errors always, as a batch's exit hangs on them.
        if count(status) > 0 || status == Status::Error {
            counts.push(format!("{} {what}", count(status)));
        }
    }
    println!(
        "{} submission(s): {}; reports in {}",
        gradebook.submissions.len(),
        counts.join(", "),
        reports.display()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_placeholder_is_expanded() {
        let shard = Shard::new(3, 4).ok();
        assert_eq!(
            expand_shard(Path::new("/out/shard-{shard}.json"), shard),
            PathBuf::from("/out/shard-3.json")
        );
        assert_eq!(
            expand_shard(Path::new("/out/grades.json"), shard),
            PathBuf::from("/out/grades.json")
        );
    }

    #[test]
    fn only_the_embedded_cluster_grades_several_at_once() {
        assert_eq!(jobs(Some(4), true), 4);
        assert_eq!(jobs(Some(4), false), 1);
        assert!(jobs(None, true) >= 1);
    }
}
