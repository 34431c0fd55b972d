//! The autoscaling/v1 Scale body of the `scale` subresources.

pub mod scale;
