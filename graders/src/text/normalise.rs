//! Normalisers: rewrite text so that differences that carry no meaning (line endings, trailing blanks,
//! generated pod names, durations and timestamps) do not make two outputs differ.

use regex::{Captures, Regex};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::OnceLock;

/// One normalisation rule; in scenario files spelled `crlf`, `trailingWhitespace`, `finalNewline`,
/// `podNames`, `timings`, `blankLines`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Normaliser {
    /// Trailing spaces and tabs (and a stray `\r`) at the end of each line are removed.
    TrailingWhitespace,
    /// Any number of final newlines (including none) becomes exactly one; empty text stays empty.
    FinalNewline,
    /// Generated object names become numbered placeholders: `trainer-6d4f8b7c9d-x7k2p` →
    /// `trainer-<hash-1>-<id-1>`, `nvidia-driver-daemonset-7xk2p` → `nvidia-driver-daemonset-<id-2>`,
    /// the ReplicaSet `trainer-6d4f8b7c9d` → `trainer-<hash-1>`. Numbers follow first appearance, so
    /// two outputs that name the same pods in the same pattern normalise identically.
    PodNames,
    /// Go durations and ages (`20s`, `1m0s`, `5d3h`, `500ms`) become `<duration>`; timestamps
    /// (`2024-05-01T12:00:00Z`, `2024-05-01 12:00:00.5 +0000 UTC`, `01:59:45.704950`) become `<time>`.
    Timings,
    /// Lines that are empty or only whitespace are removed.
    BlankLines,
    /// `\r\n` line endings become `\n`.
    Crlf,
}

/// Applies `rules` to `text`. The rules are applied in a fixed order whatever order they are given in
/// (line endings first, then names and timings, then whitespace, blank lines and the final newline),
/// so the result depends only on the set of rules.
pub fn normalise(text: &str, rules: &[Normaliser]) -> String {
    let has = |r: Normaliser| rules.contains(&r);
    let mut out = text.to_string();
    if has(Normaliser::Crlf) {
        out = out.replace("\r\n", "\n");
    }
    if has(Normaliser::PodNames) {
        out = replace_generated_names(&out);
    }
    if has(Normaliser::Timings) {
        out = replace_timings(&out);
    }
    if has(Normaliser::TrailingWhitespace) {
        out = map_lines(&out, |line| Some(line.trim_end_matches([' ', '\t', '\r'])));
    }
    if has(Normaliser::BlankLines) {
        out = map_lines(&out, |line| {
            if line.trim().is_empty() {
                None
            } else {
                Some(line)
            }
        });
    }
    if has(Normaliser::FinalNewline) {
        let trimmed = out.trim_end_matches('\n');
        out = if trimmed.is_empty() {
            String::new()
        } else {
            format!("{trimmed}\n")
        };
    }
    out
}

/// Rewrites each line (without its `\n`); `None` drops the line. Keeps whether the text ended with a
/// newline.
fn map_lines<'a>(text: &'a str, f: impl Fn(&'a str) -> Option<&'a str>) -> String {
    let ends_with_newline = text.ends_with('\n');
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.is_empty() && !ends_with_newline {
        return String::new();
    }
    let kept: Vec<&str> = body.split('\n').filter_map(f).collect();
    let mut out = kept.join("\n");
    if ends_with_newline && !kept.is_empty() {
        out.push('\n');
    }
    out
}

/// The alphabet of `k8s.io/apimachinery/pkg/util/rand` (`String` for generateName suffixes and
/// `SafeEncodeString` for the pod-template-hash): no vowels, no `0 1 3`, so it never spells words.
const NAME_ALPHABET: &str = "bcdfghjklmnpqrstvwxz2456789";

/// `SafeEncodeString(fmt.Sprint(uint32))` maps decimal digits (bytes 48..57) to
/// `alphabet[b % 27]`, i.e. only these ten characters appear in a pod-template-hash
/// (`k8s.io/kubernetes/pkg/controller/controller_utils.go ComputeHash`).
const HASH_ALPHABET: &str = "456789bcdf";

fn all_in(s: &str, alphabet: &str) -> bool {
    s.chars().all(|c| alphabet.contains(c))
}

fn is_generated_suffix(part: &str) -> bool {
    part.len() == 5 && all_in(part, NAME_ALPHABET)
}

fn is_template_hash(part: &str) -> bool {
    (6..=10).contains(&part.len()) && all_in(part, HASH_ALPHABET)
}

