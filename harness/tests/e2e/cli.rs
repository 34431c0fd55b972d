//! The command line as a user meets it: help, exit statuses, scenario errors.

use std::fs;
use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;

const VALID: &str = "\
apiVersion: proctor/v1
kind: Scenario
name: mini
title: A mini lab
labDir: /root/mini
steps:
  - id: 1
    title: Write a file
    reference: |
      mkdir -p out && echo hello > out/hello.txt
    artifacts: [out/hello.txt]
    checks:
      - id: hello
        title: out/hello.txt says hello
        file: {path: out/hello.txt}
";

fn scenarios_with(name: &str, text: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("tempdir");
    fs::create_dir_all(root.path().join(name)).expect("mkdir");
    fs::write(root.path().join(name).join("scenario.yaml"), text).expect("write");
    root
}

#[test]
fn help_lists_commands_and_examples() {
    cargo_bin_cmd!("proctor")
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Usage: proctor [OPTIONS] <COMMAND>",
        ))
        .stdout(predicate::str::contains("grade"))
        .stdout(predicate::str::contains("selftest"))
        .stdout(predicate::str::contains("Examples:"))
        .stdout(predicate::str::contains(
            "proctor grade gpudrv --submission",
        ));
}

#[test]
fn subcommand_help_shows_flags() {
    cargo_bin_cmd!("proctor")
        .args(["grade", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--submission <DIR>"))
        .stdout(predicate::str::contains("--format <FORMAT>"))
        .stdout(predicate::str::contains("junit"));
}

/// Every command's help has an example; options sit under their own headings; a global option
/// is offered only where it means something, and the older spellings still work.
#[test]
fn every_command_has_an_example_and_only_its_own_options() {
    for command in [
        "up",
        "check",
        "grade",
        "solve",
        "selftest",
        "demo",
        "labs",
        "gradescope",
        "lint",
        "schema",
        "gradebook",
    ] {
        let output = cargo_bin_cmd!("proctor")
            .args([command, "--help"])
            .output()
            .expect("runs");
        let help = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{command}: {help}");
        assert!(
            help.contains("Example"),
            "{command} --help has no example:\n{help}"
        );
        let starts = ["up", "check", "grade", "solve", "selftest", "demo", "lint"];
        assert_eq!(
            help.contains("--cluster <CLUSTER>"),
            starts.contains(&command),
            "{command}: --cluster offered where it means something, only there:\n{help}"
        );
    }
    let grade = cargo_bin_cmd!("proctor")
        .args(["grade", "--help"])
        .output()
        .expect("runs");
    let help = String::from_utf8_lossy(&grade.stdout);
    // --output and --format are a single grading's, not under the batch's heading.
    let batch = help.find("Batch grading").expect("batch heading");
    let report = help.find("Report:").expect("report heading");
    assert!(
        report > batch && help[report..].contains("--output <FILE>"),
        "{help}"
    );
    // Meaningless here: refused, not ignored.
    cargo_bin_cmd!("proctor")
        .args([
            "gradescope",
            "mini",
            "--output",
            "x.zip",
            "--cluster",
            "kwokctl",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unexpected argument '--cluster'"));
    // The older spellings are aliases.
    for (command, old) in [("up", "--lab-dir"), ("gradescope", "--out")] {
        let output = cargo_bin_cmd!("proctor")
            .args([command, old])
            .output()
            .expect("runs");
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(
            !said.contains("unexpected argument"),
            "{command} {old}: {said}"
        );
    }
}

#[test]
fn missing_scenario_path_exits_2_naming_it() {
    let submission = tempfile::tempdir().expect("tempdir");
    cargo_bin_cmd!("proctor")
        .args(["grade", "/nonexistent/lab/scenario.yaml", "--submission"])
        .arg(submission.path())
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "error: /nonexistent/lab/scenario.yaml: cannot read scenario",
        ));
}

#[test]
fn unknown_key_exits_2_with_file_line_and_column() {
    let text = VALID.replace(
        "        file: {path: out/hello.txt}",
        "        file: {path: out/hello.txt, compre: exact}",
    );
    let root = scenarios_with("mini", &text);
    let file = root.path().join("mini").join("scenario.yaml");
    let submission = tempfile::tempdir().expect("tempdir");
    cargo_bin_cmd!("proctor")
        .args(["grade", "mini", "--scenarios"])
        .arg(root.path())
        .arg("--submission")
        .arg(submission.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{}:15:37: ",
            file.display()
        )))
        .stderr(predicate::str::contains(
            "steps[0].checks[0].file.compre: unknown field `compre`",
        ));
}

