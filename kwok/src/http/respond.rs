//! Response bodies: objects, lists, Tables and Status errors, in the content type the client
//! asked for.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::{BufMut, Bytes, BytesMut};
use serde_json::{json, Value};

use crate::api::ObjectList;
use crate::error::ApiError;
use crate::resource::ResourceDef;
use crate::resource_names::ResourceNames;
use crate::store::Stored;

/// How the client wants objects back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Yaml,
    /// `application/json;as=Table;v=v1;g=meta.k8s.io`, with the row object form.
    Table(IncludeObject),
    /// `application/json;as=PartialObjectMetadata[List];v=v1;g=meta.k8s.io`: only each object's
    /// metadata, as metadata-only clients (informers, kube-rs `list_metadata`) ask.
    Metadata(Partial),
}

/// Which PartialObjectMetadata form was asked for, and in which meta.k8s.io version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partial {
    pub list: bool,
    pub version: &'static str,
}

impl Partial {
    fn api_version(self) -> String {
        format!("meta.k8s.io/{}", self.version)
    }

    /// `meta.AsPartialObjectMetadata`: the object's metadata under the partial kind. Upstream
    /// takes it from the internal object, before v1 conversion adds a DaemonSet's
    /// `deprecated.daemonset.template.generation` annotation (the internal type keeps it in the
    /// spec), so the partial form has none.
    pub fn of(self, res: &ResourceDef, obj: &Value) -> Value {
        let mut metadata = obj["metadata"].clone();
        res.strategy.internal_metadata(&mut metadata);
        json!({"kind": "PartialObjectMetadata", "apiVersion": self.api_version(), "metadata": metadata})
    }

    /// `asPartialObjectMetadata` / `asPartialObjectMetadataList`: the form must fit the answer.
    fn check(self, res: &ResourceDef, is_list: bool) -> Result<(), ApiError> {
        let internal = match res.group {
            "" | "events.k8s.io" => "core",
            "coordination.k8s.io" => "coordination",
            group => group,
        };
        let go_type = format!(
            "*{internal}.{}{}",
            res.kind,
            if is_list { "List" } else { "" }
        );
        let why = match (self.list, is_list) {
            (false, true) => format!("you requested PartialObjectMetadata, but the requested object is a list ({go_type})"),
            (true, false) => format!("you requested PartialObjectMetadataList, but the requested object is not a list ({go_type})"),
            _ => return Ok(()),
        };
        Err(ApiError::new(406, "NotAcceptable", why))
    }
}

pub use super::table::IncludeObject;

/// Pick the response format from `Accept` (first acceptable entry wins, as the apiserver's
/// negotiation does). Protobuf is never chosen: clients that offer it also offer JSON.
pub fn negotiate(headers: &HeaderMap, include: Option<&str>) -> Result<Format, ApiError> {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if accept.trim().is_empty() {
        return Ok(Format::Json);
    }
    for entry in accept.split(',') {
        let mut parts = entry.split(';').map(str::trim);
        let media = parts.next().unwrap_or("");
        let params: Vec<(&str, &str)> = parts.filter_map(|p| p.split_once('=')).collect();
        let param = |k: &str| params.iter().find(|(pk, _)| *pk == k).map(|(_, v)| *v);
        match media {
            "application/json" | "application/*" | "*/*" => {
                if param("as") == Some("Table") {
                    if param("g") == Some("meta.k8s.io")
                        && matches!(param("v"), Some("v1") | Some("v1beta1"))
                    {
                        return Ok(Format::Table(IncludeObject::from_query(include)?));
                    }
                    continue;
                }
                if let Some(kind @ ("PartialObjectMetadata" | "PartialObjectMetadataList")) =
                    param("as")
                {
                    if param("g") == Some("meta.k8s.io") {
                        let version = match param("v") {
                            Some("v1") => Some("v1"),
                            Some("v1beta1") => Some("v1beta1"),
                            _ => None,
                        };
                        if let Some(version) = version {
                            let list = kind == "PartialObjectMetadataList";
                            return Ok(Format::Metadata(Partial { list, version }));
                        }
                    }
                    continue;
                }
                if param("as").is_some() {
                    // Other conversions are not served; fall through.
                    continue;
                }
                return Ok(Format::Json);
            }
            "application/yaml" => return Ok(Format::Yaml),
            _ => continue,
        }
    }
    Err(ApiError::not_acceptable(accept))
}

