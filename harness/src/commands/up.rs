//! `proctor up [LAB]`: a cluster (embedded, or kwokctl with `--cluster kwokctl`) in the foreground
//! for a learner to work on.

use std::io::Write;
use std::net::SocketAddr;

use anyhow::Context;

use super::common::{interrupted, Globals, Verdict};
use crate::cli::UpArgs;
use crate::cluster::{ClusterKind, NodeTemplate, Target};
use crate::runner::reference::copy_starter;
use crate::runner::{prepare_cluster, starting_nodes};

pub async fn run(globals: &Globals, args: &UpArgs) -> anyhow::Result<Verdict> {
    let lab = match &args.lab {
        Some(name) => Some(globals.lab(name)?),
        None => None,
    };
    let nodes = match &lab {
        Some(lab) => starting_nodes(lab),
        None => NodeTemplate::plain(args.nodes),
    };
    let kubeconfig = std::path::absolute(&args.kubeconfig)
        .with_context(|| format!("resolving {}", args.kubeconfig.display()))?;
    let start = async {
        match globals.cluster {
            ClusterKind::Embedded => {
                let bind = SocketAddr::from(([127, 0, 0, 1], args.port));
                Target::start_embedded(&nodes, &kubeconfig, Some(bind)).await
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
                Target::kwokctl(&nodes, Some(&kubeconfig)).await
            }
        }
    };
    let target = tokio::select! {
        target = start => target?,
        _ = interrupted() => return Ok(Verdict::Interrupted),
    };
    if let Some(lab) = &lab {
        prepare_cluster(lab, &target).await?;
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
    eprintln!(
        "cluster up with {} node(s){}; Ctrl-C to stop",
        nodes.len(),
        lab.as_ref()
            .map(|lab| format!(" for lab {}", lab.name()))
            .unwrap_or_default()
    );
    interrupted().await;
    eprintln!("shutting down");
    target.shutdown().await;
    let _ = std::fs::remove_file(&kubeconfig);
    Ok(Verdict::Passed)
}
