//! `grade --submissions`: a class graded in one batch, each row of its gradebook checked against
//! grading the same submission alone; `--resume`; shards that partition the class and merge back
//! into the single batch's gradebook.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Output;

use crate::common::{lab, report_json, write, SETTINGS, TIER_SH};
use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

const HARD_CODED: &str = "#!/bin/bash\necho gold\n";
const CRASHES: &str = "#!/bin/bash\nkill -SEGV $$\n";

/// A class: folders of learners (full marks, partial, hard-coded, crashing) and a stray file.
fn class(root: &Path) {
    let learner = |name: &str, tier_sh: &str, settings: bool| {
        let dir = root.join(name);
        write(&dir.join("tier.sh"), tier_sh, 0o755);
        write(&dir.join("out/tier.txt"), "gold\n", 0o644);
        if settings {
            write(&dir.join("k8s/settings.yaml"), SETTINGS, 0o644);
        }
    };
    learner("ada", TIER_SH, true);
    learner("bo", TIER_SH, false);
    learner("cy", HARD_CODED, true);
    learner("di", CRASHES, true);
    write(&root.join("eve.zip"), "PK\u{3}\u{4}", 0o644);
    fs::create_dir_all(root.join(".git")).expect("mkdir");
}

fn proctor(scenarios: &Path, cache: &Path) -> assert_cmd::Command {
    let mut command = cargo_bin_cmd!("proctor");
    command
        .args(["--color", "never", "--scenarios"])
        .arg(scenarios)
        .env("PROCTOR_CACHE", cache)
        .env_remove("JOB_COMPLETION_INDEX");
    command
}

