//! Hostile submissions graded end to end through the binary: scripts that loop, flood their
//! output, fork without end, eat memory, sleep past the timeout, leave processes behind, send
//! `kill -9 -1`, delete the cluster's nodes or the lab's namespace, read the reference solution,
//! write into the grader's files, print binary, or point symbolic links out of the submission.
//!
//! Every grade must end as an ordinary report (exit 1, valid JSON, no panic) in which exactly the
//! misbehaving checks lost their points, each with its reason in the learner's words, while every
//! other check, including the ones after a vandal in the same step, is graded as if nothing had
//! happened; afterwards nothing of the run is still running, and the scenario dir, the submission
//! and the grader's other files are byte for byte what they were.
//!
//! The default run uses small limits (5 s, 64 KiB, 64 processes) so that it stays short; the
//! `#[ignore]`d soak test (`just soak`) does the same with the default limits and full-size abuse.

// Test code: an unmet expectation is the test failing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod hostile_lab;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use hostile_lab::{
    assert_failing_exactly, assert_same_tree, cgroup_limits, isolation, output, processes_left,
    skip, tree, Entry, Files, Graded, Lab, SMALL_LIMITS,
};

/// Grades `files` as submission `case` and checks what must hold whatever the submission did:
/// the scenario dir and the submission unchanged, the cache's and the host's sentinel files
/// unchanged, the hostile marker written nowhere, the secret shown nowhere, no process left.
fn grade_guarded(lab: &Lab, case: &str, files: &Files, format: &str) -> Graded {
    let submission = lab.submission(case, files);
    let scenario_before = tree(&lab.scenario_dir());
    let submission_before = tree(&submission);
    let cache_sentinel = fs::read(lab.cache_sentinel()).expect("cache sentinel");
    let outside_sentinel = fs::read(lab.outside_sentinel()).expect("outside sentinel");

    let graded = lab.grade(&submission, format);

    assert_same_tree(
        "the scenario dir",
        &scenario_before,
        &tree(&lab.scenario_dir()),
    );
    assert_same_tree("the submission", &submission_before, &tree(&submission));
    assert_eq!(
        fs::read(lab.cache_sentinel()).ok(),
        Some(cache_sentinel),
        "a file in the reference cache changed"
    );
    assert_eq!(
        fs::read(lab.outside_sentinel()).ok(),
        Some(outside_sentinel),
        "a file of the host changed"
    );
    assert_eq!(
        lab.files_containing(&lab.pwned),
        Vec::<std::path::PathBuf>::new(),
        "a script wrote into the grader's files"
    );
    assert_eq!(
        processes_left(&lab.sentinel),
        Vec::<String>::new(),
        "processes of the run are still running"
    );
    assert!(
        !graded.text().contains(&lab.secret) && !graded.stderr.contains(&lab.secret),
        "the reference's secret reached the report:\n{}\n{}",
        graded.text(),
        graded.stderr
    );
    graded
}

/// Shell lines that write `$mark` into each of `targets` and say so when one succeeds.
fn write_attempts(targets: &[std::path::PathBuf]) -> String {
    targets
        .iter()
        .map(|t| {
            format!(
                "echo \"$mark\" > '{}' 2>/dev/null && echo \"wrote {}\"\n",
                t.display(),
                t.display()
            )
        })
        .collect()
}

/// `text` split in two shell words that bash joins again, so that the script's own source does
/// not hold `text` (the tests look for it in every file afterwards).
fn split_word(text: &str) -> String {
    let middle = text.len() / 2;
    format!("\"{}\"\"{}\"", &text[..middle], &text[middle..])
}

#[test]
fn correct_submission_gets_full_marks() {
    let lab = Lab::new(SMALL_LIMITS);
    let graded = grade_guarded(&lab, "correct", &Files::correct(), "json");
    assert_eq!(graded.code, Some(0), "{}\n{}", graded.text(), graded.stderr);
    assert_failing_exactly(&graded.json(), &[]);
}

