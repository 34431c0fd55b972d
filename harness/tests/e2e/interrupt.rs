//! An external cluster given by `--kubeconfig` is left as it was found: after a completed grade,
//! and when grading is stopped by Ctrl-C (SIGINT to the process group, as a terminal sends it)
//! or SIGTERM, mid-grade. `proctor up` stands in for the external cluster; its whole state is
//! recorded before grading (names, labels, annotations, taints, specs, data) and compared after.
//!
//! The lab written here changes that state in every way the restore has to undo: a namespace
//! created (with a Deployment and its pods) and a pre-existing one deleted, node labels,
//! annotations, a taint and cordoning changed, a starting node the cluster lacks created,
//! a pre-existing ConfigMap deleted and a Deployment scaled, a Secret and a ServiceAccount added
//! to pre-existing namespaces, and a node injected by a script check.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use serde_json::{json, Map, Value};

/// The exit status `proctor` documents for a run stopped by Ctrl-C / SIGTERM (src/main.rs).
const INTERRUPTED_EXIT: i32 = 130;

/// From the signal to the process's exit, restoring the cluster included.
const PROMPT_EXIT: Duration = Duration::from_secs(60);

/// How often the interrupted work changes the cluster (every ~0.2 s): a reference shell or a
/// learner's script that is still running while or after proctor restores the cluster shows up
/// as a change.
const CHANGES: u32 = 100;

/// After the exit: time enough for a process left running to change the cluster again.
const AFTERMATH: Duration = Duration::from_secs(2);

// ---------------------------------------------------------------------------------------------
// The lab

fn scenario(changes: u32) -> String {
    format!(
        r#"
apiVersion: proctor/v1
kind: Scenario
name: halt
title: Changes everywhere
labDir: /root/halt
cluster:
  nodes:
    - name: lab-node-0
    - name: lab-node-1
    - name: lab-node-9
perturbations:
  spare:
    namePrefix: spare-node-
    labels: {{tier: spare}}
steps:
  - id: 1
    title: Tier tool
    reference: |
      kubectl create namespace halt-lab
      kubectl label node lab-node-0 tier=gold
      kubectl label node lab-node-1 owner=lab --overwrite
      kubectl annotate node lab-node-1 example.com/note-
      kubectl taint node lab-node-2 dedicated-
      kubectl cordon lab-node-0
      kubectl -n team delete configmap config
      kubectl -n team scale deployment api --replicas=2
      kubectl -n team create serviceaccount robot
      kubectl -n default create secret generic token --from-literal=token=t0ken
      kubectl -n halt-lab create configmap settings --from-literal=mode=fast
      kubectl -n halt-lab create deployment web --image=nginx --replicas=2
      kubectl delete namespace legacy --wait=false
      install -m 0755 "$SCENARIO_DIR/reference/tier.sh" tier.sh
    artifacts: [tier.sh]
    checks:
      - id: tier-script
        title: tier.sh reads the label
        script:
          path: tier.sh
          args: ["{{node}}"]
          nodes: {{selector: tier}}
          inject: [spare]
  - id: 2
    title: Step two
    reference: |
      kubectl -n halt-lab create configmap step2 --from-literal=step=2
      for i in $(seq 1 {changes}); do
        kubectl label node lab-node-1 late=$i --overwrite >/dev/null
        sleep 0.2
      done
    replay: |
      kubectl -n halt-lab create configmap step2 --from-literal=step=2
    checks:
      - id: step2
        title: ConfigMap step2
        object: {{resource: configmaps, namespace: halt-lab, name: step2, timeout: 5s}}
"#
    )
}

const TIER_SH: &str =
    "#!/bin/bash\nkubectl get node \"$1\" -o jsonpath='{.metadata.labels.tier}'\necho\n";

/// Right answers, but on the injected node it keeps relabelling lab-node-2 first.
fn busy_tier_sh(changes: u32) -> String {
    format!(
        "#!/bin/bash\ntier=$(kubectl get node \"$1\" -o jsonpath='{{.metadata.labels.tier}}')\n\
         if [ \"$tier\" = spare ]; then\n  for i in $(seq 1 {changes}); do\n    \
         kubectl label node lab-node-2 leaked=$i --overwrite >/dev/null\n    sleep 0.2\n  done\nfi\n\
         echo \"$tier\"\n"
    )
}

fn write(path: &Path, text: &str, mode: u32) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

