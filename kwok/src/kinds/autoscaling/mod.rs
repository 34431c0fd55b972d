//! autoscaling: HorizontalPodAutoscalers (v2, and v1 as a view) and the v1 Scale body of the
//! `scale` subresources.

pub(crate) mod conversion;
pub mod horizontalpodautoscaler;
pub mod scale;
