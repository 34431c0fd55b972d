//! The embedded cluster and the upstream control plane (kwokctl, see `proctor::cluster::kwokctl`)
//! measured side by side in one run: start to the first `/version` answer, `kubectl get nodes -o
//! json` p50 and p99, a watch event's latency after a write, resident memory, and grading of
//! each lab with and without the cached reference run.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proctor::cluster::{ClusterKind, ClusterSetup, NodeTemplate, Target};

use super::{median, ms};

const KINDS: [(&str, ClusterKind); 2] = [
    ("embedded", ClusterKind::Embedded),
    ("upstream", ClusterKind::Kwokctl),
];

pub async fn side_by_side() {
    if let Err(error) = proctor::cluster::upstream::Upstream::find() {
        println!("side by side: skipped ({error:#})");
        return;
    }
    for (name, kind) in KINDS {
        let rss_before = own_rss_kib();
        let started = Instant::now();
        let target =
            match Target::private(kind, &ClusterSetup::with_nodes(&NodeTemplate::plain(3))).await {
                Ok(target) => target,
                Err(error) => {
                    println!("{name}: the cluster did not start: {error:#}");
                    continue;
                }
            };
        let ready = started.elapsed();
        let first_version = first_version(target.kubeconfig());
        println!(
            "{name}: start → cluster ready with 3 nodes {}; a fresh kubectl's first /version answer {}",
            ms(ready),
            ms(first_version)
        );
        let kubeconfig = target.kubeconfig().to_path_buf();
        let (p50, p99) = tokio::task::spawn_blocking(move || get_nodes_percentiles(&kubeconfig))
            .await
            .unwrap_or_default();
        println!(
            "{name}: kubectl get nodes -o json over 50 runs: p50 {}, p99 {}",
            ms(p50),
            ms(p99)
        );
        match watch_latency(target.kubeconfig()).await {
            Ok(latency) => println!(
                "{name}: create → its watch event, kube client (median of 20 ConfigMaps): {}",
                ms(latency)
            ),
            Err(error) => println!("{name}: watch latency not measured: {error:#}"),
        }
        let rss = match kind {
            ClusterKind::Embedded => own_rss_kib().saturating_sub(rss_before),
            ClusterKind::Kwokctl => control_plane_rss_kib(),
        };
        println!(
            "{name}: resident memory of the cluster {:.1} MiB",
            rss as f64 / 1024.0
        );
        target.shutdown().await;
    }
}

/// Each lab's perfect submission graded on both clusters (BENCH_ONLY=upstream-grade: about ten
/// minutes, most of it on upstream).
pub async fn grading() {
    if let Err(error) = proctor::cluster::upstream::Upstream::find() {
        println!("grading side by side: skipped ({error:#})");
        return;
    }
    tokio::task::spawn_blocking(grading_side_by_side)
        .await
        .unwrap_or_default();
}

/// A fresh kubectl (empty cache) asking `/version`: the client's start, TLS and one request.
fn first_version(kubeconfig: &Path) -> Duration {
    let cache = tempfile::tempdir().ok();
    let mut v = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut command = Command::new("kubectl");
        command
            .args(["get", "--raw", "/version"])
            .env("KUBECONFIG", kubeconfig);
        if let Some(cache) = &cache {
            command.env("KUBECACHEDIR", cache.path());
        }
        let _ = command.output();
        v.push(t.elapsed());
    }
    median(v)
}

fn get_nodes_percentiles(kubeconfig: &Path) -> (Duration, Duration) {
    let cache = tempfile::tempdir().ok();
    let mut v: Vec<Duration> = (0..50)
        .map(|_| {
            let t = Instant::now();
            let mut command = Command::new("kubectl");
            command
                .args(["get", "nodes", "-o", "json"])
                .env("KUBECONFIG", kubeconfig)
                .stdout(Stdio::null());
            if let Some(cache) = &cache {
                command.env("KUBECACHEDIR", cache.path());
            }
            let _ = command.status();
            t.elapsed()
        })
        .collect();
    v.sort();
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.99))
}

/// A `kube` watch on ConfigMaps runs; each ConfigMap is created through the same client, and the
/// latency is from sending the create to its ADDED event (median of 20).
async fn watch_latency(kubeconfig: &Path) -> anyhow::Result<Duration> {
    use futures::StreamExt;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::{Api, PostParams, WatchEvent, WatchParams};
    let config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(kubeconfig)?,
        &kube::config::KubeConfigOptions::default(),
    )
    .await?;
    let client = kube::Client::try_from(config)?;
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    let list = api.list(&Default::default()).await?;
    let rv = list.metadata.resource_version.unwrap_or_default();
    let mut events = api.watch(&WatchParams::default(), &rv).await?.boxed();
    let mut v = Vec::new();
    for i in 0..20 {
        let name = format!("bench-watch-{i}");
        let cm: ConfigMap =
            serde_json::from_value(serde_json::json!({"metadata": {"name": name}}))?;
        let sent = Instant::now();
        api.create(&PostParams::default(), &cm).await?;
        while let Some(event) = tokio::time::timeout(Duration::from_secs(10), events.next()).await?
        {
            if let WatchEvent::Added(seen) = event? {
                if seen.metadata.name.as_deref() == Some(name.as_str()) {
                    v.push(sent.elapsed());
                    break;
                }
            }
        }
    }
    Ok(median(v))
}