/// Without namespaces a learner's uid reads what any user may: a lab (its reference solution)
/// or a submission that other users can reach is refused before anything runs, naming it and
/// the fix. The other modes show runs only what they mount, so there is nothing to refuse.
#[test]
fn a_lab_or_submission_other_users_can_read_is_refused_without_namespaces() {
    if isolation() != Some("unprivileged-uid") {
        eprintln!(
            "SKIP: only the unprivileged-uid sandbox runs learners' code on the host's files"
        );
        return;
    }
    let lab = Lab::new(SMALL_LIMITS);
    let submission = lab.submission("correct", &Files::correct());
    // An open copy of the lab, where no other test's attack looks (they search /tmp, /var/tmp
    // and the caches): each of its directories searchable and readable by every user.
    let open = tempfile::Builder::new()
        .prefix("proctor-open-lab-")
        .tempdir_in("/dev/shm")
        .expect("a directory in /dev/shm");
    let scenarios = open.path().join("scenarios");
    proctor::tree::copy_dir(&lab.scenarios(), &scenarios).expect("copy the lab");
    open_to_everyone(open.path());

    let graded = lab.grade_from(&scenarios, &submission, "json");
    assert_eq!(graded.code, Some(2), "{}", graded.stderr);
    let lab_dir = scenarios.join("hostile");
    assert!(
        graded
            .stderr
            .contains("the lab with its reference solution")
            && graded
                .stderr
                .contains(&format!("chmod o-rwx {}", lab_dir.display())),
        "{}",
        graded.stderr
    );
    // Nothing ran: no reference in the cache (only the test's sentinel), no report.
    let cached: Vec<String> = fs::read_dir(lab.cache())
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(cached, ["sentinel.txt"], "the cache after the refusal");
    assert!(graded.stdout.is_empty(), "a report after the refusal");

    // The private lab, and a submission anyone can reach: refused too.
    let open_submission = open.path().join("submission");
    proctor::tree::copy_dir(&submission, &open_submission).expect("copy the submission");
    open_to_everyone(open.path());
    let graded = lab.grade(&open_submission, "json");
    assert_eq!(graded.code, Some(2), "{}", graded.stderr);
    assert!(
        graded.stderr.contains(&format!(
            "could read the submission, {}",
            open_submission.display()
        )),
        "{}",
        graded.stderr
    );
}

/// `root` and everything under it readable by every user, its directories searchable.
fn open_to_everyone(root: &Path) {
    let chmod = |path: &Path, mode: u32| {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
    };
    chmod(root, 0o755);
    for (path, entry) in tree(root) {
        match entry {
            Entry::Dir { mode } => chmod(&root.join(path), mode | 0o055),
            Entry::File { mode, .. } => chmod(&root.join(path), mode | 0o044),
            Entry::Link(_) => {}
        }
    }
}