/// An API object's JSON answer. The apiserver's JSON serializer writes with Go's
/// `json.Encoder`, which ends every document with a newline.
pub fn json_response(code: StatusCode, body: Bytes) -> Response {
    let mut with_newline = BytesMut::with_capacity(body.len() + 1);
    with_newline.put_slice(&body);
    with_newline.put_u8(b'\n');
    encoded_json(code, with_newline.freeze())
}

/// A JSON answer already ending in the serializer's newline.
fn encoded_json(code: StatusCode, body: Bytes) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = code;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

pub fn value(code: StatusCode, v: &Value) -> Response {
    json_response(code, Bytes::from(serde_json::to_vec(v).unwrap_or_default()))
}

/// `responsewriters.WriteRawJSON`: indented, without the serializer's newline (`/version`).
pub fn raw_json(code: StatusCode, v: &Value) -> Response {
    let mut r = Response::new(Body::from(serde_json::to_vec_pretty(v).unwrap_or_default()));
    *r.status_mut() = code;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// `isPrettyPrint`: `?pretty=<bool>`, else a browser's or a command-line HTTP tool's user agent.
pub fn pretty_requested(query: &super::query::Query, user_agent: Option<&str>) -> bool {
    if let Some(v) = query.get("pretty") {
        if !v.is_empty() {
            return matches!(v, "1" | "t" | "T" | "true" | "TRUE" | "True");
        }
    }
    user_agent.is_some_and(|ua| {
        ["curl", "Wget", "Mozilla/5.0"]
            .iter()
            .any(|p| ua.starts_with(p))
    })
}

/// The JSON serializer's pretty form (`json.MarshalIndent(obj, "", "  ")`, no newline) of an
/// answer already made.
pub async fn prettified(r: Response) -> Response {
    let is_json = r
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !is_json {
        return r;
    }
    let (parts, body) = r.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let pretty = serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|v| serde_json::to_vec_pretty(&v).ok());
    let body = match pretty {
        Some(p) => Body::from(p),
        None => Body::from(bytes),
    };
    let mut r = Response::from_parts(parts, body);
    r.headers_mut().remove(header::CONTENT_LENGTH);
    r
}

/// Go's `http.Error`: the text as it is, as plain text the client must not sniff.
pub fn go_http_error(code: StatusCode, text: impl Into<String>) -> Response {
    let mut r = Response::new(Body::from(text.into()));
    *r.status_mut() = code;
    let headers = r.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

pub fn error(e: &ApiError) -> Response {
    let code = StatusCode::from_u16(e.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    value(code, &e.to_status())
}

fn yaml(code: StatusCode, v: &Value) -> Response {
    let text = serde_yaml::to_string(v).unwrap_or_default();
    let mut r = Response::new(Body::from(text));
    *r.status_mut() = code;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/yaml"),
    );
    r
}

/// One object.
pub fn object(code: StatusCode, res: &ResourceDef, obj: &Stored, format: Format) -> Response {
    match format {
        Format::Json => json_response(code, obj.json()),
        Format::Metadata(partial) => match partial.check(res, false) {
            Ok(()) => value(code, &partial.of(res, &obj.value)),
            Err(e) => error(&e),
        },
        Format::Yaml => yaml(code, &obj.value),
        Format::Table(inc) => {
            let rv = obj.value["metadata"]["resourceVersion"]
                .as_str()
                .unwrap_or("")
                .to_string();
            value(
                code,
                &super::table::table(res, &[&obj.value], chrono::Utc::now(), inc, &rv, None, None),
            )
        }
    }
}

/// `finalizeDelete`: the answer to deleting an object that is gone at once, a Status naming it
/// (its `kind` holds the resource, as upstream's does).
pub fn deleted(res: &ResourceDef, name: &str, uid: &str) -> Response {
    let mut details = serde_json::Map::new();
    details.insert("name".into(), json!(name));
    if !res.group.is_empty() {
        details.insert("group".into(), json!(res.group));
    }
    details.insert("kind".into(), json!(res.plural));
    details.insert("uid".into(), json!(uid));
    let status = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details});
    value(StatusCode::OK, &status)
}