fn rss_kib_of(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kib| kib.parse().ok())
        })
        .unwrap_or(0)
}

fn own_rss_kib() -> u64 {
    rss_kib_of("self")
}

/// Every process started from a kwokctl work dir of Proctor's (API server, etcd, controller
/// manager, scheduler, kwok).
fn control_plane_rss_kib() -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|e| {
            let pid = e.file_name().to_string_lossy().into_owned();
            pid.parse::<u32>().ok()?;
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            String::from_utf8_lossy(&cmdline)
                .contains("proctor-kwokctl-")
                .then(|| rss_kib_of(&pid))
        })
        .sum()
}

/// Each lab's perfect submission graded on both clusters: with the reference run computed
/// (`--no-cache`) and reused from the cache (the embedded cluster only: a kwokctl cluster always
/// runs the reference).
fn grading_side_by_side() {
    let exe = std::env::current_exe().expect("bench path");
    let proctor = exe.with_file_name("proctor");
    if !proctor.is_file() {
        println!("grading side by side: skipped (build proctor first)");
        return;
    }
    let repo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let cache = tempfile::tempdir().expect("tmp");
    for lab in ["gpudrv", "gpuops"] {
        for (name, cluster) in [("embedded", "embedded"), ("upstream", "kwokctl")] {
            let grade = |no_cache: bool| {
                let mut command = Command::new(&proctor);
                command
                    .args([
                        "grade",
                        lab,
                        "--quiet",
                        "--format",
                        "json",
                        "--cluster",
                        cluster,
                    ])
                    .arg("--submission")
                    .arg(repo.join("scenarios").join(lab).join("submissions/perfect"))
                    .env("PROCTOR_CACHE", cache.path());
                if no_cache {
                    command.arg("--no-cache");
                }
                let t = Instant::now();
                let code = command.output().ok().and_then(|o| o.status.code());
                (t.elapsed(), code == Some(0))
            };
            let (uncached, ok1) = grade(true);
            // The first cached grading fills the cache (--no-cache only reads around it).
            let (cached, ok2) = if cluster == "embedded" {
                let _ = grade(false);
                grade(false)
            } else {
                (uncached, ok1)
            };
            println!(
                "grade {lab} on {name}: {} with the reference run, {} cached{}",
                ms(uncached),
                ms(cached),
                if ok1 && ok2 { "" } else { " (NOT full marks)" }
            );
        }
    }
}

/// Step isolation on a kwokctl cluster, both ways (BENCH_ONLY=upstream-restore): the object-level
/// restore grading uses there, and an etcd snapshot put back by `kwokctl snapshot restore`, which
/// stops etcd and the API server and restarts every component. The second needs an etcdctl
/// (PROCTOR_ETCDCTL): the pinned etcd release's etcdctl module is not on the Go module proxy.
pub async fn restore() {
    let upstream = match proctor::cluster::upstream::Upstream::find() {
        Ok(upstream) => upstream,
        Err(error) => {
            println!("restore side by side: skipped ({error:#})");
            return;
        }
    };
    if let Err(error) = restore_both_ways(&upstream).await {
        println!("restore side by side: failed: {error:#}");
    }
}