#[test]
fn runaway_scripts_are_stopped_at_the_scenarios_limits() {
    let lab = Lab::new(SMALL_LIMITS);
    let sentinel = &lab.sentinel;
    let files = Files::correct()
        // An endless loop, with a helper in the background.
        .script(
            "nodes.sh",
            &format!("#!/bin/bash\nsleep {sentinel} &\nwhile :; do :; done\n"),
        )
        // 10 MB of output against a 64 KiB limit.
        .script(
            "ns.sh",
            "#!/bin/bash\nyes hostile-flood | head -c 10000000\n",
        )
        // Memory without end (`tail` keeps the current line, and /dev/zero has no newline).
        .script("summary.sh", "#!/bin/bash\ntail /dev/zero\necho survived\n");
    let graded = grade_guarded(&lab, "runaway", &files, "json");
    graded.assert_graded_with_failures();
    let json = graded.json();
    assert_failing_exactly(&json, &["1.1", "3.1", "5.1"]);

    let looped = output(&json, "1.1");
    assert!(
        looped.contains("./nodes.sh: stdout differs; timed out, expected exit 0"),
        "{looped}"
    );
    assert!(
        looped.contains("the script did not finish within 5s and was stopped"),
        "{looped}"
    );

    let flood = output(&json, "3.1");
    assert!(
        flood.contains("./ns.sh: stdout differs; stopped: output limit exceeded, expected exit 0"),
        "{flood}"
    );
    assert!(
        flood.contains("the script wrote more than 64 KiB of output and was stopped"),
        "{flood}"
    );
    // The flood is not mistaken for a background process holding the output open.
    assert!(!flood.contains("background process"), "{flood}");
    // The report shows a bounded part of it.
    assert!(flood.contains("more diff lines)"), "{flood}");
    assert!(flood.len() < 16 * 1024, "{} bytes of output", flood.len());

    let hog = output(&json, "5.1");
    let memory = if cgroup_limits("memory") {
        "the script used more than 768 MiB of memory and was killed"
    } else {
        "the script tried to use more than 768 MiB of memory (an allocation was refused)"
    };
    assert!(hog.contains(memory), "{hog}");
}

#[test]
fn lingering_processes_are_stopped_and_change_nothing() {
    let lab = Lab::new(SMALL_LIMITS);
    let sentinel = &lab.sentinel;
    let files = Files::correct()
        // Leaves processes behind, in and out of its session, one of them holding the output
        // open and one that would delete the nodes and the namespace a second later.
        .script(
            "gold.sh",
            &format!(
                "#!/bin/bash\nsetsid nohup sleep {sentinel} >/dev/null 2>&1 &\nsleep {sentinel} &\n(sleep 1; kubectl delete nodes --all; kubectl delete namespace hostile) >/dev/null 2>&1 &\ndisown -a\nexit 0\n"
            ),
        )
        // 200 processes against a limit of 64, then waits for them.
        .script(
            "echo.sh",
            &format!("#!/bin/bash\nfor i in $(seq 200); do sleep {sentinel} & done\nwait\n"),
        );
    let graded = grade_guarded(&lab, "lingering", &files, "json");
    graded.assert_graded_with_failures();
    let json = graded.json();
    // Steps 3 and 5 come after the would-be vandal and are untouched by it.
    assert_failing_exactly(&json, &["2.3", "4.1"]);

    let left = output(&json, "2.3");
    assert!(
        left.contains(
            "gold.sh differs from the reference on 1 of 1 run(s):\n  ./gold.sh: stdout differs"
        ),
        "{left}"
    );
    assert!(left.contains("-node/lab-node-0"), "{left}");
    assert!(!left.contains("background process"), "{left}");

    let flood = output(&json, "4.1");
    assert!(
        flood.contains("the script did not finish within 5s and was stopped"),
        "{flood}"
    );
    if cgroup_limits("pids") {
        assert!(
            flood.contains("the script hit the limit of 64 processes (a fork was refused)"),
            "{flood}"
        );
    } else {
        eprintln!(
            "SKIP the processes limit message: no pids cgroup here (root ignores RLIMIT_NPROC)"
        );
    }
    // Nothing waited for the sleeps: one 5 s timeout and the reference run.
    assert!(graded.took < Duration::from_secs(120), "{:?}", graded.took);
}