#[test]
fn unknown_lab_exits_2_and_lists_known_ones() {
    let root = scenarios_with("mini", VALID);
    cargo_bin_cmd!("proctor")
        .args(["check", "nope", "--kubeconfig", "/dev/null", "--scenarios"])
        .arg(root.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no lab named \"nope\""))
        .stderr(predicate::str::contains("known labs: mini"));
}

#[test]
fn labs_lists_from_the_scenarios_env() {
    let root = scenarios_with("mini", VALID);
    cargo_bin_cmd!("proctor")
        .arg("labs")
        .env("PROCTOR_SCENARIOS", root.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("mini"))
        .stdout(predicate::str::contains("1 steps  A mini lab"));
}

#[test]
fn bad_format_is_a_usage_error() {
    cargo_bin_cmd!("proctor")
        .args(["grade", "gpudrv", "--submission", ".", "--format", "xml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid value 'xml' for '--format <FORMAT>'",
        ));
}

#[test]
fn check_needs_a_kubeconfig() {
    cargo_bin_cmd!("proctor")
        .args(["check", "gpudrv"])
        .env_remove("KUBECONFIG")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no cluster to check against: start one with `proctor up gpudrv --dir DIR`",
        ));
}

#[test]
fn submission_must_be_a_directory() {
    let root = scenarios_with("mini", VALID);
    cargo_bin_cmd!("proctor")
        .args([
            "grade",
            "mini",
            "--submission",
            "/nonexistent/submission",
            "--scenarios",
        ])
        .arg(root.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "submission /nonexistent/submission is not a directory",
        ));
}

/// Declared container logs are served by the clusters Proctor starts; a cluster reached by
/// `--kubeconfig` serves its own kubelets' logs, so such a lab is refused there (exit 2) before
/// the kubeconfig is read; a misspelt field of a logs entry is a problem named by file:line.
#[test]
fn a_lab_declaring_logs_is_refused_on_a_cluster_proctor_did_not_start() {
    let with_logs = VALID.replace(
        "steps:\n",
        "cluster:\n  logs:\n    - {namespaces: [gpu], text: Test PASSED}\nsteps:\n",
    );
    let root = scenarios_with("mini", &with_logs);
    let submission = tempfile::tempdir().expect("tempdir");
    cargo_bin_cmd!("proctor")
        .args(["grade", "mini", "--kubeconfig", "/nonexistent/kubeconfig"])
        .arg("--submission")
        .arg(submission.path())
        .arg("--scenarios")
        .arg(root.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "mini declares container logs (`cluster.logs` in its scenario.yaml), which only the \
             clusters Proctor starts serve",
        ));
    let misspelt = with_logs.replace("text:", "txt:");
    let root = scenarios_with("mini", &misspelt);
    cargo_bin_cmd!("proctor")
        .args(["lint", "mini", "--scenarios"])
        .arg(root.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "mini/scenario.yaml:8:27: cluster.logs[0].txt: unknown field `txt`",
        ));
}

