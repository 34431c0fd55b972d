//! The differential suite: every session of `tests/differential/sessions/` runs on a fresh
//! embedded cluster and on a fresh upstream control plane (kwokctl, `--runtime binary`, with the
//! binaries `upstream/build.sh` built), and their stdout, stderr, exit codes and objects must
//! agree after normalisation (see `differential::normalize`), or the difference must be listed in
//! `tests/differential/accepted.yaml`. One test per session.
//!
//! Without the upstream binaries (or Go to build them) the suite says so in one line and its
//! tests are ignored; `PROCTOR_REQUIRE_UPSTREAM=1` (set by CI) makes that a failure instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use libtest_mimic::{Arguments, Failed, Trial};
use proctor::cluster::upstream::Upstream;
use proctor::cluster::Target;
use proctor::runner::reference::run::{copy_starter, REFERENCE_LIB};
use proctor::runner::{prepare_cluster, starting_setup};
use proctor::scenario::Lab;
use proctor_tests::differential::accepted::{self, Accepted, Status};
use proctor_tests::differential::run::{run_session, Side};
use proctor_tests::differential::session::{self, Field, Step};

/// Figures across sessions, printed at the end.
#[derive(Default)]
struct Tally {
    sessions: usize,
    commands: usize,
    identical: usize,
    /// (status, category) → count
    listed: BTreeMap<(String, String), usize>,
}

static TALLY: Mutex<Option<Tally>> = Mutex::new(None);

