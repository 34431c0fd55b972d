//! `proctor gradescope`: the autograder zip in Gradescope's documented layout, and its
//! `run_autograder` run on submissions laid out as Gradescope lays them out
//! (`/autograder/source` = the unpacked zip, `/autograder/submission`, results in
//! `/autograder/results/results.json`), under a root given by AUTOGRADER_ROOT.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::common::{lab, write, SETTINGS, TIER_SH};
use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

/// The autograder of the mini lab, unpacked as Gradescope unpacks it; returns the root.
fn autograder(scenarios: &Path, work: &Path) -> PathBuf {
    autograder_with(scenarios, work, &[])
}

fn autograder_with(scenarios: &Path, work: &Path, options: &[&str]) -> PathBuf {
    let zip = work.join("autograder.zip");
    let output = cargo_bin_cmd!("proctor")
        .args(["gradescope", "mini", "--output"])
        .arg(&zip)
        .arg("--scenarios")
        .arg(scenarios)
        .args(options)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let root = work.join("autograder");
    let source = root.join("source");
    let file = fs::File::open(&zip).expect("zip");
    let mut archive = zip::ZipArchive::new(file).expect("a zip archive");
    let names: Vec<String> = archive.file_names().map(str::to_string).collect();
    for top in ["setup.sh", "run_autograder"] {
        assert!(
            names.iter().any(|n| n == top),
            "{top} at the top: {names:?}"
        );
    }
    assert!(
        names.iter().any(|n| n == "scenarios/mini/scenario.yaml"),
        "{names:?}"
    );
    assert!(names.iter().any(|n| n == "bin/proctor") && names.iter().any(|n| n == "bin/kubectl"));
    assert!(
        !names.iter().any(|n| n.contains("submissions/")),
        "{names:?}"
    );
    archive.extract(&source).expect("extract");
    for script in ["setup.sh", "run_autograder", "bin/proctor", "bin/kubectl"] {
        let mode = fs::metadata(source.join(script))
            .expect(script)
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "{script} is executable");
    }
    let syntax = std::process::Command::new("bash")
        .arg("-n")
        .arg(source.join("setup.sh"))
        .status()
        .expect("bash");
    assert!(syntax.success(), "setup.sh parses");
    // Gradescope copies run_autograder to /autograder and runs it from there.
    fs::copy(source.join("run_autograder"), root.join("run_autograder")).expect("copy");
    root
}

/// Runs the autograder on `files` placed in the submission folder; the results.json it wrote.
fn run(root: &Path, place: impl FnOnce(&Path)) -> Value {
    let (status, _) = run_autograder(root, place);
    assert!(
        status.success(),
        "run_autograder exits 0 once it wrote results"
    );
    let text = fs::read_to_string(root.join("results/results.json")).expect("results.json");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("results.json: {e}\n{text}"))
}

