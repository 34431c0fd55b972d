//! Finds and kills processes a run left behind, without cgroups or a PID namespace: everything in the
//! run's session (the child calls `setsid`), and everything carrying the run's environment marker
//! (which catches a process that started its own session, unless it also cleared its environment).

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::time::Duration;

/// Kills the leftovers of the run whose session id is `session`; returns how many were signalled.
pub(crate) fn kill_leftovers(session: i32, marker: Option<&str>) -> usize {
    let me = std::process::id() as i32;
    let needle = marker.map(|m| format!("{}={m}\0", super::env::MARKER_VAR).into_bytes());
    let mut killed = 0;
    // Repeat: a process may fork while we scan.
    for _ in 0..20 {
        let found: Vec<i32> = pids()
            .into_iter()
            .filter(|&pid| pid != me && pid > 1)
            .filter(|&pid| {
                session_of(pid) == Some(session)
                    || needle.as_deref().is_some_and(|n| environ_has(pid, n))
            })
            .collect();
        if found.is_empty() {
            break;
        }
        for pid in found {
            if kill(Pid::from_raw(pid), Signal::SIGKILL).is_ok() {
                killed += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    killed
}

fn pids() -> Vec<i32> {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Field 6 of `/proc/<pid>/stat`, for a process that is still alive. The command name (field 2)
/// may hold spaces and parentheses, so fields are counted from the last `)`. Zombies are skipped:
/// they cannot be killed, and the run's own leader stays one (unreaped, so its ids cannot be
/// reused) while the sweep runs.
fn session_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    // state ppid pgrp session
    if matches!(fields.next()?, "Z" | "X") {
        return None;
    }
    fields.nth(2)?.parse().ok()
}

fn environ_has(pid: i32, needle: &[u8]) -> bool {
    let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    // Entries are NUL-separated; match a whole entry.
    environ
        .split(|&b| b == 0)
        .any(|entry| needle.strip_suffix(b"\0") == Some(entry))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run's leader is left unreaped while the sweep runs; counting it as a leftover made
    /// every sweep spin through all its rounds.
    #[test]
    fn zombies_are_not_leftovers() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn sleep");
        let pid = child.id() as i32;
        assert!(session_of(pid).is_some(), "a live process has a session");
        kill(Pid::from_raw(pid), Signal::SIGKILL).expect("kill");
        // Wait for the exit without reaping, as the supervisor does.
        nix::sys::wait::waitid(
            nix::sys::wait::Id::Pid(Pid::from_raw(pid)),
            nix::sys::wait::WaitPidFlag::WEXITED | nix::sys::wait::WaitPidFlag::WNOWAIT,
        )
        .expect("waitid");
        assert_eq!(
            session_of(pid),
            None,
            "an exited, unreaped process is skipped"
        );
        let _ = child.wait();
    }
}
