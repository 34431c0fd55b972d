//! A load run against one embedded cluster: N real `kubectl` client loops and M `kube` watches
//! for D seconds, all on 127.0.0.1, with every kubectl invocation, every watch event and the
//! process's memory checked, and the figures (requests/s, latency percentiles, RSS) reported.
//!
//! Watch events are checked against a ground-truth tap on the store ([`truth`]): each watch must
//! deliver exactly the events its scope implies, in resourceVersion order, each object at the
//! version the store committed ([`verify`]); independently, the state a watch rebuilt from its
//! events must equal a list taken after the load.

pub mod kubectl;
pub mod problem;
pub mod rss;
pub mod selector;
pub mod truth;
pub mod verify;
pub mod watcher;

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, PostParams};
use kwok::{Cluster, ClusterConfig};

use kubectl::{KubectlEnv, LoopOutcome};
use problem::Tally;
use rss::RssFigures;
use selector::LabelSelector;
use truth::{Kind, Scope};
use watcher::{Start, WatchContext, WatchOutcome, WatchSpec};

/// Size of a run.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    pub kubectl_loops: usize,
    pub watches: usize,
    pub duration: Duration,
    /// The cluster's watch history (`ClusterConfig::watch_history`); its default when `None`.
    pub watch_history: Option<usize>,
    /// Whether memory growth fails the run. Only a run long enough for every bounded buffer
    /// (watch history, connections, allocator arenas) to fill before its second quarter can tell
    /// a leak from warm-up; in a short one the figures depend on how fast a loaded machine gets
    /// there, so they are printed and not judged.
    pub judge_memory: bool,
}

impl LoadConfig {
    pub fn new(kubectl_loops: usize, watches: usize, duration: Duration) -> Self {
        Self {
            kubectl_loops,
            watches,
            duration,
            watch_history: None,
            judge_memory: false,
        }
    }

    /// The same, failing on memory growth (see `judge_memory`).
    pub fn judging_memory(mut self) -> Self {
        self.judge_memory = true;
        self
    }

    /// The same, with `PROCTOR_LOAD_LOOPS`, `PROCTOR_LOAD_WATCHES`, `PROCTOR_LOAD_SECONDS` and
    /// `PROCTOR_LOAD_WATCH_HISTORY` (the server's watch history, in writes) overriding each figure
    /// when set.
    pub fn with_env_overrides(mut self) -> Self {
        let num = |k: &str| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        if let Some(n) = num("PROCTOR_LOAD_LOOPS") {
            self.kubectl_loops = n as usize;
        }
        if let Some(n) = num("PROCTOR_LOAD_WATCHES") {
            self.watches = n as usize;
        }
        if let Some(n) = num("PROCTOR_LOAD_SECONDS") {
            self.duration = Duration::from_secs(n);
        }
        if let Some(n) = num("PROCTOR_LOAD_WATCH_HISTORY") {
            self.watch_history = Some(n as usize);
        }
        self
    }

    /// A loop can start at most one invocation per 20 ms; the cap only guards against a kubectl
    /// that exits instantly.
    fn max_invocations_per_loop(&self) -> usize {
        (self.duration.as_millis() / 20) as usize + 10
    }
}