fn main() {
    // Sessions share nothing (each has its own two clusters; kwokctl creations take turns, see
    // `cluster::kwokctl`), so they run as many at a time as the runner allows.
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("differential");
    let accepted = match accepted::load(&root.join("accepted.yaml")) {
        Ok(list) => list,
        Err(error) => {
            eprintln!("{error:#}");
            std::process::exit(2);
        }
    };
    let skip = match Upstream::find() {
        Ok(_) => None,
        Err(error) => {
            let reason = format!("{error:#}");
            if std::env::var("PROCTOR_REQUIRE_UPSTREAM").is_ok_and(|v| v == "1") {
                eprintln!("the differential suite needs the upstream binaries: {reason}");
                std::process::exit(1);
            }
            Some(reason)
        }
    };
    if let Some(reason) = &skip {
        println!("differential suite skipped: {reason}");
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("sessions"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let trials: Vec<Trial> = files
        .into_iter()
        .map(|file| {
            let name = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let accepted = accepted.clone();
            Trial::test(name.clone(), move || run_one(&name, &file, &accepted))
                .with_ignored_flag(skip.is_some())
        })
        .collect();
    let mut trials = trials;
    trials.push(Trial::test("deploy-job", deploy_job).with_ignored_flag(skip.is_some()));
    let conclusion = libtest_mimic::run(&args, trials);
    if let Some(tally) = TALLY.lock().ok().and_then(|mut t| t.take()) {
        println!(
            "differential: {} sessions, {} commands compared, {} identical",
            tally.sessions, tally.commands, tally.identical
        );
        for ((status, category), count) in &tally.listed {
            println!("  {status:<8} {category}: {count}");
        }
    }
    conclusion.exit();
}

/// client-go-probe, built with the upstream binaries (`upstream/build.sh`) this run found.
/// A client the upstream build makes (`client-go-probe`, `helm`), by path.
fn upstream_client(name: &str) -> anyhow::Result<String> {
    let client = proctor::cluster::upstream::Upstream::find()?.binary(name);
    if !client.is_file() {
        anyhow::bail!(
            "{} is missing: the upstream build predates it; run upstream/build.sh",
            client.display()
        );
    }
    Ok(client.display().to_string())
}

fn run_one(name: &str, file: &Path, accepted: &Accepted) -> Result<(), Failed> {
    let mut session = session::load(file).map_err(|e| format!("{e:#}"))?;
    let lab = match &session.lab {
        Some(lab) => {
            let scenario = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../scenarios")
                .join(lab)
                .join("scenario.yaml");
            Some(Lab::load(&scenario).map_err(|e| format!("{e:#}"))?)
        }
        None => None,
    };
    if let (Some(lab), true) = (&lab, session.steps.is_empty()) {
        session.steps = lab
            .scenario
            .steps
            .iter()
            .map(|step| Step {
                prelude: REFERENCE_LIB.to_string(),
                must_succeed: true,
                ..Step::new(
                    &step.reference,
                    vec![Field::Stdout, Field::Stderr, Field::Exit, Field::Files],
                )
            })
            .collect();
    }
    let setup = lab.as_ref().map(starting_setup).unwrap_or_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    let outcome = runtime.block_on(async {
        let (embedded, upstream) =
            tokio::join!(Target::embedded(&setup), Target::kwokctl(&setup, None));
        let (embedded, upstream) = match (embedded, upstream) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                let mut errors = Vec::new();
                for (side, result) in [("embedded", a), ("upstream", b)] {
                    match result {
                        Ok(target) => target.shutdown().await,
                        Err(error) => errors.push(format!("the {side} cluster: {error:#}")),
                    }
                }
                return Err(errors.join("\n"));
            }
        };
        let result = async {
            let scratch = tempfile::tempdir()?;
            let (a, b) = (
                scratch.path().join("embedded"),
                scratch.path().join("upstream"),
            );
            let clients = Path::new(env!("CARGO_MANIFEST_DIR")).join("differential/clients");
            let mut env = vec![
                ("CLIENTS_DIR".to_string(), clients.display().to_string()),
                (
                    "KUBE_PROBE".to_string(),
                    env!("CARGO_BIN_EXE_kube-probe").to_string(),
                ),
                (
                    "CLIENT_GO_PROBE".to_string(),
                    upstream_client("client-go-probe")?,
                ),
                ("HELM".to_string(), upstream_client("helm")?),
                (
                    "CHARTS_DIR".to_string(),
                    Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("differential/charts")
                        .display()
                        .to_string(),
                ),
            ];
            for dir in [&a, &b] {
                std::fs::create_dir_all(dir.join("lab"))?;
            }
            if let Some(lab) = &lab {
                let (x, y) = tokio::join!(
                    prepare_cluster(lab, &embedded),
                    prepare_cluster(lab, &upstream)
                );
                x?;
                y?;
                for dir in [&a, &b] {
                    copy_starter(lab, &dir.join("lab"), true)?;
                }
                env.push(("SCENARIO_DIR".to_string(), lab.dir.display().to_string()));
            }
            let (lab_a, lab_b) = (a.join("lab"), b.join("lab"));
            let side = |name, target, scratch, lab_dir| Side {
                name,
                target,
                scratch,
                lab_dir: lab.as_ref().map(|_| lab_dir),
                env: env.clone(),
            };
            run_session(
                &session,
                &side("embedded", &embedded, &a, lab_a.as_path()),
                &side("upstream", &upstream, &b, lab_b.as_path()),
                &accepted.compiled,
            )
            .await
        }
        .await;
        tokio::join!(embedded.shutdown(), upstream.shutdown());
        result.map_err(|e| format!("{e:#}"))
    })?;

    let mut unlisted = Vec::new();
    let mut used = vec![false; accepted.divergences.len()];
    let mut tally = TALLY.lock().map_err(|_| "tally poisoned")?;
    let tally = tally.get_or_insert_with(Tally::default);
    tally.sessions += 1;
    tally.commands += outcome.commands;
    tally.identical += outcome.identical;
    for difference in &outcome.differences {
        let at = match difference.step {
            Some(step) => format!("step {step} {}", difference.field.name()),
            None => difference.field.name().to_string(),
        };
        for hunk in &difference.hunks {
            // Every entry that covers the hunk is in use (a broader one listed first must not
            // make a narrower one look stale); the first is the one reported.
            let covering: Vec<usize> = (0..accepted.divergences.len())
                .filter(|&i| {
                    accepted.divergences[i].covers(name, difference.step, difference.field, hunk)
                })
                .collect();
            for &index in &covering {
                used[index] = true;
            }
            match covering.first() {
                Some(&index) => {
                    let listed = &accepted.divergences[index];
                    let status = match listed.status {
                        Status::Accepted => "accepted",
                        Status::Open => "open",
                    };
                    println!(
                        "  {name}: {at} differs ({status}, {}): {}",
                        listed.category, listed.reason
                    );
                    *tally
                        .listed
                        .entry((status.to_string(), listed.category.clone()))
                        .or_default() += 1;
                }
                None => unlisted.push(format!(
                    "{at} differs: {}\n--- embedded\n+++ upstream\n{hunk}",
                    difference.command
                )),
            }
        }
    }
    for (divergence, _) in accepted
        .divergences
        .iter()
        .zip(&used)
        .filter(|(d, used)| !**used && d.stale_unless_used(name))
    {
        let at = match divergence.step {
            Some(step) => format!("step {step} {}", divergence.field.name()),
            None => divergence.field.name().to_string(),
        };
        unlisted.push(format!(
            "stale entry in tests/differential/accepted.yaml: {at} ({}: {}) covers no \
             difference any more; remove it, or mark it intermittent and say why",
            divergence.category, divergence.reason
        ));
    }
    if unlisted.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} ({}): {} difference(s) not in tests/differential/accepted.yaml, or entries \
             stale\n\n{}",
            name,
            session.title,
            unlisted.len(),
            unlisted.join("\n")
        )
        .into())
    }
}