#[test]
fn vandal_scripts_do_not_leak_into_other_runs_checks_or_steps() {
    let lab = Lab::new(SMALL_LIMITS);
    let files = Files::correct()
        // Deletes every node, then lists them.
        .script(
            "nodes.sh",
            "#!/bin/bash\nkubectl delete nodes --all --wait=false >/dev/null 2>&1\nkubectl get nodes -o name | sort\n",
        )
        // Labels half the nodes, then answers for its node.
        .script(
            "tier.sh",
            "#!/bin/bash\nkubectl label node lab-node-2 lab-node-3 tier=gold --overwrite >/dev/null 2>&1\nkubectl get node \"$1\" -o jsonpath='{.metadata.labels.tier}'\necho\n",
        )
        // Deletes the lab's namespace and what is in it, then lists the settings.
        .script(
            "ns.sh",
            "#!/bin/bash\nkubectl delete configmaps -n hostile --all >/dev/null 2>&1\nkubectl delete namespace hostile --wait=false >/dev/null 2>&1\nkubectl get configmaps -n hostile -l app=hostile -o jsonpath='{range .items[*]}{.metadata.name}={.data.value}{\"\\n\"}{end}'\n",
        );
    let graded = grade_guarded(&lab, "vandal", &files, "json");
    graded.assert_graded_with_failures();
    let json = graded.json();
    // 1.3 (after the node deleter, same step), 2.3 (after the labeller), steps 4 and 5 (which
    // count nodes, gold nodes and settings) see the untouched cluster.
    assert_failing_exactly(&json, &["1.1", "2.1", "3.1"]);

    // The reference run of the same pair saw every node.
    let nodes = output(&json, "1.1");
    assert!(
        nodes.contains("-node/lab-node-0\n-node/lab-node-1\n-node/lab-node-2\n-node/lab-node-3"),
        "{nodes}"
    );
    // Each node's pair starts from the saved state: only the two relabelled nodes differ, and
    // the reference runs did not see the learner's labels.
    let tiers = output(&json, "2.1");
    assert!(
        tiers.starts_with(
            "tier.sh differs from the reference on 2 of 5 run(s):\n  ./tier.sh lab-node-2: stdout differs\n  ./tier.sh lab-node-3: stdout differs"
        ),
        "{tiers}"
    );
    assert!(tiers.contains("-bronze\n+gold"), "{tiers}");
    assert!(tiers.contains("-silver\n+gold"), "{tiers}");
    let settings = output(&json, "3.1");
    assert!(settings.contains("-alpha=one\n-beta=two"), "{settings}");
}

#[test]
fn escaping_scripts_and_links_reach_nothing_of_the_grader() {
    let lab = Lab::new(SMALL_LIMITS);
    let case = "escape";
    let scenario = lab.scenario_dir();
    let cache = lab.cache();
    let submission = lab.submission_dir(case);
    let mut files = Files::correct()
        // The reference solution's own script, and a file of the host nobody may read.
        .link("summary.sh", &scenario.join("reference/summary.sh"))
        .link("out/summary.txt", Path::new("/etc/shadow"));
    if isolation().is_some() {
        let targets = [
            scenario.join("scenario.yaml"),
            scenario.join("reference/nodes.sh"),
            scenario.join("new-file"),
            lab.cache_sentinel(),
            cache.join("new-file"),
            lab.outside_sentinel(),
            submission.join("nodes.sh"),
            submission.join("new-file"),
        ];
        let writes = write_attempts(&targets);
        let root = lab.root().display();
        let script = format!(
            "#!/bin/bash\n\
             mark={mark}\n\
             for f in '{scenario}/reference/secret.txt' '{scenario}/scenario.yaml' {cache}/*/.reference-only {cache}/*/state-*/.reference-only /tmp/proctor-*/*/.reference-only /tmp/proctor-*/state-*/.reference-only; do\n\
               echo \"read $f: $(head -c 400 \"$f\" 2>&1 | tr '\\n' ' ')\"\n\
             done\n\
             head -c 400 /etc/shadow\n\
             timeout 2 find '{root}' /tmp /var/tmp \"$HOME/.cache\" -maxdepth 6 \\( -name .reference-only -o -name secret.txt -o -name scenario.yaml \\) -exec cat {{}} + 2>/dev/null\n\
             {writes}\
             rm -rf '{scenario}/reference' 2>/dev/null\n\
             kubectl get nodes -o name | sort\n",
            mark = split_word(&lab.pwned),
            scenario = scenario.display(),
            cache = cache.display(),
        );
        files = files.script("nodes.sh", &script);
    } else {
        skip("reading and writing the grader's files");
    }
    let graded = grade_guarded(&lab, case, &files, "json");
    graded.assert_graded_with_failures();
    let json = graded.json();
    if isolation().is_some() {
        assert_failing_exactly(&json, &["1.1", "5.1", "5.2"]);
        let escape = output(&json, "1.1");
        assert!(
            escape.contains(&format!(
                "+read {}/reference/secret.txt: head: cannot open",
                scenario.display()
            )),
            "{escape}"
        );
        // Writes into a hidden place land in the sandbox's private tmpfs (the host's files are
        // compared in `grade_guarded`); everything else is read-only.
        assert!(
            !escape.contains(&format!("+wrote {}", lab.outside_sentinel().display())),
            "{escape}"
        );
        assert!(
            !escape.contains(&format!("+wrote {}", submission.display())),
            "{escape}"
        );
        // What a successful grade would have printed is still compared.
        assert!(escape.contains(" node/lab-node-0\n"), "{escape}");
    } else {
        assert_failing_exactly(&json, &["5.1", "5.2"]);
    }
    assert_eq!(
        output(&json, "5.1"),
        format!(
            "summary.sh is a symbolic link to {}, outside your lab directory: it was not read; submit the file itself",
            scenario.join("reference/summary.sh").display()
        )
    );
    let shadow = output(&json, "5.2");
    assert_eq!(
        shadow,
        "out/summary.txt is a symbolic link to /etc/shadow, outside your lab directory: it was not read; submit the file itself"
    );
    if let Ok(text) = fs::read_to_string("/etc/shadow") {
        for line in text.lines().filter(|line| line.len() > 8) {
            assert!(
                !graded.text().contains(line),
                "a line of /etc/shadow reached the report"
            );
        }
    }
}

