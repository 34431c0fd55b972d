//! `BENCH_ONLY=batch`: a course-sized batch. 200 gpudrv submissions made from the bundled ones
//! and the test fixtures (copies, each with a harmless change so that no two trees are alike),
//! graded in one `grade --submissions` with the reference cached: wall time, per-submission p50
//! and p99 (from the batch's own progress lines), peak RSS of the proctor process; beside it, in
//! the same run, 20 of them as 20 `proctor grade` processes at once and as one batch of 20; then
//! the 200 as 4 shards one after another, whose merged gradebook must equal the single batch's.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LAB: &str = "gpudrv";
const COUNT: usize = 200;

/// A submission's whole tree (composed from its base, if it names one) at `to`.
fn copy_tree(repo: &Path, from: &Path, to: &Path) {
    let bundled = repo.join("scenarios").join(LAB).join("submissions");
    proctor::scenario::compose::materialize(from, &bundled, to).expect("submission tree");
}

/// COUNT submissions in `dir`, cycling through the bundled ones and the fixtures.
fn make_class(repo: &Path, dir: &Path) -> Vec<String> {
    make_class_of(repo, dir, Some(COUNT))
}

/// `count` submissions in `dir` (each source once when none), cycling through the bundled ones
/// and the fixtures.
fn make_class_of(repo: &Path, dir: &Path, count: Option<usize>) -> Vec<String> {
    let mut sources: Vec<PathBuf> = Vec::new();
    for root in [
        repo.join("scenarios").join(LAB).join("submissions"),
        repo.join("tests/fixtures/submissions").join(LAB),
    ] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(&root)
            .expect("submissions")
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.is_dir())
            .collect();
        found.sort();
        sources.extend(found);
    }
    std::fs::create_dir_all(dir).expect("mkdir");
    let mut names = Vec::new();
    for i in 0..count.unwrap_or(sources.len()) {
        let name = format!("learner-{i:03}");
        let to = dir.join(&name);
        copy_tree(repo, &sources[i % sources.len()], &to);
        // A mutation that changes the tree but not the grade.
        std::fs::write(to.join("NOTES.txt"), format!("learner {i}\n")).expect("notes");
        names.push(name);
    }
    names
}

/// Peak resident memory of `pid` so far (VmHWM), polled while it runs.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
}

struct BatchRun {
    wall: Duration,
    per_submission: Vec<Duration>,
    peak_kib: u64,
    code: Option<i32>,
}

