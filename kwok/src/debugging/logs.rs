//! The `pods/log` subresource: the API server's side (`pkg/registry/core/pod/rest/log.go`,
//! `LogLocation` in `pkg/registry/core/pod/strategy.go`) and the fake kubelet's
//! (`getContainerLogs` in kwok's `pkg/kwok/server/debugging_logs.go`), with nothing between them
//! to proxy.

use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, FixedOffset, Utc};

use super::config::Config;
use super::cri_log::{tail_start, LogOptions, Reader};
use crate::api::Api;
use crate::error::{go_quote, ApiError, ApiResult, FieldError};
use crate::registry;

/// How often a followed log is read again (`logForceCheckPeriod`).
const FOLLOW_PERIOD: Duration = Duration::from_secs(1);

/// `v1.PodLogOptions` as read from a request's query.
#[derive(Debug, Clone, Default)]
pub struct PodLogOptions {
    pub container: String,
    pub follow: bool,
    pub previous: bool,
    pub since_seconds: Option<i64>,
    /// Given (`Some`), and then a time or Go's zero time (`Some(None)`, from an empty value).
    pub since_time: Option<Option<DateTime<FixedOffset>>>,
    pub timestamps: bool,
    pub tail_lines: Option<i64>,
    pub limit_bytes: Option<i64>,
    /// Only looked at to be refused: `PodLogsQuerySplitStreams` is off in v1.32.
    pub stream: Option<String>,
}

impl PodLogOptions {
    /// `Convert_url_Values_To_v1_PodLogOptions`: the first value of each parameter, fields in
    /// the struct's order, so the first bad one is the one named.
    pub fn from_query<'a>(get: impl Fn(&str) -> Option<&'a str>) -> ApiResult<PodLogOptions> {
        let flag = |k: &str| crate::options::query_flag(get(k));
        let int = |k: &str| get(k).map(parse_int64).transpose();
        Ok(PodLogOptions {
            container: get("container").unwrap_or_default().to_string(),
            follow: flag("follow"),
            previous: flag("previous"),
            since_seconds: int("sinceSeconds")?,
            since_time: get("sinceTime").map(parse_time).transpose()?,
            timestamps: flag("timestamps"),
            tail_lines: int("tailLines")?,
            limit_bytes: int("limitBytes")?,
            stream: get("stream").map(str::to_string),
        })
    }

    /// `ValidatePodLogOptions` (stream selection off).
    fn validate(&self, name: &str) -> ApiResult<()> {
        let mut errs = Vec::new();
        if let Some(tail) = self.tail_lines.filter(|t| *t < 0) {
            let detail = "must be greater than or equal to 0";
            errs.push(FieldError::invalid("tailLines", tail.to_string(), detail));
        }
        if let Some(limit) = self.limit_bytes.filter(|l| *l < 1) {
            let detail = "must be greater than 0";
            errs.push(FieldError::invalid("limitBytes", limit.to_string(), detail));
        }
        match (self.since_seconds, &self.since_time) {
            // `field.NewPath("")` prints as `[]`.
            (Some(_), Some(_)) => errs.push(FieldError::forbidden(
                "[]",
                "at most one of `sinceTime` or `sinceSeconds` may be specified",
            )),
            (Some(seconds), None) if seconds < 1 => errs.push(FieldError::invalid(
                "sinceSeconds",
                seconds.to_string(),
                "must be greater than 0",
            )),
            _ => {}
        }
        if self.stream.is_some() {
            errs.push(FieldError::forbidden("stream", "may not be specified"));
        }
        if errs.is_empty() {
            return Ok(());
        }
        Err(ApiError::invalid_kind(
            "PodLogOptions",
            "PodLogOptions",
            "",
            name,
            &errs,
        ))
    }
}

/// `strconv.ParseInt(s, 10, 64)` with its error texts.
fn parse_int64(s: &str) -> ApiResult<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    let why = if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        "invalid syntax"
    } else {
        match s.parse::<i64>() {
            Ok(n) => return Ok(n),
            Err(_) => "value out of range",
        }
    };
    Err(ApiError::bad_request(format!(
        "strconv.ParseInt: parsing {}: {why}",
        go_quote(s)
    )))
}

/// `metav1.Time.UnmarshalQueryParameter`: empty (or `null`) is the zero time.
fn parse_time(s: &str) -> ApiResult<Option<DateTime<FixedOffset>>> {
    if s.is_empty() || s == "null" {
        return Ok(None);
    }
    let normalized =
        crate::decode::gotime::parse_and_normalize(s, false).map_err(ApiError::bad_request)?;
    DateTime::parse_from_rfc3339(&normalized)
        .map(Some)
        .map_err(|e| ApiError::bad_request(e.to_string()))
}

/// What the request gets: the log read so far and, when following, the reader that goes on.
pub struct Answer {
    pub text: Vec<u8>,
    pub follow: Option<Follower>,
}

