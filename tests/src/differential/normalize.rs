//! What differs between two clusters by nature rather than by behaviour, rewritten to the same
//! placeholder on both sides before they are compared: server ports, uids, resourceVersions,
//! timestamps and ages, the random suffixes of generated names, pod and host IPs, tokens. Table
//! columns are realigned by collapsing runs of blanks, since an age of `5s` beside one of `12s`
//! widens a column. Anything else that differs is a difference.

use regex::{Captures, Regex};
use std::sync::LazyLock;

struct Rule {
    pattern: Regex,
    replace: fn(&Captures) -> String,
}

fn rule(pattern: &str, replace: fn(&Captures) -> String) -> Rule {
    Rule {
        // The patterns are literals of this file; a test below compiles them all.
        pattern: Regex::new(pattern).unwrap_or_else(|error| panic!("{pattern}: {error}")),
        replace,
    }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        // Bearer tokens (JWTs) and the service-account token secrets' data.
        rule(r"eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+", |_| {
            "<token>".into()
        }),
        // The API server's address (random ports on both sides).
        rule(r"(127\.0\.0\.1|localhost|\[::1\]):\d+", |c| {
            format!("{}:<port>", &c[1])
        }),
        rule(
            r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            |_| "<uid>".into(),
        ),
        rule(r#"("resourceVersion":\s*)"\d+""#, |c| {
            format!("{}\"<rv>\"", &c[1])
        }),
        rule(r#"(resourceVersion:\s*)['"]?\d+['"]?"#, |c| {
            format!("{}<rv>", &c[1])
        }),
        // kubectl describe of a kind without a describer of its own prints every field.
        rule(r"(Resource Version:\s+)\d+", |c| format!("{}<rv>", &c[1])),
        // Object reads, one field a line.
        rule(r#"(resourceVersion = )"\d+""#, |c| {
            format!("{}\"<rv>\"", &c[1])
        }),
        rule(
            r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2}( [A-Z]{3,4})?)?",
            |_| "<time>".into(),
        ),
        // describe's times: `Mon, 02 Jan 2006 15:04:05 +0000`.
        rule(
            r"\b[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}",
            |_| "<time>".into(),
        ),
        // Generated names: generateName's 5-character suffix from apimachinery's alphabet.
        rule(
            r"\b([a-z0-9][a-z0-9.-]*)-[bcdfghjklmnpqrstvwxz2456789]{5}\b",
            |c| format!("{}-<gen>", &c[1]),
        ),
        // kubectl diff's temporary dirs.
        rule(r"/tmp/(LIVE|MERGED)-\d+", |c| format!("/tmp/{}-<n>", &c[1])),
        // Go pointers printed by %v of a struct holding pointers (validation messages).
        rule(r"\(0x[0-9a-f]+\)", |_| "(<ptr>)".into()),
        // Certificates: each cluster makes its own CA.
        rule(
            r"-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\\n\s]*-----END CERTIFICATE-----(\\n)?",
            |_| "<certificate>".into(),
        ),
        // A client certificate's credential id: each cluster's CA issues its own certificate.
        rule(r"X509SHA256=[0-9a-f]{64}", |_| "X509SHA256=<hash>".into()),
        // klog's line header (client-go's warnings on a Go client's stderr): severity, date,
        // time, thread id.
        rule(r"(?m)^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d{6}\s+\d+ ", |c| {
            format!("{}<klog> ", &c[1])
        }),
        // Any IPv4 address but loopback: pod IPs, host IPs, cluster IPs.
        rule(r"\b(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}\b", |c| {
            if &c[1] == "127" {
                c[0].to_string()
            } else {
                "<ip>".into()
            }
        }),
    ]
});

/// Ages and durations as kubectl prints them (`5s`, `2m3s`, `47h`, `<unknown>`), as whole
/// table cells.
static AGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^((\d+(y|d|h|m|s|ms))+|<unknown>|<invalid>)$")
        .unwrap_or_else(|error| panic!("age pattern: {error}"))
});

pub fn normalize(text: &str) -> String {
    normalize_with(text, &[])
}

/// [`normalize`], then `rewrites` (pattern, replacement) from the accepted divergences.
pub fn normalize_with(text: &str, rewrites: &[(Regex, String)]) -> String {
    let mut text = text.to_string();
    for rule in RULES.iter() {
        text = rule
            .pattern
            .replace_all(&text, |c: &Captures| (rule.replace)(c))
            .into_owned();
    }
    for (pattern, with) in rewrites {
        text = pattern.replace_all(&text, with.as_str()).into_owned();
    }
    text.lines()
        .map(|line| {
            line.split_whitespace()
                .map(|cell| if AGE.is_match(cell) { "<age>" } else { cell })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn what_differs_by_nature_reads_the_same() {
        let a = "NAME         STATUS   ROLES    AGE   VERSION\nlab-node-0   Ready    <none>   5s    v1.32.0\n";
        let b = "NAME         STATUS   ROLES    AGE    VERSION\nlab-node-0   Ready    <none>   12m    v1.32.0\n";
        assert_eq!(normalize(a), normalize(b));
        assert_eq!(
            normalize(
                r#"{"uid": "0b6a7f4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b", "resourceVersion": "812", "creationTimestamp": "2026-12-01T19:30:00Z"}"#
            ),
            r#"{"uid": "<uid>", "resourceVersion": "<rv>", "creationTimestamp": "<time>"}"#
        );
        assert_eq!(normalize("pod/gpu-driver-x7k2q"), "pod/gpu-driver-<gen>");
        assert_eq!(
            normalize("  Resource Version:  219\n"),
            normalize("  Resource Version:  44\n")
        );
        assert_eq!(
            normalize(r#"Pod/ns/p metadata.resourceVersion = "87""#),
            r#"Pod/ns/p metadata.resourceVersion = "<rv>""#
        );
        assert_eq!(
            normalize("https://127.0.0.1:38211/api"),
            "https://127.0.0.1:<port>/api"
        );
        assert_eq!(normalize("podIP: 10.0.0.7"), "podIP: <ip>");
        assert_eq!(
            normalize("W1206 07:52:59.422395 24719 warnings.go:70] child pods"),
            normalize("W1206 07:52:58.943886   318 warnings.go:70] child pods")
        );
        assert_eq!(
            normalize("MinAvailable:(*intstr.IntOrString)(0xc09a1de220)"),
            normalize("MinAvailable:(*intstr.IntOrString)(0x250a64c27540)")
        );
        assert_eq!(
            normalize(
                r#""ca.crt": "-----BEGIN CERTIFICATE-----\nMIIC4zCC\n-----END CERTIFICATE-----\n""#
            ),
            r#""ca.crt": "<certificate>""#
        );
    }

    #[test]
    fn what_differs_by_behaviour_still_differs() {
        assert_ne!(
            normalize("lab-node-0 Ready"),
            normalize("lab-node-0 NotReady")
        );
        assert_ne!(normalize("replicas: 3"), normalize("replicas: 4"));
        assert_ne!(
            normalize("deployment.apps/web-7d4b9c8f6d"),
            normalize("deployment.apps/web-5f6c7d8b9c"),
            "pod-template-hashes are computed, not random: they must match"
        );
        assert_ne!(normalize("lab-node-0"), normalize("lab-node-1"));
    }
}
