//! Cluster targets: the embedded kwok cluster or an external one, snapshots, node injection.

pub mod external;
#[cfg(feature = "embedded")]
pub mod in_process;
pub mod kubectl;
pub mod names;
pub mod nodes;
pub mod object_query;
pub mod target;

pub use kubectl::Kubectl;
pub use nodes::NodeTemplate;
pub use object_query::ObjectQuery;
pub use target::{Snapshot, Target};
