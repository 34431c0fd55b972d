//! `just bench`: the figures the README reports. Timings are medians over repeated runs and,
//! where a process floor exists (kubectl start-up), ratios against it, because these machines
//! are shared and noisy.

mod bench_batch;
mod bench_upstream;

use std::process::Command;
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, ListParams, PostParams, WatchEvent, WatchParams};
use kwok::{Cluster, ClusterConfig};
use serde_json::json;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// CPU time (user + system) this process has used, from /proc/self/stat (clock ticks of 10 ms).
/// Reported beside wall time: on a shared, loaded machine it is the steadier figure.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the command.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

async fn client(cluster: &Cluster) -> kube::Client {
    let kc = kube::config::Kubeconfig::from_yaml(&cluster.kubeconfig_yaml()).expect("kubeconfig");
    let cfg = kube::Config::from_custom_kubeconfig(kc, &Default::default())
        .await
        .expect("client config");
    kube::Client::try_from(cfg).expect("client")
}

async fn start_to_first_request() -> Duration {
    let mut samples = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        let cluster = Cluster::start(ClusterConfig::default().with_fake_nodes("n", 3))
            .await
            .expect("start");
        let c = client(&cluster).await;
        c.apiserver_version().await.expect("first request");
        samples.push(t.elapsed());
        cluster.shutdown().await;
    }
    median(samples)
}

fn kubectl_ratio(kubeconfig: &std::path::Path) -> (Duration, Duration) {
    let run = |args: &[&str]| {
        let t = Instant::now();
        let out = Command::new("kubectl")
            .args(args)
            .env("KUBECONFIG", kubeconfig)
            .output()
            .expect("kubectl");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        t.elapsed()
    };
    // Warm the discovery cache first, as a learner's second command would be.
    run(&["get", "nodes", "-o", "json"]);
    let mut floor = Vec::new();
    let mut get = Vec::new();
    for _ in 0..20 {
        floor.push(run(&["version", "--client"]));
        get.push(run(&["get", "nodes", "-o", "json"]));
    }
    (median(get), median(floor))
}

async fn list_and_watch() -> (Duration, Duration, f64) {
    let mut config = ClusterConfig::default().with_fake_nodes("node-", 1000);
    config.controllers = false;
    let cluster = Cluster::start(config).await.expect("start");
    let c = client(&cluster).await;
    let pods: Api<Pod> = Api::namespaced(c.clone(), "default");
    let mk = |i: usize| -> Pod {
        serde_json::from_value(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("pod-{i:05}"), "labels": {"app": "bench"}},
            "spec": {"nodeName": format!("node-{}", i % 1000), "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9"}]}}))
            .expect("pod")
    };
    // Watch while creating: events per second delivered to a client.
    let watcher = {
        let pods = pods.clone();
        tokio::spawn(async move {
            let mut s = pods
                .watch(&WatchParams::default(), "0")
                .await
                .expect("watch")
                .boxed();
            let mut n = 0usize;
            let t = Instant::now();
            while let Some(ev) = s.next().await {
                if let Ok(WatchEvent::Added(_)) = ev {
                    n += 1;
                    if n == 10_000 {
                        break;
                    }
                }
            }
            (n, t.elapsed())
        })
    };
    let t = Instant::now();
    let api = cluster.api();
    for i in 0..10_000 {
        let v = serde_json::to_value(mk(i)).expect("json");
        api.create(&kwok::registry::PODS, "default", v, &Default::default())
            .expect("create");
    }
    let _create = t.elapsed();
    let (n, watch_elapsed) = watcher.await.expect("watcher");
    let rate = n as f64 / watch_elapsed.as_secs_f64();
    let _ = pods.create(&PostParams::default(), &mk(10_001)).await;
    let mut samples = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        let l = pods.list(&ListParams::default()).await.expect("list");
        assert!(l.items.len() >= 10_000);
        samples.push(t.elapsed());
    }
    let nodes: Api<Node> = Api::all(c);
    let mut node_samples = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        nodes
            .list(&ListParams::default())
            .await
            .expect("list nodes");
        node_samples.push(t.elapsed());
    }
    cluster.shutdown().await;
    (median(samples), median(node_samples), rate)
}

