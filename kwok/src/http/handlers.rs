//! Verb handlers: map (method, path, query) to an [`Api`] call and its response.

use axum::http::request::Parts;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::Response;
use serde_json::Value;

use super::query::Query;
use super::respond::{self, Format};
use super::route::{ResourcePath, Target};
use super::{discovery, discovery_aggregated, openapi, Server};
use crate::api::hooks::{self, PatchKind};
use crate::api::{subresources, WriteOptions};
use crate::auth::signers::SignerVerb;
use crate::auth::UserInfo;
use crate::error::{ApiError, ApiResult};
use crate::options::Warnings;

pub fn handle(server: &Server, parts: &Parts, target: Target, body: &[u8]) -> Response {
    let store = server.api.store();
    let custom = || server.served_beside_built_in();
    let query = Query::parse(parts.uri.query());
    let get = parts.method == Method::GET;
    match target {
        Target::Version if get => respond::raw_json(StatusCode::OK, &discovery::version()),
        Target::Health if get => ok_text("ok"),
        Target::ApiVersions | Target::ApiGroupList if get => {
            let core = matches!(target, Target::ApiVersions);
            match discovery_aggregated::requested_version(&parts.headers) {
                Some(version) => {
                    let items = if core {
                        discovery_aggregated::core(&custom())
                    } else {
                        discovery_aggregated::groups(&custom())
                    };
                    discovery_aggregated::respond(items, version, &parts.headers)
                }
                None if core => respond::value(
                    StatusCode::OK,
                    &discovery::api_versions(&server.addr.to_string()),
                ),
                None => respond::value(StatusCode::OK, &discovery::group_list(&custom())),
            }
        }
        Target::ApiGroup(g) if get => match discovery::api_group(&custom(), &g) {
            Some(doc) => respond::value(StatusCode::OK, &doc),
            None => not_found(parts.uri.path()),
        },
        Target::ResourceList { group, version } if get => {
            match discovery::resource_list(&custom(), &group, &version) {
                Some(doc) => respond::value(StatusCode::OK, &doc),
                None => not_found(parts.uri.path()),
            }
        }
        Target::OpenApiV2 if get => openapi::v2(),
        Target::OpenApiV3Index if get => openapi::v3_discovery(store, &parts.headers),
        Target::OpenApiV3(name) if get => {
            openapi::v3_document(store, &name, &parts.headers, query.get("hash"))
        }
        Target::Resource(path) => {
            let warnings = Warnings::default();
            // Recorded before the request is handled, so ahead of the handler's own.
            if let Some(w) = path.res.strategy.deprecation_warning() {
                warnings.add(w);
            }
            let r = match resource(server, parts, &query, path, body, &warnings) {
                Ok(r) => r,
                Err(e) => respond::error(&e),
            };
            respond::with_warnings(r, &warnings.recorded())
        }
        Target::Unknown
        | Target::OpenApiV3Index
        | Target::OpenApiV3(_)
        | Target::Version
        | Target::Health
        | Target::ApiVersions
        | Target::ApiGroupList
        | Target::ApiGroup(_)
        | Target::ResourceList { .. }
        | Target::OpenApiV2 => not_found(parts.uri.path()),
    }
}

/// Is `path` under `/apis/<group>` for a group no built-in API serves? Such requests fall
/// through kube-apiserver's handlers (custom resources included) to the final `http.NotFound`.
fn outside_built_in_groups(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/apis/") else {
        return false;
    };
    let group = rest.split('/').next().unwrap_or("");
    !crate::registry::is_built_in_group(group)
}

/// The 404 of a path nothing serves: a Status from the built-in API's routes, Go's plain
/// `http.NotFound` past them.
fn not_found(path: &str) -> Response {
    if outside_built_in_groups(path) {
        page_not_found()
    } else {
        respond::error(&ApiError::unknown_path())
    }
}

/// `http.NotFound`: plain text, no Status.
fn page_not_found() -> Response {
    respond::go_http_error(StatusCode::NOT_FOUND, "404 page not found\n")
}

