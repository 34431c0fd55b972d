//! Watches a started run: reads stdout and stderr concurrently under a shared byte cap, enforces the
//! timeout, and has everything the run started killed when it ends, whichever way it ends.

use super::{Awaited, Cutoff, CutoffLimit, Limits};
use nix::sys::wait::{waitid, Id, WaitPidFlag};
use nix::unistd::Pid;
use std::io::Read;
use std::process::Child;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long to wait for the output pipes to close once every process of the run has been killed.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// How often a run with a [`Cutoff`] looks whether its owner has set it.
const CUTOFF_POLL: Duration = Duration::from_millis(50);

/// How often a run past its cutoff's wall time is sampled (its CPU time, whether a process of it
/// is runnable, whether what it may be waiting on is busy)...
const SAMPLE_EVERY: Duration = Duration::from_millis(250);
/// ...and for how long it must have used less than [`IDLE_CPU`], with nothing runnable and nothing
/// it waits on busy at any sample, to count as hanging. A script slowed by a loaded machine waits
/// for a CPU (runnable) or for the API server (busy); one that sleeps, reads a pipe nobody writes
/// or waits on a condition that never comes is idle for good.
const IDLE_WINDOW: Duration = Duration::from_secs(3);
const IDLE_CPU: Duration = Duration::from_millis(30);

/// A run still going at this multiple of its timeout is stopped whatever it does: the bound on
/// one that never sits idle for long but never spins either (a loop that sleeps and polls). An
/// honest script uses a small part of its timeout, so only a machine slowed more than this many
/// times over turns its verdict.
pub(crate) const TIMEOUT_CEILING: u32 = 10;

pub(crate) enum Ended {
    Exited(std::process::ExitStatus),
    /// Stopped at this time limit (the timeout, or a shorter cutoff).
    TimedOut(Duration),
    OutputLimit,
}

pub(crate) struct Captured {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub ended: Ended,
    pub problems: Vec<String>,
    /// CPU time of the run's leader and the children it reaped.
    pub cpu: Duration,
}

enum Event {
    /// The child exited (not yet reaped, so its pid and process group id cannot be reused).
    Exited,
    Eof,
    OverLimit,
}

