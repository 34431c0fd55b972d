//! Load: real `kubectl` client loops and `kube` watches against one embedded cluster, checking
//! that no kubectl invocation fails, no watch event is lost, repeated or reordered, and memory
//! stays flat; the figures are printed.
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
