//! Streaming watch responses: newline-delimited `{"type": ..., "object": ...}` events.
//!
//! Selector semantics follow the watch cache: an object that starts matching is reported as
//! ADDED, one that stops matching as DELETED (judged from the object before and after each
//! change), so a filtered watch stays consistent with a filtered list.

use std::collections::VecDeque;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use futures::StreamExt;
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use super::respond::{Format, IncludeObject};
use crate::api::hooks;
use crate::api::{Api, ListOptions};
use crate::error::{ApiError, ApiResult};
use crate::resource::ResourceDef;
use crate::store::{Event, EventKind};

struct State {
    res: &'static ResourceDef,
    ns: Option<String>,
    selection: hooks::Selection,
    pending: VecDeque<Event>,
    rx: tokio::sync::broadcast::Receiver<Event>,
    format: Format,
    first: bool,
    deadline: Option<tokio::time::Instant>,
    shutdown: tokio::sync::watch::Receiver<bool>,
    done: bool,
}

impl State {
    /// Translate a store event into what this watcher sees, if anything: the watch cache's rule,
    /// deciding from the object before and after the change (`cacher/cache_watcher.go`).
    fn translate(&self, ev: Event) -> Option<(EventKind, Event)> {
        let ev = ev.seen_as(self.res)?;
        if let Some(ns) = &self.ns {
            if ev.object.namespace() != ns {
                return None;
            }
        }
        let now = self.selection.matches(&ev.object.value);
        let was = ev
            .prev
            .as_ref()
            .is_some_and(|p| self.selection.matches(&p.value));
        let kind = match (ev.kind, was, now) {
            (EventKind::Added, _, true) => EventKind::Added,
            (EventKind::Added, _, false) => return None,
            (EventKind::Deleted, _, true) => EventKind::Deleted,
            (EventKind::Deleted, _, false) => return None,
            (EventKind::Modified, true, true) => EventKind::Modified,
            (EventKind::Modified, false, true) => EventKind::Added,
            (EventKind::Modified, true, false) => EventKind::Deleted,
            (EventKind::Modified, false, false) => return None,
        };
        Some((kind, ev))
    }

    fn encode(&mut self, kind: EventKind, ev: &Event) -> Bytes {
        let mut line = Vec::with_capacity(ev.object.json().len() + 32);
        line.extend_from_slice(b"{\"type\":\"");
        line.extend_from_slice(kind.as_str().as_bytes());
        line.extend_from_slice(b"\",\"object\":");
        match self.format {
            Format::Table(inc) => {
                let mut t = super::table::table(
                    self.res,
                    &[&ev.object.value],
                    chrono::Utc::now(),
                    inc,
                    &ev.rv.to_string(),
                    None,
                    None,
                );
                // Column definitions go with the first event only, as the apiserver sends them.
                if !self.first {
                    t["columnDefinitions"] = json!([]);
                }
                if inc == IncludeObject::Metadata && kind == EventKind::Deleted {
                    // kubectl needs the name of what went away.
                }
                line.extend_from_slice(&serde_json::to_vec(&t).unwrap_or_default());
            }
            // A metadata watch streams PartialObjectMetadata (asked for as either form).
            Format::Metadata(partial) => line.extend_from_slice(
                &serde_json::to_vec(&partial.of(self.res, &ev.object.value)).unwrap_or_default(),
            ),
            _ => line.extend_from_slice(&ev.object.json()),
        }
        self.first = false;
        line.extend_from_slice(b"}\n");
        Bytes::from(line)
    }
}

pub fn start(
    api: &Api,
    res: &'static ResourceDef,
    ns: Option<&str>,
    opts: &ListOptions,
    format: Format,
    shutdown: tokio::sync::watch::Receiver<bool>,
) -> ApiResult<Response> {
    let selection = hooks::Selection::of(res, opts)?;
    let begin = match api.watch(res, ns, opts) {
        Ok(b) => b,
        Err(e) if e.code == 410 => return Ok(gone_stream(&e)),
        Err(e) => return Err(e),
    };
    let state = State {
        res,
        ns: ns.map(String::from),
        selection,
        pending: begin.initial.into(),
        rx: begin.receiver,
        format,
        first: true,
        deadline: opts
            .timeout_seconds
            .map(|t| tokio::time::Instant::now() + Duration::from_secs(t)),
        shutdown,
        done: false,
    };
    let stream = futures::stream::unfold(state, |mut st| async move {
        loop {
            if st.done {
                return None;
            }
            if let Some(ev) = st.pending.pop_front() {
                if let Some((kind, ev)) = st.translate(ev) {
                    let bytes = st.encode(kind, &ev);
                    return Some((Ok::<Bytes, std::io::Error>(bytes), st));
                }
                continue;
            }
            let deadline = st.deadline;
            let next = tokio::select! {
                r = st.rx.recv() => r,
                _ = async {
                    match deadline {
                        Some(d) => tokio::time::sleep_until(d).await,
                        None => std::future::pending::<()>().await,
                    }
                } => return None,
                _ = st.shutdown.changed() => return None,
            };
            match next {
                Ok(ev) => st.pending.push_back(ev),
                // Too far behind: end the watch; the client relists, as with a real apiserver.
                Err(RecvError::Lagged(_)) | Err(RecvError::Closed) => return None,
            }
        }
    });
    let mut r = Response::new(Body::from_stream(stream.boxed()));
    *r.status_mut() = StatusCode::OK;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r.headers_mut().insert(
        header::TRANSFER_ENCODING,
        HeaderValue::from_static("chunked"),
    );
    Ok(r)
}

/// The apiserver answers a watch from a compacted version with 200 and a single ERROR event.
fn gone_stream(e: &ApiError) -> Response {
    let line = json!({"type": "ERROR", "object": e.to_status()}).to_string() + "\n";
    let mut r = Response::new(Body::from(line));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}