fn ok_text(s: &'static str) -> Response {
    let mut r = Response::new(axum::body::Body::from(s));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// A container's log as text; a followed one streams what the file gains until the client
/// leaves or the server stops.
pub(super) fn log_response(
    answer: crate::debugging::logs::Answer,
    shutdown: tokio::sync::watch::Receiver<bool>,
) -> Response {
    let first = bytes::Bytes::from(answer.text);
    let body = match answer.follow {
        None => axum::body::Body::from(first),
        Some(follower) => {
            let rest = futures::stream::unfold(
                (follower, shutdown),
                |(mut follower, mut shutdown)| async move {
                    let chunk = tokio::select! {
                        chunk = follower.next() => chunk?,
                        _ = shutdown.changed() => return None,
                    };
                    Some((
                        Ok::<_, std::convert::Infallible>(bytes::Bytes::from(chunk)),
                        (follower, shutdown),
                    ))
                },
            );
            let head = futures::stream::once(async move { Ok(first) });
            axum::body::Body::from_stream(futures::StreamExt::chain(head, rest))
        }
    };
    let mut r = Response::new(body);
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    r
}

fn content_type(parts: &Parts) -> &str {
    parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json")
}

/// The body as JSON bytes (YAML bodies are converted), checked for the media type.
fn json_body(parts: &Parts, body: &[u8]) -> ApiResult<Vec<u8>> {
    let ct = content_type(parts);
    let base = ct.split(';').next().unwrap_or("").trim();
    match base {
        "application/json" | "" | "*/*" => Ok(body.to_vec()),
        "application/yaml" => crate::decode::yaml_to_json(body),
        crate::protobuf::CONTENT_TYPE => {
            let v = crate::protobuf::decode(body, crate::registry::SCHEME)?;
            serde_json::to_vec(&v).map_err(|e| ApiError::internal(e.to_string()))
        }
        _ => Err(ApiError::unsupported_media_type(ct)),
    }
}

/// A DELETE body (`DeleteOptions`) as JSON. handlers/delete.go decodes it with the meta codecs
/// — JSON, YAML or protobuf (client-go's typed clients, Helm's uninstall) — and answers a body it
/// cannot decode with the error unwrapped: a 500.
fn delete_body(parts: &Parts, body: &[u8]) -> ApiResult<Vec<u8>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    json_body(parts, body).map_err(|error| match error.code {
        415 => error,
        _ => ApiError::new(500, "", error.message),
    })
}

