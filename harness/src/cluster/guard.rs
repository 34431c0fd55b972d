//! Running work on a cluster so that Ctrl-C / SIGTERM, an error or a normal end all leave an
//! external cluster as it was found.

use std::future::Future;
use std::time::Duration;

use crate::cluster::Target;

/// How long an interrupted run waits for the processes it stopped to be gone (the sandbox sweeps
/// what a script started once the script's leader is dead).
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Runs `work`; `None` when interrupted. With `restore_after`, the cluster's state from before
/// `work` is restored afterwards in every case.
pub async fn guarded<T>(
    target: &Target,
    restore_after: bool,
    work: impl Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<Option<T>> {
    let initial = if restore_after {
        Some(target.snapshot().await?)
    } else {
        None
    };
    // The work future is dropped when the select ends, before any cleanup.
    let finished = tokio::select! {
        result = work => Some(result),
        _ = crate::interrupt::interrupted() => None,
    };
    let result = match finished {
        Some(result) => result.map(Some),
        None => {
            eprintln!("interrupted: cleaning up");
            // Scripts and reference shells run on blocking threads that dropping the work does
            // not stop: left running, they would change the cluster while (or after) it is
            // restored.
            stop_child_processes().await;
            target.remove_leftover_nodes().await;
            Ok(None)
        }
    };
    if let Some(initial) = initial {
        if let Err(error) = target.restore(&initial).await {
            tracing::error!("could not restore the cluster's starting state: {error:#}");
        }
    }
    result
}

/// Kills every process this one started (and what they started), then waits until they are
/// gone or [`STOP_GRACE`] has passed.
async fn stop_child_processes() {
    let me = std::process::id() as i32;
    let deadline = tokio::time::Instant::now() + STOP_GRACE;
    loop {
        let descendants = processes::descendants(me);
        if descendants.is_empty() {
            return;
        }
        for pid in descendants.iter().filter(|process| !process.zombie) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid.pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        if tokio::time::Instant::now() >= deadline {
            tracing::warn!(
                "{} process(es) started by this run were still there after {}s",
                descendants.len(),
                STOP_GRACE.as_secs()
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The process tree, read from `/proc`.
mod processes {
    use std::collections::BTreeMap;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Process {
        pub pid: i32,
        /// Dead and waiting to be reaped by its parent (which the sandbox does after sweeping).
        pub zombie: bool,
    }

    /// Every process below `root` (children, their children, ...), alive or zombie.
    pub fn descendants(root: i32) -> Vec<Process> {
        let mut children: BTreeMap<i32, Vec<Process>> = BTreeMap::new();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            if let Some((state, parent)) = parse_stat(&stat) {
                children.entry(parent).or_default().push(Process {
                    pid,
                    zombie: state == 'Z' || state == 'X',
                });
            }
        }
        let mut found = Vec::new();
        let mut queue = vec![root];
        while let Some(parent) = queue.pop() {
            for child in children.remove(&parent).unwrap_or_default() {
                queue.push(child.pid);
                found.push(child);
            }
        }
        found
    }

    /// (state, parent pid) from `/proc/<pid>/stat`. The command name (field 2) may hold spaces
    /// and parentheses, so fields are counted from the last `)` (proc(5)).
    pub fn parse_stat(stat: &str) -> Option<(char, i32)> {
        let after = stat.get(stat.rfind(')')? + 1..)?;
        let mut fields = after.split_whitespace();
        let state = fields.next()?.chars().next()?;
        let parent = fields.next()?.parse().ok()?;
        Some((state, parent))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn stat_fields_are_counted_from_the_last_parenthesis() {
            assert_eq!(
                parse_stat("4242 (bash) S 4000 4242 4242 0 -1"),
                Some(('S', 4000))
            );
            assert_eq!(
                parse_stat("77 (we) ird) (name) Z 1 77 77 0 -1"),
                Some(('Z', 1))
            );
            assert_eq!(parse_stat("garbage"), None);
        }

        #[test]
        fn a_child_process_is_a_descendant() {
            let mut child = std::process::Command::new("sleep")
                .arg("30")
                .spawn()
                .expect("sleep starts");
            let me = std::process::id() as i32;
            let found = descendants(me);
            let _ = child.kill();
            let _ = child.wait();
            assert!(
                found.iter().any(|process| process.pid == child.id() as i32),
                "{found:?}"
            );
        }
    }
}