/// What a script has `kubectl exec` run in a pod runs in a sandbox of its own, as a learner's
/// code: never as root, and it reaches nothing of the grader that the script itself cannot —
/// the reference, the cache, the scenario and the submission stay unread and unwritten.
#[test]
fn commands_run_through_kubectl_exec_reach_nothing_of_the_grader() {
    let lab = Lab::new(SMALL_LIMITS);
    let case = "exec";
    if isolation().is_none() {
        skip("commands run through kubectl exec");
        return;
    }
    let scenario = lab.scenario_dir();
    let targets = [
        scenario.join("new-file"),
        lab.cache_sentinel(),
        lab.outside_sentinel(),
        lab.submission_dir(case).join("nodes.sh"),
    ];
    let writes = write_attempts(&targets);
    let inside = format!(
        "mark={mark}\n\
         echo \"uid $(id -u)\"\n\
         lab-tool\n\
         for f in '{scenario}/reference/secret.txt' '{scenario}/scenario.yaml' {cache}/*/.reference-only /etc/shadow; do\n\
           echo \"read $f: $(head -c 200 \"$f\" 2>&1 | tr '\\n' ' ' | cut -c1-60)\"\n\
         done\n\
         {writes}",
        mark = split_word(&lab.pwned),
        scenario = scenario.display(),
        cache = lab.cache().display(),
    );
    let script = format!(
        "#!/bin/bash\n\
         kubectl -n hostile wait --for=condition=Ready pod/box --timeout=20s >/dev/null\n\
         kubectl -n hostile exec -i box -- sh -s <<'INSIDE' 2>&1\n\
         {inside}INSIDE\n\
         kubectl get nodes -o name | sort\n"
    );
    let files = Files::correct().script("nodes.sh", &script);
    let graded = grade_guarded(&lab, case, &files, "json");
    graded.assert_graded_with_failures();
    let json = graded.json();
    assert_failing_exactly(&json, &["1.1"]);
    let run = output(&json, "1.1");
    assert!(run.contains("+declared output"), "the exec ran: {run}");
    assert!(!run.contains("+uid 0\n"), "an exec ran as root: {run}");
    assert!(
        run.contains(&format!(
            "+read {}/reference/secret.txt: head: ",
            scenario.display()
        )),
        "{run}"
    );
    assert!(
        !run.contains("+wrote "),
        "an exec wrote a grader's file: {run}"
    );
    assert!(run.contains(" node/lab-node-0\n"), "{run}");
}

