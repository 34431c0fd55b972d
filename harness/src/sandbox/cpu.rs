//! The CPU time a run has used, which — unlike its wall time — a loaded machine does not
//! inflate: the cutoff of a learner's run (see [`super::Cutoff`]) is judged on it, so that the
//! same script gets the same verdict on an idle machine and on one running four times as many
//! jobs as it has cores.
//!
//! A run's processes are those of its session (every sandbox starts the run as a session
//! leader). A process's own time and the time of the children it has reaped (`utime`, `stime`,
//! `cutime`, `cstime` of `/proc/<pid>/stat`) are summed over the live ones, so every tick is
//! counted once: a child's time moves into its parent's when it is reaped.

use std::time::Duration;

/// What a session's processes are doing at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sample {
    /// CPU time of the live processes and of the children they reaped.
    pub cpu: Duration,
    /// Whether one of them is running, waiting for a CPU (`R`) or for the disk (`D`): a process
    /// that a loaded machine keeps from running is not idle, though its CPU time stands still.
    pub runnable: bool,
}

/// What `session`'s processes are doing now.
pub(crate) fn of_session(session: i32) -> Sample {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Sample::default();
    };
    let (ticks, runnable) = entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(stat)
        .filter(|stat| stat.session == session)
        .fold((0, false), |(ticks, runnable), stat| {
            (
                ticks + stat.ticks,
                runnable || matches!(stat.state, 'R' | 'D'),
            )
        });
    Sample {
        cpu: from_ticks(ticks),
        runnable,
    }
}

/// The CPU time of one process and of the children it reaped; readable until it is reaped itself
/// (the supervisor leaves the run's leader a zombie until its leftovers are gone).
pub(crate) fn of_process(pid: i32) -> Duration {
    from_ticks(stat(pid).map_or(0, |stat| stat.ticks))
}

struct Stat {
    state: char,
    session: i32,
    ticks: u64,
}

fn stat(pid: i32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count from the last `)`.
    let fields: Vec<&str> = text[text.rfind(')')? + 1..].split_whitespace().collect();
    // After the name: state(3) ppid(4) pgrp(5) session(6) ... utime(14) stime(15) cutime(16)
    // cstime(17); index 0 here is field 3.
    let field = |n: usize| fields.get(n - 3).and_then(|v| v.parse::<u64>().ok());
    Some(Stat {
        state: fields.first()?.chars().next()?,
        session: fields.get(6 - 3)?.parse().ok()?,
        ticks: field(14)? + field(15)? + field(16)? + field(17)?,
    })
}

fn from_ticks(ticks: u64) -> Duration {
    static HZ: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let hz = *HZ.get_or_init(|| {
        nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
            .ok()
            .flatten()
            .and_then(|hz| u64::try_from(hz).ok())
            .filter(|hz| *hz > 0)
            .unwrap_or(100)
    });
    Duration::from_millis(ticks * 1000 / hz)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_child_is_counted_and_a_sleeping_one_is_not() {
        let mut busy = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .expect("spawn");
        let mut idle = std::process::Command::new("sleep")
            .arg("120")
            .spawn()
            .expect("spawn");
        let (busy_pid, idle_pid) = (busy.id() as i32, idle.id() as i32);
        // However loaded the machine is, the spinning child gains CPU time as it gets the CPU:
        // wait for it rather than for a fixed time.
        let deadline = std::time::Instant::now() + Duration::from_secs(100);
        let mut busy_cpu = of_process(busy_pid);
        while busy_cpu < Duration::from_millis(100) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
            busy_cpu = of_process(busy_pid);
        }
        let idle_cpu = of_process(idle_pid);
        for child in [&mut busy, &mut idle] {
            let _ = child.kill();
            let _ = child.wait();
        }
        assert!(busy_cpu >= Duration::from_millis(100), "{busy_cpu:?}");
        assert!(idle_cpu <= Duration::from_millis(50), "{idle_cpu:?}");
    }

    /// `setsid` execs in place (a spawned child leads no process group), so the child's pid
    /// names its session.
    fn session(script: &str) -> std::process::Child {
        std::process::Command::new("setsid")
            .args(["sh", "-c", script])
            .spawn()
            .expect("spawn")
    }

    #[test]
    fn a_spinning_session_is_runnable_and_a_sleeping_one_is_not() {
        let mut spinning = session("while :; do :; done");
        let mut sleeping = session("exec sleep 30");
        // A spinning process is runnable whenever it is sampled, however loaded the machine is.
        // A sleeping one is runnable while it starts: it must be seen asleep within ten seconds.
        let spin: Vec<Sample> = (0..5)
            .map(|_| {
                std::thread::sleep(Duration::from_millis(20));
                of_session(spinning.id() as i32)
            })
            .collect();
        let sleep = (0..200).find_map(|_| {
            std::thread::sleep(Duration::from_millis(50));
            Some(of_session(sleeping.id() as i32)).filter(|sample| !sample.runnable)
        });
        let _ = spinning.kill();
        let _ = sleeping.kill();
        let _ = spinning.wait();
        let _ = sleeping.wait();
        assert!(spin.iter().all(|sample| sample.runnable), "{spin:?}");
        assert!(
            sleep.is_some(),
            "the sleeping session was never seen asleep"
        );
    }
}