/// `deploy/job.yaml`, the Indexed Job that grades a course, on the upstream control plane: a
/// server-side dry run accepts it (and refuses a broken copy, so the dry run judges), and created
/// for real, the Job controller gives its pods the completion indexes 0..N-1 and the
/// JOB_COMPLETION_INDEX variable (holding that index) that `--shard-count` reads.
fn deploy_job() -> Result<(), Failed> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/job.yaml");
    let text = std::fs::read_to_string(&manifest)?;
    let job: serde_json::Value = serde_yaml::from_str(&text)?;
    let name = job["metadata"]["name"]
        .as_str()
        .ok_or("the Job has no name")?;
    let completions = job["spec"]["completions"]
        .as_u64()
        .ok_or("no completions")?;
    let broken = text.replace("completionMode: Indexed", "completionMode: Sometimes");
    if broken == text {
        return Err("the Job is not Indexed".into());
    }
    let path = manifest.display().to_string();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let upstream = Target::kwokctl(&Default::default(), None)
            .await
            .map_err(|e| format!("the upstream cluster: {e:#}"))?;
        let result = async {
            let kubectl = upstream.kubectl();
            let dry = kubectl
                .run(&["apply", "--dry-run=server", "-f", &path], None)
                .await?;
            let want = format!("job.batch/{name} created (server dry run)");
            anyhow::ensure!(
                dry.success && dry.stdout.contains(&want),
                "dry run of {path}: {}{}",
                dry.stdout,
                dry.error_text()
            );
            let refused = kubectl
                .run(
                    &["apply", "--dry-run=server", "-f", "-"],
                    Some(broken.as_bytes()),
                )
                .await?;
            anyhow::ensure!(
                !refused.success && refused.stderr.contains("Unsupported value: \"Sometimes\""),
                "a broken completionMode was not refused: {}{}",
                refused.stdout,
                refused.stderr
            );
            kubectl.ok(&["apply", "-f", &path], None).await?;
            let pods = job_pods(kubectl, name, completions).await?;
            let mut indexes: Vec<String> = Vec::new();
            for pod in &pods {
                let env = pod["spec"]["containers"][0]["env"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                let from = env
                    .iter()
                    .find(|var| var["name"] == "JOB_COMPLETION_INDEX")
                    .and_then(|var| var["valueFrom"]["fieldRef"]["fieldPath"].as_str())
                    .unwrap_or_default()
                    .to_string();
                // 1.28 on reads the pod's label (PodIndexLabel), before it the annotation:
                // either way the variable must hold the pod's own index.
                let key = "batch.kubernetes.io/job-completion-index";
                let index = match from.as_str() {
                    f if f == format!("metadata.labels['{key}']") => {
                        &pod["metadata"]["labels"][key]
                    }
                    f if f == format!("metadata.annotations['{key}']") => {
                        &pod["metadata"]["annotations"][key]
                    }
                    _ => anyhow::bail!(
                        "pod {} has no JOB_COMPLETION_INDEX from its index: {env:?}",
                        pod["metadata"]["name"]
                    ),
                };
                indexes.push(index.as_str().unwrap_or_default().to_string());
            }
            indexes.sort();
            let want: Vec<String> = (0..completions).map(|i| i.to_string()).collect();
            anyhow::ensure!(
                indexes == want,
                "completion indexes {indexes:?}, expected {want:?}"
            );
            anyhow::Ok(())
        }
        .await;
        upstream.shutdown().await;
        result.map_err(|e| Failed::from(format!("{e:#}")))
    })
}

/// The pods the Job controller created for Job `name`, once there are `count` of them.
async fn job_pods(
    kubectl: &proctor::cluster::kubectl::Kubectl,
    name: &str,
    count: u64,
) -> anyhow::Result<Vec<serde_json::Value>> {
    let selector = format!("batch.kubernetes.io/job-name={name}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let listed = kubectl
            .ok(&["get", "pods", "-l", &selector, "-o", "json"], None)
            .await?;
        let list: serde_json::Value = serde_json::from_str(&listed)?;
        let pods = list["items"].as_array().cloned().unwrap_or_default();
        if pods.len() as u64 >= count {
            return Ok(pods);
        }
        anyhow::ensure!(
            std::time::Instant::now() < deadline,
            "the Job controller created {} of {count} pods in 60 s",
            pods.len()
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
}
