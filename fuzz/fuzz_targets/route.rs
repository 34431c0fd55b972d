#![no_main]
//! Request paths. A trailing slash never changes what a path names (RequestInfoFactory trims
//! slashes; a proxy passes it on to the path it proxies), and a resource target is always a
//! served resource, in scope, with a known subresource.

use kwok::http::route::{self, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = String::from_utf8_lossy(data);
    let unproxied = |target: Target| match target {
        Target::Resource(r) => Target::Resource(route::ResourcePath { proxied: None, ..r }),
        other => other,
    };
    let target = route::parse(&path, route::BUILT_IN);
    assert_eq!(
        unproxied(route::parse(&format!("{path}/"), route::BUILT_IN)),
        unproxied(route::parse(&path, route::BUILT_IN))
    );
    if let Target::Resource(r) = &target {
        assert!(r.namespace.is_none() || r.res.namespaced);
        if let Some(sub) = &r.subresource {
            assert!(r.res.subresource(sub).is_some());
        }
    }
});
