//! The names a served resource goes by: `schema.GroupVersionResource`, its Kind, and whether its
//! objects live in namespaces. It is all that the machinery below the kinds (errors, selectors,
//! patches) needs to know of a resource, so that it takes these rather than the resource's whole
//! definition, and cannot reach a kind's strategy from below.

pub trait ResourceNames {
    /// The API group, empty for the core group.
    fn group(&self) -> &str;
    fn version(&self) -> &str;
    fn kind(&self) -> &str;
    /// The plural resource name (`daemonsets`).
    fn plural(&self) -> &str;
    fn namespaced(&self) -> bool;

    /// `apps/v1`, or `v1` for the core group.
    fn api_version(&self) -> String {
        match self.group() {
            "" => self.version().to_string(),
            group => format!("{group}/{}", self.version()),
        }
    }

    /// `daemonsets.apps`, or `pods` for the core group (`schema.GroupResource.String`, the
    /// NotFound message prefix).
    fn group_resource(&self) -> String {
        with_group(self.plural(), self.group())
    }

    /// `DaemonSet.apps`, or `Pod` for the core group (`schema.GroupKind.String`, the Invalid
    /// message prefix).
    fn group_kind(&self) -> String {
        with_group(self.kind(), self.group())
    }
}

/// `name.group`, or `name` alone for the core group.
fn with_group(name: &str, group: &str) -> String {
    match group {
        "" => name.to_string(),
        group => format!("{name}.{group}"),
    }
}