async fn daemonsets_at_scale() -> ((Duration, Duration), (Duration, Duration)) {
    let mut config = ClusterConfig::default();
    for i in 0..1000 {
        let mut labels = std::collections::BTreeMap::new();
        for op in [
            "driver",
            "container-toolkit",
            "device-plugin",
            "gpu-feature-discovery",
            "dcgm-exporter",
        ] {
            labels.insert(format!("nvidia.com/gpu.deploy.{op}"), "true".to_string());
        }
        config.nodes.push(kwok::cluster::fake_node(
            &format!("gpu-{i:04}"),
            &labels,
            &Default::default(),
        ));
    }
    let cluster = Cluster::start(config).await.expect("start");
    cluster.settle().await;
    let api = cluster.api();
    api.create(
        &kwok::registry::NAMESPACES,
        "",
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu-operator"}}),
        &Default::default(),
    )
    .expect("ns");
    let ops = [
        "driver",
        "container-toolkit",
        "device-plugin",
        "gpu-feature-discovery",
        "dcgm-exporter",
    ];
    let t = Instant::now();
    let cpu = cpu_time();
    for op in ops {
        let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": op, "namespace": "gpu-operator"},
            "spec": {"selector": {"matchLabels": {"app": op}},
                "template": {"metadata": {"labels": {"app": op}},
                    "spec": {"nodeSelector": {format!("nvidia.com/gpu.deploy.{op}"): "true"},
                        "containers": [{"name": op, "image": "nvcr.io/nvidia/x:1"}]}}}});
        api.create(
            &kwok::registry::DAEMONSETS,
            "gpu-operator",
            ds,
            &Default::default(),
        )
        .expect("ds");
    }
    // Settled: the expected number of Running daemon pods, and every DaemonSet's status agreeing
    // with them at its current generation.
    let settled = |want_pods: usize| {
        let (pods, _) = api
            .store()
            .list(&kwok::registry::PODS, Some("gpu-operator"));
        let running = pods
            .iter()
            .filter(|p| p.value["status"]["phase"] == "Running")
            .count();
        let (dss, _) = api
            .store()
            .list(&kwok::registry::DAEMONSETS, Some("gpu-operator"));
        let desired: u64 = dss
            .iter()
            .map(|d| {
                d.value["status"]["desiredNumberScheduled"]
                    .as_u64()
                    .unwrap_or(0)
            })
            .sum();
        running == want_pods
            && pods.len() == want_pods
            && desired == want_pods as u64
            && dss.iter().all(|d| {
                let s = &d.value["status"];
                s["numberReady"] == s["desiredNumberScheduled"]
                    && s["currentNumberScheduled"] == s["desiredNumberScheduled"]
                    && s["observedGeneration"] == d.value["metadata"]["generation"]
            })
    };
    while !settled(5000) {
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "daemon pods never settled"
        );
    }
    let up = (t.elapsed(), cpu_time() - cpu);
    let t = Instant::now();
    let cpu = cpu_time();
    for i in 0..1000 {
        let name = format!("gpu-{i:04}");
        api.patch(
            &kwok::registry::NODES,
            "",
            &name,
            kwok::api::PatchKind::Merge,
            br#"{"metadata":{"labels":{"nvidia.com/gpu.deploy.dcgm-exporter":"false"}}}"#,
            None,
            &Default::default(),
        )
        .expect("label flip");
    }
    while !settled(4000) {
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "daemon pods never went away"
        );
    }
    let down = (t.elapsed(), cpu_time() - cpu);
    cluster.shutdown().await;
    (up, down)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "machine: {} cores, load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );

    // BENCH_ONLY=api|grade|batch|class-report|hanging|check|controllers|upstream|upstream-restore|upstream-grade runs
    // one section.
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    let runs = |section: &str| only.is_empty() || only == section;
    if runs("api") {
        api_figures().await;
    }
    if runs("grade") {
        tokio::task::spawn_blocking(grading_figures)
            .await
            .expect("grading figures");
    }
    if runs("batch") {
        if let Some(proctor) = built_proctor("batch") {
            tokio::task::spawn_blocking(move || bench_batch::batch_figures(&proctor, &repo()))
                .await
                .expect("batch figures");
        }
    }
    if runs("class-report") {
        if let Some(proctor) = built_proctor("class-report") {
            tokio::task::spawn_blocking(move || {
                bench_batch::class_report_figures(&proctor, &repo())
            })
            .await
            .expect("class report figures");
        }
    }
    if runs("hanging") {
        tokio::task::spawn_blocking(hanging_figures)
            .await
            .expect("hanging-script figures");
    }
    if runs("check") {
        tokio::task::spawn_blocking(self_check_figures)
            .await
            .expect("self-check figures");
    }
    if runs("upstream") {
        bench_upstream::side_by_side().await;
    }
    if runs("upstream-restore") {
        bench_upstream::restore().await;
    }
    if runs("upstream-grade") {
        bench_upstream::grading().await;
    }
    if !runs("controllers") {
        return;
    }
    let (up, down) = daemonsets_at_scale().await;
    println!(
        "1,000 nodes × 5 DaemonSets → 5,000 pods Running, statuses settled: {} wall, {} CPU   target < 2 s",
        ms(up.0), ms(up.1)
    );
    println!(
        "label flip on 1,000 nodes → 1,000 pods gone, statuses settled: {} wall, {} CPU   target < 2 s",
        ms(down.0), ms(down.1)
    );
}