fn resource(
    server: &Server,
    parts: &Parts,
    query: &Query,
    path: ResourcePath,
    body: &[u8],
    warnings: &Warnings,
) -> ApiResult<Response> {
    let api = &server.api;
    let res = path.res;
    let ns_owned = path.namespace.clone().unwrap_or_default();
    let ns = ns_owned.as_str();
    // A proxied request's answer is whatever answers there, whatever the client accepts.
    if path.proxied.is_some() {
        return super::proxy::serve(server, parts, query, &path);
    }
    let format = respond::negotiate(&parts.headers, query.get("includeObject"))?;
    let method = &parts.method;
    let name = path.name.as_deref();
    let watching = path.watch_prefix || query.flag("watch");

    if let Some(sub) = path.subresource.as_deref() {
        let name = name.unwrap_or_default();
        return subresource(
            server, parts, query, &path, sub, name, body, format, warnings,
        );
    }
    if crate::kinds::metrics::is_metrics(res) {
        return metrics(server, parts, query, &path, format);
    }
    if res.verbs == ["create"] && method == Method::POST && name.is_none() {
        // A review: answered from who asks, never stored.
        let json = json_body(parts, body)?;
        let (review, _) = hooks::decode(
            res,
            &json,
            query.write_options("CreateOptions", None)?.field_validation,
        )?;
        let user = parts
            .extensions
            .get::<UserInfo>()
            .cloned()
            .unwrap_or_default();
        let answer = crate::auth::reviews::create(api, &server.keys, &user, res, ns, review)?;
        return Ok(respond::value(StatusCode::CREATED, &answer));
    }
    match (method.as_str(), name) {
        ("GET", _) if watching => {
            require_verb(res, "watch")?;
            let mut opts = query.list_options()?;
            if let Some(n) = name {
                // /watch/<res>/<name>: a watch restricted to one name.
                let sel = format!("metadata.name={n}");
                opts.field_selector = Some(match opts.field_selector.take() {
                    Some(f) if !f.is_empty() => format!("{f},{sel}"),
                    _ => sel,
                });
            }
            super::watch::start(
                api,
                res,
                path.namespace.as_deref(),
                &opts,
                format,
                server.shutdown.clone(),
            )
        }
        ("GET", None) => {
            require_verb(res, "list")?;
            let opts = query.list_options()?;
            let list = api.list(res, path.namespace.as_deref(), &opts)?;
            Ok(respond::list(res, &list, format))
        }
        ("GET", Some(n)) => {
            require_verb(res, "get")?;
            let obj = api.get(res, ns, n)?;
            Ok(respond::object(StatusCode::OK, res, &obj, format))
        }
        ("POST", None) => {
            require_verb(res, "create")?;
            let opts = write_options(query, parts, "CreateOptions", None, warnings)?;
            let json = json_body(parts, body)?;
            let (obj, decoded) = hooks::decode(res, &json, opts.field_validation)?;
            warnings.extend(decoded);
            let created = api.create(res, ns, obj, &opts)?;
            Ok(respond::object(StatusCode::CREATED, res, &created, format))
        }
        ("PUT", Some(n)) => {
            require_verb(res, "update")?;
            let opts = write_options(query, parts, "UpdateOptions", None, warnings)?;
            let json = json_body(parts, body)?;
            let (obj, decoded) = hooks::decode(res, &json, opts.field_validation)?;
            warnings.extend(decoded);
            let updated = api.update(res, ns, n, obj, None, &opts)?;
            Ok(respond::object(StatusCode::OK, res, &updated, format))
        }
        ("PATCH", Some(n)) => {
            require_verb(res, "patch")?;
            let kind = patch_kind(parts, res)?;
            let opts = write_options(query, parts, "PatchOptions", Some(kind), warnings)?;
            let patched = api.patch(res, ns, n, kind, body, None, &opts)?;
            Ok(respond::object(StatusCode::OK, res, &patched, format))
        }
        ("DELETE", Some(n)) => {
            require_verb(res, "delete")?;
            let opts = query.delete_options(&delete_body(parts, body)?)?;
            // Recorded before the object is looked up, so a failed delete carries it too.
            if let Some(w) = res.strategy.delete_warning(&opts) {
                warnings.add(w);
            }
            let (deleted, gone) = api.delete_reporting(res, ns, n, &opts)?;
            // The apiserver answers 200 whether the object is gone or only marked for
            // deletion (202 needs orphanDependents=false, which kubectl never sends:
            // handlers/delete.go).
            if !gone || res.strategy.returns_deleted_object() {
                return Ok(respond::object(StatusCode::OK, res, &deleted, format));
            }
            let uid = deleted.value["metadata"]["uid"].as_str().unwrap_or("");
            Ok(respond::deleted(res, n, uid))
        }
        ("DELETE", None) => {
            require_verb(res, "deletecollection")?;
            let list = query.list_options()?;
            let opts = query.delete_options(&delete_body(parts, body)?)?;
            if let Some(w) = res.strategy.delete_warning(&opts) {
                warnings.add(w);
            }
            let items = api.delete_collection(res, path.namespace.as_deref(), &list, &opts)?;
            let l = crate::api::ObjectList {
                items,
                resource_version: api.store().revision(),
                continue_token: None,
                remaining: None,
            };
            Ok(respond::list(res, &l, Format::Json))
        }
        (m, _) => Err(ApiError::method_not_supported(res, &m.to_lowercase())),
    }
}

