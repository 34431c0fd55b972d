//! Request options of the API verbs, decoded from query parameters and bodies.

/// `?fieldValidation=`: what to do with unknown or duplicate fields in a body.
pub use crate::decode::FieldValidation;

/// The field manager the cluster's own controllers write as when a write names none
/// (kube-controller-manager's client).
pub const CONTROLLER_MANAGER: &str = "kube-controller-manager";
/// The API server's own writes at start (its loopback client's user agent).
pub const KUBE_APISERVER: &str = "kube-apiserver";
pub const KUBE_SCHEDULER: &str = "kube-scheduler";
/// kwok's controller, which plays the kubelet of fake nodes (kwokctl runs it as
/// `kwok-controller`, and client-go names a client after its binary).
pub const KWOK_CONTROLLER: &str = "kwok-controller";

/// Options of list and watch.
#[derive(Default)]
pub struct ListOptions {
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub limit: Option<usize>,
    pub continue_token: Option<String>,
    pub resource_version: Option<String>,
    pub allow_bookmarks: bool,
    pub timeout_seconds: Option<u64>,
}

/// Options of create, update and patch.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    pub dry_run: bool,
    pub field_validation: FieldValidation,
    /// Who writes, for field ownership: a request's `fieldManager` or its user agent's name;
    /// none for the cluster's own controllers (kube-controller-manager).
    pub field_manager: Option<String>,
    /// An apply's `force`: take the fields other managers own.
    pub force: Option<bool>,
    /// Who asks, for the kinds that record it (none for the cluster's own writes).
    pub user: Option<crate::user::UserInfo>,
    /// Ownership was already worked out (a server-side apply's): the write keeps it as it is.
    pub ownership_recorded: bool,
    /// Where the write's warnings go (the request's `Warning:` headers); a clone shares it.
    pub warnings: Warnings,
}

impl WriteOptions {
    /// The in-cluster controllers' writes: kube-controller-manager's field manager.
    pub fn controller_manager() -> Self {
        Self::by(CONTROLLER_MANAGER)
    }

    /// A write of the cluster's own by the component `manager` names (`kube-scheduler`,
    /// `kwok-controller`, `kube-apiserver`).
    pub fn by(manager: &str) -> Self {
        Self {
            field_manager: Some(manager.into()),
            ..Self::default()
        }
    }
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self {
            dry_run: false,
            field_validation: FieldValidation::Strict,
            field_manager: None,
            force: None,
            user: None,
            ownership_recorded: false,
            warnings: Warnings::default(),
        }
    }
}

/// `propagationPolicy` of a delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    Orphan,
    Background,
    Foreground,
}

/// A boolean query parameter as `runtime.Convert_Slice_string_To_bool` reads it: present means
/// true unless it is "0" or "false" in any case (`follow=` follows; the Python client sends
/// `watch=True`).
pub fn query_flag(value: Option<&str>) -> bool {
    value.is_some_and(|v| v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// Options of delete (query parameters or a DeleteOptions body).
#[derive(Debug, Clone, Default)]
pub struct DeleteOptions {
    pub grace_period_seconds: Option<i64>,
    pub propagation: Option<Propagation>,
    pub precondition_uid: Option<String>,
    pub precondition_rv: Option<String>,
    pub dry_run: bool,
    /// `propagationPolicy` or `orphanDependents` was given (either value): the caller chose
    /// what happens to dependents instead of leaving it to the kind's default.
    pub policy_given: bool,
}

/// A request's warnings as apiserver's warning recorder keeps them (`warning.AddWarning`): in
/// the order given, each text once, empty texts dropped. Clones share one list, so the handler
/// that made it reads what the verbs below it recorded, whether or not the request succeeded.
#[derive(Debug, Clone, Default)]
pub struct Warnings(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Warnings {
    pub fn add(&self, text: impl Into<String>) {
        let text = text.into();
        let mut list = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !text.is_empty() && !list.contains(&text) {
            list.push(text);
        }
    }

    pub fn extend(&self, texts: impl IntoIterator<Item = String>) {
        for text in texts {
            self.add(text);
        }
    }

    /// What was recorded so far.
    pub fn recorded(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::Warnings;

    #[test]
    fn warnings_keep_their_order_once_each_and_clones_share_them() {
        let recorder = Warnings::default();
        let handed_down = recorder.clone();
        handed_down.add("b");
        recorder.extend(["a".to_string(), "b".to_string(), String::new()]);
        handed_down.add("c");
        assert_eq!(recorder.recorded(), ["b", "a", "c"]);
    }
}
