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

/// Field 6 of `/proc/<pid>/stat`. The command name (field 2) may hold spaces and parentheses, so
/// fields are counted from the last `)`.
fn session_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    // state ppid pgrp session
    after.split_whitespace().nth(3)?.parse().ok()
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