/// A list, encoded by splicing each object's cached JSON (no re-serialisation).
pub fn list(res: &ResourceDef, list: &ObjectList, format: Format) -> Response {
    let rv = list.resource_version.to_string();
    match format {
        Format::Table(inc) => {
            let objs: Vec<&Value> = list.items.iter().map(|o| &o.value).collect();
            value(
                StatusCode::OK,
                &super::table::table(
                    res,
                    &objs,
                    chrono::Utc::now(),
                    inc,
                    &rv,
                    list.continue_token.as_deref(),
                    list.remaining,
                ),
            )
        }
        Format::Yaml => {
            let items: Vec<&Value> = list.items.iter().map(|o| &o.value).collect();
            yaml(StatusCode::OK, &list_envelope(res, &rv, list, json!(items)))
        }
        Format::Metadata(partial) => {
            if let Err(e) = partial.check(res, true) {
                return error(&e);
            }
            let items: Vec<Value> = list
                .items
                .iter()
                .map(|o| partial.of(res, &o.value))
                .collect();
            let mut envelope = list_envelope(res, &rv, list, json!(items));
            envelope["kind"] = json!("PartialObjectMetadataList");
            envelope["apiVersion"] = json!(partial.api_version());
            if let Some(r) = list.remaining {
                envelope["metadata"]["remainingItemCount"] = json!(r);
            }
            value(StatusCode::OK, &envelope)
        }
        Format::Json => {
            let mut meta = json!({"resourceVersion": rv});
            if let Some(c) = &list.continue_token {
                meta["continue"] = json!(c);
            }
            if let Some(r) = list.remaining {
                meta["remainingItemCount"] = json!(r);
            }
            let head = format!(
                "{{\"kind\":\"{}List\",\"apiVersion\":\"{}\",\"metadata\":{},\"items\":[",
                res.kind,
                res.api_version(),
                meta
            );
            let size: usize = list.items.iter().map(|o| o.json().len() + 1).sum();
            let mut buf = BytesMut::with_capacity(head.len() + size + 3);
            buf.put_slice(head.as_bytes());
            for (i, o) in list.items.iter().enumerate() {
                if i > 0 {
                    buf.put_u8(b',');
                }
                buf.put_slice(&o.json());
            }
            // Spliced with its newline: a long list is not copied again to add it.
            buf.put_slice(b"]}\n");
            encoded_json(StatusCode::OK, buf.freeze())
        }
    }
}

fn list_envelope(res: &ResourceDef, rv: &str, list: &ObjectList, items: Value) -> Value {
    let mut meta = json!({"resourceVersion": rv});
    if let Some(c) = &list.continue_token {
        meta["continue"] = json!(c);
    }
    json!({"kind": format!("{}List", res.kind), "apiVersion": res.api_version(), "metadata": meta, "items": items})
}

/// `Status` Success, as some deletes and subresources answer.
pub fn success(code: u16, details: Option<Value>) -> Response {
    let mut s = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"});
    if let Some(d) = details {
        s["details"] = d;
    }
    s["code"] = json!(code);
    value(StatusCode::from_u16(code).unwrap_or(StatusCode::OK), &s)
}