/// `metrics.k8s.io`: answered from the declared usage, as metrics-server answers (get and list;
/// its lists carry no resource version).
fn metrics(
    server: &Server,
    parts: &Parts,
    query: &Query,
    path: &ResourcePath,
    format: Format,
) -> ApiResult<Response> {
    use crate::debugging::metrics as usage;
    let (api, config, now) = (&server.api, &server.debugging, chrono::Utc::now());
    let res = path.res;
    let pods = std::ptr::eq(res, &crate::kinds::metrics::PODS);
    if parts.method != Method::GET {
        // No route serves another method: go-restful's answer.
        return Err(ApiError::new(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
        )
        .with_details(serde_json::json!({})));
    }
    if path.watch_prefix || query.flag("watch") {
        return Err(ApiError::method_not_supported(res, "watch"));
    }
    let namespace = path.namespace.as_deref();
    match path.name.as_deref() {
        None => {
            let opts = query.list_options()?;
            let items = if pods {
                usage::list_pods(api, config, namespace, &opts, now)?
            } else {
                usage::list_nodes(api, config, &opts, now)?
            };
            if let Format::Json = format {
                // Converted from metrics-server's internal list, whose items carry no type.
                let items: Vec<serde_json::Value> = items
                    .into_iter()
                    .map(|mut item| {
                        if let Some(fields) = item.as_object_mut() {
                            fields.remove("kind");
                            fields.remove("apiVersion");
                        }
                        item
                    })
                    .collect();
                return Ok(respond::value(
                    StatusCode::OK,
                    &serde_json::json!({
                        "kind": format!("{}List", res.kind),
                        "apiVersion": format!("{}/{}", res.group, res.version),
                        "metadata": {},
                        "items": items,
                    }),
                ));
            }
            let list = crate::api::ObjectList {
                items: items.into_iter().map(crate::store::Object::new).collect(),
                resource_version: 0,
                continue_token: None,
                remaining: None,
            };
            Ok(respond::list(res, &list, format))
        }
        Some(name) => {
            let object = if pods {
                usage::get_pod(api, config, namespace.unwrap_or_default(), name, now)?
            } else {
                usage::get_node(api, config, name, now)?
            };
            let object = crate::store::Object::new(object);
            Ok(respond::object(StatusCode::OK, res, &object, format))
        }
    }
}

fn require_verb(res: &crate::resource::ResourceDef, verb: &str) -> ApiResult<()> {
    if res.has_verb(verb) {
        Ok(())
    } else {
        Err(ApiError::method_not_supported(res, verb))
    }
}

fn patch_kind(parts: &Parts, res: &crate::resource::ResourceDef) -> ApiResult<PatchKind> {
    crate::patch::patch_type_for(!res.strategy.custom(), content_type(parts))
}

