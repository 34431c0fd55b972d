//! The NodePorts filter (`k/k pkg/scheduler/framework/plugins/nodeports/node_ports.go`) with
//! `HostPortInfo.CheckConflict` (`k/k pkg/scheduler/framework/types.go`).

use k8s_openapi::api::core::v1::{ContainerPort, Pod};

/// NodePorts' filter reason (`ErrReason`).
pub const ERR_REASON: &str = "node(s) didn't have free ports for the requested pod ports";

const BIND_ALL: &str = "0.0.0.0";

/// A host port in use: (ip, protocol, port) with the defaults `0.0.0.0` and `TCP` filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPort {
    ip: String,
    protocol: String,
    port: i32,
}

impl HostPort {
    fn from_container_port(p: &ContainerPort) -> Option<Self> {
        let port = p.host_port.filter(|&hp| hp > 0)?;
        let ip = p
            .host_ip
            .as_deref()
            .filter(|s| !s.is_empty())
            .unwrap_or(BIND_ALL);
        let protocol = p
            .protocol
            .as_deref()
            .filter(|s| !s.is_empty())
            .unwrap_or("TCP");
        Some(Self {
            ip: ip.to_string(),
            protocol: protocol.to_string(),
            port,
        })
    }
}

/// `schedutil.GetHostPorts`: host ports of the containers and of the restartable (sidecar) init
/// containers, the ones that run for the pod's whole life.
pub fn host_ports(pod: &Pod) -> Vec<HostPort> {
    let Some(spec) = pod.spec.as_ref() else {
        return Vec::new();
    };
    let sidecars = spec
        .init_containers
        .iter()
        .flatten()
        .filter(|c| c.restart_policy.as_deref() == Some("Always"));
    sidecars
        .chain(spec.containers.iter())
        .flat_map(|c| c.ports.iter().flatten())
        .filter_map(HostPort::from_container_port)
        .collect()
}

/// `HostPortInfo.CheckConflict`: a wildcard address conflicts with the same protocol/port on any
/// address; a specific address conflicts with itself and with the wildcard.
fn conflicts(want: &HostPort, used: &HostPort) -> bool {
    if want.protocol != used.protocol || want.port != used.port {
        return false;
    }
    want.ip == BIND_ALL || used.ip == BIND_ALL || want.ip == used.ip
}

/// True when every host port the pod wants is free on a node whose pods use `used`.
pub fn fits(wanted: &[HostPort], used: &[HostPort]) -> bool {
    !wanted.iter().any(|w| used.iter().any(|u| conflicts(w, u)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{Container, PodSpec};

    fn port(host_port: i32, ip: &str, proto: &str) -> ContainerPort {
        ContainerPort {
            container_port: 80,
            host_port: Some(host_port),
            host_ip: (!ip.is_empty()).then(|| ip.to_string()),
            protocol: (!proto.is_empty()).then(|| proto.to_string()),
            name: None,
        }
    }

    fn pod(ports: Vec<ContainerPort>) -> Pod {
        Pod {
            spec: Some(PodSpec {
                containers: vec![Container {
                    name: "c".into(),
                    ports: Some(ports),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn same_port_and_protocol_conflict() {
        let used = host_ports(&pod(vec![port(8080, "", "")]));
        assert!(!fits(&host_ports(&pod(vec![port(8080, "", "TCP")])), &used));
        assert!(fits(&host_ports(&pod(vec![port(8080, "", "UDP")])), &used));
        assert!(fits(&host_ports(&pod(vec![port(8081, "", "")])), &used));
    }

    #[test]
    fn specific_addresses_only_conflict_with_themselves_and_the_wildcard() {
        let used = host_ports(&pod(vec![port(53, "10.0.0.1", "UDP")]));
        assert!(fits(
            &host_ports(&pod(vec![port(53, "10.0.0.2", "UDP")])),
            &used
        ));
        assert!(!fits(
            &host_ports(&pod(vec![port(53, "10.0.0.1", "UDP")])),
            &used
        ));
        assert!(!fits(&host_ports(&pod(vec![port(53, "", "UDP")])), &used));
    }

    #[test]
    fn container_ports_without_host_port_are_ignored() {
        let mut p = pod(vec![port(0, "", "")]);
        assert!(host_ports(&p).is_empty());
        if let Some(s) = p.spec.as_mut() {
            s.containers[0].ports = Some(vec![ContainerPort {
                container_port: 80,
                ..Default::default()
            }]);
        }
        assert!(host_ports(&p).is_empty());
    }
}
