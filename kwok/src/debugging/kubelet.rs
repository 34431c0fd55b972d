//! The fake kubelet's own HTTP server, as `nodes/proxy` reaches it (kwok's `pkg/kwok/server`):
//! its health checks (`healthz.go`) and container logs (`getContainerLogs` in
//! `debugging_logs.go`). Every other path is one its mux does not serve.

use super::logs::{self, PodLogOptions};
use super::Config;

/// What the kubelet sends back.
pub enum Reply {
    /// A whole answer: its status and plain-text body.
    Text { status: u16, body: String },
    /// A container's log, which may go on (`follow`).
    Log(logs::Answer),
}

impl Reply {
    fn text(status: u16, body: impl Into<String>) -> Reply {
        Reply::Text {
            status,
            body: body.into(),
        }
    }
}

/// `http.NotFound`, what a `ServeMux` answers for a path nothing handles.
const NOT_FOUND: &str = "404 page not found\n";

/// The answer to `method path?query` at a fake node's kubelet port.
pub fn answer<'a>(
    config: &Config,
    method: &str,
    path: &str,
    query: impl Fn(&str) -> Option<&'a str>,
) -> Reply {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments.as_slice() {
        // `ServeMux.Handle` on a path without a trailing slash matches it exactly, any method.
        ["healthz"] | ["readyz"] | ["livez"] => Reply::text(200, "ok"),
        ["containerLogs", namespace, pod, container] if method == "GET" || method == "HEAD" => {
            container_logs(config, namespace, pod, container, query)
        }
        // go-restful's answer for a route it has under another method.
        ["containerLogs", _, _, _] => Reply::text(405, "405: Method Not Allowed"),
        _ => Reply::text(404, NOT_FOUND),
    }
}

fn container_logs<'a>(
    config: &Config,
    namespace: &str,
    pod: &str,
    container: &str,
    query: impl Fn(&str) -> Option<&'a str>,
) -> Reply {
    // Missing path parameters are checked in this order, with these (JSON-looking) texts.
    let missing = [
        (pod, r#"{"message": "Missing podID."}"#),
        (container, r#"{"message": "Missing restfulCont name."}"#),
        (namespace, r#"{"message": "Missing podNamespace."}"#),
    ];
    if let Some((_, text)) = missing.iter().find(|(value, _)| value.is_empty()) {
        return Reply::text(400, *text);
    }
    // `tail` is the older name of `tailLines`, and `tail=all` means no limit.
    let tail = query("tail");
    let lookup = |k: &str| match (k, tail) {
        ("tailLines", Some("all")) => None,
        ("tailLines", Some(tail)) => Some(tail),
        _ => query(k),
    };
    let Ok(opts) = PodLogOptions::from_query(lookup) else {
        return Reply::text(400, r#"{"message": "Unable to decode query."}"#);
    };
    match logs::container_log(config, namespace, pod, container, &opts) {
        Ok(answer) => Reply::Log(answer),
        Err(error) => Reply::text(400, error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_with_log(dir: &std::path::Path) -> Config {
        let file = dir.join("validator.log");
        let lines = ["one", "two", "three"]
            .map(|line| format!("2026-01-02T03:04:05.000000000Z stdout F {line}\n"));
        std::fs::write(&file, lines.concat()).expect("log file");
        let document = format!(
            r#"{{"apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "ClusterLogs",
                 "metadata": {{"name": "all"}},
                 "spec": {{"logs": [{{"containers": ["cuda"], "logsFile": {file:?}}}]}}}}"#,
            file = file.display().to_string()
        );
        let value: serde_json::Value = serde_json::from_str(&document).expect("document");
        Config::from_documents([&value]).expect("config")
    }

    fn text(reply: Reply) -> (u16, String) {
        match reply {
            Reply::Text { status, body } => (status, body),
            Reply::Log(answer) => (200, String::from_utf8_lossy(&answer.text).into_owned()),
        }
    }

    #[test]
    fn health_checks_answer_ok_and_other_paths_are_not_found() {
        let config = Config::default();
        let none = |_: &str| None;
        for path in ["/healthz", "/readyz", "/livez"] {
            assert_eq!(text(answer(&config, "GET", path, none)), (200, "ok".into()));
        }
        assert_eq!(text(answer(&config, "POST", "/healthz", none)).0, 200);
        for path in ["/", "", "/healthz/", "/pods", "/configz", "/stats/summary"] {
            assert_eq!(
                text(answer(&config, "GET", path, none)),
                (404, NOT_FOUND.into()),
                "{path}"
            );
        }
    }

    #[test]
    fn container_logs_come_from_the_documents_whether_or_not_the_pod_exists() {
        let dir = tempfile::tempdir().expect("dir");
        let config = config_with_log(dir.path());
        let none = |_: &str| None;
        let path = "/containerLogs/gpu/any-pod/cuda";
        assert_eq!(
            text(answer(&config, "GET", path, none)),
            (200, "one\ntwo\nthree\n".into())
        );
        let tail = |k: &str| (k == "tail").then_some("1");
        assert_eq!(text(answer(&config, "GET", path, tail)).1, "three\n");
        let all = |k: &str| (k == "tail").then_some("all");
        assert_eq!(
            text(answer(&config, "GET", path, all)).1,
            "one\ntwo\nthree\n"
        );
        let bad = |k: &str| (k == "tailLines").then_some("x");
        assert_eq!(
            text(answer(&config, "GET", path, bad)),
            (400, r#"{"message": "Unable to decode query."}"#.into())
        );
        assert_eq!(
            text(answer(&config, "GET", "/containerLogs/gpu/p/other", none)),
            (
                400,
                r#"no logs found for container "other" in pod "gpu/p""#.into()
            )
        );
        assert_eq!(
            text(answer(&config, "GET", "/containerLogs/gpu//cuda", none)),
            (400, r#"{"message": "Missing podID."}"#.into())
        );
        assert_eq!(text(answer(&config, "DELETE", path, none)).0, 405);
    }
}
