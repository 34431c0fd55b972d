//! Load run against one embedded cluster (stub while the suite is written).

#[test]
fn load_stub_compiles() {}
