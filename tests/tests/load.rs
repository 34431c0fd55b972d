//! Load: real `kubectl` client loops and `kube` watches against one embedded cluster, checking
//! that no kubectl invocation fails, no watch event is lost, repeated or reordered, and memory
//! stays flat; the figures are printed.
//!
//! ```text
//! cargo test -p proctor-tests --test load -- --nocapture                       # short CI run
//! cargo test -p proctor-tests --release --test load -- --ignored --nocapture   # full run (`just soak`)
//! ```
//!
//! `PROCTOR_LOAD_LOOPS`, `PROCTOR_LOAD_WATCHES` and `PROCTOR_LOAD_SECONDS` resize either run.

use std::time::Duration;

use proctor_tests::load::{self, LoadConfig};

fn run(cfg: LoadConfig) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let report = rt
        .block_on(load::run(cfg))
        .expect("the load run could not be set up");
    println!("{report}");
    let problems = report.problems();
    assert!(
        problems.is_empty(),
        "{} problem(s) under load:\n{}\n\n{report}",
        problems.len(),
        problems.join("\n")
    );
}

/// 10 kubectl loops + 40 watches for 8 s: the CI-sized run.
#[test]
fn kubectl_loops_and_watches_under_load() {
    run(LoadConfig::new(10, 40, Duration::from_secs(8)).with_env_overrides());
}

/// 50 kubectl loops + 200 watches for 60 s; run with `just soak`, in release mode.
#[test]
#[ignore = "a minute of full load: run with `just soak` (release)"]
fn kubectl_loops_and_watches_under_full_load() {
    run(LoadConfig::new(50, 200, Duration::from_secs(60)).with_env_overrides());
}

#[test]
#[ignore]
fn scratch_rv0_race() {
    use futures::StreamExt;
    use kube::api::{Api, WatchEvent, WatchParams};
    use k8s_openapi::api::core::v1::ConfigMap;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let mut cfg = kwok::ClusterConfig::default().with_fake_nodes("lab-node-", 1);
        cfg.controllers = false;
        let cluster = kwok::Cluster::start(cfg).await.unwrap();
        let kc = kube::config::Kubeconfig::from_yaml(&cluster.kubeconfig_yaml()).unwrap();
        let client = kube::Client::try_from(kube::Config::from_custom_kubeconfig(kc, &Default::default()).await.unwrap()).unwrap();
        let api = cluster.api().clone();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let s2 = stop.clone();
        let writer = std::thread::spawn(move || {
            let mut k = 0u64;
            while !s2.load(std::sync::atomic::Ordering::Relaxed) {
                let obj = serde_json::json!({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name": format!("c-{k}"), "namespace":"default"}});
                api.create(&kwok::registry::CONFIGMAPS, "default", obj, &Default::default()).unwrap();
                k += 1;
            }
            k
        });
        let cms: Api<ConfigMap> = Api::namespaced(client, "default");
        let mut lost = 0;
        for round in 0..300 {
            let mut s = cms.watch(&WatchParams::default(), "0").await.unwrap().boxed();
            let mut seen = std::collections::BTreeSet::new();
            let until = tokio::time::Instant::now() + std::time::Duration::from_millis(30);
            while let Ok(Some(Ok(ev))) = tokio::time::timeout_at(until, s.next()).await {
                if let WatchEvent::Added(o) = ev {
                    let n: u64 = o.metadata.name.unwrap()[2..].parse().unwrap();
                    seen.insert(n);
                }
            }
            let max = *seen.iter().next_back().unwrap_or(&0);
            let missing: Vec<u64> = (0..=max).filter(|n| !seen.contains(n)).collect();
            if !missing.is_empty() {
                lost += 1;
                println!("round {round}: {} of {} missing, e.g. c-{}", missing.len(), max + 1, missing[0]);
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        println!("writes: {}, rounds with loss: {lost}", writer.join().unwrap());
    });
}