/// Runs the autograder; its exit status and what it printed.
fn run_autograder(root: &Path, place: impl FnOnce(&Path)) -> (std::process::ExitStatus, String) {
    let submission = root.join("submission");
    let _ = fs::remove_dir_all(&submission);
    fs::create_dir_all(&submission).expect("mkdir");
    place(&submission);
    let output = std::process::Command::new("bash")
        .arg(root.join("run_autograder"))
        .current_dir(root)
        .env("AUTOGRADER_ROOT", root)
        .env_remove("PROCTOR_CACHE")
        .env_remove("PROCTOR_SCENARIOS")
        .output()
        .expect("run_autograder");
    // The copy of kubectl a trial run leaves for learners' uids (`tools.sh`), out of the host's
    // temporary dir.
    let _ = std::process::Command::new("bash")
        .args([
            "-c",
            r#"source "$1/source/tools.sh" && rm -rf "$(tools_dir)""#,
            "-",
        ])
        .arg(root)
        .env("AUTOGRADER_ROOT", root)
        .status();
    (
        output.status,
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn learner(dir: &Path, settings: bool) {
    write(&dir.join("tier.sh"), TIER_SH, 0o755);
    write(&dir.join("out/tier.txt"), "gold\n", 0o644);
    if settings {
        write(&dir.join("k8s/settings.yaml"), SETTINGS, 0o644);
    }
}

#[test]
fn the_autograder_grades_submissions_as_gradescope_lays_them_out() {
    let scenarios = lab();
    write(
        &scenarios
            .path()
            .join("mini/submissions/perfect/expect.yaml"),
        "full-score\n",
        0o644,
    );
    let work = tempfile::tempdir().expect("tmp");
    let root = autograder(scenarios.path(), work.path());

    let full = run(&root, |dir| learner(dir, true));
    assert_eq!(full["score"], full["extra_data"]["max_score"], "{full:#}");
    assert_eq!(full["score"], 7.0, "{full:#}");
    assert!(full.get("max_score").is_none(), "{full:#}");
    let digest = full["extra_data"]["submission_sha256"]
        .as_str()
        .unwrap_or("");
    assert!(
        digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit()),
        "{full:#}"
    );
    let tests = full["tests"].as_array().expect("tests");
    assert!(!tests.is_empty());
    for test in tests {
        for field in [
            "name",
            "number",
            "score",
            "max_score",
            "status",
            "output",
            "visibility",
        ] {
            assert!(test.get(field).is_some(), "{field} in {test:#}");
        }
        assert_eq!(test["status"], "passed");
    }
    // The hidden script check is shown once grades are published; the others always.
    let visibility = |number: &str| {
        tests
            .iter()
            .find(|t| t["number"] == number)
            .map(|t| t["visibility"].clone())
    };
    assert_eq!(visibility("1.3"), Some(Value::from("after_published")));
    assert_eq!(visibility("1.2"), Some(Value::from("visible")));

    // The lab folder itself uploaded, or any one folder (GitHub's "Download ZIP"): graded
    // inside it, and said so; the same digest, since the same files were graded.
    let folder = run(&root, |dir| learner(&dir.join("mini"), true));
    assert_eq!(folder["score"], 7.0, "{folder:#}");
    let wrapped = run(&root, |dir| {
        learner(&dir.join("mini-main"), true);
        fs::create_dir_all(dir.join("__MACOSX")).expect("mkdir");
    });
    assert_eq!(wrapped["score"], 7.0, "{wrapped:#}");
    let output = wrapped["output"].as_str().unwrap_or("");
    assert!(
        output.starts_with("Your upload had its files inside the folder `mini-main/`"),
        "{output}"
    );
    assert_eq!(wrapped["extra_data"]["submission_sha256"], digest);
    // A folder a lab folder has at its top is not a wrapper.
    let only_out = run(&root, |dir| {
        write(&dir.join("out/tier.txt"), "gold\n", 0o644);
    });
    assert!(
        only_out["score"].as_f64().unwrap_or(7.0) < 7.0,
        "{only_out:#}"
    );
    assert!(!only_out["output"]
        .as_str()
        .unwrap_or("")
        .contains("inside the folder"));

    // Without the manifest: its checks fail, with an explanation.
    let partial = run(&root, |dir| learner(dir, false));
    assert!(
        partial["score"].as_f64().expect("score") < 7.0,
        "{partial:#}"
    );
    let failed: Vec<&Value> = partial["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter(|t| t["status"] == "failed")
        .collect();
    assert!(!failed.is_empty());
    assert!(failed
        .iter()
        .all(|t| !t["output"].as_str().unwrap_or("").is_empty()));

    // A scenario Proctor cannot load: no results.json and a failing exit, so that Gradescope
    // shows an autograder error rather than a grade of 0; the output says why.
    fs::write(
        root.join("source/scenarios/mini/scenario.yaml"),
        "kind: Scenario\nsteps: [\n",
    )
    .expect("write");
    let (status, stdout) = run_autograder(&root, |dir| learner(dir, true));
    assert!(!status.success(), "{stdout}");
    assert!(!root.join("results/results.json").exists());
    assert!(stdout.contains("could not grade"), "{stdout}");
    assert!(stdout.contains("scenario.yaml"), "{stdout}");
}

#[test]
fn hidden_checks_take_the_visibility_the_course_chose() {
    let scenarios = lab();
    let work = tempfile::tempdir().expect("tmp");
    let root = autograder_with(
        scenarios.path(),
        work.path(),
        &["--hidden-checks", "after-due-date"],
    );
    let results = run(&root, |dir| learner(dir, true));
    let visibility = |number: &str| {
        results["tests"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["number"] == number)
            .map(|t| t["visibility"].clone())
    };
    assert_eq!(visibility("1.3"), Some(Value::from("after_due_date")));
    assert_eq!(visibility("1.2"), Some(Value::from("visible")));
}

/// Appends to every autograder script, results file and scenario it can find, and writes a
/// results.json of its own.
const ATTACK: &str = r#"#!/bin/bash
for f in {root}/run_autograder {root}/source/run_autograder {root}/source/scenarios/mini/scenario.yaml \
         $(find / -xdev \( -name run_autograder -o -name results.json \) 2>/dev/null); do
  printf 'echo pwned\n' >> "$f" 2>/dev/null
done
mkdir -p {root}/results 2>/dev/null && echo '{"score": 999}' > {root}/results/results.json 2>/dev/null
"#;

/// A learner's script that goes looking for the autograder — its script, its results, the
/// bundle with the reference — to rewrite them, while printing the right answer: it gets its
/// honest score, and the autograder, its bundle and the next submission's grade are untouched.
#[test]
fn a_submission_cannot_rewrite_the_autograder_or_its_results() {
    let scenarios = lab();
    let work = tempfile::tempdir().expect("tmp");
    let root = autograder(scenarios.path(), work.path());
    let script_before = fs::read(root.join("run_autograder")).expect("run_autograder");
    let bundled_before = fs::read(root.join("source/run_autograder")).expect("bundled");
    let scenario_before =
        fs::read(root.join("source/scenarios/mini/scenario.yaml")).expect("scenario");
    let honest = run(&root, |dir| learner(dir, true));
    assert_eq!(honest["score"], 7.0, "{honest:#}");
    let attack = ATTACK.replace("{root}", &root.display().to_string())
        + TIER_SH.trim_start_matches("#!/bin/bash\n");
    let attacked = run(&root, |dir| {
        learner(dir, true);
        write(&dir.join("tier.sh"), &attack, 0o755);
    });
    assert_eq!(attacked["score"], honest["score"], "{attacked:#}");
    assert_eq!(
        fs::read(root.join("run_autograder")).ok(),
        Some(script_before)
    );
    assert_eq!(
        fs::read(root.join("source/run_autograder")).ok(),
        Some(bundled_before)
    );
    assert_eq!(
        fs::read(root.join("source/scenarios/mini/scenario.yaml")).ok(),
        Some(scenario_before)
    );
    // The next submission is graded as before.
    let next = run(&root, |dir| learner(dir, true));
    assert_eq!(next["score"], honest["score"], "{next:#}");
}
