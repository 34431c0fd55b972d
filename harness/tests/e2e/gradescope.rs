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
    let zip = work.join("autograder.zip");
    let output = cargo_bin_cmd!("proctor")
        .args(["gradescope", "mini", "--out"])
        .arg(&zip)
        .arg("--scenarios")
        .arg(scenarios)
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
    let submission = root.join("submission");
    let _ = fs::remove_dir_all(&submission);
    fs::create_dir_all(&submission).expect("mkdir");
    place(&submission);
    let status = std::process::Command::new("bash")
        .arg(root.join("run_autograder"))
        .current_dir(root)
        .env("AUTOGRADER_ROOT", root)
        .env_remove("PROCTOR_CACHE")
        .env_remove("PROCTOR_SCENARIOS")
        .status()
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
    assert!(
        status.success(),
        "run_autograder exits 0 once it wrote results"
    );
    let text = fs::read_to_string(root.join("results/results.json")).expect("results.json");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("results.json: {e}\n{text}"))
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
    assert_eq!(full["score"], full["max_score"], "{full:#}");
    assert_eq!(full["score"], 7.0, "{full:#}");
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

    // The lab folder itself uploaded: graded inside it.
    let folder = run(&root, |dir| learner(&dir.join("mini"), true));
    assert_eq!(folder["score"], 7.0, "{folder:#}");

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

    // A scenario Proctor cannot load: still a results.json, saying so, with no score.
    fs::write(
        root.join("source/scenarios/mini/scenario.yaml"),
        "kind: Scenario\nsteps: [\n",
    )
    .expect("write");
    let broken = run(&root, |dir| learner(dir, true));
    assert_eq!(broken["score"], 0.0, "{broken:#}");
    let output = broken["output"].as_str().expect("output");
    assert!(output.contains("could not grade"), "{output}");
    assert!(output.contains("scenario.yaml"), "{output}");
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