struct Lab {
    root: tempfile::TempDir,
    submission: tempfile::TempDir,
}

fn halt_lab(reference_changes: u32, tier_sh: &str) -> Lab {
    let root = tempfile::tempdir().expect("tempdir");
    let dir = root.path().join("halt");
    write(
        &dir.join("scenario.yaml"),
        &scenario(reference_changes),
        0o644,
    );
    write(&dir.join("reference/tier.sh"), TIER_SH, 0o755);
    let submission = tempfile::tempdir().expect("tempdir");
    write(&submission.path().join("tier.sh"), tier_sh, 0o755);
    Lab { root, submission }
}

// ---------------------------------------------------------------------------------------------
// The stand-in external cluster

struct Cluster {
    up: Child,
    kubeconfig: PathBuf,
    _dir: tempfile::TempDir,
}

impl Cluster {
    /// `proctor up` (three plain nodes lab-node-0..2) with some state of its own; `taint` also
    /// taints lab-node-2 (the real labs schedule onto every node, so they get no taint).
    fn start(taint: bool) -> Cluster {
        let dir = tempfile::tempdir().expect("tempdir");
        let kubeconfig = dir.path().join("kubeconfig");
        let mut up = Command::new(assert_cmd::cargo::cargo_bin!("proctor"))
            .env("PROCTOR_CACHE", dir.path().join("cache"))
            .args(["up", "--color", "never", "--kubeconfig"])
            .arg(&kubeconfig)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("proctor up starts");
        let stdout = up.stdout.take().expect("stdout");
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let line = receiver
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_default();
        let cluster = Cluster {
            up,
            kubeconfig,
            _dir: dir,
        };
        assert_eq!(
            line.trim_end(),
            format!("export KUBECONFIG={}", cluster.kubeconfig.display()),
            "proctor up printed its kubeconfig"
        );
        cluster.seed(taint);
        cluster
    }

    fn kubectl(&self, args: &[&str]) -> std::process::Output {
        Command::new("kubectl")
            .args(args)
            .env("KUBECONFIG", &self.kubeconfig)
            .stdin(Stdio::null())
            .output()
            .expect("kubectl runs")
    }