/// With `HOME` under `/tmp` (a container's throwaway home) the reference cache is
/// `$HOME/.cache/proctor`, inside a path every run names. A learner's script that looks there, or
/// in the scenario, finds nothing: it prints what the correct one prints and gets full marks, on
/// the grading that fills the cache and on the one that reads it.
#[test]
fn a_home_under_tmp_does_not_reveal_the_reference_cache() {
    if isolation().is_none() {
        skip("hiding the reference cache (no file-system isolation)");
        return;
    }
    let lab = Lab::with_home_in_tmp(SMALL_LIMITS);
    let peek = format!(
        "#!/bin/bash\n\
         shopt -s nullglob\n\
         for f in \"$HOME\"/.cache/proctor/*/.reference-only \"$HOME\"/.cache/proctor/*/*/.reference-only \\\n\
                  \"$HOME\"/.cache/proctor/*/*/out/nodes.txt '{}/reference/secret.txt'; do\n\
           head -c 200 \"$f\"\n\
         done\n\
         kubectl get nodes -o name | sort\n",
        lab.scenario_dir().display()
    );
    let files = Files::correct().script("nodes.sh", &peek);
    for round in ["fills the cache", "reads the cache"] {
        let graded = grade_guarded(&lab, "peek", &files, "json");
        assert_eq!(
            graded.code,
            Some(0),
            "the grading that {round}:\n{}\n{}",
            graded.text(),
            graded.stderr
        );
    }
    assert!(
        fs::read_dir(lab.cache()).is_ok_and(|entries| entries.count() > 1),
        "the grades did not use the cache under HOME"
    );
}

#[test]
fn signals_sleepers_and_binary_output_fail_cleanly() {
    let lab = Lab::new(SMALL_LIMITS);
    let sentinel = &lab.sentinel;
    // A process of the host that `kill -9 -1` must not reach.
    let host_sentinel = format!("876543.{}", rand::random::<u32>());
    let mut host = std::process::Command::new("sleep")
        .arg(&host_sentinel)
        .spawn()
        .expect("host sentinel");
    let mut files = Files::correct()
        // Kills its own process group (the sandbox's), then would go on.
        .script("ns.sh", "#!/bin/bash\nkill -9 0\necho still here\n")
        // Not UTF-8, a NUL, terminal escapes (clear screen, set title), a carriage return,
        // random bytes, on both streams.
        .script(
            "echo.sh",
            "#!/bin/bash\nprintf '\\xff\\xfe\\x00binary\\x1b[2J\\x1b]0;pwned\\x07\\r\\n'\nprintf '\\x80\\x81 on stderr \\x1b[31m\\n' >&2\nhead -c 2000 /dev/urandom\nexit 3\n",
        )
        // Sleeps past the timeout.
        .script("summary.sh", &format!("#!/bin/bash\nsleep {sentinel}\n"));
    if isolation().is_some() {
        // Everything it can see, then every process it can signal; then would go on.
        files = files.script(
            "tier.sh",
            "#!/bin/bash\npkill -9 kubectl\npkill -9 -f proctor\nkill -9 -1\necho still here\n",
        );
    } else {
        skip("kill -9 -1 (it would reach every process of this machine)");
    }
    let graded = grade_guarded(&lab, "signals", &files, "json");
    graded.assert_graded_with_failures();
    let json = graded.json();
    let mut failing = vec!["3.1", "4.1", "5.1"];
    if isolation().is_some() {
        failing.push("2.1");
        let all = output(&json, "2.1");
        assert!(
            all.starts_with("tier.sh differs from the reference on 5 of 5 run(s):"),
            "{all}"
        );
    }
    assert_failing_exactly(&json, &failing);
    let group = output(&json, "3.1");
    assert!(
        group.contains("./ns.sh: stdout differs; killed by signal 9, expected exit 0"),
        "{group}"
    );
    let binary = output(&json, "4.1");
    assert!(
        binary.contains("./echo.sh: stdout differs; exit 3, expected exit 0"),
        "{binary}"
    );
    assert!(binary.contains('\u{fffd}'), "{binary}");
    let sleeper = output(&json, "5.1");
    assert!(
        sleeper.contains("the script did not finish within 5s and was stopped"),
        "{sleeper}"
    );
    assert!(
        matches!(host.try_wait(), Ok(None)),
        "a process of the host was killed"
    );

    // The text report shows the limit and the learner's control characters, without obeying
    // them (the reference run comes from the cache this time).
    let text = grade_guarded(&lab, "signals", &files, "text");
    text.assert_graded_with_failures();
    let report = text.text();
    assert!(
        report.contains("the script did not finish within 5s and was stopped"),
        "{report}"
    );
    assert!(report.contains("binary^[[2J^[]0;pwned^G"), "{report}");
    for control in ['\u{1b}', '\r', '\0', '\u{7}'] {
        assert!(
            !report.contains(control),
            "{control:?} reached the terminal: {report}"
        );
    }
    let _ = host.kill();
    let _ = host.wait();
}