async fn restore_both_ways(upstream: &proctor::cluster::upstream::Upstream) -> anyhow::Result<()> {
    use anyhow::Context;
    let mut cluster =
        proctor::cluster::kwokctl::KwokctlCluster::create(upstream, None, "", None, false).await?;
    let target = Target::external(cluster.kubeconfig()).await?;
    target.ensure_nodes(&NodeTemplate::plain(3)).await?;
    // A lab-sized state: labelled nodes, a Deployment's pods, twenty ConfigMaps.
    let kubectl = |args: &[&str]| -> anyhow::Result<()> {
        let status = Command::new("kubectl")
            .args(args)
            .env("KUBECONFIG", cluster.kubeconfig())
            .stdout(Stdio::null())
            .status()?;
        anyhow::ensure!(status.success(), "kubectl {}", args.join(" "));
        Ok(())
    };
    kubectl(&[
        "create",
        "deployment",
        "web",
        "--image=busybox",
        "--replicas=3",
    ])?;
    for i in 0..20 {
        kubectl(&[
            "create",
            "configmap",
            &format!("c{i}"),
            "--from-literal=k=v",
        ])?;
    }
    target.settle().await;
    let snapshot = target.snapshot().await?;
    // What a learner's script does between two runs.
    let disturb = |i: usize| -> anyhow::Result<()> {
        kubectl(&[
            "label",
            "nodes",
            "--all",
            &format!("step={i}"),
            "--overwrite",
        ])?;
        kubectl(&["scale", "deployment", "web", "--replicas=1"])?;
        kubectl(&[
            "create",
            "configmap",
            &format!("extra-{i}"),
            "--from-literal=k=v",
        ])?;
        kubectl(&["delete", "configmap", "c0", "--ignore-not-found"])
    };
    // Restored means the state is back and the controllers act on new work: a new ReplicaSet
    // gets its pod (after a restart, kube-controller-manager first waits for its leader lease).
    let restored = |i: usize| -> anyhow::Result<()> {
        let state = Command::new("kubectl")
            .args([
                "get",
                "configmap",
                "c0",
                &format!("extra-{i}"),
                "-o",
                "name",
                "--ignore-not-found",
            ])
            .env("KUBECONFIG", cluster.kubeconfig())
            .output()?;
        let names = String::from_utf8_lossy(&state.stdout);
        anyhow::ensure!(
            names.trim() == "configmap/c0",
            "state not restored: {names}"
        );
        let probe = format!("probe-{i}");
        let manifest = format!(
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {{name: {probe}}}\nspec:\n  replicas: 1\n  selector: {{matchLabels: {{app: {probe}}}}}\n  template:\n    metadata: {{labels: {{app: {probe}}}}}\n    spec: {{containers: [{{name: c, image: busybox}}]}}\n"
        );
        let mut child = Command::new("kubectl")
            .args(["create", "-f", "-"])
            .env("KUBECONFIG", cluster.kubeconfig())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()?;
        if let Some(mut stdin) = child.stdin.take() {
            std::io::Write::write_all(&mut stdin, manifest.as_bytes())?;
        }
        anyhow::ensure!(child.wait()?.success(), "creating {probe}");
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let out = Command::new("kubectl")
                .args([
                    "get",
                    "replicaset",
                    &probe,
                    "-o",
                    "jsonpath={.status.replicas}",
                ])
                .env("KUBECONFIG", cluster.kubeconfig())
                .output()?;
            if String::from_utf8_lossy(&out.stdout).trim() == "1" {
                return Ok(());
            }
            anyhow::ensure!(Instant::now() < deadline, "{probe} got no pod in 120 s");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let mut object_level = Vec::new();
    let mut object_acting = Vec::new();
    for i in 0..5 {
        disturb(i)?;
        let started = Instant::now();
        target.restore(&snapshot).await?;
        object_level.push(started.elapsed());
        restored(i)?;
        object_acting.push(started.elapsed());
    }
    println!(
        "upstream: object-level restore after a script's changes, median of 5: {}; until the controllers act again {}",
        ms(median(object_level)),
        ms(median(object_acting.clone()))
    );
    let Some(etcdctl) = std::env::var_os("PROCTOR_ETCDCTL") else {
        println!("upstream: etcd snapshot restore: skipped (set PROCTOR_ETCDCTL to an etcdctl)");
        cluster.delete().await;
        return Ok(());
    };
    // kwokctl records the etcdctl to use in the cluster's saved configuration.
    let config = cluster
        .workdir()
        .join("clusters")
        .join(cluster.name())
        .join("kwok.yaml");
    let text = std::fs::read_to_string(&config).with_context(|| config.display().to_string())?;
    let etcdctl = Path::new(&etcdctl).display().to_string();
    let text = regex::Regex::new(r"(?m)^(\s*etcdctlBinary:).*$")?
        .replace(&text, format!("${{1}} {etcdctl}"))
        .into_owned();
    std::fs::write(&config, text)?;
    let kwokctl = |args: &[&str]| -> anyhow::Result<()> {
        let output = Command::new(upstream.binary("kwokctl"))
            .args(["--name", cluster.name()])
            .args(args)
            .env("KWOK_WORKDIR", cluster.workdir())
            .output()?;
        anyhow::ensure!(
            output.status.success(),
            "kwokctl {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
        Ok(())
    };
    let file = cluster.workdir().join("bench.etcd");
    let file = file.display().to_string();
    let started = Instant::now();
    kwokctl(&["snapshot", "save", "--path", &file])?;
    let save = started.elapsed();
    let mut etcd = Vec::new();
    let mut etcd_acting = Vec::new();
    for i in 10..13 {
        disturb(i)?;
        let started = Instant::now();
        kwokctl(&["snapshot", "restore", "--path", &file])?;
        target
            .kubectl()
            .wait_ready(Duration::from_secs(120))
            .await?;
        etcd.push(started.elapsed());
        restored(i)?;
        etcd_acting.push(started.elapsed());
    }
    let (etcd, etcd_acting) = (median(etcd), median(etcd_acting));
    println!(
        "upstream: etcd snapshot save {}; restore until the API answers, median of 3: {}; until the controllers act again {} ({:.1}× the object-level restore's)",
        ms(save),
        ms(etcd),
        ms(etcd_acting),
        etcd_acting.as_secs_f64() / median(object_acting).as_secs_f64().max(1e-9)
    );
    cluster.delete().await;
    Ok(())
}