/// A lab written for one runtime (`runtimes:`) is refused on the others by every command that
/// would run it, before a cluster starts or anything of the learner's is looked at (exit 2: the
/// lab cannot run here, which is not the learner's doing); `lint` says it was not linted there.
#[test]
fn a_lab_is_refused_on_a_runtime_it_is_not_written_for() {
    let only_kwokctl = VALID.replace("steps:\n", "runtimes: [kwokctl]\nsteps:\n");
    let root = scenarios_with("mini", &only_kwokctl);
    let submission = tempfile::tempdir().expect("tempdir");
    let refusal = "mini is written for kwokctl only (`runtimes: [kwokctl]` in its scenario.yaml), \
                   not for embedded: run it with --cluster kwokctl";
    for args in [
        vec![
            "grade",
            "mini",
            "--submission",
            &submission.path().to_string_lossy(),
        ],
        vec!["selftest", "mini"],
        vec!["demo", "mini"],
        vec![
            "solve",
            "mini",
            "--dir",
            &submission.path().join("solved").to_string_lossy(),
        ],
    ] {
        cargo_bin_cmd!("proctor")
            .args(&args)
            .arg("--scenarios")
            .arg(root.path())
            .assert()
            .code(2)
            .stderr(predicate::str::contains(refusal));
    }
    assert!(
        !submission.path().join("solved").exists(),
        "solve ran nothing"
    );
    cargo_bin_cmd!("proctor")
        .args(["grade", "mini", "--kubeconfig", "/nonexistent/kubeconfig"])
        .arg("--submission")
        .arg(submission.path())
        .arg("--scenarios")
        .arg(root.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "not for kubeconfig: run it with --cluster kwokctl",
        ));
    cargo_bin_cmd!("proctor")
        .args(["lint", "mini", "--scenarios"])
        .arg(root.path())
        .assert()
        .success()
        .stderr(predicate::str::contains(format!("not linted: {refusal}")));
    let nowhere = VALID.replace("steps:\n", "runtimes: []\nsteps:\n");
    let root = scenarios_with("mini", &nowhere);
    cargo_bin_cmd!("proctor")
        .args(["lint", "mini", "--scenarios"])
        .arg(root.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "runtimes: is empty: the lab would run nowhere (leave it out to run anywhere)",
        ));
}

#[test]
fn valid_scenario_file_is_accepted_by_path() {
    let root = scenarios_with("mini", VALID);
    let path = root.path().join("mini");
    assert!(Path::new(&path).join("scenario.yaml").is_file());
    cargo_bin_cmd!("proctor")
        .arg("labs")
        .arg("--scenarios")
        .arg(root.path())
        .assert()
        .success();
}

/// What loading cannot see: a resource the cluster does not serve, a kind it does not serve, a
/// file no step asks for, a scenario file the reference uses that is not there; each is named
/// with its line, and the lint exits 1.
#[test]
fn lint_names_unserved_resources_and_unknown_paths() {
    let broken = VALID.replace(
        "      mkdir -p out && echo hello > out/hello.txt\n",
        "      mkdir -p out && echo hello > out/hello.txt\n      kubectl apply -f \"$SCENARIO_DIR/reference/gone.yaml\"\n",
    ) + "      - id: typo
        title: a typo
        object: {resource: deploymnets, name: d}
      - id: kind
        title: a kind typo
        manifest: {path: out/hello.txt, objects: [{kind: ConfigMaps, name: c}]}
      - id: unasked
        title: a file nobody writes
        file: {path: out/bye.txt}
";
    let root = scenarios_with("mini", &broken);
    let output = cargo_bin_cmd!("proctor")
        .args(["lint", "mini", "--scenarios"])
        .arg(root.path())
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    for expected in [
        "scenario.yaml:7:3: steps[0].reference: uses $SCENARIO_DIR/reference/gone.yaml, which does not exist",
        "scenario.yaml:17:7: steps[0].checks[1].object.resource: \"deploymnets\" is not a resource the cluster serves (did you mean deployments?)",
        "scenario.yaml:20:7: steps[0].checks[2].manifest.objects[0].kind: \"ConfigMaps\" is not a kind the cluster serves (did you mean ConfigMap?)",
        "scenario.yaml:23:7: steps[0].checks[3].file.path: out/bye.txt is not an artifact of step 1 or an earlier one",
        "mini/submissions: the lab bundles no proof that its checks pass a right answer and catch \
         wrong ones; add perfect/ with an expect.yaml of `score: full` and 2 more flawed \
         submission(s) with `failingSteps: [...]` (has 0; at least 2)",
    ] {
        assert!(stdout.contains(expected), "{expected}\nnot in:\n{stdout}");
    }
}

#[test]
fn schema_prints_the_json_schema() {
    cargo_bin_cmd!("proctor")
        .arg("schema")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "\"$schema\": \"https://json-schema.org/draft/2020-12/schema\"",
        ))
        .stdout(predicate::str::contains("\"includeInjected\""));
}
