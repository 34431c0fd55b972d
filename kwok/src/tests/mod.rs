//! Tests of the machinery (`kwok-machinery`) on the kinds this crate serves: decoding,
//! defaulting, validation, printing, patches, selectors and protobuf bodies of real kinds need
//! the kinds table, which the machinery cannot see.

mod decode;
mod defaults;
mod definitions;
mod patch;
mod patch_apply;
mod printers;
mod protobuf;
mod selectors;
mod validation;
mod validation_batch;