    fn kubectl_ok(&self, args: &[&str]) -> String {
        let output = self.kubectl(args);
        assert!(
            output.status.success(),
            "kubectl {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// What the cluster's owner had set up before anyone graded on it.
    fn seed(&self, taint: bool) {
        for args in [
            &["create", "namespace", "team"][..],
            &[
                "-n",
                "team",
                "create",
                "configmap",
                "config",
                "--from-literal=owner=ops",
            ],
            &[
                "-n",
                "team",
                "create",
                "deployment",
                "api",
                "--image=nginx",
                "--replicas=1",
            ],
            &["create", "namespace", "legacy"],
            &[
                "-n",
                "legacy",
                "create",
                "configmap",
                "old",
                "--from-literal=kept=yes",
            ],
            &["label", "node", "lab-node-1", "owner=ops"],
            &["annotate", "node", "lab-node-1", "example.com/note=kept"],
        ] {
            self.kubectl_ok(args);
        }
        if taint {
            self.kubectl_ok(&["taint", "node", "lab-node-2", "dedicated=ops:NoSchedule"]);
        }
        self.kubectl_ok(&[
            "-n",
            "team",
            "wait",
            "--for=condition=Available",
            "deployment/api",
            "--timeout=60s",
        ]);
    }

    /// Everything a grade could have changed, normalised to what an owner would call the state.
    fn state(&self) -> BTreeMap<String, Value> {
        let text = self.kubectl_ok(&[
            "get",
            "nodes,namespaces,pods,deployments,replicasets,daemonsets,configmaps,secrets,serviceaccounts,poddisruptionbudgets",
            "--all-namespaces",
            "-o",
            "json",
        ]);
        let list: Value = serde_json::from_str(&text).expect("kubectl printed JSON");
        let items = list["items"].as_array().cloned().unwrap_or_default();
        let nodes: Vec<&str> = items
            .iter()
            .filter(|item| item["kind"] == "Node")
            .filter_map(|item| item["metadata"]["name"].as_str())
            .collect();
        let mut state = BTreeMap::new();
        for item in &items {
            let (key, mut value) = comparable(item);
            if let Some(node) = item["spec"]["nodeName"].as_str() {
                // A pod bound to a node that is gone would never run again.
                value["onExistingNode"] = Value::Bool(nodes.contains(&node));
            }
            let mut key = key;
            // Pods a controller made are told apart by their generated suffix only.
            while state.contains_key(&key) {
                key.push('+');
            }
            state.insert(key, value);
        }
        state
    }

    /// Polls until `args` prints something (at most `within`).
    fn wait_for(&self, args: &[&str], within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            let output = self.kubectl(args);
            if output.status.success() && !String::from_utf8_lossy(&output.stdout).trim().is_empty()
            {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = kill(Pid::from_raw(self.up.id() as i32), Signal::SIGINT);
        if wait_exit(&mut self.up, Duration::from_secs(10)).is_none() {
            let _ = self.up.kill();
            let _ = self.up.wait();
        }
    }
}

/// One object as (kind namespace/name, what matters of it): names, labels, annotations,
/// owners, finalizers, whether it is being deleted, spec and data. Server bookkeeping (uid,
/// resourceVersion, timestamps, managedFields, generation) and status (heartbeats, counters)
/// are left out; for nodes the condition types and statuses stay.
fn comparable(item: &Value) -> (String, Value) {
    let kind = item["kind"].as_str().unwrap_or("?");
    let metadata = &item["metadata"];
    let namespace = metadata["namespace"].as_str().unwrap_or("");
    let mut name = metadata["name"].as_str().unwrap_or("?").to_string();
    let owners: Vec<Value> = metadata["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|owner| json!({"kind": owner["kind"], "name": owner["name"]}))
        .collect();
    let mut spec = item.get("spec").cloned().unwrap_or(Value::Null);
    if kind == "Pod" && !owners.is_empty() {
        // A controller's pod: a replacement has a new generated name and may be scheduled
        // elsewhere; it is the same pod of the same owner.
        if let Some(generate) = metadata["generateName"].as_str() {
            name = format!("{generate}<generated>");
        }
        if let Some(spec) = spec.as_object_mut() {
            spec.remove("nodeName");
        }
        // So does its service account token volume, which admission names per pod
        // (`kube-api-access-` and five random characters, upstream's serviceaccount plugin).
        generated_token_volume(&mut spec);
    }
    let mut kept = Map::new();
    kept.insert("labels".into(), metadata["labels"].clone());
    kept.insert("annotations".into(), metadata["annotations"].clone());
    kept.insert("owners".into(), Value::Array(owners));
    kept.insert("finalizers".into(), metadata["finalizers"].clone());
    kept.insert(
        "terminating".into(),
        Value::Bool(metadata.get("deletionTimestamp").is_some()),
    );
    kept.insert("spec".into(), spec);
    for field in ["data", "stringData", "type", "secrets"] {
        if let Some(value) = item.get(field) {
            kept.insert(field.into(), value.clone());
        }
    }
    if kind == "Node" {
        let conditions: Vec<Value> = item["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| json!({"type": c["type"], "status": c["status"]}))
            .collect();
        kept.insert("conditions".into(), Value::Array(conditions));
    }
    (format!("{kind} {namespace}/{name}"), Value::Object(kept))
}

/// Renames the pod's `kube-api-access-<random>` volume and its mounts to one stable name.
fn generated_token_volume(spec: &mut Value) {
    fn list<'a>(value: &'a mut Value, field: &str) -> Vec<&'a mut Value> {
        match value.get_mut(field).and_then(Value::as_array_mut) {
            Some(items) => items.iter_mut().collect(),
            None => Vec::new(),
        }
    }
    let stable = |name: &mut Value| {
        if name
            .as_str()
            .is_some_and(|n| n.starts_with("kube-api-access-"))
        {
            *name = Value::String("kube-api-access-<generated>".to_string());
        }
    };
    for volume in list(spec, "volumes") {
        if let Some(name) = volume.get_mut("name") {
            stable(name);
        }
    }
    for field in ["initContainers", "containers", "ephemeralContainers"] {
        for container in list(spec, field) {
            for mount in list(container, "volumeMounts") {
                if let Some(name) = mount.get_mut("name") {
                    stable(name);
                }
            }
        }
    }
}

fn state_diff(before: &BTreeMap<String, Value>, after: &BTreeMap<String, Value>) -> String {
    let mut text = String::new();
    for (key, value) in before {
        match after.get(key) {
            None => text.push_str(&format!("- {key} is gone\n")),
            Some(now) if now != value => text.push_str(&format!(
                "~ {key} changed:\n    before {value}\n    after  {now}\n"
            )),
            Some(_) => {}
        }
    }
    for key in after.keys().filter(|key| !before.contains_key(*key)) {
        text.push_str(&format!("+ {key} appeared\n"));
    }
    text
}

// ---------------------------------------------------------------------------------------------
// Grading on it

fn wait_exit(child: &mut Child, within: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + within;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

struct Grading {
    child: Child,
    stderr: PathBuf,
    _logs: tempfile::TempDir,
}

impl Grading {
    /// `proctor grade halt --kubeconfig <cluster>` in its own process group, like a command
    /// started from a shell.
    fn start(lab: &Lab, cluster: &Cluster) -> Grading {
        Grading::start_lab(lab.root.path(), "halt", lab.submission.path(), cluster)
    }

    fn start_lab(scenarios: &Path, lab: &str, submission: &Path, cluster: &Cluster) -> Grading {
        let logs = tempfile::tempdir().expect("tempdir");
        let stderr = logs.path().join("stderr");
        let child = Command::new(assert_cmd::cargo::cargo_bin!("proctor"))
            .args(["grade", lab, "--format", "json", "--color", "never"])
            .arg("--scenarios")
            .arg(scenarios)
            .arg("--submission")
            .arg(submission)
            .arg("--kubeconfig")
            .arg(&cluster.kubeconfig)
            .env("PROCTOR_CACHE", logs.path().join("cache"))
            .stdin(Stdio::null())
            .stdout(File::create(logs.path().join("stdout")).expect("stdout file"))
            .stderr(File::create(&stderr).expect("stderr file"))
            .process_group(0)
            .spawn()
            .expect("proctor grade starts");
        Grading {
            child,
            stderr,
            _logs: logs,
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    fn stdout(&self) -> String {
        std::fs::read_to_string(self.stderr.with_file_name("stdout")).unwrap_or_default()
    }

    /// Waits for the exit; fails the test if it takes longer than `within`.
    fn finish(&mut self, within: Duration) -> (ExitStatus, Duration) {
        let started = Instant::now();
        match wait_exit(&mut self.child, within) {
            Some(status) => (status, started.elapsed()),
            None => {
                let _ = killpg(Pid::from_raw(self.child.id() as i32), Signal::SIGKILL);
                let _ = self.child.wait();
                panic!(
                    "proctor grade did not exit within {}s\nstderr:\n{}",
                    within.as_secs(),
                    self.stderr()
                )
            }
        }
    }
}

impl Drop for Grading {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = killpg(Pid::from_raw(self.child.id() as i32), Signal::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

fn assert_left_as_found(cluster: &Cluster, before: &BTreeMap<String, Value>, grading: &Grading) {
    let after = cluster.state();
    let diff = state_diff(before, &after);
    assert!(
        diff.is_empty(),
        "the cluster was not left as it was found:\n{diff}\nproctor's stderr:\n{}",
        grading.stderr()
    );
}

// ---------------------------------------------------------------------------------------------
// Tests

#[test]
fn a_completed_grade_leaves_the_cluster_as_it_found_it() {
    let cluster = Cluster::start(true);
    let lab = halt_lab(0, TIER_SH);
    let before = cluster.state();
    assert!(before.contains_key("ConfigMap team/config"), "{before:#?}");
    let mut grading = Grading::start(&lab, &cluster);
    let (status, _) = grading.finish(Duration::from_secs(300));
    let report: Value = serde_json::from_str(&grading.stdout()).unwrap_or_else(|error| {
        panic!(
            "no JSON report ({error}):\n{}\nstderr:\n{}",
            grading.stdout(),
            grading.stderr()
        )
    });
    assert_eq!(status.code(), Some(0), "{report:#}\n{}", grading.stderr());
    assert_eq!(report["score"], 2.0, "{report:#}");
    assert_left_as_found(&cluster, &before, &grading);
}

/// Waits for the interrupted grade to end; asserts it ended promptly with the documented status
/// and left the cluster as it was found, also a moment later.
fn assert_interrupted_cleanly(
    cluster: &Cluster,
    before: &BTreeMap<String, Value>,
    grading: &mut Grading,
) {
    let (status, took) = grading.finish(PROMPT_EXIT);
    assert_eq!(
        status.code(),
        Some(INTERRUPTED_EXIT),
        "{status:?}\nstderr:\n{}",
        grading.stderr()
    );
    assert!(
        grading.stderr().contains("interrupted"),
        "{}",
        grading.stderr()
    );
    assert!(
        grading.stdout().is_empty(),
        "no report for an interrupted grade: {}",
        grading.stdout()
    );
    eprintln!("exited {took:?} after the signal");
    std::thread::sleep(AFTERMATH);
    assert_left_as_found(cluster, before, grading);
}

#[test]
fn ctrl_c_while_a_node_is_injected_leaves_the_cluster_as_it_found_it() {
    let cluster = Cluster::start(true);
    let lab = halt_lab(0, &busy_tier_sh(CHANGES));
    let before = cluster.state();
    let mut grading = Grading::start(&lab, &cluster);
    // Mid-grade: the script check's node is in the cluster and the learner's script runs on it.
    assert!(
        cluster.wait_for(
            &["get", "nodes", "-l", "leaked", "-o", "name"],
            Duration::from_secs(180)
        ),
        "the learner's script never ran on the injected node\nstderr:\n{}",
        grading.stderr()
    );
    assert!(
        !cluster
            .kubectl_ok(&["get", "nodes", "-l", "tier=spare", "-o", "name"])
            .is_empty(),
        "the injected node is there"
    );
    // What a terminal sends on Ctrl-C: SIGINT to the foreground process group.
    killpg(Pid::from_raw(grading.child.id() as i32), Signal::SIGINT).expect("SIGINT");
    assert_interrupted_cleanly(&cluster, &before, &mut grading);
}

#[test]
fn sigterm_during_the_reference_run_leaves_the_cluster_as_it_found_it() {
    let cluster = Cluster::start(true);
    let lab = halt_lab(CHANGES, TIER_SH);
    let before = cluster.state();
    let mut grading = Grading::start(&lab, &cluster);
    // Mid-grade: step 2's reference shell is relabelling lab-node-1.
    assert!(
        cluster.wait_for(
            &["get", "nodes", "-l", "late", "-o", "name"],
            Duration::from_secs(180)
        ),
        "step 2's reference never ran\nstderr:\n{}",
        grading.stderr()
    );
    // What `kill` sends: SIGTERM to proctor alone.
    kill(Pid::from_raw(grading.child.id() as i32), Signal::SIGTERM).expect("SIGTERM");
    assert_interrupted_cleanly(&cluster, &before, &mut grading);
}

// ---------------------------------------------------------------------------------------------
// Soak (`just soak`): the real labs on an external cluster

/// Every bundled submission of every lab graded on one external cluster, each leaving it as it
/// was found, with the verdict its expect.yaml states (exit 0 for a full score, else 1); then
/// gradings interrupted after 5, 15, 30 and 60 s.
#[test]
#[ignore = "soak: the real labs graded on an external cluster (just soak)"]
fn soak_real_labs_on_an_external_cluster_are_left_as_found() {
    let scenarios = crate::common::repo().join("scenarios");
    let cluster = Cluster::start(false);
    let before = cluster.state();
    let mut cases = Vec::new();
    for (lab, file) in crate::common::real_labs() {
        for submission in crate::common::bundled(&lab, &file) {
            let code = crate::common::exit_for(&submission.expect);
            cases.push((lab.clone(), submission.dir, code));
        }
    }
    for (lab, submission, code) in &cases {
        let mut grading = Grading::start_lab(&scenarios, lab, submission, &cluster);
        let (status, took) = grading.finish(Duration::from_secs(900));
        assert_eq!(
            status.code(),
            Some(*code),
            "{lab} {}\n{}\n{}",
            submission.display(),
            grading.stdout(),
            grading.stderr()
        );
        eprintln!("{lab} {}: graded in {took:?}", submission.display());
        assert_left_as_found(&cluster, &before, &grading);
    }
    for (index, after) in [5, 15, 30, 60].into_iter().enumerate() {
        let (lab, submission, _) = &cases[index % cases.len()];
        let mut grading = Grading::start_lab(&scenarios, lab, submission, &cluster);
        std::thread::sleep(Duration::from_secs(after));
        if let Ok(Some(_)) = grading.child.try_wait() {
            assert_left_as_found(&cluster, &before, &grading);
            continue;
        }
        killpg(Pid::from_raw(grading.child.id() as i32), Signal::SIGINT).expect("SIGINT");
        assert_interrupted_cleanly(&cluster, &before, &mut grading);
    }
}
