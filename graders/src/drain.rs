//! The meaning of a saved `kubectl drain` transcript (stdout and stderr together, e.g. `2>&1`).
//!
//! Transcripts hold generated pod names, retry counts and timings, so they are judged by what
//! happened, not byte for byte. The lines recognised are the ones kubectl 1.27–1.33 prints
//! (`kubectl pkg/drain/drain.go`, `pkg/cmd/drain/drain.go`):
//!
//! ```text
//! node/w1 cordoned                                                    (or: already cordoned)
//! Warning: ignoring DaemonSet-managed Pods: default/ds-1               (stderr)
//! evicting pod default/web-1                                          (every attempt)
//! error when evicting pods/"web-1" -n "default" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.   (stderr, on 429)
//! pod/web-1 evicted                                                   (or: deleted, with --disable-eviction)
//! node/w1 drained
//! ```
//!
//! With `--timeout` the refused drain ends with `... global timeout reached: 20s`,
//! `error: unable to drain node "w1" due to error:...` (`due to error: ` from 1.31 on) and
//! `There are pending nodes to be drained:`. Older clients wrote the retry line as
//! `error when evicting pod "web-1" (will retry after 5s): ...`; it is recognised as well.

use std::collections::HashMap;

/// What a drain transcript says happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DrainVerdict {
    /// An eviction was refused by a PodDisruptionBudget (HTTP 429) and the node was not drained.
    Refused,
    /// `node/<name> drained`, with at least one pod evicted (or deleted).
    Drained,
    /// Anything else; the text says what the transcript shows instead.
    Other(String),
}

/// The status message of the 429 the eviction API answers when a disruption budget blocks it
/// (`k/k pkg/registry/core/pod/storage/eviction.go`).
const PDB_REFUSAL: &str = "Cannot evict pod as it would violate the pod's disruption budget";

/// Reads a transcript and says whether the drain was refused by a disruption budget or completed.
pub fn verdict(transcript: &str) -> DrainVerdict {
    let lines: Vec<String> = transcript.lines().map(clean_line).collect();
    let lines: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        return DrainVerdict::Other("the transcript is empty".into());
    }

    let drained: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| {
            l.starts_with("node/")
                && (l.ends_with(" drained")
                    || l.ends_with(" drained (dry run)")
                    || l.ends_with(" drained (server dry run)"))
        })
        .collect();
    let removed = lines
        .iter()
        .filter(|l| l.starts_with("pod/") && (l.ends_with(" evicted") || l.ends_with(" deleted")))
        .count();
    let refused = lines.iter().any(|l| l.contains(PDB_REFUSAL));

    if let Some(line) = drained.first() {
        if line.ends_with("dry run)") {
            return DrainVerdict::Other(format!("a dry run, nothing was evicted: {line}"));
        }
        if removed == 0 {
            return DrainVerdict::Other(format!("{line}, but no pod was evicted"));
        }
        return DrainVerdict::Drained;
    }
    if refused {
        return DrainVerdict::Refused;
    }
    DrainVerdict::Other(explain_other(&lines))
}

/// Removes terminal colour codes (kubectl colours warnings when stderr is a terminal, and a
/// transcript captured through `script` keeps them) and a trailing `\r`.
fn clean_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out.trim_end_matches('\r').to_string()
}