fn batch(scenarios: &Path, cache: &Path, class: &Path, reports: &Path, extra: &[&str]) -> Output {
    proctor(scenarios, cache)
        .args(["grade", "mini", "--format", "json", "--submissions"])
        .arg(class)
        .arg("--reports")
        .arg(reports)
        .args(extra)
        .output()
        .expect("runs")
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Per step: (score, max) summed over a Gradescope report's tests ("<step>.<position>").
fn step_scores(report: &Value) -> BTreeMap<String, (f64, f64)> {
    let mut steps: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for test in report["tests"].as_array().expect("tests") {
        let number = test["number"].as_str().expect("number");
        let step = number.split('.').next().expect("step").to_string();
        let entry = steps.entry(step).or_default();
        entry.0 += test["score"].as_f64().expect("score");
        entry.1 += test["max_score"].as_f64().expect("max_score");
    }
    steps
}

#[test]
fn a_class_is_graded_as_each_submission_alone() {
    let scenarios = lab();
    let cache = tempfile::tempdir().expect("tmp");
    let work = tempfile::tempdir().expect("tmp");
    let submissions = work.path().join("class");
    class(&submissions);
    let reports = work.path().join("reports");
    let csv = work.path().join("grades.csv");
    let json = work.path().join("grades.json");
    let output = batch(
        scenarios.path(),
        cache.path(),
        &submissions,
        &reports,
        &["--jobs", "2", "--gradebook"],
    );
    // `--gradebook` needs a value: clap refuses, and nothing is graded.
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));

    let output = batch(
        scenarios.path(),
        cache.path(),
        &submissions,
        &reports,
        &["--jobs", "2", "--gradebook", csv.to_str().expect("utf-8")]
            .into_iter()
            .chain(["--gradebook", json.to_str().expect("utf-8")])
            .collect::<Vec<_>>(),
    );
    // Learners failed checks; the batch itself did its job.
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));

    let gradebook = read_json(&json);
    let rows = gradebook["submissions"].as_array().expect("rows");
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["ada", "bo", "cy", "di", "eve.zip"]);

    for row in &rows[..4] {
        let name = row["name"].as_str().expect("name");
        let alone = proctor(scenarios.path(), cache.path())
            .args([
                "grade",
                "mini",
                "--format",
                "json",
                "--quiet",
                "--submission",
            ])
            .arg(submissions.join(name))
            .output()
            .expect("runs");
        let alone = report_json(&alone);
        assert_eq!(row["score"], alone["score"], "{name}: {row:#}");
        assert_eq!(row["max_score"], alone["max_score"], "{name}");
        let full = alone["score"] == alone["max_score"];
        assert_eq!(
            row["status"],
            if full { "passed" } else { "failed" },
            "{name}"
        );
        for (step, (score, max)) in step_scores(&alone) {
            assert_eq!(
                row["steps"][&step]["score"].as_f64(),
                Some(score),
                "{name} {step}"
            );
            assert_eq!(
                row["steps"][&step]["max_score"].as_f64(),
                Some(max),
                "{name} {step}"
            );
        }
        // The batch's report is the one grading alone gives (but for the time it took).
        let mut batch_report = read_json(&reports.join(format!("{name}.json")));
        let mut alone = alone;
        batch_report["execution_time"] = Value::Null;
        alone["execution_time"] = Value::Null;
        assert_eq!(batch_report, alone, "{name}");
    }
    assert_eq!(rows[0]["status"], "passed");
    for row in &rows[1..4] {
        let score = row["score"].as_f64().expect("score");
        let max = row["max_score"].as_f64().expect("max_score");
        assert!(score < max, "{row:#}");
    }
    let stray = &rows[4];
    assert_eq!(stray["status"], "malformed");
    assert_eq!(stray["score"], 0.0);
    assert_eq!(stray["max_score"], rows[0]["max_score"]);
    assert!(stray["message"]
        .as_str()
        .expect("message")
        .contains("is a file"));
    assert!(!reports.join("eve.zip.json").exists());

    // The CSV says the same: name, score, max, status, the scripts' sandbox, when and by which
    // version, then each step's points, under a line of each column's maximum.
    let text = fs::read_to_string(&csv).expect("csv");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "name,score,max,status,isolation,graded at,proctor,step 1,step 2"
    );
    let points = |v: &Value| {
        let v = v.as_f64().expect("number");
        if v.fract() == 0.0 {
            format!("{}", v as i64)
        } else {
            format!("{v:.2}")
        }
    };
    let ada = &rows[0];
    assert_eq!(
        lines[1],
        format!(
            "Points Possible,{max},{max},,,,,{},{}",
            points(&ada["steps"]["1"]["max_score"]),
            points(&ada["steps"]["2"]["max_score"]),
            max = points(&ada["max_score"]),
        )
    );
    let cells = |row: &Value| {
        format!(
            "{},{},{},{},{},{},{},{},{}",
            row["name"].as_str().expect("name"),
            points(&row["score"]),
            points(&row["max_score"]),
            row["status"].as_str().expect("status"),
            row["isolation"].as_str().expect("isolation"),
            row["graded_at"].as_str().expect("graded_at"),
            row["proctor_version"].as_str().expect("proctor_version"),
            points(&row["steps"]["1"]["score"]),
            points(&row["steps"]["2"]["score"]),
        )
    };
    assert_eq!(lines[2], cells(ada));
    // Not graded: no sandbox, no step scores.
    assert!(
        lines[6].starts_with("eve.zip,0,7,malformed,,") && lines[6].ends_with(",,"),
        "{}",
        lines[6]
    );
}

