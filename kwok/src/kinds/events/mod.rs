//! The events.k8s.io group: a view of the core Events (`pkg/registry/core/event` serves both).

pub mod conversion;
pub mod event;