async fn api_figures() {
    let start = start_to_first_request().await;
    println!(
        "cluster start → first successful request (median of 15): {}   target < 50 ms",
        ms(start)
    );

    let cluster = Cluster::start(ClusterConfig::default().with_fake_nodes("lab-node-", 3))
        .await
        .expect("start");
    let dir = tempfile::tempdir().expect("tmp");
    let kc = dir.path().join("kubeconfig");
    cluster.write_kubeconfig(&kc).expect("kubeconfig");
    let (get, floor) = tokio::task::spawn_blocking(move || kubectl_ratio(&kc))
        .await
        .expect("kubectl");
    println!(
        "kubectl get nodes -o json: {} vs kubectl version --client {} → ratio {:.2}   target < 1.3",
        ms(get),
        ms(floor),
        get.as_secs_f64() / floor.as_secs_f64()
    );
    cluster.shutdown().await;

    let (list10k, list_nodes, watch_rate) = list_and_watch().await;
    println!(
        "list 10,000 pods over HTTPS (median of 7): {}   target < 200 ms",
        ms(list10k)
    );
    println!(
        "list 1,000 nodes over HTTPS (median of 7): {}",
        ms(list_nodes)
    );
    println!(
        "watch throughput while creating 10,000 pods: {:.0} events/s",
        watch_rate
    );
}

/// The `proctor` binary built beside this benchmark, or `None` (said, naming the section) when it
/// is not built.
fn built_proctor(section: &str) -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().expect("bench path");
    let proctor = exe.with_file_name("proctor");
    if proctor.is_file() {
        return Some(proctor);
    }
    println!(
        "{section}: skipped ({} not built; `cargo build --release -p proctor` first)",
        proctor.display()
    );
    None
}

