//! What an object check reads from a cluster.

/// What an object check reads: kubectl's resource argument and the `get` flags.
#[derive(Debug, Clone, Copy)]
pub struct ObjectQuery<'a> {
    pub resource: &'a str,
    pub name: Option<&'a str>,
    pub namespace: Option<&'a str>,
    pub label_selector: Option<&'a str>,
    pub field_selector: Option<&'a str>,
}