/// A roster's columns lead the gradebook (a learner without a folder is `missing`), a folder
/// with no file is `empty` and not graded, and a folder named like a formula stays text in the
/// CSV.
#[test]
fn a_roster_names_the_learners_of_the_gradebook() {
    let scenarios = lab();
    let cache = tempfile::tempdir().expect("tmp");
    let work = tempfile::tempdir().expect("tmp");
    let submissions = work.path().join("class");
    write(&submissions.join("ada/tier.sh"), TIER_SH, 0o755);
    write(&submissions.join("ada/out/tier.txt"), "gold\n", 0o644);
    write(&submissions.join("ada/k8s/settings.yaml"), SETTINGS, 0o644);
    fs::create_dir_all(submissions.join("fay/out")).expect("mkdir");
    write(&submissions.join("=1+2/tier.sh"), HARD_CODED, 0o755);
    let roster = work.path().join("roster.csv");
    write(
        &roster,
        "Folder,ID,Name,Email\nada,s001,\"Lovelace, Ada\",ada@example.org\nfay,s006,Fay,fay@example.org\ngus,s007,Gus,gus@example.org\n",
        0o644,
    );
    let csv = work.path().join("grades.csv");
    let json = work.path().join("grades.json");
    let moodle = work.path().join("grades.moodle.csv");
    let output = batch(
        scenarios.path(),
        cache.path(),
        &submissions,
        &work.path().join("reports"),
        &[
            "--roster",
            roster.to_str().expect("utf-8"),
            "--gradebook",
            csv.to_str().expect("utf-8"),
            "--gradebook",
            json.to_str().expect("utf-8"),
            "--gradebook",
            moodle.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("not on the roster (their learner columns are empty): =1+2"),
        "{}",
        stderr(&output)
    );
    let book = read_json(&json);
    let rows = book["submissions"].as_array().expect("rows");
    let by_name = |name: &str| {
        rows.iter()
            .find(|row| row["name"] == name)
            .unwrap_or_else(|| panic!("no row {name}: {book:#}"))
    };
    assert_eq!(by_name("ada")["learner"]["id"], "s001");
    assert_eq!(by_name("ada")["status"], "passed");
    assert_eq!(by_name("fay")["status"], "empty");
    assert_eq!(by_name("fay")["score"], 0.0);
    assert!(!work.path().join("reports/fay.json").exists());
    assert_eq!(by_name("gus")["status"], "missing");
    assert_eq!(by_name("gus")["learner"]["email"], "gus@example.org");
    assert_eq!(by_name("=1+2")["status"], "failed");
    assert!(by_name("=1+2").get("learner").is_none());

    let text = fs::read_to_string(&csv).expect("csv");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("id,full name,email,name,score,max,status"),
        "{text}"
    );
    assert!(lines[1].starts_with(",,,Points Possible,"), "{text}");
    assert!(lines[2].starts_with(",,,'=1+2,"), "{text}");
    assert!(
        lines[3].starts_with("s001,\"Lovelace, Ada\",ada@example.org,ada,"),
        "{text}"
    );
    assert!(lines
        .iter()
        .any(|l| l.starts_with("s006,Fay,fay@example.org,fay,0,")));

    let text = fs::read_to_string(&moodle).expect("moodle csv");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("username,idnumber,email,fullname,total,step "),
        "{text}"
    );
    assert!(
        lines.contains(&"gus,s007,gus@example.org,Gus,,,,missing"),
        "{text}"
    );
}

#[test]
fn resume_grades_only_what_changed() {
    let scenarios = lab();
    let cache = tempfile::tempdir().expect("tmp");
    let work = tempfile::tempdir().expect("tmp");
    let submissions = work.path().join("class");
    class(&submissions);
    // Reports and gradebook inside the class folder (`--submissions .`): never graded.
    let reports = submissions.join("reports");
    let gradebook = submissions.join("grades.json");
    let run = |extra: &[&str]| {
        let mut args = extra.to_vec();
        args.extend(["--gradebook", gradebook.to_str().expect("utf-8")]);
        let output = batch(
            scenarios.path(),
            cache.path(),
            &submissions,
            &reports,
            &args,
        );
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let book = read_json(&gradebook);
        let names: Vec<&str> = book["submissions"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|row| row["name"].as_str().expect("name"))
            .collect();
        assert_eq!(names, ["ada", "bo", "cy", "di", "eve.zip"]);
        stderr(&output)
    };
    let reused = |log: &str| {
        log.lines()
            .filter(|l| l.contains("(already graded)"))
            .count()
    };
    assert_eq!(reused(&run(&["--resume"])), 0);
    // Four folders; the stray file is not graded either way.
    assert_eq!(reused(&run(&["--resume"])), 4);
    write(&submissions.join("bo/k8s/settings.yaml"), SETTINGS, 0o644);
    let log = run(&["--resume"]);
    assert_eq!(reused(&log), 3, "{log}");
    assert!(
        log.lines()
            .any(|l| l.contains(" bo ") && l.contains("passed")),
        "{log}"
    );
    // Without --resume everything is graded again.
    assert_eq!(reused(&run(&[])), 0);

    // --only grades the named again and keeps every other row as it was.
    let before = read_json(&gradebook);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let log = run(&["--only", "cy"]);
    let graded: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(" / 7 ") && l.ends_with(" s)"))
        .collect();
    assert_eq!(graded.len(), 1, "{log}");
    assert!(graded[0].contains(" cy "), "{log}");
    let after = read_json(&gradebook);
    for (old, new) in before["submissions"]
        .as_array()
        .expect("rows")
        .iter()
        .zip(after["submissions"].as_array().expect("rows"))
    {
        if new["name"] == "cy" {
            assert_ne!(old["graded_at"], new["graded_at"], "cy was graded again");
            assert_eq!(old["score"], new["score"]);
        } else if new["status"] == "malformed" {
            // Made again on every run, as without --only: no grading, nothing to keep.
            let mut new = new.clone();
            new["graded_at"] = old["graded_at"].clone();
            assert_eq!(old, &new);
        } else {
            assert_eq!(old, new, "kept as it was");
        }
    }
}

