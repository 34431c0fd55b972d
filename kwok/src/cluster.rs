//! Starting and stopping an embedded cluster: API server, scheduler, controllers and the fake
//! kubelet in one process, reachable through a generated kubeconfig.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::Value;
use tokio::task::JoinHandle;

use crate::api::{Api, WriteOptions};
use crate::http::{self, Server};
use crate::registry;
use crate::store::{Snapshot, Store};

pub use crate::controllers::fake_node::{fake_node, KWOK_NODE_ANNOTATION};

/// How to start a cluster.
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// Node objects created before the API opens.
    pub nodes: Vec<Value>,
    /// Listen address; port 0 picks a free one.
    pub bind: SocketAddr,
    /// Bearer token clients must present; random when `None`.
    pub token: Option<String>,
    /// Run the scheduler, controllers and fake kubelet (off only for API-level tests).
    pub controllers: bool,
    /// Writes kept for watch resumption; older resourceVersions get 410 Gone.
    pub watch_history: usize,
    /// kwok's `Logs`, `Exec` and `Attach` documents (and their `Cluster` forms): what the fake
    /// nodes serve for `kubectl logs`, `exec` and `attach`.
    pub debugging: crate::debugging::Config,
    /// Who runs an exec's command: kwok's way ([`crate::debugging::LocalRunner`]) unless the
    /// embedder keeps it away from its own files.
    pub exec_runner: Arc<dyn crate::debugging::ExecRunner>,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        Self {
            nodes: Vec::new(),
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            token: None,
            controllers: true,
            watch_history: crate::store::HISTORY,
            debugging: Default::default(),
            exec_runner: Arc::new(crate::debugging::LocalRunner),
        }
    }
}

impl ClusterConfig {
    /// `n` unlabelled fake nodes named `<prefix>0..n-1`.
    pub fn with_fake_nodes(mut self, prefix: &str, n: usize) -> Self {
        for i in 0..n {
            self.nodes.push(fake_node(
                &format!("{prefix}{i}"),
                &BTreeMap::new(),
                &BTreeMap::new(),
            ));
        }
        self
    }
}

/// A running embedded cluster. Dropping it without [`Cluster::shutdown`] aborts its tasks.
pub struct Cluster {
    api: Api,
    addr: SocketAddr,
    token: String,
    ca_pem: String,
    shutdown: tokio::sync::watch::Sender<bool>,
    server: Option<JoinHandle<()>>,
    controllers: Option<crate::controllers::Handle>,
    in_flight: http::in_flight::InFlight,
}

fn random_token() -> String {
    use rand::Rng;
    let bytes: [u8; 24] = rand::rng().random();
    crate::gofmt::go_x(&bytes)
}

