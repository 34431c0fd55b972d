//! What a fake node's kubelet answers through the API server, as kwok's own server does
//! (`pkg/kwok/server`, its debugging handlers): container logs, read from the files that kwok's
//! `Logs` and `ClusterLogs` configuration resources name; commands run where `Exec` and
//! `ClusterExec` say; attaches that follow the files `Attach` and `ClusterAttach` name; port
//! forwards where `PortForward` and `ClusterPortForward` send them.
//!
//! The configuration is kwok's documents as they are, so a declaration made once configures the
//! embedded cluster and a kwokctl cluster alike.

pub mod config;
mod cri_log;
pub mod exec;
pub mod kubelet;
pub(crate) mod location;
pub mod logs;
pub mod metrics;
pub mod port_forward;

pub use config::Config;
pub use exec::{ExecRunner, LocalRunner};