/// The repository's root (the scenarios live there).
fn repo() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Grading figures: one full submission per lab (the first grading runs the reference and caches
/// it, the next reuses it), then 20 at once. kubectl process starts set the floor — every learner
/// and reference script calls kubectl — so they are counted in a separate pass under
/// `strace -f` (which sees the starts inside the script sandboxes too) and multiplied by one
/// kubectl start.
fn grading_figures() {
    let Some(proctor) = built_proctor("grading") else {
        return;
    };
    let repo = repo();
    let cache = tempfile::tempdir().expect("tmp");
    let grade_command = |lab: &str| {
        let mut command = Command::new(&proctor);
        command
            .args([
                "grade",
                lab,
                "--format",
                "json",
                "--color",
                "never",
                "--scenarios",
            ])
            .arg(repo.join("scenarios"))
            .arg("--submission")
            .arg(repo.join("scenarios").join(lab).join("submissions/perfect"))
            .env("PROCTOR_CACHE", cache.path());
        command
    };
    let grade = |lab: &str| grade_command(lab).output().expect("proctor grade");
    let floor = {
        let mut v = Vec::new();
        for _ in 0..10 {
            let t = Instant::now();
            Command::new("kubectl")
                .args(["version", "--client"])
                .output()
                .expect("kubectl");
            v.push(t.elapsed());
        }
        median(v)
    };
    for lab in ["gpudrv", "gpuops", "gpushare"] {
        let t = Instant::now();
        let first = grade(lab);
        let first_took = t.elapsed();
        let t = Instant::now();
        let cached = grade(lab);
        let cached_took = t.elapsed();
        let verdict = |out: &std::process::Output| {
            if out.status.code() == Some(0) {
                "full marks"
            } else {
                "NOT full marks"
            }
        };
        println!(
            "grade {lab} (perfect submission): {} with the reference run ({}), {} with it cached ({})",
            ms(first_took),
            verdict(&first),
            ms(cached_took),
            verdict(&cached),
        );
        match kubectl_starts(&grade_command(lab)) {
            Some(starts) => println!(
                "  kubectl starts in a cached grading of {lab}: {starts} × {} (one kubectl start) = {} floor",
                ms(floor),
                ms(floor * starts as u32)
            ),
            None => println!("  kubectl starts: not counted (strace is not installed)"),
        }
    }
    let t = Instant::now();
    let codes: Vec<Option<i32>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let lab = if i % 2 == 0 { "gpudrv" } else { "gpuops" };
                let grade = &grade;
                scope.spawn(move || grade(lab).status.code())
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(None))
            .collect()
    });
    let all_ok = codes.iter().all(|c| *c == Some(0));
    println!(
        "grade 20 submissions in parallel (10 per lab, reference cached): {} wall, {}",
        ms(t.elapsed()),
        if all_ok {
            "all full marks"
        } else {
            "NOT all full marks"
        }
    );
}

/// gpudrv submissions whose `drv-tag.sh` hangs (sleeps, or spins on a core), graded with the
/// reference cached: the script's runs are stopped 5 s in, and not started again on the check's
/// other nodes, so the grade takes seconds, not one scenario timeout per run.
fn hanging_figures() {
    let Some(proctor) = built_proctor("hanging scripts") else {
        return;
    };
    let scenarios = repo().join("scenarios");
    let perfect = scenarios.join("gpudrv/submissions/perfect");
    let cache = tempfile::tempdir().expect("tmp");
    let work = tempfile::tempdir().expect("tmp");
    let grade = |submission: &std::path::Path| {
        Command::new(&proctor)
            .args(["grade", "gpudrv", "--format", "json", "--color", "never"])
            .arg("--scenarios")
            .arg(&scenarios)
            .arg("--submission")
            .arg(submission)
            .env("PROCTOR_CACHE", cache.path())
            .output()
            .expect("proctor grade")
    };
    // The first grading runs the reference and caches it.
    grade(&perfect);
    for (name, body) in [
        ("sleeps", "#!/bin/bash\nsleep 600\n"),
        ("spins", "#!/bin/bash\nwhile :; do :; done\n"),
    ] {
        let submission = work.path().join(name);
        let copied = Command::new("cp")
            .arg("-r")
            .arg(&perfect)
            .arg(&submission)
            .status()
            .expect("cp");
        assert!(copied.success(), "copying the perfect submission");
        let script = submission.join("drv-tag.sh");
        std::fs::write(&script, body).expect("drv-tag.sh");
        let t = Instant::now();
        let graded = grade(&submission);
        let took = t.elapsed();
        let failing = failing_steps(&graded.stdout);
        println!(
            "grade gpudrv with a drv-tag.sh that {name} (reference cached): {}, failing steps {failing:?}   target < 30 s, only step 2 failing",
            ms(took)
        );
    }
}

