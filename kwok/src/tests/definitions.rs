//! The OpenAPI definitions cover the served kinds.

#[test]
fn every_served_kind_has_its_definition() {
    let defs = crate::definitions::definitions();
    for res in crate::registry::RESOURCES {
        assert!(
            defs.of_kind(res.group, res.version, res.kind).is_some(),
            "{}/{} {}",
            res.group,
            res.version,
            res.kind
        );
    }
}
