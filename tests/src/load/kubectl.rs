//! The kubectl side of the load run: client loops, each a real `kubectl` process per step,
//! cycling through reads, node label/annotation merge patches, ConfigMap create/label/delete,
//! `apply` of a small manifest and pod create/delete. Each loop owns the objects it creates, so
//! every step must succeed however the loops interleave.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::problem::Tally;

/// The namespace the loops create their objects in.
pub const NAMESPACE: &str = "load";
/// Fake nodes the loops label and annotate (`lab-node-0..`).
pub const NODES: usize = 3;
/// Steps in one cycle of a loop.
const STEPS: usize = 10;
/// Longest one kubectl invocation may take before it counts as failed.
const INVOCATION_TIMEOUT: Duration = Duration::from_secs(60);

/// Where kubectl runs: binary, kubeconfig, a discovery cache shared by all loops (as on one
/// workstation) and a scratch directory for manifests.
#[derive(Debug, Clone)]
pub struct KubectlEnv {
    pub bin: PathBuf,
    pub kubeconfig: PathBuf,
    pub dir: PathBuf,
}

impl KubectlEnv {
    pub fn command(&self, args: &[String]) -> tokio::process::Command {
        let mut c = tokio::process::Command::new(&self.bin);
        c.arg("-v=6")
            .args(args)
            .env("KUBECONFIG", &self.kubeconfig)
            .env("KUBECACHEDIR", self.dir.join("cache"))
            .env("HOME", &self.dir)
            .env_remove("KUBECTL_EXTERNAL_DIFF")
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        c
    }
}

/// One API request kubectl logged at `-v=6`
/// (staging/src/k8s.io/client-go/transport/round_trippers.go: `"%s %s %s in %d milliseconds"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub verb: String,
    pub url: String,
    pub status: u16,
}

/// The requests in kubectl's `-v=6` log.
pub fn requests_in(stderr: &str) -> Vec<Request> {
    stderr
        .lines()
        .filter(|l| l.contains("round_trippers.go:"))
        .filter_map(|l| {
            let (_, rest) = l.split_once("] ")?;
            let mut words = rest.split_whitespace();
            let verb = words.next()?.to_string();
            let url = words.next()?.to_string();
            let status = words.next()?.parse().ok()?;
            Some(Request { verb, url, status })
        })
        .collect()
}

/// The status the real apiserver answers these kubectl requests with: 201 for a create; 200 for
/// reads, patches and deletes (a delete answers 202 only when the object lingers *and* the client
/// sent `orphanDependents=false`, which kubectl never does:
/// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/delete.go); 404 only where kubectl probes
/// for absence: apply's and the delete waiter's GET of one of the loop's objects, and
/// `/openapi/v3`, which the embedded server leaves out on purpose (kubectl falls back to v2; see
/// the reference notes on what apply needs from /openapi).
fn expected_status(r: &Request) -> bool {
    let path = r.url.split('?').next().unwrap_or("");
    match (r.verb.as_str(), r.status) {
        ("GET", 200) | ("POST", 201) | ("PATCH", 200) | ("PUT", 200) | ("DELETE", 200) => true,
        ("GET", 404) => {
            path.ends_with("/openapi/v3") || path.contains(&format!("/namespaces/{NAMESPACE}/"))
        }
        _ => false,
    }
}

/// kubectl's stderr without its own `-v=6` info lines.
fn stderr_without_info(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| {
            let b = l.as_bytes();
            !(b.len() > 5 && b[0] == b'I' && b[1..5].iter().all(u8::is_ascii_digit))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One step: kubectl arguments plus a manifest to write first.
struct Step {
    /// The kind of step (`label node`, `apply pod`), to group failures by.
    what: String,
    args: Vec<String>,
    manifest: Option<(String, String)>,
}

fn step(lp: usize, cycle: usize, at: usize) -> Step {
    let cm = format!("load-cm-{lp}-{cycle}");
    let node = |offset: usize| format!("lab-node-{}", (lp + cycle * (offset + 1) + offset) % NODES);
    let tier = if cycle.is_multiple_of(2) {
        "hot"
    } else {
        "cold"
    };
    let plain = |args: &[&str]| Step {
        what: args[..2].join(" "),
        args: args.iter().map(|s| s.to_string()).collect(),
        manifest: None,
    };
    match at {
        0 => plain(&["get", "nodes", "-o", "json"]),
        1 => plain(&[
            "create",
            "configmap",
            &cm,
            "-n",
            NAMESPACE,
            &format!("--from-literal=loop={lp}"),
            &format!("--from-literal=cycle={cycle}"),
        ]),
        2 => {
            let color = if (lp + cycle).is_multiple_of(2) {
                "red"
            } else {
                "blue"
            };
            plain(&[
                "label",
                "node",
                &node(0),
                &format!("load/color={color}"),
                "--overwrite",
            ])
        }
        3 => plain(&[
            "label",
            "configmap",
            &cm,
            "-n",
            NAMESPACE,
            &format!("load/tier={tier}"),
        ]),
        4 => plain(&["get", "pods", "-A"]),
        5 => {
            let file = format!("apply-{lp}.yaml");
            let manifest = format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: load-apply-{lp}\n  namespace: {NAMESPACE}\n  labels:\n    load/tier: {tier}\n    load/loop: \"{lp}\"\ndata:\n  cycle: \"{cycle}\"\n"
            );
            Step {
                what: "apply configmap".into(),
                args: vec!["apply".into(), "-f".into(), file.clone()],
                manifest: Some((file, manifest)),
            }
        }
        6 => plain(&[
            "annotate",
            "node",
            &node(1),
            &format!("load/last={lp}-{cycle}"),
            "--overwrite",
        ]),
        7 if !cycle.is_multiple_of(3) => plain(&["delete", "configmap", &cm, "-n", NAMESPACE]),
        7 => plain(&["get", "configmaps", "-n", NAMESPACE, "-o", "name"]),
        8 => plain(&[
            "patch",
            "node",
            &node(2),
            "--type",
            "merge",
            "-p",
            &format!("{{\"metadata\":{{\"annotations\":{{\"load/patched\":\"{lp}-{cycle}\"}}}}}}"),
        ]),
        _ if cycle.is_multiple_of(2) => {
            let file = format!("pod-{lp}-{cycle}.yaml");
            let manifest = format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: load-pod-{lp}-{cycle}\n  namespace: {NAMESPACE}\n  labels:\n    load/loop: \"{lp}\"\nspec:\n  containers:\n  - name: pause\n    image: registry.k8s.io/pause:3.10\n"
            );
            Step {
                what: "apply pod".into(),
                args: vec!["apply".into(), "-f".into(), file.clone()],
                manifest: Some((file, manifest)),
            }
        }
        _ => plain(&[
            "delete",
            "pod",
            &format!("load-pod-{lp}-{}", cycle - 1),
            "-n",
            NAMESPACE,
            "--wait=false",
        ]),
    }
}

