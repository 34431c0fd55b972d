//! The embedded cluster as clients see it: kubectl's commands, the kube-rs client, and both
//! labs walked step by step (`cargo test -p proctor-tests --test conformance
//! -- kubectl_pods::` runs one module). The differential and load suites are binaries of their
//! own: one drives the upstream control plane, the other measures its own memory.

mod api_hostile;
mod kube_client;
mod kubectl_exec;
mod kubectl_nodes;
mod kubectl_pods;
mod kubectl_proxy;
mod kubectl_workloads;
mod lab_gpudrv;
mod lab_gpuops;
mod openapi;
mod protobuf_deletes;