/// Supervises `child` (which leads its own session) to the end, stopping it past its wall time
/// (the timeout, or a shorter cutoff) once it sits idle, or once it has used more than its CPU
/// time. `kill_everything(pid)` must kill the child's process group and every other process of
/// the run; it is called once, right after the child exits or the run is stopped, and again if
/// the pipes stay open.
pub(crate) fn supervise(
    mut child: Child,
    limits: &Limits,
    cutoff: Option<&Cutoff>,
    awaited: Option<&Awaited>,
    kill_everything: &mut dyn FnMut(i32),
) -> Captured {
    let start = Instant::now();
    let pid = child.id() as i32;
    let (tx, rx) = mpsc::channel::<Event>();
    let used = Arc::new(AtomicUsize::new(0));
    let stdout = Arc::new(Mutex::new(Vec::new()));
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let mut problems = Vec::new();
    let mut readers: Vec<JoinHandle<()>> = Vec::new();
    if let Some(pipe) = child.stdout.take() {
        readers.extend(spawn_reader(
            pipe,
            stdout.clone(),
            used.clone(),
            limits.output_bytes,
            tx.clone(),
        ));
    }
    if let Some(pipe) = child.stderr.take() {
        readers.extend(spawn_reader(
            pipe,
            stderr.clone(),
            used.clone(),
            limits.output_bytes,
            tx.clone(),
        ));
    }
    let waiter_tx = tx;
    let waiter = std::thread::Builder::new()
        .name("sandbox-wait".into())
        .spawn(move || {
            // WNOWAIT: leave the child unreaped, so its pid (and process group id) stays reserved until
            // everything it started has been killed.
            while let Err(nix::errno::Errno::EINTR) = waitid(
                Id::Pid(Pid::from_raw(pid)),
                WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT,
            ) {}
            let _ = waiter_tx.send(Event::Exited);
        });
    if waiter.is_err() {
        problems.push("could not start a thread to watch the script; it was stopped".to_string());
    }

    // The scenario's timeout is a limit of the same kind as a cutoff: a run slowed by a loaded
    // machine past it keeps going while it works and stays within its CPU time.
    let own = CutoffLimit {
        wall: limits.timeout,
        cpu: limits.timeout,
    };
    let limit = || match cutoff.and_then(Cutoff::get) {
        Some(cut) => CutoffLimit {
            wall: cut.wall.min(own.wall),
            cpu: cut.cpu.min(own.cpu),
        },
        None => own,
    };
    let ceiling = limits.timeout * TIMEOUT_CEILING;
    let mut eofs = 0;
    let mut ended: Option<Ended> = None;
    let mut exited = false;
    let mut samples = Samples::default();
    while waiter.is_ok() {
        let now = Instant::now();
        let elapsed = now - start;
        let limit = limit();
        if elapsed >= ceiling {
            ended = Some(Ended::TimedOut(limit.wall));
            break;
        }
        // Sampled from a window before the wall time on, so that a run idle since then is
        // stopped right at it.
        let sampling = elapsed + IDLE_WINDOW >= limit.wall;
        if sampling && samples.due(now) {
            let session = super::cpu::of_session(pid);
            let waiting = session.runnable || awaited.is_some_and(Awaited::busy);
            samples.push(now, session.cpu, waiting);
            if (samples.idle(now) && elapsed >= limit.wall) || session.cpu > limit.cpu {
                ended = Some(Ended::TimedOut(limit.wall));
                break;
            }
        }
        // A cutoff may be set at any moment; otherwise nothing changes before the sampling starts.
        let wait = if sampling || cutoff.is_some() {
            CUTOFF_POLL
        } else {
            limit
                .wall
                .saturating_sub(IDLE_WINDOW)
                .saturating_sub(elapsed)
        };
        let wait = wait.min(ceiling - elapsed);
        match rx.recv_timeout(wait) {
            Ok(Event::Exited) => {
                exited = true;
                break;
            }
            Ok(Event::OverLimit) => {
                ended = Some(Ended::OutputLimit);
                // The reader that went over stops reading: it is done, like one at its end.
                eofs += 1;
                break;
            }
            Ok(Event::Eof) => eofs += 1,
            // The deadline (or a poll for the cutoff): looked at again at the top.
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }

    // The leader is a zombie now if it exited: what it and its reaped children used is readable.
    // A run stopped while going has its last sample, taken over its whole session.
    let sampled = samples.last_cpu();
    let cpu = super::cpu::of_process(pid).max(sampled);
    kill_everything(pid);
    let status = child.wait();
    if !exited {
        // The waiter returns now that the child is gone.
        while let Ok(event) = rx.recv_timeout(Duration::from_millis(200)) {
            match event {
                Event::Exited => break,
                Event::Eof | Event::OverLimit => eofs += 1,
            }
        }
    }

    // Whatever the script wrote before it ended is still in the pipes: read it to the end.
    let drain_until = Instant::now() + DRAIN_GRACE;
    let mut retried_kill = false;
    while eofs < readers.len() {
        let now = Instant::now();
        if now >= drain_until {
            if !retried_kill {
                retried_kill = true;
                kill_everything(pid);
                continue;
            }
            problems.push(
                "a background process kept the script's output open after it ended and could not be stopped"
                    .to_string(),
            );
            break;
        }
        match rx.recv_timeout(drain_until - now) {
            Ok(Event::Eof) => eofs += 1,
            Ok(Event::OverLimit) => {
                if ended.is_none() {
                    ended = Some(Ended::OutputLimit);
                }
                eofs += 1;
            }
            Ok(Event::Exited) => {}
            Err(_) => {}
        }
    }
    for reader in readers {
        if reader.is_finished() {
            let _ = reader.join();
        }
    }

    let ended = match (ended, status) {
        (Some(ended), _) => ended,
        (None, Ok(status)) => Ended::Exited(status),
        (None, Err(e)) => {
            problems.push(format!("could not collect the script's exit status: {e}"));
            Ended::TimedOut(limits.timeout)
        }
    };
    Captured {
        stdout: take(&stdout),
        stderr: take(&stderr),
        ended,
        problems,
        cpu,
    }
}

/// One sample of a run (see [`SAMPLE_EVERY`]).
struct Sample {
    at: Instant,
    cpu: Duration,
    /// A process of the run was runnable, or what it may be waiting on was busy.
    waiting: bool,
}

/// The samples of the last [`IDLE_WINDOW`], and the one just before it, the oldest first.
#[derive(Default)]
struct Samples(std::collections::VecDeque<Sample>);

impl Samples {
    fn due(&self, now: Instant) -> bool {
        self.0
            .back()
            .is_none_or(|last| now - last.at >= SAMPLE_EVERY)
    }

    fn push(&mut self, at: Instant, cpu: Duration, waiting: bool) {
        self.0.push_back(Sample { at, cpu, waiting });
        while self.0.len() > 1 && at - self.0[1].at >= IDLE_WINDOW {
            self.0.pop_front();
        }
    }

    /// Has the run sat idle for the whole window: next to no CPU used, nothing runnable, nothing
    /// it waits on busy?
    fn idle(&self, now: Instant) -> bool {
        let (Some(first), Some(last)) = (self.0.front(), self.0.back()) else {
            return false;
        };
        now - first.at >= IDLE_WINDOW
            && last.cpu.saturating_sub(first.cpu) < IDLE_CPU
            && !self.0.iter().any(|sample| sample.waiting)
    }

    /// The CPU time of the whole session at the last sample.
    fn last_cpu(&self) -> Duration {
        self.0.back().map_or(Duration::ZERO, |last| last.cpu)
    }
}

fn take(buffer: &Arc<Mutex<Vec<u8>>>) -> Vec<u8> {
    let mut guard = buffer
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    std::mem::take(&mut *guard)
}

/// Reads `pipe` into `buffer` while the run's total (`used`, shared by stdout and stderr) stays
/// within `cap`; on going over, keeps what fits, reports and stops reading (the run is then killed).
fn spawn_reader(
    mut pipe: impl Read + Send + 'static,
    buffer: Arc<Mutex<Vec<u8>>>,
    used: Arc<AtomicUsize>,
    cap: usize,
    tx: Sender<Event>,
) -> Option<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("sandbox-output".into())
        .spawn(move || {
            let mut chunk = vec![0u8; 64 * 1024];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => {
                        let _ = tx.send(Event::Eof);
                        return;
                    }
                    Ok(n) => {
                        let before = used.fetch_add(n, Ordering::SeqCst);
                        let keep = n.min(cap.saturating_sub(before));
                        if keep > 0 {
                            let mut guard = buffer
                                .lock()
                                .unwrap_or_else(|poisoned| poisoned.into_inner());
                            guard.extend_from_slice(&chunk[..keep]);
                        }
                        if before + n > cap {
                            let _ = tx.send(Event::OverLimit);
                            return;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => {
                        let _ = tx.send(Event::Eof);
                        return;
                    }
                }
            }
        })
        .ok()
}
