//! Expected texts are kube-apiserver v1.32.13's answers to the same requests (`kubectl get --raw
//! /api/v1/namespaces/default/pods/<pod>/log?...`).

use std::collections::HashMap;

use serde_json::json;

use super::*;

fn query(pairs: &[(&'static str, &'static str)]) -> ApiResult<PodLogOptions> {
    let map: HashMap<&str, &'static str> = pairs.iter().copied().collect();
    PodLogOptions::from_query(|k| map.get(k).copied())
}

fn refused(pairs: &[(&'static str, &'static str)]) -> (u16, String) {
    let error = query(pairs)
        .and_then(|opts| opts.validate("one"))
        .expect_err("refused");
    (error.code, error.message)
}

#[test]
fn parameters_read_as_the_go_conversion_reads_them() {
    let opts = query(&[
        ("follow", ""),
        ("previous", "False"),
        ("timestamps", "yes"),
        ("tailLines", "+3"),
        ("sinceTime", ""),
    ])
    .expect("options");
    assert!(opts.follow && !opts.previous && opts.timestamps);
    assert_eq!(opts.tail_lines, Some(3));
    assert_eq!(opts.since_time, Some(None));
    assert_eq!(
        refused(&[("tailLines", "x")]),
        (
            400,
            r#"strconv.ParseInt: parsing "x": invalid syntax"#.into()
        )
    );
    assert_eq!(
        refused(&[("sinceTime", "bad")]),
        (
            400,
            r#"parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006""#
                .into()
        )
    );
}

#[test]
fn options_are_validated_as_validate_pod_log_options() {
    assert_eq!(
        refused(&[
            ("tailLines", "-1"),
            ("limitBytes", "0"),
            ("sinceSeconds", "0")
        ]),
        (
            422,
            "PodLogOptions \"one\" is invalid: [tailLines: Invalid value: -1: must be greater \
             than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0, \
             sinceSeconds: Invalid value: 0: must be greater than 0]"
                .into()
        )
    );
    assert_eq!(
        refused(&[
            ("sinceSeconds", "5"),
            ("sinceTime", "2024-05-01T10:00:01Z"),
            ("stream", "x")
        ]),
        (
            422,
            "PodLogOptions \"one\" is invalid: [[]: Forbidden: at most one of `sinceTime` or \
             `sinceSeconds` may be specified, stream: Forbidden: may not be specified]"
                .into()
        )
    );
}

#[test]
fn the_container_is_the_only_one_or_must_be_named() {
    let pod = json!({"metadata": {"name": "two"}, "spec": {
        "initContainers": [{"name": "init"}],
        "containers": [{"name": "app"}, {"name": "side"}]}});
    let message = |c| crate::debugging::location::container(c, &pod).map_err(|e| e.message);
    assert_eq!(
        message(""),
        Err(
            "a container name must be specified for pod two, choose one of: [init app side]".into()
        )
    );
    assert_eq!(
        message("nope"),
        Err("container nope is not valid for pod two".into())
    );
    assert_eq!(message("init"), Ok("init".into()));
    let one = json!({"metadata": {"name": "one"}, "spec": {"containers": [{"name": "app"}]}});
    assert_eq!(
        crate::debugging::location::container("", &one).map_err(|e| e.message),
        Ok("app".into())
    );
}

#[tokio::test]
async fn a_followed_log_gains_each_line_appended_once_it_is_whole() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("app.log");
    std::fs::write(&path, "2025-01-01T00:00:00Z stdout F one\n").expect("written");
    let opts = PodLogOptions {
        follow: true,
        ..PodLogOptions::default()
    };
    let mut reader = Reader::new(LogOptions::new(&opts, Utc::now()));
    let mut first = Vec::new();
    let offset = reader
        .read(&std::fs::read(&path).expect("read"), &mut first)
        .expect("log");
    assert_eq!(first, b"one\n");
    let mut follower = Follower {
        path: path.clone(),
        offset,
        reader,
        failed: false,
    };
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    file.write_all(b"2025-01-01T00:00:01Z stdout F two\n2025-01-01T00:00:02Z stdout F thr")
        .expect("appended");
    assert_eq!(follower.next().await, Some(b"two\n".to_vec()));
    file.write_all(b"ee\n").expect("appended");
    assert_eq!(follower.next().await, Some(b"three\n".to_vec()));
}
