//! Serve an embedded cluster with three fake nodes until Ctrl-C (for poking at it with kubectl).
//!
//! `cargo run -p kwok --example serve -- /tmp/kubeconfig`

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "kubeconfig".into());
    let config = kwok::ClusterConfig::default().with_fake_nodes("lab-node-", 3);
    let cluster = kwok::Cluster::start(config).await?;
    cluster.write_kubeconfig(std::path::Path::new(&path))?;
    println!("export KUBECONFIG={path}");
    tokio::signal::ctrl_c().await?;
    cluster.shutdown().await;
    Ok(())
}
