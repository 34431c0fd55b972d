//! Load: real `kubectl` client loops and `kube` watches against one embedded cluster, checking
//! that no kubectl invocation fails and no watch event is lost, repeated or reordered; the full
//! run also checks that memory stays flat. The figures are printed.
//!
//! ```text
//! cargo test -p proctor-tests --test load -- --nocapture                       # short CI run
//! cargo test -p proctor-tests --release --test load -- --ignored --nocapture   # full run (`just soak`)
//! ```
//!
//! `PROCTOR_LOAD_LOOPS`, `PROCTOR_LOAD_WATCHES` and `PROCTOR_LOAD_SECONDS` resize either run;
//! `PROCTOR_LOAD_WATCH_HISTORY` sets the server's watch history (in writes).

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
    assert!(problems.is_empty(), "under load:\n{}", problems.join("\n"));
}

/// 10 kubectl loops + 40 watches for 8 s: the CI-sized run. Eight seconds are warm-up (the
/// watch history alone takes longer to fill), so its memory figures are printed, not judged.
#[test]
fn kubectl_loops_and_watches_under_load() {
    run(LoadConfig::new(10, 40, Duration::from_secs(8)).with_env_overrides());
}

/// 50 kubectl loops + 200 watches for 180 s; run with `just soak`, in release mode.
///
/// Memory is judged for leaks, so every bounded buffer must be full before the second quarter:
/// the watch history is cut to 256 writes (the default 2,000 take about 80 s to fill at this
/// rate, and hold about 14 KiB a write), and the run lasts three minutes because resident memory
/// takes about a minute to warm up (the 200 watches' first lists, TLS sessions, allocator arenas).
#[test]
#[ignore = "three minutes of full load: run with `just soak` (release)"]
fn kubectl_loops_and_watches_under_full_load() {
    let mut cfg = LoadConfig::new(50, 200, Duration::from_secs(180));
    cfg.watch_history = Some(256);
    run(cfg.judging_memory().with_env_overrides());
}
