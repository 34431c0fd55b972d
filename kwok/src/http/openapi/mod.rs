//! OpenAPI endpoints. `/openapi/v3` lists a document per group version (kube-openapi `handler3`):
//! the built-in ones as the pinned release serves them ([`published`]), and one per served
//! version of each established CustomResourceDefinition ([`custom`]). kubectl reads them for
//! `explain`, to decide how to patch (`apply`) and whether the server validates fields.
//!
//! `/openapi/v2` is an empty protobuf document with the dotted media type: every kubectl from 1.27
//! to 1.33 reads v3 first, and with v2 empty leaves nothing to validate on the client.

mod custom;
mod published;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde_json::{json, Value};
use sha2::{Digest, Sha512};

use crate::store::Store;

/// The media type kube-openapi answers with (not the `@` form clients ask for).
pub const V2_PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

pub fn v2() -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::OK;
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(V2_PROTOBUF));
    r
}

/// One rendered document and its ETag: the upper-case hex SHA-512 of its bytes, which is also
/// the `hash` of its URL in the discovery document (`computeETag`).
pub struct Document {
    json: Bytes,
    etag: String,
}

impl Document {
    fn new(doc: &Value) -> Self {
        let json = serde_json::to_vec(doc).unwrap_or_default();
        let etag = Sha512::digest(&json)
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect();
        Document {
            json: Bytes::from(json),
            etag,
        }
    }
}

/// Every document served now, by name: the built-in ones and the custom resources' (a custom
/// group version never shares a name with a built-in one: the groups are reserved).
fn documents(store: &Store) -> BTreeMap<String, Arc<Document>> {
    let published = published::published();
    let mut all = published.documents.clone();
    for (name, doc) in custom::documents(store, &published.kit) {
        all.entry(name)
            .or_insert_with(|| Arc::new(Document::new(&doc)));
    }
    all
}

fn document(store: &Store, name: &str) -> Option<Arc<Document>> {
    let published = published::published();
    if let Some(doc) = published.documents.get(name) {
        return Some(doc.clone());
    }
    custom::document(store, &published.kit, name).map(|doc| Arc::new(Document::new(&doc)))
}

/// `/openapi/v3`: where each document is, its URL carrying its hash (`HandleDiscovery`).
pub fn v3_discovery(store: &Store, headers: &HeaderMap) -> Response {
    let paths: serde_json::Map<String, Value> = documents(store)
        .into_iter()
        .map(|(name, doc)| {
            let url = format!("/openapi/v3/{name}?hash={}", doc.etag);
            (name, json!({ "serverRelativeURL": url }))
        })
        .collect();
    let discovery = Document::new(&json!({ "paths": paths }));
    content(&discovery, headers, None)
}

/// The media types of `HandleGroupVersion`, with what each answers; only JSON is rendered here.
const V3_PROTOBUF: &str = "com.github.proto-openapi.spec.v3.v1.0+protobuf";
const V3_PROTOBUF_DEPRECATED: &str = "com.github.proto-openapi.spec.v3@v1.0+protobuf";

/// `/openapi/v3/<name>` (`HandleGroupVersion`): the first `Accept` clause the server can answer
/// picks the form; a `hash` that is not the document's redirects to the current URL, and one that
/// is makes the answer cacheable for good.
pub fn v3_document(store: &Store, name: &str, headers: &HeaderMap, hash: Option<&str>) -> Response {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .filter(|a| !a.trim().is_empty())
        .unwrap_or("*/*");
    // Only JSON is rendered: a client that prefers the protobuf form is not served.
    if accepted_subtypes(accept).first() != Some(&"json") {
        return with_vary(status(StatusCode::NOT_ACCEPTABLE));
    }
    // An unknown group version is an empty 404, as kube-apiserver answers it.
    let Some(doc) = document(store, name) else {
        return status(StatusCode::NOT_FOUND);
    };
    match hash.filter(|h| !h.is_empty()) {
        Some(hash) if hash != doc.etag => {
            let location = format!("/openapi/v3/{name}?hash={}", doc.etag);
            let mut r = with_vary(status(StatusCode::MOVED_PERMANENTLY));
            if let Ok(v) = HeaderValue::from_str(&location) {
                r.headers_mut().insert(header::LOCATION, v);
            }
            r
        }
        Some(_) => with_vary(content(&doc, headers, Some(cache_forever()))),
        None => with_vary(content(&doc, headers, None)),
    }
}

/// The `application/<subtype>` forms an `Accept` header allows, best first (`goautoneg`: by
/// quality, a wildcard standing for every form the server has).
fn accepted_subtypes(accept: &str) -> Vec<&'static str> {
    let mut clauses: Vec<(f32, &str, &str)> = accept
        .split(',')
        .filter_map(|clause| {
            let mut parts = clause.split(';').map(str::trim);
            let (kind, sub) = parts.next()?.split_once('/')?;
            let q = parts
                .filter_map(|p| p.strip_prefix("q="))
                .find_map(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            Some((q, kind, sub))
        })
        .filter(|(q, _, _)| *q > 0.0)
        .collect();
    clauses.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out = Vec::new();
    for (_, kind, sub) in clauses {
        if kind != "application" && kind != "*" {
            continue;
        }
        for known in ["json", V3_PROTOBUF, V3_PROTOBUF_DEPRECATED] {
            if (sub == known || sub == "*") && !out.contains(&known) {
                out.push(known);
                if sub == "*" {
                    break;
                }
            }
        }
    }
    out
}

fn cache_forever() -> String {
    (chrono::Utc::now() + chrono::Duration::days(365))
        .format("%a, %d %b %Y %H:%M:%S UTC")
        .to_string()
}

/// A document as `http.ServeContent` answers it: its ETag, and 304 to a client that has it.
fn content(doc: &Document, headers: &HeaderMap, expires: Option<String>) -> Response {
    let etag = format!("\"{}\"", doc.etag);
    let unchanged = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut r = if unchanged {
        status(StatusCode::NOT_MODIFIED)
    } else {
        let mut r = Response::new(Body::from(doc.json.clone()));
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        r
    };
    let h = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    if let Some(expires) = expires {
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, immutable"),
        );
        if let Ok(v) = HeaderValue::from_str(&expires) {
            h.insert(header::EXPIRES, v);
        }
    }
    r
}

fn status(code: StatusCode) -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = code;
    r
}

fn with_vary(mut r: Response) -> Response {
    r.headers_mut()
        .insert(header::VARY, HeaderValue::from_static("Accept"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_picks_json_unless_only_protobuf_is_wanted() {
        assert_eq!(accepted_subtypes("*/*")[0], "json");
        assert_eq!(accepted_subtypes("application/json")[0], "json");
        assert_eq!(
            accepted_subtypes("application/com.github.proto-openapi.spec.v3@v1.0+protobuf, application/json;q=0.5"),
            vec![V3_PROTOBUF_DEPRECATED, "json"]
        );
        assert!(accepted_subtypes("text/html").is_empty());
    }

    #[test]
    fn the_etag_is_the_upper_case_sha512_of_the_bytes() {
        let doc = Document::new(&json!({}));
        assert_eq!(doc.json.as_ref(), b"{}");
        assert_eq!(&doc.etag[..16], "27C74670ADB75075");
        assert_eq!(doc.etag.len(), 128);
    }
}