/// What one loop did.
#[derive(Debug, Default)]
pub struct LoopOutcome {
    pub latencies: Vec<Duration>,
    /// By kind of step.
    pub failures: Tally<String>,
    pub requests: u64,
    pub by_status: BTreeMap<u16, u64>,
    /// By kind of step, verb and status.
    pub unexpected: Tally<String>,
}

/// Run kubectl steps back to back until `until` or `max_invocations`, whichever comes first.
pub async fn run_loop(
    lp: usize,
    env: Arc<KubectlEnv>,
    until: Instant,
    max_invocations: usize,
) -> LoopOutcome {
    let mut out = LoopOutcome::default();
    for k in 0..max_invocations {
        if Instant::now() >= until {
            break;
        }
        let st = step(lp, k / STEPS, k % STEPS);
        let shown = format!("kubectl {}", st.args.join(" "));
        if let Some((file, content)) = &st.manifest {
            if let Err(e) = tokio::fs::write(env.dir.join(file), content).await {
                out.failures.note(
                    st.what.clone(),
                    format!("{shown}: writing the manifest: {e}"),
                );
                continue;
            }
        }
        let started = Instant::now();
        let result = tokio::time::timeout(INVOCATION_TIMEOUT, env.command(&st.args).output()).await;
        out.latencies.push(started.elapsed());
        let output = match result {
            Err(_) => {
                out.failures.note(
                    st.what.clone(),
                    format!("{shown}: no exit within {INVOCATION_TIMEOUT:?}"),
                );
                continue;
            }
            Ok(Err(e)) => {
                out.failures
                    .note(st.what.clone(), format!("{shown}: could not run: {e}"));
                continue;
            }
            Ok(Ok(o)) => o,
        };
        let stderr = String::from_utf8_lossy(&output.stderr);
        for r in requests_in(&stderr) {
            out.requests += 1;
            *out.by_status.entry(r.status).or_default() += 1;
            if !expected_status(&r) {
                out.unexpected.note(
                    format!("{}: {} answered {}", st.what, r.verb, r.status),
                    format!("{shown}: {} {}", r.verb, r.url),
                );
            }
        }
        if !output.status.success() {
            out.failures.note(
                st.what.clone(),
                format!(
                    "{shown}: exit {}: {}",
                    output
                        .status
                        .code()
                        .map_or("by signal".into(), |c| c.to_string()),
                    stderr_without_info(&stderr).trim()
                ),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_round_tripper_lines() {
        let log = "I1130 03:15:33.278767    7365 round_trippers.go:560] GET https://127.0.0.1:39569/api/v1/namespaces/load/pods/p 404 Not Found in 0 milliseconds\n\
                   I1130 03:15:33.280480    7365 apply.go:548] Running apply post-processor function\n\
                   I1130 03:15:33.280381    7365 round_trippers.go:560] POST https://127.0.0.1:39569/api/v1/namespaces/load/pods?fieldManager=kubectl-client-side-apply 201 Created in 0 milliseconds\n";
        let rs = requests_in(log);
        assert_eq!(rs.len(), 2);
        assert_eq!((rs[0].verb.as_str(), rs[0].status), ("GET", 404));
        assert_eq!((rs[1].verb.as_str(), rs[1].status), ("POST", 201));
        assert!(rs.iter().all(expected_status));
        let status = |verb: &str, url: &str, status| Request {
            verb: verb.into(),
            url: url.into(),
            status,
        };
        assert!(!expected_status(&status(
            "DELETE",
            "https://h/api/v1/namespaces/load/pods/p",
            202
        )));
        assert!(!expected_status(&status(
            "GET",
            "https://h/apis/apps/v1?timeout=32s",
            404
        )));
        assert!(expected_status(&status(
            "GET",
            "https://h/openapi/v3?timeout=32s",
            404
        )));
        assert_eq!(stderr_without_info(log), "");
    }

    #[test]
    fn every_loop_deletes_only_what_it_created() {
        for lp in 0..4 {
            for cycle in 0..4 {
                let created = step(lp, cycle, 1).args;
                let deleted = step(lp, cycle, 7).args;
                assert_eq!(created[2], format!("load-cm-{lp}-{cycle}"));
                if deleted[0] == "delete" {
                    assert_eq!(deleted[2], created[2]);
                }
            }
        }
    }
}