/// The `Warning:` headers of a response, as apiserver's warning recorder writes them: `299 -`
/// and the text quoted (only `"` and `\\` escaped); a text with control characters is left out.
/// Past 4,096 characters in all, every text is cut to 256 and those that no longer fit dropped.
pub fn with_warnings(mut r: Response, warnings: &[String]) -> Response {
    const TOTAL: usize = 4 * 1024;
    const ITEM: usize = 256;
    let texts: Vec<&String> = warnings
        .iter()
        .filter(|w| !w.chars().any(char::is_control))
        .collect();
    let mut written = 0;
    // The text whose arrival passed the limit: it and those before it are all written, cut.
    let passed_at = texts.iter().position(|t| {
        written += t.chars().count();
        written > TOTAL
    });
    written = 0;
    for (i, text) in texts.iter().enumerate() {
        let text: String = match passed_at {
            None => text.to_string(),
            Some(at) if i > at && written >= TOTAL => break,
            Some(_) => text.chars().take(ITEM).collect(),
        };
        written += text.chars().count();
        let mut header = String::from("299 - \"");
        for c in text.chars() {
            if c == '"' || c == '\\' {
                header.push('\\');
            }
            header.push(c);
        }
        header.push('"');
        if let Ok(v) = HeaderValue::from_bytes(header.as_bytes()) {
            r.headers_mut().append("Warning", v);
        }
    }
    r
}

#[cfg(test)]
mod partial_tests {
    use super::*;
    use crate::registry::{DAEMONSETS, NODES};

    fn accept(value: &str) -> Result<Format, ApiError> {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_str(value).expect("header"),
        );
        negotiate(&headers, None)
    }

    #[test]
    fn metadata_only_forms_are_negotiated_and_must_fit_the_answer() {
        let list = accept("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io")
            .expect("served");
        assert_eq!(
            list,
            Format::Metadata(Partial {
                list: true,
                version: "v1"
            })
        );
        let Format::Metadata(partial) = list else {
            unreachable!()
        };
        // `asPartialObjectMetadata[List]` (handlers/response.go).
        assert_eq!(partial.check(&NODES, true), Ok(()));
        let error = partial.check(&NODES, false).expect_err("not a list");
        assert_eq!(error.code, 406);
        assert_eq!(
            error.message,
            "you requested PartialObjectMetadataList, but the requested object is not a list (*core.Node)"
        );
        // An unknown meta.k8s.io version is passed over, as an unknown conversion is.
        assert_eq!(
            accept(
                "application/json;as=PartialObjectMetadata;v=v2;g=meta.k8s.io, application/json"
            ),
            Ok(Format::Json)
        );
        let one = Partial {
            list: false,
            version: "v1",
        };
        let ds = json!({"metadata": {"name": "d", "annotations": {"deprecated.daemonset.template.generation": "1"}}});
        assert_eq!(
            one.of(&DAEMONSETS, &ds),
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": {"name": "d"}})
        );
    }
}

#[cfg(test)]
mod warning_tests {
    use super::*;

    fn headers(texts: &[String]) -> Vec<String> {
        let r = with_warnings(Response::new(Body::empty()), texts);
        r.headers()
            .get_all("Warning")
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect()
    }

    #[test]
    fn a_warning_is_quoted_as_makequotedstring_does() {
        let texts = ["say \"hi\" \\ now".to_string(), "déjà vu".to_string()];
        assert_eq!(
            headers(&texts),
            ["299 - \"say \\\"hi\\\" \\\\ now\"", "299 - \"déjà vu\""]
        );
    }

    #[test]
    fn a_warning_with_control_characters_is_left_out() {
        let texts = [
            "two\nlines".to_string(),
            "tab\there".to_string(),
            "ok".to_string(),
        ];
        assert_eq!(headers(&texts), ["299 - \"ok\""]);
    }

    /// Twenty 300-character warnings pass 4,096 characters at the fourteenth: the recorder
    /// then writes the fourteen again cut to 256 (3,584), and two more fit before it stops.
    #[test]
    fn past_the_limit_every_warning_is_cut_and_the_rest_dropped() {
        let texts: Vec<String> = (0..20)
            .map(|i| format!("{i:02}{}", "x".repeat(298)))
            .collect();
        let written = headers(&texts);
        assert_eq!(written.len(), 16);
        for (i, header) in written.iter().enumerate() {
            let expected = format!("299 - \"{i:02}{}\"", "x".repeat(254));
            assert_eq!(header, &expected);
        }
    }

    #[test]
    fn under_the_limit_warnings_are_written_whole() {
        let texts: Vec<String> = (0..13).map(|_| "y".repeat(300)).collect();
        let written = headers(&texts);
        assert_eq!(written.len(), 13);
        assert!(written.iter().all(|h| h.len() == 300 + 8));
    }
}