/// A script that hangs is stopped a few seconds after the reference's run of the same pair
/// ended, not at the scenario's 30 s, and is not started again on the check's other nodes.
#[test]
fn a_hanging_script_is_stopped_soon_and_not_run_again() {
    let lab = Lab::new("");
    let sentinel = &lab.sentinel;
    let files = Files::correct().script("tier.sh", &format!("#!/bin/bash\nsleep {sentinel}\n"));
    let graded = grade_guarded(&lab, "hanging", &files, "json");
    graded.assert_graded_with_failures();
    let json = graded.json();
    assert_failing_exactly(&json, &["2.1"]);
    let hung = output(&json, "2.1");
    assert!(
        hung.starts_with("tier.sh differs from the reference on 1 of 5 run(s):"),
        "{hung}"
    );
    // Ten times the reference's run, at least 5 s: how much more depends on the machine.
    let within =
        regex::Regex::new(r"the script did not finish within (\d+ms|\d+s) and was stopped")
            .expect("regex");
    assert!(within.is_match(hung), "{hung}");
    assert!(
        hung.contains("a run is stopped once it has taken 10 times as long as the reference's run of the same pair"),
        "{hung}"
    );
    assert!(
        hung.contains("not run on the other 4 node(s): ./tier.sh extra-node-<extra> timed out"),
        "{hung}"
    );
}

/// A learner's script runs in a copy of the reference's lab dir after the step, but without the
/// reference's answers for the step: a script that prints them prints nothing (the submission
/// has no such file of its own) and fails, with the file check of the step.
#[test]
fn a_script_that_prints_the_references_answer_fails() {
    let lab = Lab::new(SMALL_LIMITS);
    let files = Files::correct()
        .script(
            "tier.sh",
            "#!/bin/bash\ngrep \"^$1 \" out/tiers.txt | cut -d' ' -f2\n",
        )
        .without("out/tiers.txt")
        .script("echo.sh", "#!/bin/bash\ncat out/echo.txt\n")
        .without("out/echo.txt");
    let graded = grade_guarded(&lab, "answer-reader", &files, "json");
    graded.assert_graded_with_failures();
    let json = graded.json();
    assert_failing_exactly(&json, &["2.1", "2.2", "4.1", "4.2"]);
    assert!(
        output(&json, "4.1").contains("stdout differs"),
        "{}",
        output(&json, "4.1")
    );
}