/// A followed log: read again every second from where it stopped, until the client goes away,
/// as the kubelet does for a container that is still running (kwok's always are).
pub struct Follower {
    path: PathBuf,
    offset: usize,
    reader: Reader,
    /// The reader failed and said why: nothing follows.
    failed: bool,
}

impl Follower {
    /// A follower of what `path` gains from now on (kwok's attach: a tail of 0, followed).
    pub fn from_end(path: PathBuf) -> ApiResult<Follower> {
        let data = read_log_file(&path, 0).map_err(ApiError::bad_request)?;
        let options = LogOptions::new(
            &PodLogOptions {
                tail_lines: Some(0),
                follow: true,
                ..PodLogOptions::default()
            },
            Utc::now(),
        );
        Ok(Follower {
            path,
            offset: data.len(),
            reader: Reader::new(options),
            failed: false,
        })
    }

    /// Waits for and returns what the file gained, or `None` once nothing more will come.
    pub async fn next(&mut self) -> Option<Vec<u8>> {
        loop {
            if self.reader.done() || self.failed {
                return None;
            }
            tokio::time::sleep(FOLLOW_PERIOD).await;
            let data = tokio::fs::read(&self.path).await.ok()?;
            if data.len() < self.offset {
                // Written anew: read from its start, as after the kubelet sees it recreated.
                self.offset = 0;
            }
            let mut out = Vec::new();
            let read = match self.reader.read(&data[self.offset..], &mut out) {
                Ok(read) => read,
                Err(error) => {
                    // As after the first line: the error's text ends the stream.
                    out.extend_from_slice(error.as_bytes());
                    self.failed = true;
                    return Some(out);
                }
            };
            self.offset += read;
            if !out.is_empty() {
                return Some(out);
            }
        }
    }
}

/// `LogREST.Get` → `LogLocation` → the kubelet's `getContainerLogs`.
pub fn pod_log(
    api: &Api,
    config: &Config,
    namespace: &str,
    name: &str,
    opts: PodLogOptions,
) -> ApiResult<Answer> {
    opts.validate(name)?;
    let pod = api.get(&registry::PODS, namespace, name)?;
    let pod = &pod.value;
    let container = super::location::container(&opts.container, pod)?;
    if super::location::node_of(api, pod)?.is_none() {
        // No node, no location: the API server answers with an empty log.
        return Ok(Answer {
            text: Vec::new(),
            follow: None,
        });
    }
    container_log(config, namespace, name, &container, &opts).map_err(ApiError::bad_request)
}

/// The fake kubelet's `GetContainerLogs` (kwok's `debugging_logs.go`): the log its `Logs` and
/// `ClusterLogs` documents name for the container, whether or not such a pod exists. An error is
/// the text the kubelet answers with.
pub fn container_log(
    config: &Config,
    namespace: &str,
    pod: &str,
    container: &str,
    opts: &PodLogOptions,
) -> Result<Answer, String> {
    let log = config.pod_log(pod, namespace, container)?;
    let file = if opts.previous {
        &log.previous_logs_file
    } else {
        &log.logs_file
    };
    // `filepath.EvalSymlinks("")` is ".", which opens as a directory and fails when read.
    let path = PathBuf::from(file.as_deref().filter(|f| !f.is_empty()).unwrap_or("."));
    let options = LogOptions::new(opts, Utc::now());
    let data = read_log_file(&path, options.tail)?;
    let start = tail_start(&data, options.tail);
    let mut reader = Reader::new(options);
    let mut text = Vec::new();
    match reader.read(&data[start..], &mut text) {
        Ok(read) => {
            let follow = (opts.follow && !reader.done()).then_some(Follower {
                path,
                offset: start + read,
                reader,
                failed: false,
            });
            Ok(Answer { text, follow })
        }
        // Once a line is out the status is sent: go-restful's WriteError writes the error's
        // text into the body that has begun, and the stream ends.
        Err(error) if !text.is_empty() => {
            text.extend_from_slice(error.as_bytes());
            Ok(Answer { text, follow: None })
        }
        Err(error) => Err(error),
    }
}

/// The file `ReadLogs` reads, with its errors worded as Go's `os` package words them; `tail`
/// decides which read fails first on a directory (the tail's search or the first line's).
fn read_log_file(path: &std::path::Path, tail: i64) -> Result<Vec<u8>, String> {
    let shown = path.display().to_string();
    let quoted = go_quote(&shown);
    if path.is_dir() {
        let reading = match tail {
            0.. => format!("failed to tail {tail} lines of log file {quoted}"),
            _ => format!("failed to read log file {quoted}"),
        };
        return Err(format!("{reading}: read {shown}: is a directory"));
    }
    std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!(
            "failed to try resolving symlinks in path {quoted}: lstat {shown}: no such file \
                 or directory"
        ),
        std::io::ErrorKind::PermissionDenied => {
            format!("failed to open log file {quoted}: open {shown}: permission denied")
        }
        _ => format!("failed to open log file {quoted}: open {shown}: {e}"),
    })
}

#[cfg(test)]
mod tests;
