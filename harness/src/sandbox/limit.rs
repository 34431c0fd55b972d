//! The words a run's outcome uses for a limit it ran into. They live in one place so that a caller
//! can tell a limit that was hit (the reason a run failed) from the script's own mistakes (CRLF,
//! missing exec bit), see [`is_limit_problem`].

use std::time::Duration;

const TIMEOUT: (&str, &str) = ("the script did not finish within ", " and was stopped");
const OUTPUT: (&str, &str) = ("the script wrote more than ", " of output and was stopped");
const PROCESSES: (&str, &str) = (
    "the script hit the limit of ",
    " processes (a fork was refused)",
);
const MEMORY_KILLED: (&str, &str) = ("the script used more than ", " of memory and was killed");
const MEMORY_REFUSED: (&str, &str) = (
    "the script tried to use more than ",
    " of memory (an allocation was refused)",
);

const ALL: [(&str, &str); 5] = [TIMEOUT, OUTPUT, PROCESSES, MEMORY_KILLED, MEMORY_REFUSED];

fn say((before, after): (&str, &str), value: &str) -> String {
    format!("{before}{value}{after}")
}

pub(crate) fn timed_out(timeout: Duration) -> String {
    say(TIMEOUT, &human_duration(timeout))
}

pub(crate) fn output_exceeded(bytes: usize) -> String {
    say(OUTPUT, &human_bytes(bytes as u64))
}

pub(crate) fn processes_exceeded(processes: u64) -> String {
    say(PROCESSES, &processes.to_string())
}

/// The kernel killed the run for going over its memory cgroup's limit.
pub(crate) fn memory_killed(bytes: u64) -> String {
    say(MEMORY_KILLED, &human_bytes(bytes))
}

/// Without a memory cgroup, `RLIMIT_AS` refuses the allocation instead: the program fails with
/// ENOMEM and (usually) says so.
pub(crate) fn memory_refused(bytes: u64) -> String {
    say(MEMORY_REFUSED, &human_bytes(bytes))
}

/// Whether `problem` (one of [`super::RunOutcome::problems`]) says that the run hit one of its
/// [`super::Limits`].
pub fn is_limit_problem(problem: &str) -> bool {
    ALL.iter().any(|(before, after)| {
        problem.len() > before.len() + after.len()
            && problem.starts_with(before)
            && problem.ends_with(after)
    })
}

/// What programs print when `RLIMIT_AS` refuses memory: coreutils ("memory exhausted"), glibc's
/// strerror(ENOMEM) ("Cannot allocate memory"), bash's xmalloc ("cannot allocate"), the Go runtime
/// ("runtime: out of memory", and "failed to reserve page summary memory" when the address space
/// it reserves at start, ~600 MiB for kubectl, is not there).
pub(crate) fn says_memory_was_refused(stderr: &[u8]) -> bool {
    let text = String::from_utf8_lossy(stderr).to_lowercase();
    [
        "memory exhausted",
        "cannot allocate",
        "out of memory",
        "failed to reserve",
    ]
    .iter()
    .any(|needle| text.contains(needle))
}

/// What bash prints when `fork(2)` fails with EAGAIN (`RLIMIT_NPROC` reached): "fork: retry:
/// Resource temporarily unavailable", then "fork: Resource temporarily unavailable".
pub(crate) fn says_fork_was_refused(stderr: &[u8]) -> bool {
    let text = String::from_utf8_lossy(stderr);
    text.contains("fork: ") && text.contains("Resource temporarily unavailable")
}

pub(crate) fn human_bytes(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        // The units are powers of two: a multiple has no bits below the unit's.
        if bytes >= size && bytes & (size - 1) == 0 {
            return format!("{} {unit}", bytes / size);
        }
    }
    format!("{bytes} bytes")
}

pub(crate) fn human_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_limit_message_is_recognised_and_nothing_else() {
        let messages = [
            timed_out(Duration::from_secs(3)),
            output_exceeded(64 << 10),
            processes_exceeded(64),
            memory_killed(256 << 20),
            memory_refused(1 << 30),
        ];
        assert_eq!(
            messages,
            [
                "the script did not finish within 3s and was stopped",
                "the script wrote more than 64 KiB of output and was stopped",
                "the script hit the limit of 64 processes (a fork was refused)",
                "the script used more than 256 MiB of memory and was killed",
                "the script tried to use more than 1 GiB of memory (an allocation was refused)",
            ]
        );
        assert!(messages.iter().all(|m| is_limit_problem(m)));
        for other in [
            "drv-tag.sh has Windows (CRLF) line endings, so its first line names no interpreter: convert it (dos2unix drv-tag.sh, or sed -i 's/\\r$//' drv-tag.sh)",
            "drv-tag.sh is not executable: the grader runs it as ./drv-tag.sh, as the lab does (chmod +x drv-tag.sh)",
            "the script did not finish within ",
            "",
        ] {
            assert!(!is_limit_problem(other), "{other:?}");
        }
    }

    #[test]
    fn refusals_are_recognised_from_what_programs_print() {
        assert!(says_memory_was_refused(b"tail: memory exhausted\n"));
        assert!(says_memory_was_refused(
            b"bash: xmalloc: cannot allocate 536870912 bytes"
        ));
        assert!(says_memory_was_refused(
            b"fatal error: runtime: out of memory\n"
        ));
        assert!(says_memory_was_refused(
            b"fatal error: failed to reserve page summary memory\n"
        ));
        assert!(!says_memory_was_refused(b"Error from server (NotFound)\n"));
        assert!(says_fork_was_refused(
            b"./bomb.sh: fork: retry: Resource temporarily unavailable\n"
        ));
        assert!(!says_fork_was_refused(
            b"Resource temporarily unavailable\n"
        ));
    }

    #[test]
    fn sizes_and_durations_read_like_the_scenario() {
        assert_eq!(human_bytes(1 << 20), "1 MiB");
        assert_eq!(human_bytes(1000), "1000 bytes");
        assert_eq!(human_bytes(3 << 30), "3 GiB");
        assert_eq!(human_duration(Duration::from_millis(700)), "700ms");
        assert_eq!(human_duration(Duration::from_secs(30)), "30s");
    }
}
