//! Expected texts are what kube-apiserver v1.32.13 answered for the same file served by kwok
//! v0.7.0 under kwokctl (`kubectl logs` and `kubectl get --raw .../log?...`).

use super::*;

/// Four lines, one of them written in two parts, on both streams, stamped with and without
/// fractions.
const FILE: &[u8] = b"2024-05-01T10:00:00.000000001Z stdout F first line
2024-05-01T10:00:01.5Z stderr F an error line
2024-05-01T10:00:02Z stdout P partial 
2024-05-01T10:00:02Z stdout F rest
2026-12-06T07:00:00Z stdout F recent line
";

fn options() -> PodLogOptions {
    PodLogOptions::default()
}

fn read_all(opts: PodLogOptions) -> String {
    let opts = LogOptions::new(&opts, Utc::now());
    let start = tail_start(FILE, opts.tail);
    let mut reader = Reader::new(opts);
    let mut out = Vec::new();
    reader.read(&FILE[start..], &mut out).expect("read");
    String::from_utf8(out).expect("utf-8")
}

#[test]
fn every_line_of_both_streams_with_a_partial_line_joined() {
    assert_eq!(
        read_all(options()),
        "first line\nan error line\npartial rest\nrecent line\n"
    );
}

#[test]
fn timestamps_are_printed_with_nine_fraction_digits_once_per_line() {
    let opts = PodLogOptions {
        timestamps: true,
        ..options()
    };
    assert_eq!(
        read_all(opts),
        "2024-05-01T10:00:00.000000001Z first line\n\
         2024-05-01T10:00:01.500000000Z an error line\n\
         2024-05-01T10:00:02.000000000Z partial rest\n\
         2026-12-06T07:00:00.000000000Z recent line\n"
    );
}

#[test]
fn tail_counts_file_lines_so_a_partial_line_is_one() {
    let tail = |n| PodLogOptions {
        tail_lines: Some(n),
        ..options()
    };
    assert_eq!(read_all(tail(2)), "rest\nrecent line\n");
    assert_eq!(read_all(tail(1)), "recent line\n");
    assert_eq!(read_all(tail(0)), "");
    assert_eq!(
        read_all(tail(10)),
        "first line\nan error line\npartial rest\nrecent line\n"
    );
}

#[test]
fn limit_bytes_cuts_inside_a_line_and_counts_the_timestamp() {
    let limit = |n, timestamps| PodLogOptions {
        limit_bytes: Some(n),
        timestamps,
        ..options()
    };
    assert_eq!(read_all(limit(5, false)), "first");
    assert_eq!(read_all(limit(17, false)), "first line\nan err");
    assert_eq!(read_all(limit(16, true)), "2024-05-01T10:00");
}

#[test]
fn since_time_leaves_out_earlier_lines() {
    let since = DateTime::parse_from_rfc3339("2024-05-01T10:00:01Z").ok();
    let opts = PodLogOptions {
        since_time: Some(since),
        ..options()
    };
    assert_eq!(read_all(opts), "an error line\npartial rest\nrecent line\n");
}

#[test]
fn an_unfinished_last_line_is_read_unless_following() {
    let data = b"2024-05-01T10:00:00Z stdout F done\n2024-05-01T10:00:01Z stdout F half";
    let mut out = Vec::new();
    let mut reader = Reader::new(LogOptions::new(&options(), Utc::now()));
    assert_eq!(reader.read(data, &mut out), Ok(data.len()));
    assert_eq!(out, b"done\nhalf");
    assert!(reader.done());

    let follow = PodLogOptions {
        follow: true,
        ..options()
    };
    let mut out = Vec::new();
    let mut reader = Reader::new(LogOptions::new(&follow, Utc::now()));
    let read = reader.read(data, &mut out).expect("read");
    assert_eq!((read, out.as_slice()), (35, b"done\n".as_slice()));
    assert!(!reader.done());
}

#[test]
fn docker_json_lines_are_read_and_an_unknown_format_is_named() {
    let data = br#"{"log":"hello\n","stream":"stdout","time":"2024-05-01T10:00:00Z"}
"#;
    let mut out = Vec::new();
    let mut reader = Reader::new(LogOptions::new(&options(), Utc::now()));
    reader.read(data, &mut out).expect("read");
    assert_eq!(out, b"hello\n");

    let mut reader = Reader::new(LogOptions::new(&options(), Utc::now()));
    let error = reader
        .read(b"plain text\n", &mut Vec::new())
        .expect_err("format");
    assert_eq!(
        error,
        r#"failed to get parse function: unsupported log format: "plain text\n""#
    );
}

#[test]
fn only_the_timestamps_go_parses_are_read() {
    // The first line fixes the format; the others that Go would not parse are skipped.
    let data = b"2024-05-01T10:00:00+09:00 stdout F offset\n2024-05-01 10:00:00Z stdout F spaced\n2024-05-01t10:00:00z stdout F lower\n2024-05-01T10:00:60Z stdout F leap\n2024-05-01T10:00:01Z stdout F last\n";
    let mut out = Vec::new();
    let opts = PodLogOptions {
        timestamps: true,
        ..options()
    };
    let mut reader = Reader::new(LogOptions::new(&opts, Utc::now()));
    reader.read(data, &mut out).expect("read");
    assert_eq!(
        String::from_utf8_lossy(&out),
        "2024-05-01T10:00:00.000000000+09:00 offset\n2024-05-01T10:00:01.000000000Z last\n"
    );
}

#[test]
fn a_since_too_far_back_wraps_as_go_does_instead_of_failing() {
    let opts = PodLogOptions {
        since_seconds: Some(i64::MAX),
        ..options()
    };
    // Go's Duration arithmetic wraps; whatever instant comes out, reading does not panic.
    let mut reader = Reader::new(LogOptions::new(&opts, Utc::now()));
    reader.read(FILE, &mut Vec::new()).expect("read");
}