#[test]
fn limits_are_validated() {
    let lab = Lab::new("limits:\n  timeout: 0s\n  output: 0\n  processes: 0\n  memory: 0\n");
    let submission = lab.submission("any", &Files::correct());
    let graded = lab.grade(&submission, "json");
    assert_eq!(graded.code, Some(2), "{}", graded.stderr);
    for field in [
        "limits.timeout",
        "limits.output",
        "limits.processes",
        "limits.memory",
    ] {
        assert!(
            graded
                .stderr
                .contains(&format!("{field}: must be greater than zero")),
            "{field}: {}",
            graded.stderr
        );
    }
    let unknown = Lab::new("limits:\n  timeout: 3s\n  cpu: 1\n");
    let graded = unknown.grade(&submission, "json");
    assert_eq!(graded.code, Some(2), "{}", graded.stderr);
    assert!(
        graded.stderr.contains(
            "limits.cpu: unknown field `cpu`, expected one of `timeout`, `output`, `processes`, `memory`"
        ),
        "{}",
        graded.stderr
    );
}

/// Full-size abuse against the default limits (30 s, 1 MiB, 256 processes, 1 GiB): a minute of
/// sleep (stopped 5 s in: the reference's run took far less), 100 MB of output, a real fork bomb
/// (when a pids cgroup can hold it), a memory hog.
#[test]
#[ignore = "soak: about a minute; run by `just soak`"]
fn soak_full_size_abuse_against_the_default_limits() {
    let lab = Lab::new("");
    let sleeper = format!("60.{}", rand::random::<u32>());
    let bomb = format!("bomb-{:08x}", rand::random::<u32>());
    let pids = cgroup_limits("pids");
    let fork = if pids {
        // `exec -a` names every process of the bomb, so that leftovers can be found.
        format!("#!/bin/bash\nexec -a {bomb} /bin/bash -c 'b() {{ b | b & }}; b; sleep 20'\n")
    } else {
        skip_bomb();
        format!("#!/bin/bash\nfor i in $(seq 1000); do exec -a {bomb} sleep 600 & done\nwait\n")
    };
    let files = Files::correct()
        .script("nodes.sh", &format!("#!/bin/bash\nsleep {sleeper}\n"))
        .script(
            "ns.sh",
            "#!/bin/bash\nhead -c 100000000 /dev/zero | tr '\\0' y\n",
        )
        .script("echo.sh", &fork)
        .script("summary.sh", "#!/bin/bash\ntail /dev/zero\n");
    let graded = grade_guarded(&lab, "soak", &files, "json");
    graded.assert_graded_with_failures();
    let json = graded.json();
    assert_failing_exactly(&json, &["1.1", "3.1", "4.1", "5.1"]);
    assert!(
        output(&json, "1.1").contains("the script did not finish within 5s and was stopped"),
        "{}",
        output(&json, "1.1")
    );
    let flood = output(&json, "3.1");
    assert!(
        flood.contains("the script wrote more than 1 MiB of output and was stopped"),
        "{flood}"
    );
    assert!(flood.len() < 16 * 1024, "{} bytes", flood.len());
    if pids {
        assert!(
            output(&json, "4.1")
                .contains("the script hit the limit of 256 processes (a fork was refused)"),
            "{}",
            output(&json, "4.1")
        );
    }
    let memory = if cgroup_limits("memory") {
        "the script used more than 1 GiB of memory and was killed"
    } else {
        "the script tried to use more than 1 GiB of memory (an allocation was refused)"
    };
    assert!(
        output(&json, "5.1").contains(memory),
        "{}",
        output(&json, "5.1")
    );
    assert_eq!(processes_left(&sleeper), Vec::<String>::new());
    assert_eq!(processes_left(&bomb), Vec::<String>::new());
    let ok = std::process::Command::new("true")
        .status()
        .is_ok_and(|status| status.success());
    assert!(ok, "the machine can no longer start processes");
}

fn skip_bomb() {
    eprintln!("SKIP the real fork bomb: no pids cgroup here and root ignores RLIMIT_NPROC; 1000 sleeps instead");
}
