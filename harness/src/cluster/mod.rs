//! Cluster targets: the embedded kwok cluster, a kwokctl control plane or an external cluster;
//! snapshots, node injection.

mod api_reader;
#[cfg(feature = "embedded")]
mod exec_sandbox;
pub mod external;
pub mod guard;
#[cfg(feature = "embedded")]
pub mod in_process;
pub mod kept;
pub mod kubectl;
mod kwok_documents;
pub mod kwok_stages;
pub mod kwokctl;
pub mod lab_mark;
pub mod names;
pub mod nodes;
pub mod object_query;
pub mod pod_exec;
pub mod pod_logs;
pub mod pod_port_forward;
pub mod pod_usage;
pub mod target;
pub mod upstream;

pub use kubectl::Kubectl;
pub use nodes::NodeTemplate;
pub use object_query::ObjectQuery;
pub use target::{ClusterKind, ClusterSetup, Snapshot, Target};
