//! A server-side apply configuration's request errors.

use crate::patch::apply_configuration as configuration;
use crate::registry::PODS;

#[test]
fn request_errors() {
    let e = configuration(&PODS, b"apiVersion: apps/v1\nkind: Deployment\n").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (400, "invalid object type: apps/v1, Kind=Deployment")
    );
    let e = configuration(&PODS, b"metadata: {name: p}\n").unwrap_err();
    assert_eq!(e.message, "invalid object type: /, Kind=");
    let e = configuration(
        &PODS,
        b"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"managedFields\":[]}}",
    )
    .unwrap_err();
    assert_eq!(e.message, "metadata.managedFields must be nil");
    let e = configuration(&PODS, b"[1]").unwrap_err();
    assert_eq!(
        e.message,
        "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"
    );
}
