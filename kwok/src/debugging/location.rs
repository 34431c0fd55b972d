//! Where a pod's streams come from, as the API server finds it before it dials a kubelet
//! (`streamLocation`, `LogLocation` in `pkg/registry/core/pod/strategy.go`): the container, and
//! the node that serves it.

use serde_json::Value;

use crate::api::Api;
use crate::error::{ApiError, ApiResult};
use crate::registry;

/// `validateContainer`: the one container, or the named one; the names in `VisitContainers`
/// order (init containers, containers, ephemeral containers).
pub fn container(container: &str, pod: &Value) -> ApiResult<String> {
    let name = pod["metadata"]["name"].as_str().unwrap_or_default();
    let names = |key: &str| -> Vec<String> {
        pod["spec"][key]
            .as_array()
            .map(|cs| {
                cs.iter()
                    .filter_map(|c| c["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let containers = names("containers");
    let all: Vec<String> = [names("initContainers"), containers.clone()]
        .concat()
        .into_iter()
        .chain(names("ephemeralContainers"))
        .collect();
    if !container.is_empty() {
        if all.iter().any(|c| c == container) {
            return Ok(container.to_string());
        }
        return Err(ApiError::bad_request(format!(
            "container {container} is not valid for pod {name}"
        )));
    }
    match containers.as_slice() {
        [only] => Ok(only.clone()),
        [] => Err(ApiError::bad_request(format!(
            "a container name must be specified for pod {name}"
        ))),
        _ => Err(ApiError::bad_request(format!(
            "a container name must be specified for pod {name}, choose one of: [{}]",
            all.join(" ")
        ))),
    }
}

/// The node a pod is bound to, `None` when it has none; a node its kubelet never initialised has
/// no address to dial (`GetConnectionInfo`).
pub fn node_of(api: &Api, pod: &Value) -> ApiResult<Option<String>> {
    let node_name = pod["spec"]["nodeName"].as_str().unwrap_or_default();
    if node_name.is_empty() {
        return Ok(None);
    }
    let node = api.get(&registry::NODES, "", node_name)?;
    if node.value["status"]["addresses"]
        .as_array()
        .is_none_or(Vec::is_empty)
    {
        return Err(ApiError::new(
            500,
            "",
            "no preferred addresses found; known addresses: []",
        ));
    }
    Ok(Some(node_name.to_string()))
}
