//! The differential suite's machinery: sessions as data, run against the embedded cluster and an
//! upstream control plane (kwokctl with the binaries of `upstream/build.sh`), their outputs and
//! objects normalised and compared, every difference either fixed or listed in
//! `tests/differential/accepted.yaml`.

pub mod accepted;
pub mod normalize;
pub mod run;
pub mod session;
