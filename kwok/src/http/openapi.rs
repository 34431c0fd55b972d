//! OpenAPI endpoints. kubectl's client-side validation needs `/openapi/v2` to answer: an empty
//! protobuf document with the dotted media type lets every kubectl from 1.27 to 1.33 go on and
//! leave validation to the server (`fieldValidation=Strict`), which is where it happens.

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;

/// The media type kube-openapi answers with (not the `@` form clients ask for).
pub const V2_PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

pub fn v2() -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::OK;
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(V2_PROTOBUF));
    r
}