fn is_name_part(part: &str) -> bool {
    !part.is_empty()
        && part
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

fn replace_generated_names(text: &str) -> String {
    static TOKEN: OnceLock<Option<Regex>> = OnceLock::new();
    // A token is a maximal run of name characters; uppercase and `_` are included so that a name is
    // never cut out of the middle of a longer word.
    let Some(token) = TOKEN
        .get_or_init(|| Regex::new(r"[A-Za-z0-9_](?:[-A-Za-z0-9_]*[A-Za-z0-9_])?").ok())
        .as_ref()
    else {
        return text.to_string();
    };
    let mut hashes: HashMap<String, usize> = HashMap::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    token
        .replace_all(text, |caps: &Captures| {
            let word = &caps[0];
            let parts: Vec<&str> = word.split('-').collect();
            if parts.len() < 2 || !parts.iter().all(|p| is_name_part(p)) {
                return word.to_string();
            }
            let numbered = |table: &mut HashMap<String, usize>, key: &str| {
                let next = table.len() + 1;
                *table.entry(key.to_string()).or_insert(next)
            };
            let last = parts[parts.len() - 1];
            if is_generated_suffix(last) {
                let id = numbered(&mut ids, last);
                if parts.len() >= 3 && is_template_hash(parts[parts.len() - 2]) {
                    let hash = numbered(&mut hashes, parts[parts.len() - 2]);
                    let base = parts[..parts.len() - 2].join("-");
                    return format!("{base}-<hash-{hash}>-<id-{id}>");
                }
                let base = parts[..parts.len() - 1].join("-");
                return format!("{base}-<id-{id}>");
            }
            if is_template_hash(last) {
                let hash = numbered(&mut hashes, last);
                let base = parts[..parts.len() - 1].join("-");
                return format!("{base}-<hash-{hash}>");
            }
            word.to_string()
        })
        .into_owned()
}

fn replace_timings(text: &str) -> String {
    static PATTERNS: OnceLock<Option<(Regex, Regex, Regex)>> = OnceLock::new();
    let Some((timestamp, clock, duration)) = PATTERNS
        .get_or_init(|| {
            let timestamp = Regex::new(
                r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?(?: [+-]\d{4})?(?: [A-Z]{2,5}\b)?",
            )
            .ok()?;
            let clock = Regex::new(r"\b\d{2}:\d{2}:\d{2}(?:\.\d+)?\b").ok()?;
            // Go's time.Duration.String() and kubectl's duration.HumanDuration (ages): 1m0s, 5d3h, 2y10d.
            let duration = Regex::new(r"\b(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d|y))+\b").ok()?;
            Some((timestamp, clock, duration))
        })
        .as_ref()
    else {
        return text.to_string();
    };
    let out = timestamp.replace_all(text, "<time>");
    let out = clock.replace_all(&out, "<time>");
    duration.replace_all(&out, "<duration>").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Normaliser::*;

    #[test]
    fn crlf_and_trailing_whitespace() {
        assert_eq!(normalise("OK\r\n", &[Crlf]), "OK\n");
        assert_eq!(normalise("a  \nb\t\n", &[TrailingWhitespace]), "a\nb\n");
        assert_eq!(normalise("a \r\nb\r\n", &[TrailingWhitespace]), "a\nb\n");
        // Without a rule the text is untouched.
        assert_eq!(normalise("a \r\n", &[]), "a \r\n");
    }

    #[test]
    fn final_newline() {
        assert_eq!(normalise("OK", &[FinalNewline]), "OK\n");
        assert_eq!(normalise("OK\n\n\n", &[FinalNewline]), "OK\n");
        assert_eq!(normalise("", &[FinalNewline]), "");
        assert_eq!(normalise("\n\n", &[FinalNewline]), "");
    }

    #[test]
    fn blank_lines() {
        assert_eq!(
            normalise("NODES=4\n\n  \nSKEW=0\n", &[BlankLines]),
            "NODES=4\nSKEW=0\n"
        );
        assert_eq!(normalise("\n", &[BlankLines]), "");
        assert_eq!(normalise("a\n\nb", &[BlankLines]), "a\nb");
    }

    #[test]
    fn deployment_and_daemonset_pod_names() {
        let text = "evicting pod gpu-drv/trainer-6d4f8b7c9d-x7k2p\n\
                    error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n\
                    Warning: ignoring DaemonSet-managed Pods: gpu-operator/nvidia-driver-daemonset-7xk2p, gpu-operator/gpu-feature-discovery-q2w9z\n\
                    replicaset.apps/trainer-6d4f8b7c9d\n";
        let want = "evicting pod gpu-drv/trainer-<hash-1>-<id-1>\n\
                    error when evicting pods/\"trainer-<hash-1>-<id-1>\" -n \"gpu-drv\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n\
                    Warning: ignoring DaemonSet-managed Pods: gpu-operator/nvidia-driver-daemonset-<id-2>, gpu-operator/gpu-feature-discovery-<id-3>\n\
                    replicaset.apps/trainer-<hash-1>\n";
        assert_eq!(normalise(text, &[PodNames]), want);
    }

    #[test]
    fn same_pattern_with_other_random_names_normalises_identically() {
        let reference =
            "pod/trainer-7b9c5d8f4-k2x9q evicted\npod/trainer-7b9c5d8f4-zz4lm evicted\n";
        let learner =
            "pod/trainer-5f6d8c9b7d-p8r2t evicted\npod/trainer-5f6d8c9b7d-w5mnb evicted\n";
        assert_eq!(
            normalise(reference, &[PodNames]),
            normalise(learner, &[PodNames])
        );
        // Two different pods stay distinguishable from the same pod named twice.
        let same_twice =
            "pod/trainer-5f6d8c9b7d-p8r2t evicted\npod/trainer-5f6d8c9b7d-p8r2t evicted\n";
        assert_ne!(
            normalise(reference, &[PodNames]),
            normalise(same_twice, &[PodNames])
        );
    }

    #[test]
    fn lab_values_are_not_mistaken_for_generated_names() {
        let text = "lab-node-0 550-5.15.0-119-generic-ubuntu22.04\n\
                    lab-node-3 MISSING 550-6.8.0-52-generic-ubuntu24.04\n\
                    driver=nvidia.com/gpu.deploy.driver\n\
                    lab-node-2 device-plugin-without-toolkit\n\
                    nvcr.io/nvidia/k8s/dcgm-exporter:3.3.7-3.5.0-ubuntu22.04\n\
                    trainer-pdb cuda12-job nvidia-dcgm-exporter upgrade-required pod-restart-required\n\
                    Node-XBCDF ABC-bcdfg\n";
        assert_eq!(normalise(text, &[PodNames]), text);
    }

    #[test]
    fn timings() {
        let text =
            "error when evicting pods/\"web-1\" -n \"default\": global timeout reached: 20s\n\
                    global timeout reached: 1m0s\n\
                    trainer-pdb   4   N/A   0   5d3h\n\
                    lastTransitionTime: 2024-05-01T12:00:00Z\n\
                    at 2024-05-01 12:00:00.123456 +0000 UTC\n\
                    E1130 01:59:45.704950   10932 memcache.go:265] failed\n\
                    took 500ms and 1.5s\n";
        let want = "error when evicting pods/\"web-1\" -n \"default\": global timeout reached: <duration>\n\
                    global timeout reached: <duration>\n\
                    trainer-pdb   4   N/A   0   <duration>\n\
                    lastTransitionTime: <time>\n\
                    at <time>\n\
                    E1130 <time>   10932 memcache.go:265] failed\n\
                    took <duration> and <duration>\n";
        assert_eq!(normalise(text, &[Timings]), want);
    }

    #[test]
    fn lab_outputs_survive_every_rule() {
        // Expected files from the gpudrv and gpuops labs: nothing in them is generated.
        let outputs = [
            "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.\n",
            "NODES=4\nSKEW=0\nLAB_NODE_1_TAG=550-5.15.0-107-generic-ubuntu22.04\nMATRIX_ROWS=5\nUPGRADE_STATE=upgrade-done\n",
            "lab-node-0 driver=yes toolkit=yes device-plugin=yes gfd=yes dcgm=yes\n\
             lab-node-1 driver=no toolkit=yes device-plugin=yes gfd=yes dcgm=no\n\
             lab-node-2 driver=no toolkit=no device-plugin=yes gfd=no dcgm=no\n\
             TOTAL_PODS=9\n",
            "driver_branch,kernel,os_tag\n550,5.15.0-119-generic,ubuntu22.04\n535,5.15.0-107-generic,ubuntu22.04\n",
            "DESIRED=1\nSKIPPED=lab-node-1\nBEFORE=2\nAFTER=1\n",
        ];
        let all = [
            TrailingWhitespace,
            FinalNewline,
            PodNames,
            Timings,
            BlankLines,
            Crlf,
        ];
        for text in outputs {
            assert_eq!(normalise(text, &all), text);
        }
    }

    #[test]
    fn timings_leave_versions_and_quantities_alone() {
        let text = "550.90.07 ubuntu22.04 512Mi v1.16.2 3.3.7-3.5.0 0/4 nodes\n";
        assert_eq!(normalise(text, &[Timings]), text);
    }

    #[test]
    fn order_of_rules_does_not_matter() {
        let text = "a \r\n\r\nb\r\n\r\n";
        let one = normalise(text, &[Crlf, TrailingWhitespace, BlankLines, FinalNewline]);
        let other = normalise(text, &[FinalNewline, BlankLines, TrailingWhitespace, Crlf]);
        assert_eq!(one, "a\nb\n");
        assert_eq!(one, other);
    }

    #[test]
    fn kebab_case_names_in_scenarios() {
        let rules: Vec<Normaliser> = serde_yaml::from_str(
            "[trailingWhitespace, finalNewline, podNames, timings, blankLines, crlf]",
        )
        .expect("valid normaliser names");
        assert_eq!(
            rules,
            vec![
                TrailingWhitespace,
                FinalNewline,
                PodNames,
                Timings,
                BlankLines,
                Crlf
            ]
        );
        assert!(serde_yaml::from_str::<Vec<Normaliser>>("[trailing_whitespace]").is_err());
    }
}