/// A write's options from its query, and who sends it (for the kinds that record it).
/// A request's write options: who asks, and under which field manager (`managerOrUserAgent`).
fn write_options(
    query: &Query,
    parts: &Parts,
    options_kind: &str,
    patch: Option<PatchKind>,
    warnings: &Warnings,
) -> ApiResult<WriteOptions> {
    let mut opts = query.write_options(options_kind, patch)?;
    opts.warnings = warnings.clone();
    opts.user = parts.extensions.get::<UserInfo>().cloned();
    let agent = parts
        .headers
        .get(axum::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    opts.field_manager = Some(crate::fieldmanager::manager_or_user_agent(
        opts.field_manager.as_deref(),
        agent,
    ));
    Ok(opts)
}

/// A certificate request's approval needs `approve` on its signer; a status write that changes
/// its certificate or conditions, `sign` (a patch is judged as if it did).
fn admit_signer_write(
    api: &crate::api::Api,
    parts: &Parts,
    res: &'static crate::resource::ResourceDef,
    ns: &str,
    name: &str,
    sub: &str,
    written: Option<&Value>,
) -> ApiResult<()> {
    if !std::ptr::eq(res, &crate::registry::CERTIFICATESIGNINGREQUESTS) {
        return Ok(());
    }
    let stored = api.get(res, ns, name)?;
    let verb = match sub {
        "approval" => SignerVerb::Approve,
        _ => {
            let unchanged = written.is_some_and(|w| {
                ["certificate", "conditions"]
                    .iter()
                    .all(|k| w["status"][k] == stored.value["status"][k])
            });
            if unchanged {
                return Ok(());
            }
            SignerVerb::Sign
        }
    };
    let user = parts
        .extensions
        .get::<UserInfo>()
        .cloned()
        .unwrap_or_default();
    crate::auth::signers::admit(api, &user, res, &stored.value, verb)
}

#[allow(clippy::too_many_arguments)]
fn subresource(
    server: &Server,
    parts: &Parts,
    query: &Query,
    path: &ResourcePath,
    sub: &str,
    name: &str,
    body: &[u8],
    format: Format,
    warnings: &Warnings,
) -> ApiResult<Response> {
    let api = &server.api;
    let res = path.res;
    let ns = path.namespace.as_deref().unwrap_or("");
    let method = parts.method.as_str();
    let options_kind = match method {
        "PATCH" => "PatchOptions",
        "PUT" => "UpdateOptions",
        _ => "CreateOptions",
    };
    // Only the subresources that take a patch read its type (another answers 405 below).
    let patch = match (sub, method) {
        ("status" | "approval" | "scale" | "ephemeralcontainers", "PATCH") => {
            Some(patch_kind(parts, res)?)
        }
        _ => None,
    };
    let opts = write_options(query, parts, options_kind, patch, warnings)?;
    match (sub, method) {
        ("status" | "approval" | "ephemeralcontainers", "GET") => Ok(respond::object(
            StatusCode::OK,
            res,
            &api.get(res, ns, name)?,
            format,
        )),
        ("status" | "approval" | "ephemeralcontainers", "PUT") => {
            let json = json_body(parts, body)?;
            let (obj, decoded) = hooks::decode(res, &json, opts.field_validation)?;
            warnings.extend(decoded);
            admit_signer_write(api, parts, res, ns, name, sub, Some(&obj))?;
            let o = api.update(res, ns, name, obj, Some(sub), &opts)?;
            Ok(respond::object(StatusCode::OK, res, &o, format))
        }
        ("status" | "approval" | "ephemeralcontainers", "PATCH") => {
            let kind = patch_kind(parts, res)?;
            admit_signer_write(api, parts, res, ns, name, sub, None)?;
            let o = api.patch(res, ns, name, kind, body, Some(sub), &opts)?;
            Ok(respond::object(StatusCode::OK, res, &o, format))
        }
        ("finalize", "PUT") => {
            let json = json_body(parts, body)?;
            let v: Value =
                serde_json::from_slice(&json).map_err(|e| ApiError::bad_request(e.to_string()))?;
            let o = subresources::finalize_namespace(api, name, &v)?;
            Ok(respond::object(StatusCode::OK, res, &o, format))
        }
        ("binding", "POST") => {
            let json = json_body(parts, body)?;
            let v: Value =
                serde_json::from_slice(&json).map_err(|e| ApiError::bad_request(e.to_string()))?;
            subresources::bind(api, ns, name, &v, &opts)?;
            Ok(respond::success(201, None))
        }
        ("token", "POST") => {
            let json = json_body(parts, body)?;
            let request: Value =
                serde_json::from_slice(&json).map_err(|e| ApiError::bad_request(e.to_string()))?;
            let answer = crate::auth::reviews::token_request(api, &server.keys, ns, name, request)?;
            Ok(respond::value(StatusCode::CREATED, &answer))
        }
        ("eviction", "POST") => {
            let json = json_body(parts, body)?;
            let v: Value =
                serde_json::from_slice(&json).map_err(|e| ApiError::bad_request(e.to_string()))?;
            subresources::evict(api, ns, name, &v)?;
            Ok(respond::success(201, None))
        }
        ("scale", "GET") => Ok(respond::value(
            StatusCode::OK,
            &subresources::get_scale(api, res, ns, name)?,
        )),
        ("scale", "PATCH") if patch == Some(PatchKind::Apply) => Ok(respond::value(
            StatusCode::OK,
            &subresources::apply_scale(api, res, ns, name, body, &opts)?,
        )),
        ("scale", "PUT") | ("scale", "PATCH") => {
            let current = subresources::scale_for_update(api, res, ns, name)?;
            let desired = if method == "PUT" {
                serde_json::from_slice::<Value>(&json_body(parts, body)?)
                    .map_err(|e| ApiError::bad_request(e.to_string()))?
            } else {
                let kind = patch_kind(parts, res)?;
                hooks::patch(res, &current, kind, body)?
            };
            let out = subresources::set_scale(api, res, ns, name, &desired, &opts)?;
            Ok(respond::value(StatusCode::OK, &out))
        }
        ("log", "GET") => {
            let opts = crate::debugging::logs::PodLogOptions::from_query(|k| query.get(k))?;
            let answer = crate::debugging::logs::pod_log(api, &server.debugging, ns, name, opts)?;
            Ok(log_response(answer, server.shutdown.clone()))
        }
        _ => Err(ApiError::method_not_supported(res, &method.to_lowercase())),
    }
}