fn explain_other(lines: &[&str]) -> String {
    if let Some(line) = lines.iter().find(|l| l.contains("cannot delete ")) {
        return format!("the drain stopped before evicting: {line}");
    }
    if let Some(line) = lines.iter().find(|l| l.contains("global timeout reached")) {
        return format!("the drain timed out without a disruption-budget refusal: {line}");
    }
    let mut attempts: HashMap<&str, usize> = HashMap::new();
    for line in lines {
        if let Some(pod) = line.strip_prefix("evicting pod ") {
            *attempts.entry(pod).or_insert(0) += 1;
        }
    }
    if attempts.values().any(|&n| n > 1) {
        return "evictions were retried, but the transcript has no \"Cannot evict pod\" line: was stderr saved too (2>&1)?".into();
    }
    if let Some(line) = lines.iter().find(|l| {
        l.starts_with("error:") || l.starts_with("Error from server") || l.starts_with("error when")
    }) {
        return format!("the drain failed: {line}");
    }
    if let Some(line) = lines
        .iter()
        .find(|l| l.starts_with("node/") && l.contains(" cordoned"))
    {
        return format!("{line}, but no eviction was refused and the node was not drained");
    }
    "no kubectl drain output found".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Section 3.2 of the behaviour reference: a refusal, then the retry succeeds (kubectl 1.30).
    const REFUSED_THEN_DRAINED: &str = "node/w1 cordoned\n\
        Warning: ignoring DaemonSet-managed Pods: default/ds-1\n\
        evicting pod default/web-1\n\
        error when evicting pods/\"web-1\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n\
        evicting pod default/web-1\n\
        pod/web-1 evicted\n\
        node/w1 drained\n";

    /// Section 3.2: global timeout, kubectl 1.30 (`due to error:` without a space), stdout then stderr.
    const TIMEOUT_1_30: &str = "node/w1 cordoned\n\
        evicting pod default/web-1\n\
        evicting pod default/web-1\n\
        evicting pod default/web-1\n\
        Warning: ignoring DaemonSet-managed Pods: default/ds-1\n\
        error when evicting pods/\"web-1\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n\
        error when evicting pods/\"web-1\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n\
        There are pending pods in node \"w1\" when an error occurred: error when evicting pods/\"web-1\" -n \"default\": global timeout reached: 7s\n\
        pod/web-1\n\
        error: unable to drain node \"w1\" due to error:error when evicting pods/\"web-1\" -n \"default\": global timeout reached: 7s, continuing command...\n\
        There are pending nodes to be drained:\n \
        w1\n\
        error when evicting pods/\"web-1\" -n \"default\": global timeout reached: 7s\n";

    /// The lab's step 6 as kubectl 1.32 writes it with `2>&1` (interleaved; `due to error: ` with a space).
    const LAB_BLOCKED_1_32: &str = "node/lab-node-1 cordoned\n\
        evicting pod gpu-drv/trainer-6d4f8b7c9d-x7k2p\n\
        error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n\
        evicting pod gpu-drv/trainer-6d4f8b7c9d-x7k2p\n\
        error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n\
        evicting pod gpu-drv/trainer-6d4f8b7c9d-x7k2p\n\
        error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n\
        evicting pod gpu-drv/trainer-6d4f8b7c9d-x7k2p\n\
        There are pending pods in node \"lab-node-1\" when an error occurred: error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\": global timeout reached: 20s\n\
        pod/trainer-6d4f8b7c9d-x7k2p\n\
        error: unable to drain node \"lab-node-1\" due to error: error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\": global timeout reached: 20s, continuing command...\n\
        There are pending nodes to be drained:\n \
        lab-node-1\n\
        error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\": global timeout reached: 20s\n";

    /// The lab's step 7 after `minAvailable: 3`.
    const LAB_OK: &str = "node/lab-node-1 already cordoned\n\
        evicting pod gpu-drv/trainer-6d4f8b7c9d-x7k2p\n\
        pod/trainer-6d4f8b7c9d-x7k2p evicted\n\
        node/lab-node-1 drained\n";

    #[test]
    fn reference_transcripts() {
        assert_eq!(verdict(REFUSED_THEN_DRAINED), DrainVerdict::Drained);
        assert_eq!(verdict(TIMEOUT_1_30), DrainVerdict::Refused);
        assert_eq!(verdict(LAB_BLOCKED_1_32), DrainVerdict::Refused);
        assert_eq!(verdict(LAB_OK), DrainVerdict::Drained);
    }

    #[test]
    fn interrupted_refusal_without_timeout_is_refused() {
        // Ctrl-C while kubectl kept retrying: no timeout lines, no `drained`.
        let interrupted = "node/lab-node-1 cordoned\n\
            evicting pod gpu-drv/trainer-6d4f8b7c9d-x7k2p\n\
            error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n";
        assert_eq!(verdict(interrupted), DrainVerdict::Refused);
    }

    #[test]
    fn old_client_retry_line() {
        let old = "node/n1 cordoned\nevicting pod \"web-1\"\nerror when evicting pod \"web-1\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n";
        assert_eq!(verdict(old), DrainVerdict::Refused);
    }

    #[test]
    fn crlf_and_colours_are_tolerated() {
        let coloured = LAB_OK.replace('\n', "\r\n").replace(
            "node/lab-node-1 drained",
            "\u{1b}[0;32mnode/lab-node-1 drained\u{1b}[0m",
        );
        assert_eq!(verdict(&coloured), DrainVerdict::Drained);
    }

    #[test]
    fn stdout_only_capture_is_explained() {
        let stdout_only = "node/lab-node-1 cordoned\n\
            evicting pod gpu-drv/trainer-6d4f8b7c9d-x7k2p\n\
            evicting pod gpu-drv/trainer-6d4f8b7c9d-x7k2p\n\
            evicting pod gpu-drv/trainer-6d4f8b7c9d-x7k2p\n\
            pod/trainer-6d4f8b7c9d-x7k2p\n\
            There are pending nodes to be drained:\n lab-node-1\n";
        match verdict(stdout_only) {
            DrainVerdict::Other(why) => assert!(why.contains("2>&1"), "{why}"),
            v => panic!("unexpected {v:?}"),
        }
    }

    #[test]
    fn drain_stopped_by_filters() {
        // 1.30+ doubles "cannot delete" for unmanaged pods (section 3.2).
        let t = "node/lab-node-1 cordoned\n\
            error: unable to drain node \"lab-node-1\" due to error: cannot delete cannot delete Pods that declare no controller (use --force to override): gpu-drv/cuda12-job, continuing command...\n\
            There are pending nodes to be drained:\n lab-node-1\n\
            cannot delete cannot delete Pods that declare no controller (use --force to override): gpu-drv/cuda12-job\n";
        match verdict(t) {
            DrainVerdict::Other(why) => assert!(
                why.starts_with("the drain stopped before evicting:"),
                "{why}"
            ),
            v => panic!("unexpected {v:?}"),
        }
        let ds = "node/lab-node-1 cordoned\nerror: unable to drain node \"lab-node-1\" due to error:cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): gpu-operator/nvidia-driver-daemonset-7xk2p, continuing command...\n";
        assert!(matches!(verdict(ds), DrainVerdict::Other(_)));
    }

    #[test]
    fn other_outcomes() {
        assert_eq!(
            verdict(""),
            DrainVerdict::Other("the transcript is empty".into())
        );
        assert_eq!(
            verdict("\n  \n"),
            DrainVerdict::Other("the transcript is empty".into())
        );
        assert_eq!(
            verdict("Error from server (NotFound): nodes \"lab-node-9\" not found\n"),
            DrainVerdict::Other(
                "the drain failed: Error from server (NotFound): nodes \"lab-node-9\" not found"
                    .into()
            )
        );
        assert_eq!(
            verdict("node/lab-node-1 cordoned\n"),
            DrainVerdict::Other("node/lab-node-1 cordoned, but no eviction was refused and the node was not drained".into())
        );
        assert_eq!(
            verdict("node/lab-node-1 cordoned\nnode/lab-node-1 drained\n"),
            DrainVerdict::Other("node/lab-node-1 drained, but no pod was evicted".into())
        );
        assert!(matches!(
            verdict("node/lab-node-1 cordoned (server dry run)\nevicting pod gpu-drv/t (server dry run)\nnode/lab-node-1 drained (server dry run)\n"),
            DrainVerdict::Other(_)
        ));
        assert_eq!(
            verdict("OK\n"),
            DrainVerdict::Other("no kubectl drain output found".into())
        );
    }

    #[test]
    fn timeout_while_waiting_for_termination_is_not_a_refusal() {
        let t = "node/lab-node-1 cordoned\nevicting pod gpu-drv/t-1\n\
            There are pending pods in node \"lab-node-1\" when an error occurred: error when waiting for pod \"t-1\" in namespace \"gpu-drv\" to terminate: global timeout reached: 20s\n";
        match verdict(t) {
            DrainVerdict::Other(why) => assert!(why.starts_with("the drain timed out"), "{why}"),
            v => panic!("unexpected {v:?}"),
        }
    }
}