#[test]
fn shards_partition_the_class_and_merge_into_the_whole() {
    let scenarios = lab();
    let cache = tempfile::tempdir().expect("tmp");
    let work = tempfile::tempdir().expect("tmp");
    let submissions = work.path().join("class");
    for i in 0..8 {
        let dir = submissions.join(format!("learner-{i}"));
        let script = if i % 3 == 0 { HARD_CODED } else { TIER_SH };
        write(&dir.join("tier.sh"), script, 0o755);
        write(&dir.join("out/tier.txt"), "gold\n", 0o644);
        if i % 2 == 0 {
            write(&dir.join("k8s/settings.yaml"), SETTINGS, 0o644);
        }
    }
    let whole = work.path().join("whole.json");
    let output = batch(
        scenarios.path(),
        cache.path(),
        &submissions,
        &work.path().join("reports"),
        &["--gradebook", whole.to_str().expect("utf-8")],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));

    let mut shard_files = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for index in 0..4 {
        let file = work.path().join(format!("shard-{index}.json"));
        let reports = work.path().join("reports-{shard}");
        let reports = reports.to_str().expect("utf-8");
        let mut command = proctor(scenarios.path(), cache.path());
        command
            .args(["grade", "mini", "--format", "json", "--submissions"])
            .arg(&submissions)
            .args(["--reports", reports, "--gradebook"])
            .arg(work.path().join("shard-{shard}.json"));
        // Half the shards as an Indexed Job's pods see it.
        if index % 2 == 0 {
            command.arg(format!("--shard={index}/4"));
        } else {
            command
                .args(["--shard-count", "4"])
                .env("JOB_COMPLETION_INDEX", index.to_string());
        }
        let output = command.output().expect("runs");
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(work.path().join(format!("reports-{index}")).is_dir());
        for row in read_json(&file)["submissions"].as_array().expect("rows") {
            *seen
                .entry(row["name"].as_str().expect("name").to_string())
                .or_default() += 1;
        }
        shard_files.push(file);
    }
    assert_eq!(seen.len(), 8, "{seen:?}");
    assert!(seen.values().all(|&count| count == 1), "{seen:?}");

    let merged = work.path().join("merged.json");
    let output = proctor(scenarios.path(), cache.path())
        .args(["gradebook", "merge"])
        .args(&shard_files)
        .arg("--output")
        .arg(&merged)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // The same rows, made at other times.
    let untimed = |mut book: Value| {
        for row in book["submissions"].as_array_mut().expect("rows") {
            row["graded_at"] = Value::Null;
        }
        book
    };
    assert_eq!(untimed(read_json(&merged)), untimed(read_json(&whole)));

    // Shards that overlap (the same shard graded on different inputs) are refused.
    let with_rows = shard_files
        .iter()
        .find(|file| {
            read_json(file)["submissions"]
                .as_array()
                .is_some_and(|rows| !rows.is_empty())
        })
        .expect("a shard with submissions");
    let mut conflicting = read_json(with_rows);
    conflicting["submissions"][0]["score"] = Value::from(-1.0);
    let file = work.path().join("conflict.json");
    fs::write(&file, conflicting.to_string()).expect("write");
    let output = proctor(scenarios.path(), cache.path())
        .args(["gradebook", "merge"])
        .arg(with_rows)
        .arg(&file)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("graded differently"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn bad_batch_arguments_are_refused_before_grading() {
    let scenarios = lab();
    let cache = tempfile::tempdir().expect("tmp");
    let work = tempfile::tempdir().expect("tmp");
    let reports = work.path().join("reports");
    let run = |args: &[&str]| {
        let mut command = proctor(scenarios.path(), cache.path());
        command.args(["grade", "mini"]).args(args);
        // Every refused batch would otherwise have written here.
        if args.contains(&"--submissions") {
            command.arg("--reports").arg(&reports);
        }
        command.output().expect("runs")
    };
    let class = work.path().to_str().expect("utf-8");
    let missing = work.path().join("nope");
    // One learner's lab folder given as a class.
    let learner = work.path().join("ada");
    write(&learner.join("tier.sh"), TIER_SH, 0o755);
    write(&learner.join("out/tier.txt"), "gold\n", 0o644);
    for (args, says) in [
        (
            vec!["--submissions", class, "--shard", "4/4"],
            "from 0 to 3",
        ),
        (
            vec!["--submissions", class, "--shard-count", "4"],
            "JOB_COMPLETION_INDEX",
        ),
        (
            vec!["--submissions", class, "--gradebook", "g.xlsx"],
            ".csv, .json or .moodle.csv",
        ),
        (
            vec!["--submissions", missing.to_str().expect("utf-8")],
            "reading the submissions folder",
        ),
        (
            vec!["--submission", class, "--submissions", class],
            "cannot be used with",
        ),
        (
            vec!["--jobs", "2", "--submission", class],
            "goes with --submissions",
        ),
        (
            vec!["--resume", "--submission", class],
            "goes with --submissions",
        ),
        (
            vec!["--submissions", class, "--jobs", "0"],
            "0 is not in 1..",
        ),
        (
            vec!["--submissions", class, "--only", "nobody"],
            "has no submission named nobody",
        ),
        (
            vec!["--submissions", learner.to_str().expect("utf-8")],
            "looks like one learner's mini lab folder, not a class (it holds out, tier.sh)",
        ),
    ] {
        let output = run(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains(says),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    assert!(
        !reports.exists(),
        "a refused batch wrote its reports folder"
    );
}

/// The arguments `deploy/job.yaml` gives each pod of the Indexed Job are a command this proctor
/// runs: with JOB_COMPLETION_INDEX set (and the course volume somewhere else), it grades its
/// share and writes that shard's gradebooks.
#[test]
fn the_deploy_job_runs_a_valid_batch() {
    let manifest = crate::common::repo().join("deploy/job.yaml");
    let job: serde_yaml::Value =
        serde_yaml::from_str(&fs::read_to_string(&manifest).expect("deploy/job.yaml"))
            .expect("yaml");
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    let course = tempfile::tempdir().expect("tmp");
    let root = course.path().to_str().expect("utf-8");
    let args: Vec<String> = container["args"]
        .as_sequence()
        .expect("args")
        .iter()
        .map(|arg| arg.as_str().expect("a string").replace("/course", root))
        .collect();
    assert_eq!(args[0], "grade");
    let count: u64 = job["spec"]["completions"].as_u64().expect("completions");
    assert!(
        args.contains(&format!("--shard-count={count}")),
        "--shard-count matches completions: {args:?}"
    );
    fs::create_dir_all(course.path().join("submissions")).expect("mkdir");
    let cache = tempfile::tempdir().expect("tmp");
    let output = crate::common::proctor(cache.path())
        .args(&args)
        .env("JOB_COMPLETION_INDEX", "2")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let gradebook = read_json(&course.path().join("out/gradebooks/shard-2.json"));
    assert_eq!(gradebook["submissions"], Value::Array(Vec::new()));
    assert!(course.path().join("out/gradebooks/shard-2.csv").is_file());
    assert!(course.path().join("out/reports/shard-2").is_dir());
    // The pods write only below the volume's out/: submissions/ is mounted read-only.
    let mounts = container["volumeMounts"]
        .as_sequence()
        .expect("volumeMounts");
    let submissions = mounts
        .iter()
        .find(|mount| mount["mountPath"] == "/course/submissions")
        .expect("a submissions mount");
    assert_eq!(submissions["readOnly"], serde_yaml::Value::Bool(true));
}

/// A submission whose grade runs out of time (`limits.grade`) is a `timed-out` row, and the
/// batch still ends normally.
#[test]
fn a_grade_out_of_time_is_a_timed_out_row() {
    let scenarios = lab();
    let tight = crate::common::SCENARIO.replace("steps:\n", "limits: {grade: 1ms}\nsteps:\n");
    write(&scenarios.path().join("mini/scenario.yaml"), &tight, 0o644);
    let cache = tempfile::tempdir().expect("tmp");
    let work = tempfile::tempdir().expect("tmp");
    let submissions = work.path().join("class");
    class(&submissions);
    let json = work.path().join("grades.json");
    let output = batch(
        scenarios.path(),
        cache.path(),
        &submissions,
        &work.path().join("reports"),
        &["--gradebook", json.to_str().expect("utf-8")],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let gradebook = read_json(&json);
    let ada = &gradebook["submissions"][0];
    assert_eq!(ada["name"], "ada");
    assert_eq!(ada["status"], "timed-out", "{ada:#}");
}