/// Resource, namespace, label selector, start, `timeoutSeconds` of one kind of watch.
type Template = (Kind, Option<String>, &'static str, Start, Option<u32>);

/// The watch mix, cycled through: every resource, with and without label selectors (some that
/// objects keep entering and leaving), cluster-wide and namespaced, from resourceVersion 0 and
/// from a list, some resumed from their last resourceVersion every few seconds.
fn watch_specs(cfg: &LoadConfig) -> anyhow::Result<Vec<WatchSpec>> {
    let ns = || Some(kubectl::NAMESPACE.to_string());
    let table: [Template; 10] = [
        (Kind::Nodes, None, "", Start::Snapshot, None),
        (
            Kind::Nodes,
            None,
            "load/color=red",
            Start::Snapshot,
            Some(4),
        ),
        (
            Kind::Nodes,
            None,
            "load/color!=red",
            Start::AfterList,
            Some(3),
        ),
        (Kind::ConfigMaps, None, "", Start::AfterList, None),
        (
            Kind::ConfigMaps,
            ns(),
            "load/tier=hot",
            Start::AfterList,
            Some(5),
        ),
        (Kind::ConfigMaps, ns(), "", Start::Snapshot, Some(3)),
        (Kind::ConfigMaps, None, "load/tier", Start::Snapshot, None),
        (Kind::Pods, None, "", Start::AfterList, Some(4)),
        (Kind::Pods, ns(), "", Start::Snapshot, None),
        (Kind::Nodes, None, "", Start::AfterList, Some(2)),
    ];
    let mut specs = Vec::with_capacity(cfg.watches);
    for j in 0..cfg.watches {
        let (kind, namespace, sel, start, reconnect_after) = table[j % table.len()].clone();
        // One watch in eight joins while the load runs, between 10% and 70% of the way in.
        let delay = if j % 8 == 7 {
            cfg.duration.mul_f64((1 + (j / 8) % 7) as f64 / 10.0)
        } else {
            Duration::ZERO
        };
        specs.push(WatchSpec {
            scope: Scope {
                kind,
                namespace,
                selector: LabelSelector::parse(sel)?,
            },
            start,
            reconnect_after,
            delay,
        });
    }
    Ok(specs)
}

/// Everything a run measured and everything that went wrong.
#[derive(Debug, Default)]
pub struct Report {
    pub loops: usize,
    pub watches: usize,
    pub planned: Duration,
    /// From the first kubectl start to the last kubectl exit.
    pub load_time: Duration,
    pub invocations: usize,
    /// Sorted.
    pub latencies: Vec<Duration>,
    pub kubectl_requests: u64,
    pub kubectl_status: std::collections::BTreeMap<u16, u64>,
    pub watch_requests: u64,
    pub watch_connections: u64,
    pub watch_relists: u64,
    pub watch_history: Option<usize>,
    pub judge_memory: bool,
    pub watch_events: u64,
    pub store_writes: u64,
    pub truth_writes: usize,
    /// Objects stored when the load ended, by resource plural (the nonzero ones).
    pub objects_at_end: Vec<(&'static str, usize)>,
    pub rss: RssFigures,
    /// `/proc/loadavg` when the load started and when it ended.
    pub loadavg: (String, String),
    pub kubectl_failures: Tally<String>,
    pub unexpected_statuses: Tally<String>,
    pub watch_problems: Tally,
    pub watches_with_problems: usize,
    pub truth_problems: Vec<String>,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    // Nearest rank.
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

impl Report {
    fn per_second(&self, n: u64) -> f64 {
        let s = self.load_time.as_secs_f64();
        if s > 0.0 {
            n as f64 / s
        } else {
            0.0
        }
    }

    /// Everything that must fail the run.
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        let cap = |v: &[String], what: &str, out: &mut Vec<String>| {
            for s in v.iter().take(20) {
                out.push(format!("{what}: {s}"));
            }
            if v.len() > 20 {
                out.push(format!("{what}: ... and {} more", v.len() - 20));
            }
        };
        p.extend(self.kubectl_failures.lines("kubectl failed"));
        p.extend(self.unexpected_statuses.lines("unexpected HTTP status"));
        cap(&self.truth_problems, "ground truth", &mut p);
        p.extend(self.watch_problems.lines("watch"));
        if self.judge_memory && self.rss.flat() == Some(false) {
            p.push(format!(
                "memory not flat: last-quarter mean RSS {} exceeds the second quarter's {} by more than {:.0}%",
                mib(self.rss.q4_mean as u64),
                mib(self.rss.q2_mean as u64),
                rss::GROWTH_ALLOWED * 100.0
            ));
        }
        p
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.invocations as u64;
        writeln!(
            f,
            "load: {} kubectl loops + {} watches for {:?} (load took {:.1} s){}",
            self.loops,
            self.watches,
            self.planned,
            self.load_time.as_secs_f64(),
            self.watch_history
                .map(|h| format!(", watch history {h} writes"))
                .unwrap_or_default()
        )?;
        writeln!(
            f,
            "  kubectl invocations: {n} ({:.1}/s), failed: {}",
            self.per_second(n),
            self.kubectl_failures.total()
        )?;
        writeln!(
            f,
            "  kubectl latency: p50 {} ms, p90 {} ms, p99 {} ms, max {} ms",
            percentile(&self.latencies, 50.0).as_millis(),
            percentile(&self.latencies, 90.0).as_millis(),
            percentile(&self.latencies, 99.0).as_millis(),
            self.latencies
                .last()
                .copied()
                .unwrap_or_default()
                .as_millis()
        )?;
        let statuses: Vec<String> = self
            .kubectl_status
            .iter()
            .map(|(s, c)| format!("{s}: {c}"))
            .collect();
        writeln!(
            f,
            "  API requests: {} from kubectl ({:.1}/s; {}), {} from the watches (lists and watch opens), {:.1}/s in all",
            self.kubectl_requests,
            self.per_second(self.kubectl_requests),
            statuses.join(", "),
            self.watch_requests,
            self.per_second(self.kubectl_requests + self.watch_requests)
        )?;
        writeln!(
            f,
            "  watches: {} events received and checked, {} connections (incl. resumes), {} relists after 410, {} with problems ({} problems)",
            self.watch_events, self.watch_connections, self.watch_relists, self.watches_with_problems, self.watch_problems.total()
        )?;
        writeln!(
            f,
            "  store: {} writes during the load ({:.1}/s), {} recorded by the ground-truth tap; objects at load end: {}",
            self.store_writes,
            self.per_second(self.store_writes),
            self.truth_writes,
            self.objects_at_end.iter().map(|(r, n)| format!("{n} {r}")).collect::<Vec<_>>().join(", ")
        )?;
        writeln!(
            f,
            "  RSS: before cluster {}, load start {}, peak {}, load end {}, end {}; quarter means Q2 {} -> Q4 {} ({} samples, rule Q4 <= Q2 + {:.0}%: {})",
            mib(self.rss.before),
            mib(self.rss.load_start),
            mib(self.rss.peak),
            mib(self.rss.load_end),
            mib(self.rss.end),
            mib(self.rss.q2_mean as u64),
            mib(self.rss.q4_mean as u64),
            self.rss.load_samples,
            rss::GROWTH_ALLOWED * 100.0,
            match (self.rss.flat(), self.judge_memory) {
                (Some(true), _) => "flat",
                (Some(false), true) => "GROWING",
                (Some(false), false) => "growing, not judged in a short run",
                (None, _) => "too few samples to judge",
            }
        )?;
        write!(
            f,
            "  loadavg: {} at load start, {} at load end",
            self.loadavg.0, self.loadavg.1
        )
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .trim()
        .to_string()
}

async fn kube_client(cluster: &Cluster) -> anyhow::Result<kube::Client> {
    let kc = kube::config::Kubeconfig::from_yaml(&cluster.kubeconfig_yaml())?;
    let cfg = kube::Config::from_custom_kubeconfig(kc, &Default::default()).await?;
    Ok(kube::Client::try_from(cfg)?)
}

/// Run the load. Must run on a multi-threaded runtime.
pub async fn run(cfg: LoadConfig) -> anyhow::Result<Report> {
    let sampler = rss::Sampler::start(Duration::from_secs(1));
    let mut config = ClusterConfig::default().with_fake_nodes("lab-node-", kubectl::NODES);
    if let Some(h) = cfg.watch_history {
        config.watch_history = h;
    }
    let cluster = Cluster::start(config).await?;
    let tap = truth::Tap::start(cluster.api().store())?;
    let dir = tempfile::tempdir()?;
    let kubeconfig = dir.path().join("kubeconfig");
    cluster.write_kubeconfig(&kubeconfig)?;
    let env = Arc::new(KubectlEnv {
        bin: crate::kubectl_bin(),
        kubeconfig,
        dir: dir.path().to_path_buf(),
    });
    let client = kube_client(&cluster).await?;
    let namespace =
        serde_json::from_value(serde_json::json!({"metadata": {"name": kubectl::NAMESPACE}}))?;
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await?;
    // Fill the shared discovery cache once, as a workstation's would be.
    let warm = env.command(&["api-resources".to_string()]).output().await?;
    anyhow::ensure!(
        warm.status.success(),
        "kubectl api-resources: {}",
        String::from_utf8_lossy(&warm.stderr)
    );
    cluster.settle().await;

    let specs = watch_specs(&cfg)?;
    let immediate = specs.iter().filter(|s| s.delay.is_zero()).count();
    let (finish_tx, finish) = tokio::sync::watch::channel(None);
    let (opened_tx, mut opened) = tokio::sync::mpsc::unbounded_channel();
    let ctx = WatchContext {
        client: client.clone(),
        truth: tap.truth(),
        store: cluster.api().store().clone(),
        finish,
        opened: opened_tx,
    };
    let watches: Vec<_> = specs
        .into_iter()
        .map(|s| tokio::spawn(watcher::run(s, ctx.clone())))
        .collect();
    drop(ctx);
    for _ in 0..immediate {
        tokio::time::timeout(Duration::from_secs(60), opened.recv())
            .await
            .map_err(|_| anyhow::anyhow!("the watches did not open within 60 s"))?;
    }

    let load_start = sampler.mark();
    let loadavg_start = loadavg();
    let rev_start = cluster.api().store().revision();
    let started = tokio::time::Instant::now();
    let until = started + cfg.duration;
    let loops: Vec<_> = (0..cfg.kubectl_loops)
        .map(|lp| {
            tokio::spawn(kubectl::run_loop(
                lp,
                env.clone(),
                until,
                cfg.max_invocations_per_loop(),
            ))
        })
        .collect();
    let mut outcomes: Vec<LoopOutcome> = Vec::new();
    for l in loops {
        outcomes.push(l.await?);
    }
    let load_time = started.elapsed();
    let load_end = sampler.mark();
    let rev_end = cluster.api().store().revision();
    let loadavg_end = loadavg();
    let objects_at_end: Vec<_> = kwok::registry::RESOURCES
        .iter()
        .map(|r| (r.plural, cluster.api().store().count(r)))
        .filter(|(_, n)| *n > 0)
        .collect();

    // Let the controllers finish reacting, then every watch must deliver up to the final write.
    cluster.settle().await;
    let last = cluster.api().store().revision();
    tap.truth().reach(last).await?;
    finish_tx.send_replace(Some(last));
    let mut watch_outcomes: Vec<WatchOutcome> = Vec::new();
    for w in watches {
        watch_outcomes.push(w.await?);
    }
    drop(finish_tx);
    let (truth_problems, truth_writes) = tap.stop();
    cluster.shutdown().await;
    let samples = sampler.stop();

    let mut report = Report {
        loops: cfg.kubectl_loops,
        watches: cfg.watches,
        planned: cfg.duration,
        watch_history: cfg.watch_history,
        judge_memory: cfg.judge_memory,
        load_time,
        store_writes: rev_end - rev_start,
        truth_writes,
        objects_at_end,
        rss: RssFigures::from_samples(&samples, (load_start, load_end)),
        loadavg: (loadavg_start, loadavg_end),
        truth_problems,
        ..Default::default()
    };
    for o in outcomes {
        report.invocations += o.latencies.len();
        report.latencies.extend(o.latencies);
        report.kubectl_requests += o.requests;
        for (s, c) in o.by_status {
            *report.kubectl_status.entry(s).or_default() += c;
        }
        report.kubectl_failures.merge(o.failures, "");
        report.unexpected_statuses.merge(o.unexpected, "");
    }
    report.latencies.sort();
    for w in watch_outcomes {
        report.watch_requests += w.requests;
        report.watch_connections += w.connections;
        report.watch_relists += w.relists;
        report.watch_events += w.events;
        if !w.problems.is_empty() {
            report.watches_with_problems += 1;
        }
        report.watch_problems.merge(w.problems, &w.spec);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile(&v, 50.0), Duration::from_millis(50));
        assert_eq!(percentile(&v, 99.0), Duration::from_millis(99));
        assert_eq!(percentile(&v[..1], 99.0), Duration::from_millis(1));
        assert_eq!(percentile(&[], 99.0), Duration::ZERO);
    }

    #[test]
    fn the_watch_mix_covers_every_start_and_late_joiners_of_each_kind() {
        let specs = watch_specs(&LoadConfig::new(1, 40, Duration::from_secs(8))).unwrap();
        let late: Vec<_> = specs.iter().filter(|s| !s.delay.is_zero()).collect();
        assert_eq!(late.len(), 5);
        assert!(late.iter().any(|s| s.start == Start::Snapshot));
        assert!(late.iter().any(|s| s.start == Start::AfterList));
        assert!(late.iter().all(|s| s.delay < Duration::from_secs(8)));
    }
}
