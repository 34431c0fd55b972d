//! `proctor up [LAB]`: a cluster (embedded, or kwokctl with `--cluster kwokctl`) in the foreground
//! for a learner to work on.

use std::io::Write;
use std::net::SocketAddr;

use anyhow::Context;

use super::common::{Globals, Verdict};
use crate::cli::UpArgs;
use crate::cluster::{kept, ClusterKind, ClusterSetup, NodeTemplate, Target};
use crate::interrupt::interrupted;
use crate::runner::reference::run::copy_starter;
use crate::runner::{prepare_cluster, starting_setup};

pub async fn run(globals: &Globals, args: &UpArgs) -> anyhow::Result<Verdict> {
    let lab = match &args.lab {
        Some(name) => Some(globals.lab(name)?),
        None => None,
    };
    let setup = match &lab {
        Some(lab) => starting_setup(lab),
        None => ClusterSetup::with_nodes(&NodeTemplate::plain(args.nodes)),
    };
    let kubeconfig = std::path::absolute(&args.kubeconfig)
        .with_context(|| format!("resolving {}", args.kubeconfig.display()))?;
    let lab_name = lab.as_ref().map(|lab| lab.name());
    // Before anything is started or written: a second `up` must not orphan the first.
    let _lock = kept::claim(&kubeconfig, lab_name)?;
    let state_file = kept::state_path(&kubeconfig, lab_name);
    let keeps = globals.cluster == ClusterKind::Embedded;
    let restored = match (keeps, args.fresh) {
        (true, false) => kept::load(&state_file),
        _ => None,
    };
    if args.fresh && state_file.exists() {
        eprintln!(
            "starting fresh: the state kept in {} will be replaced by this cluster's",
            state_file.display()
        );
    }
    let start = async {
        match globals.cluster {
            ClusterKind::Embedded => {
                let bind = SocketAddr::from(([127, 0, 0, 1], args.port));
                Target::start_embedded(&setup, &kubeconfig, Some(bind)).await
            }
            ClusterKind::Kwokctl => {
                if args.port != 0 {
                    anyhow::bail!("--port is for the embedded cluster; kwokctl picks its own port");
                }
                if let Some(parent) = kubeconfig.parent() {
                    std::fs::create_dir_all(parent)
                        .with_context(|| format!("creating {}", parent.display()))?;
                }
                // kwokctl adds its cluster to an existing kubeconfig; start from an empty one.
                let _ = std::fs::remove_file(&kubeconfig);
                Target::kwokctl(&setup, Some(&kubeconfig)).await
            }
        }
    };
    let target = tokio::select! {
        target = start => target?,
        _ = interrupted() => return Ok(Verdict::Interrupted),
    };
    let restored_note = match &restored {
        Some(kept) => {
            target
                .restore(&kept.snapshot)
                .await
                .with_context(|| format!("restoring {}", state_file.display()))?;
            Some(format!(
                "restored the cluster as it was at {} ({} objects, from {}); `proctor up{} \
                 --fresh` starts over",
                kept.saved_at
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                kept.objects,
                state_file.display(),
                lab_name.map(|name| format!(" {name}")).unwrap_or_default()
            ))
        }
        None => {
            if let Some(lab) = &lab {
                prepare_cluster(lab, &target).await?;
            }
            None
        }
    };
    if let Some(lab) = &lab {
        crate::cluster::lab_mark::mark(&kubeconfig, lab.name())?;
        if let Some(dir) = &args.lab_dir {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            copy_starter(lab, dir, false)?;
            tracing::info!("starter files copied into {}", dir.display());
        }
    }
    // The one line on stdout, printed only once the API answers (start_embedded waited).
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "export KUBECONFIG={}", kubeconfig.display()).context("writing to stdout")?;
    stdout.flush().context("writing to stdout")?;
    drop(stdout);
    if let Some(note) = restored_note {
        eprintln!("{note}");
    }
    eprintln!(
        "cluster up with {} node(s){}; Ctrl-C to stop{}",
        setup.nodes.len(),
        lab_name
            .map(|name| format!(" for lab {name}"))
            .unwrap_or_default(),
        if keeps {
            ", its state is kept for the next `proctor up` here"
        } else {
            " (a kwokctl cluster is not kept: the next `up` starts over)"
        }
    );
    let mut last = None;
    let mut hangup = hangup();
    loop {
        tokio::select! {
            _ = interrupted() => break,
            _ = hangup.recv() => break,
            _ = tokio::time::sleep(kept::SAVE_EVERY), if keeps => {
                save(&target, &state_file, lab_name, &mut last).await;
            }
        }
    }
    eprintln!("shutting down");
    if keeps && save(&target, &state_file, lab_name, &mut last).await {
        eprintln!(
            "state kept in {}: `proctor up{}` here brings it back",
            state_file.display(),
            lab_name.map(|name| format!(" {name}")).unwrap_or_default()
        );
    }
    target.shutdown().await;
    let _ = std::fs::remove_file(&kubeconfig);
    Ok(Verdict::Passed)
}

/// Saves the cluster's state if it changed; a failure is told, and the cluster goes on. Whether
/// a state is kept now.
async fn save(
    target: &Target,
    path: &std::path::Path,
    lab: Option<&str>,
    last: &mut Option<serde_json::Value>,
) -> bool {
    if let Err(error) = kept::save(target, path, lab, last).await {
        tracing::warn!("the cluster's state was not kept: {error:#}");
    }
    last.is_some()
}

/// SIGHUP (the terminal `up` runs in was closed) as a stream; one that never fires where it
/// cannot be had.
fn hangup() -> Hangup {
    Hangup(tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok())
}

struct Hangup(Option<tokio::signal::unix::Signal>);

impl Hangup {
    async fn recv(&mut self) {
        match &mut self.0 {
            Some(signal) => {
                signal.recv().await;
            }
            None => std::future::pending().await,
        }
    }
}
