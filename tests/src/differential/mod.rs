//! The differential suite's machinery: sessions as data, run against the embedded cluster and an
//! upstream control plane (kwokctl with the binaries of `upstream/build.sh`), their outputs and
//! objects normalised and compared, every difference either fixed or listed in
//! `tests/differential/accepted.yaml`.

pub mod accepted;
pub mod normalize;
pub mod run;
pub mod session;

/// Reads a YAML file into `T` strictly: an unknown key or a wrong type is an error naming
/// file:line:col.
pub(crate) fn load_yaml<T: serde::de::DeserializeOwned>(
    path: &std::path::Path,
) -> anyhow::Result<T> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| anyhow::anyhow!("reading {}: {error}", path.display()))?;
    serde_yaml::from_str(&text).map_err(|error| match error.location() {
        Some(at) => anyhow::anyhow!("{}:{}:{}: {error}", path.display(), at.line(), at.column()),
        None => anyhow::anyhow!("{}: {error}", path.display()),
    })
}