/// Runs one batch, reading its per-submission times from its progress lines on stderr
/// (`[n/N, ETA …] ✓ name 10 / 10 passed (3.2 s)`).
fn run_batch(proctor: &Path, cache: &Path, args: &[&str], extra: &[String]) -> BatchRun {
    let started = Instant::now();
    let mut child = Command::new(proctor)
        .args(["grade", LAB, "--color", "never", "--format", "json"])
        .args(args)
        .args(extra)
        .env("PROCTOR_CACHE", cache)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("proctor grade --submissions");
    let pid = child.id();
    let stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let mut peak = 0;
    let code = loop {
        if let Some(kib) = vm_hwm_kib(pid) {
            peak = peak.max(kib);
        }
        if let Ok(Some(status)) = child.try_wait() {
            break status.code();
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let wall = started.elapsed();
    let log = reader.join().unwrap_or_default();
    let per_submission = log
        .lines()
        .filter_map(|line| {
            let (_, rest) = line.rsplit_once('(')?;
            let seconds = rest.strip_suffix(" s)")?;
            seconds.parse::<f64>().ok().map(Duration::from_secs_f64)
        })
        .collect();
    BatchRun {
        wall,
        per_submission,
        peak_kib: peak,
        code,
    }
}

fn percentile(mut values: Vec<Duration>, p: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    values.sort();
    let index = ((values.len() as f64 - 1.0) * p).round() as usize;
    values[index]
}

fn s(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

pub fn batch_figures(proctor: &Path, repo: &Path) {
    let work = tempfile::tempdir().expect("tmp");
    let cache = work.path().join("cache");
    let scenarios = repo.join("scenarios");
    let scenarios = scenarios.to_str().expect("utf-8");
    let class = work.path().join("class");
    let names = make_class(repo, &class);
    // The reference, computed once and cached, as a course's first grading would.
    let warm = Command::new(proctor)
        .args([
            "grade",
            LAB,
            "--quiet",
            "--format",
            "json",
            "--scenarios",
            scenarios,
        ])
        .arg("--submission")
        .arg(class.join(&names[0]))
        .env("PROCTOR_CACHE", &cache)
        .output()
        .expect("warm-up grade");
    assert!(
        matches!(warm.status.code(), Some(0 | 1)),
        "warm-up: {}",
        String::from_utf8_lossy(&warm.stderr)
    );

    // 20 at once: 20 processes against one batch of 20.
    let twenty = work.path().join("twenty");
    std::fs::create_dir_all(&twenty).expect("mkdir");
    for name in names.iter().take(20) {
        proctor::tree::copy_dir(&class.join(name), &twenty.join(name)).expect("copy");
    }
    let started = Instant::now();
    let children: Vec<_> = names
        .iter()
        .take(20)
        .map(|name| {
            Command::new(proctor)
                .args([
                    "grade",
                    LAB,
                    "--quiet",
                    "--format",
                    "json",
                    "--scenarios",
                    scenarios,
                ])
                .arg("--submission")
                .arg(twenty.join(name))
                .env("PROCTOR_CACHE", &cache)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("proctor grade")
        })
        .collect();
    for mut child in children {
        let _ = child.wait();
    }
    let processes = started.elapsed();
    let twenty_reports = work.path().join("reports-20");
    let batch20 = run_batch(
        proctor,
        &cache,
        &["--scenarios", scenarios],
        &[
            format!("--submissions={}", twenty.display()),
            format!("--reports={}", twenty_reports.display()),
        ],
    );
    println!(
        "20 gpudrv submissions, reference cached: 20 `proctor grade` processes at once {}, one batch of 20 {} (ratio {:.2})",
        s(processes),
        s(batch20.wall),
        batch20.wall.as_secs_f64() / processes.as_secs_f64()
    );

    let whole = work.path().join("whole.json");
    let run = run_batch(
        proctor,
        &cache,
        &["--scenarios", scenarios],
        &[
            format!("--submissions={}", class.display()),
            format!("--reports={}", work.path().join("reports").display()),
            format!("--gradebook={}", whole.display()),
        ],
    );
    println!(
        "{COUNT} gpudrv submissions in one batch ({} jobs, exit {:?}): {} wall, per submission p50 {} / p99 {} ({} timed), peak RSS of proctor {:.1} MiB",
        2 * std::thread::available_parallelism().map_or(1, |n| n.get()),
        run.code,
        s(run.wall),
        s(percentile(run.per_submission.clone(), 0.5)),
        s(percentile(run.per_submission.clone(), 0.99)),
        run.per_submission.len(),
        run.peak_kib as f64 / 1024.0
    );

    let mut shards = Vec::new();
    let mut shard_wall = Duration::ZERO;
    for index in 0..4 {
        let file = work.path().join(format!("shard-{index}.json"));
        let shard = run_batch(
            proctor,
            &cache,
            &["--scenarios", scenarios],
            &[
                format!("--submissions={}", class.display()),
                format!(
                    "--reports={}",
                    work.path().join("reports-{shard}").display()
                ),
                format!("--gradebook={}", file.display()),
                format!("--shard={index}/4"),
            ],
        );
        shard_wall += shard.wall;
        println!(
            "  shard {index}/4: {} submissions in {}",
            shard.per_submission.len(),
            s(shard.wall)
        );
        shards.push(file);
    }
    let merged = work.path().join("merged.json");
    let merge = Command::new(proctor)
        .args(["gradebook", "merge"])
        .args(&shards)
        .arg("--output")
        .arg(&merged)
        .output()
        .expect("gradebook merge");
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    let same = merge.status.success() && read(&merged) == read(&whole) && !read(&whole).is_empty();
    println!(
        "{COUNT} in 4 shards one after another: {} in all; merged gradebook {} the single batch's",
        s(shard_wall),
        if same {
            "identical to"
        } else {
            "DIFFERENT from"
        }
    );
}

/// `BENCH_ONLY=class-report`: the class report of a 200-learner batch. The bundled gpudrv
/// submissions and the fixtures (each tree once) are graded in one batch; their gradebook rows
/// and kept reports are then dealt out to 200 learners, and the page is written from them: its
/// size and the median time to render it (5 runs), as `grade --submissions` writes it.
pub fn class_report_figures(proctor: &Path, repo: &Path) {
    use proctor::batch::class_report::{self, html};
    use proctor::batch::gradebook::Gradebook;

    let work = tempfile::tempdir().expect("tmp");
    let class = work.path().join("class");
    let sources = make_class_of(repo, &class, None);
    let reports = work.path().join("reports");
    let book = work.path().join("grades.json");
    let run = run_batch(
        proctor,
        &work.path().join("cache"),
        &["--scenarios", &repo.join("scenarios").display().to_string()],
        &[
            format!("--submissions={}", class.display()),
            format!("--reports={}", reports.display()),
            format!("--gradebook={}", book.display()),
        ],
    );
    assert_eq!(run.code, Some(0), "the batch of {} failed", sources.len());
    let graded = Gradebook::read(&book).expect("gradebook");
    let results = class_report::load_results(&reports, sources.iter().map(String::as_str));
    let mut gradebook = Gradebook {
        steps: graded.steps.clone(),
        submissions: Vec::new(),
    };
    let mut dealt = std::collections::BTreeMap::new();
    let mut links = std::collections::BTreeMap::new();
    for i in 0..COUNT {
        let source = &graded.submissions[i % graded.submissions.len()];
        let name = format!("learner-{i:03}");
        let mut row = source.clone();
        row.name = name.clone();
        if let Some(report) = results.get(&source.name) {
            dealt.insert(name.clone(), report.clone());
        }
        links.insert(name.clone(), format!("{name}.json"));
        gradebook.submissions.push(row);
    }
    let mut times = Vec::new();
    let mut size = 0;
    for _ in 0..5 {
        let started = Instant::now();
        let page = html::render(&html::Page {
            lab: LAB,
            title: "class report bench",
            gradebook: &gradebook,
            results: &dealt,
            links: &links,
        });
        times.push(started.elapsed());
        size = page.len();
    }
    println!(
        "class report of {COUNT} learners ({} distinct graded trees, {} failing checks in all): {:.0} KB, rendered in {:.1} ms (median of 5)",
        graded.submissions.len(),
        dealt.values().flat_map(|r| r.checks()).filter(|c| !c.passed).count(),
        size as f64 / 1024.0,
        percentile(times, 0.5).as_secs_f64() * 1000.0
    );
}
