//! The Service storage's allocators: cluster IPs from the service CIDR
//! (`pkg/registry/core/service/ipallocator`) and node ports from the node port range
//! (`pkg/registry/core/service/portallocator`), with the random-scan-with-offset strategy of
//! `allocator.NewAllocationMapWithOffset`.
//!
//! Upstream keeps the allocation bitmaps in etcd next to the services and repairs them from the
//! services; here the services themselves are the record: what is allocated is read from the
//! stored services while [`ALLOCATIONS`] is held, and a create or update holds it until its
//! object is stored (the transaction that `beginCreate`'s finish function commits).

use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use std::sync::Mutex;

use rand::Rng;
use serde_json::Value;

use super::service::RESOURCE as SERVICES;
use crate::resource::{Allocation, StoredObjects};

/// `DefaultServiceIPCIDR`, the range `--service-cluster-ip-range` defaults to.
pub const SERVICE_CIDR: (Ipv4Addr, u8) = (Ipv4Addr::new(10, 0, 0, 0), 24);
/// `DefaultServiceNodePortRange`: 30000-32767.
pub const NODE_PORTS: (u32, u32) = (30000, 2768);

pub(crate) static ALLOCATIONS: Mutex<()> = Mutex::new(());

pub(crate) fn lock() -> Allocation {
    ALLOCATIONS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `ErrAllocated`, `ErrNotInRange`, `ErrFull` of both allocators.
#[derive(Debug, PartialEq)]
pub enum AllocError {
    Allocated,
    NotInRange,
    Full,
}

/// A range of `size` values from `base`, with the static band `[0, offset)` that dynamic
/// allocation only falls back to.
struct Range {
    base: u32,
    size: u32,
    offset: u32,
}

impl Range {
    /// `ipallocator.NewInMemory`: network and broadcast excluded; the offset of
    /// `calculateRangeOffset`, `min(max(16, size/16), 256)`.
    fn cluster_ips() -> Range {
        let (net, bits) = SERVICE_CIDR;
        let total = 1u32 << (32 - bits);
        let size = total.saturating_sub(2);
        let offset = if total < 16 {
            0
        } else {
            (total / 16).clamp(16, 256)
        };
        Range {
            base: u32::from(net) + 1,
            size,
            offset,
        }
    }

    /// `portallocator.NewInMemory`: `min(max(16, size/32), 128)`.
    fn node_ports() -> Range {
        let (base, size) = NODE_PORTS;
        let offset = if size <= 16 {
            0
        } else {
            (size / 32).clamp(16, 128)
        };
        Range { base, size, offset }
    }

    fn contains(&self, v: u32) -> bool {
        v >= self.base && v - self.base < self.size
    }

    /// `Allocate`: a given value.
    fn allocate(&self, v: u32, used: &BTreeSet<u32>) -> Result<u32, AllocError> {
        if !self.contains(v) {
            Err(AllocError::NotInRange)
        } else if used.contains(&v) {
            Err(AllocError::Allocated)
        } else {
            Ok(v)
        }
    }

    /// `AllocateNext` with `randomScanStrategyWithOffset`: a random start in the upper band,
    /// scanning with wrap-around, then the same in the static band.
    fn allocate_next(&self, used: &BTreeSet<u32>) -> Result<u32, AllocError> {
        let mut rng = rand::rng();
        for (lo, hi) in [(self.offset, self.size), (0, self.offset)] {
            if hi <= lo {
                continue;
            }
            let start = rng.random_range(lo..hi);
            let span = hi - lo;
            for i in 0..span {
                let candidate = self.base + lo + (start - lo + i) % span;
                if !used.contains(&candidate) {
                    return Ok(candidate);
                }
            }
        }
        Err(AllocError::Full)
    }
}

/// What the stored services hold, the service being written (`skip`) left out.
pub(crate) struct Allocated {
    ips: BTreeSet<u32>,
    ports: BTreeSet<u32>,
}

impl Allocated {
    pub(crate) fn read(objects: &dyn StoredObjects, skip: Option<(&str, &str)>) -> Allocated {
        let mut ips = BTreeSet::new();
        let mut ports = BTreeSet::new();
        objects.for_each(&SERVICES, &mut |svc| {
            if skip == Some((crate::meta::namespace(svc), crate::meta::name(svc))) {
                return;
            }
            let spec = &svc["spec"];
            for ip in spec["clusterIPs"].as_array().into_iter().flatten() {
                if let Some(ip) = ip.as_str().and_then(|s| s.parse::<Ipv4Addr>().ok()) {
                    ips.insert(u32::from(ip));
                }
            }
            for port in spec["ports"].as_array().into_iter().flatten() {
                if let Some(np) = port["nodePort"].as_u64().filter(|n| *n > 0) {
                    ports.insert(np as u32);
                }
            }
            if let Some(np) = spec["healthCheckNodePort"].as_u64().filter(|n| *n > 0) {
                ports.insert(np as u32);
            }
        });
        Allocated { ips, ports }
    }

    pub(crate) fn ip(&mut self, ip: &str) -> Result<String, AllocError> {
        let v = ip.parse::<Ipv4Addr>().map_err(|_| AllocError::NotInRange)?;
        let v = Range::cluster_ips().allocate(u32::from(v), &self.ips)?;
        self.ips.insert(v);
        Ok(Ipv4Addr::from(v).to_string())
    }

    pub(crate) fn next_ip(&mut self) -> Result<String, AllocError> {
        let v = Range::cluster_ips().allocate_next(&self.ips)?;
        self.ips.insert(v);
        Ok(Ipv4Addr::from(v).to_string())
    }

    pub(crate) fn port(&mut self, port: i64) -> Result<i64, AllocError> {
        let v = u32::try_from(port).map_err(|_| AllocError::NotInRange)?;
        let v = Range::node_ports().allocate(v, &self.ports)?;
        self.ports.insert(v);
        Ok(i64::from(v))
    }

    pub(crate) fn next_port(&mut self) -> Result<i64, AllocError> {
        let v = Range::node_ports().allocate_next(&self.ports)?;
        self.ports.insert(v);
        Ok(i64::from(v))
    }

    /// A port this service already holds: kept without a new allocation.
    pub(crate) fn keep_port(&mut self, port: i64) {
        if let Ok(v) = u32::try_from(port) {
            self.ports.insert(v);
        }
    }
}

impl AllocError {
    /// The allocators' error texts.
    pub(crate) fn ip_text(&self, ip: &str) -> String {
        match self {
            AllocError::Allocated => "provided IP is already allocated".into(),
            AllocError::NotInRange => format!(
                "the provided IP ({ip}) is not in the valid range. The range of valid IPs is {}/{}",
                SERVICE_CIDR.0, SERVICE_CIDR.1
            ),
            AllocError::Full => "range is full".into(),
        }
    }

    pub(crate) fn port_text(&self) -> String {
        match self {
            AllocError::Allocated => "provided port is already allocated".into(),
            AllocError::NotInRange => format!(
                "provided port is not in the valid range. The range of valid ports is {}-{}",
                NODE_PORTS.0,
                NODE_PORTS.0 + NODE_PORTS.1 - 1
            ),
            AllocError::Full => "range is full".into(),
        }
    }
}

/// The first address of the range: the `kubernetes` Service's (`GetIndexedIP(range, 1)`).
pub fn api_server_service_ip() -> String {
    Ipv4Addr::from(Range::cluster_ips().base).to_string()
}

/// A node port number of a stored port, if any.
pub(crate) fn node_port(port: &Value) -> i64 {
    port["nodePort"].as_i64().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_ips_come_from_above_the_static_band() {
        let range = Range::cluster_ips();
        assert_eq!((range.size, range.offset), (254, 16));
        let used = BTreeSet::new();
        for _ in 0..200 {
            let ip = Ipv4Addr::from(range.allocate_next(&used).expect("free"));
            assert!((17..=254).contains(&ip.octets()[3]), "{ip}");
        }
    }

    #[test]
    fn the_static_band_is_used_when_the_rest_is_full() {
        let range = Range::cluster_ips();
        let used: BTreeSet<u32> = (range.base + 16..range.base + 254).collect();
        let ip = Ipv4Addr::from(range.allocate_next(&used).expect("static band"));
        assert!((1..=16).contains(&ip.octets()[3]));
        let all: BTreeSet<u32> = (range.base..range.base + 254).collect();
        assert_eq!(range.allocate_next(&all), Err(AllocError::Full));
    }

    #[test]
    fn node_ports_have_an_offset_of_86() {
        let range = Range::node_ports();
        assert_eq!(range.offset, 86);
        let port = range.allocate_next(&BTreeSet::new()).expect("free");
        assert!((30086..=32767).contains(&port));
        assert_eq!(
            range.allocate(29999, &BTreeSet::new()),
            Err(AllocError::NotInRange)
        );
        assert_eq!(
            range.allocate(32768, &BTreeSet::new()),
            Err(AllocError::NotInRange)
        );
        assert_eq!(
            range.allocate(32767, &BTreeSet::from([32767])),
            Err(AllocError::Allocated)
        );
    }

    #[test]
    fn error_texts_are_the_allocators() {
        assert_eq!(
            AllocError::NotInRange.ip_text("10.1.0.5"),
            "the provided IP (10.1.0.5) is not in the valid range. The range of valid IPs is 10.0.0.0/24"
        );
        assert_eq!(
            AllocError::NotInRange.port_text(),
            "provided port is not in the valid range. The range of valid ports is 30000-32767"
        );
        assert_eq!(api_server_service_ip(), "10.0.0.1");
    }
}