impl Cluster {
    pub async fn start(config: ClusterConfig) -> anyhow::Result<Cluster> {
        let store = Arc::new(Store::with_history(config.watch_history));
        let api = Api::new(store);
        let cert = crate::tls::cluster_pki()?;
        let listener = std::net::TcpListener::bind(config.bind)
            .with_context(|| format!("binding {}", config.bind))?;
        listener
            .set_nonblocking(true)
            .context("making the listener non-blocking")?;
        let addr = listener.local_addr().context("reading the bound address")?;
        api.bootstrap_serving(addr.port())
            .map_err(|e| anyhow::anyhow!("bootstrap: {e}"))?;
        if config.debugging.serves_metrics() {
            crate::debugging::metrics::register(&api, addr.port())
                .map_err(|e| anyhow::anyhow!("registering the metrics API: {e}"))?;
        }
        for node in &config.nodes {
            api.create(&registry::NODES, "", node.clone(), &WriteOptions::default())
                .map_err(|e| anyhow::anyhow!("creating node: {e}"))?;
        }
        let token = config.token.clone().unwrap_or_else(random_token);
        let (tx, rx) = tokio::sync::watch::channel(false);
        let in_flight = http::in_flight::InFlight::default();
        let server = Arc::new(Server {
            api: api.clone(),
            token: token.clone(),
            keys: Default::default(),
            addr,
            shutdown: rx.clone(),
            in_flight: in_flight.clone(),
            debugging: config.debugging.clone(),
            exec_runner: config.exec_runner.clone(),
            ca: cert.ca.clone(),
        });
        let app = http::router(server);
        let tls = axum_server::tls_rustls::RustlsConfig::from_config(cert.config.clone());
        let handle = axum_server::Handle::new();
        let stopper = handle.clone();
        let mut stop = rx.clone();
        tokio::spawn(async move {
            let _ = stop.wait_for(|s| *s).await;
            stopper.graceful_shutdown(Some(Duration::from_secs(2)));
        });
        let serve = axum_server::from_tcp_rustls(listener, tls)
            .context("serving TLS")?
            .map(|tls| http::in_flight::Handshakes {
                inner: tls,
                in_flight: in_flight.clone(),
            })
            .handle(handle);
        let task = tokio::spawn(async move {
            if let Err(e) = serve.serve(app.into_make_service()).await {
                tracing::error!(error = %e, "API server stopped");
            }
        });
        let handle = task;
        let controllers = if config.controllers {
            Some(
                crate::controllers::start(api.clone(), cert.ca.clone(), &config.debugging, rx)
                    .context("starting the controllers' thread")?,
            )
        } else {
            None
        };
        tracing::info!(%addr, "embedded cluster listening");
        Ok(Cluster {
            api,
            addr,
            token,
            ca_pem: cert.ca.cert_pem.clone(),
            shutdown: tx,
            server: Some(handle),
            controllers,
            in_flight,
        })
    }

    pub fn api(&self) -> &Api {
        &self.api
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The requests the server is answering now (see [`http::in_flight`]).
    pub fn in_flight(&self) -> http::in_flight::InFlight {
        self.in_flight.clone()
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    pub fn server_url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// The serving certificate (PEM), the CA clients must trust.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// A kubeconfig with one cluster, user and context, all named `proctor`.
    pub fn kubeconfig_yaml(&self) -> String {
        use base64::Engine;
        let ca = base64::engine::general_purpose::STANDARD.encode(self.ca_pem.as_bytes());
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: proctor\n  cluster:\n    certificate-authority-data: {ca}\n    server: {}\ncontexts:\n- name: proctor\n  context:\n    cluster: proctor\n    user: proctor\ncurrent-context: proctor\nusers:\n- name: proctor\n  user:\n    token: {}\npreferences: {{}}\n",
            self.server_url(),
            self.token
        )
    }

    pub fn write_kubeconfig(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir)?;
            }
        }
        std::fs::write(path, self.kubeconfig_yaml())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(())
    }

    pub fn snapshot(&self) -> Snapshot {
        self.api.store().snapshot()
    }

    /// Rewinds the store to `snap`; returns the objects that had changed.
    pub fn restore(&self, snap: &Snapshot) -> Vec<crate::store::Rewound> {
        self.api.store().restore(snap)
    }

    /// Wait until the controllers have reacted to everything written so far: no write for a
    /// short quiet period and no controller work queued. Bounded at 10 s.
    pub async fn settle(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut last = self.api.store().revision();
        let mut quiet = 0;
        while Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
            let now = self.api.store().revision();
            let busy = self.controllers.as_ref().is_some_and(|c| !c.caught_up(now));
            if now == last && !busy {
                quiet += 1;
                if quiet >= 3 {
                    return;
                }
            } else {
                quiet = 0;
                last = now;
            }
        }
    }

    pub async fn shutdown(mut self) {
        let _ = self.shutdown.send(true);
        if let Some(c) = self.controllers.take() {
            c.stop().await;
        }
        if let Some(h) = self.server.take() {
            let _ = tokio::time::timeout(Duration::from_secs(5), h).await;
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
        if let Some(h) = self.server.take() {
            h.abort();
        }
    }
}