/// The steps with a failing test in a Gradescope results.json (numbered "<step>.<check>").
fn failing_steps(results: &[u8]) -> Vec<String> {
    let json: serde_json::Value = serde_json::from_slice(results).unwrap_or_default();
    let mut steps: Vec<String> = json["tests"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|test| test["status"] == "failed")
        .filter_map(|test| {
            let number = test["number"].as_str()?;
            Some(number.split('.').next()?.to_string())
        })
        .collect();
    steps.dedup();
    steps
}

/// A learner's self-check, as a learner runs it: `proctor up gpuops` in the background, then
/// `proctor check gpuops` over every step of an empty lab dir (every check fails, so failing
/// checks' waits for a quiet cluster show) and of a solved one (every check passes).
fn self_check_figures() {
    let Some(proctor) = built_proctor("self-check") else {
        return;
    };
    let repo = repo();
    let scratch = tempfile::tempdir().expect("tmp");
    let kubeconfig = scratch.path().join("kubeconfig");
    let command = |args: &[&str], dir: &std::path::Path| {
        let mut command = Command::new(&proctor);
        command
            .args(args)
            .arg(dir)
            .arg("--scenarios")
            .arg(repo.join("scenarios"))
            .env("PROCTOR_CACHE", scratch.path().join("cache"))
            .env("KUBECONFIG", &kubeconfig);
        command
    };
    let mut up = command(&["up", "gpuops", "--kubeconfig"], &kubeconfig)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("proctor up");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !kubeconfig.is_file() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let empty = scratch.path().join("empty");
    let solved = scratch.path().join("solved");
    // The first check fills the reference cache; the figures are for the checks after it.
    let check = |dir: &std::path::Path| {
        let t = Instant::now();
        let output = command(
            &["check", "gpuops", "--quiet", "--color", "never", "--dir"],
            dir,
        )
        .output()
        .expect("proctor check");
        (t.elapsed(), output.status.code())
    };
    check(&empty);
    let (fresh, fresh_code) = check(&empty);
    let solve = command(&["solve", "gpuops", "--dir"], &solved)
        .output()
        .expect("proctor solve");
    let (done, done_code) = check(&solved);
    let _ = up.kill();
    let _ = up.wait();
    println!(
        "self-check of gpuops on `proctor up`, all steps: untouched lab {} (exit {:?}: every check fails), solved lab {} (exit {:?}{})",
        ms(fresh),
        fresh_code,
        ms(done),
        done_code,
        if solve.status.success() { "" } else { ", solve FAILED" }
    );
}

/// Successful kubectl execs anywhere under `command` (scripts in sandboxes included).
fn kubectl_starts(command: &Command) -> Option<usize> {
    let log = tempfile::NamedTempFile::new().ok()?;
    let mut traced = Command::new("strace");
    traced
        .args(["-f", "-qq", "-e", "trace=execve", "-o"])
        .arg(log.path())
        .arg(command.get_program())
        .args(command.get_args());
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            traced.env(key, value);
        }
    }
    let status = traced.output().ok()?.status;
    if !status.success() {
        return None;
    }
    let text = std::fs::read_to_string(log.path()).ok()?;
    Some(
        text.lines()
            .filter(|line| line.contains("/kubectl\", [") && line.trim_end().ends_with("= 0"))
            .count(),
    )
}
