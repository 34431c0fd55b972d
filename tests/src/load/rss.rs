//! Resident memory of the test process (server, controllers and the test's own clients), sampled
//! once a second from `/proc/self/status`.
//!
//! Flatness rule: over the load window, split the samples into quarters; the first quarter is
//! warm-up (connections, caches, allocator arenas), and the mean of the last quarter must stay
//! within +25% of the mean of the second.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How much the last quarter's mean may exceed the second quarter's.
pub const GROWTH_ALLOWED: f64 = 0.25;

/// `VmRSS` in KiB.
pub fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A background thread (independent of the busy runtime) recording RSS once a second.
pub struct Sampler {
    origin: Instant,
    samples: Arc<Mutex<Vec<(Duration, u64)>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Sampler {
    pub fn start(period: Duration) -> Self {
        let origin = Instant::now();
        let samples = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let samples = samples.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Some(kib) = rss_kib() {
                        samples
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((origin.elapsed(), kib));
                    }
                    let next = Instant::now() + period;
                    while Instant::now() < next && !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
            })
        };
        Self {
            origin,
            samples,
            stop,
            thread: Some(thread),
        }
    }

    /// Take a sample now (a load window's edge) and return its time.
    pub fn mark(&self) -> Duration {
        let t = self.origin.elapsed();
        if let Some(kib) = rss_kib() {
            let mut samples = self.samples.lock().unwrap_or_else(|e| e.into_inner());
            samples.push((t, kib));
            samples.sort_by_key(|(t, _)| *t);
        }
        t
    }

    pub fn stop(mut self) -> Vec<(Duration, u64)> {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let mut s = self
            .samples
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(kib) = rss_kib() {
            s.push((self.origin.elapsed(), kib));
        }
        s
    }
}

/// The RSS figures of a run, in KiB.
#[derive(Debug, Clone, Default)]
pub struct RssFigures {
    /// Before the cluster started.
    pub before: u64,
    /// When the load started.
    pub load_start: u64,
    pub peak: u64,
    /// When the load ended.
    pub load_end: u64,
    /// At the very end (after draining and the final lists).
    pub end: u64,
    pub q2_mean: f64,
    pub q4_mean: f64,
    pub load_samples: usize,
}

impl RssFigures {
    pub fn from_samples(samples: &[(Duration, u64)], load: (Duration, Duration)) -> Self {
        let at = |t: Duration| {
            samples
                .iter()
                .min_by_key(|(s, _)| s.abs_diff(t))
                .map_or(0, |(_, k)| *k)
        };
        let window: Vec<u64> = samples
            .iter()
            .filter(|(t, _)| *t >= load.0 && *t <= load.1)
            .map(|(_, k)| *k)
            .collect();
        let quarter = |q: usize| {
            let n = window.len();
            let part = &window[n * q / 4..n * (q + 1) / 4];
            if part.is_empty() {
                0.0
            } else {
                part.iter().sum::<u64>() as f64 / part.len() as f64
            }
        };
        Self {
            before: samples.first().map_or(0, |(_, k)| *k),
            load_start: at(load.0),
            peak: samples.iter().map(|(_, k)| *k).max().unwrap_or(0),
            load_end: at(load.1),
            end: samples.last().map_or(0, |(_, k)| *k),
            q2_mean: quarter(1),
            q4_mean: quarter(3),
            load_samples: window.len(),
        }
    }

    /// The flatness rule; `None` when the window is too short to judge (fewer than 8 samples).
    pub fn flat(&self) -> Option<bool> {
        if self.load_samples < 8 || self.q2_mean == 0.0 {
            return None;
        }
        Some(self.q4_mean <= self.q2_mean * (1.0 + GROWTH_ALLOWED))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(values: &[u64]) -> Vec<(Duration, u64)> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (Duration::from_secs(i as u64), *v))
            .collect()
    }

    #[test]
    fn reads_our_own_rss() {
        assert!(rss_kib().is_some_and(|k| k > 0));
    }

    #[test]
    fn growth_after_warm_up_is_judged_on_quarters() {
        let window = (Duration::ZERO, Duration::from_secs(7));
        let flat =
            RssFigures::from_samples(&series(&[50, 100, 100, 102, 101, 103, 104, 110]), window);
        assert_eq!((flat.q2_mean, flat.q4_mean), (101.0, 107.0));
        assert_eq!(flat.flat(), Some(true));
        let leaking =
            RssFigures::from_samples(&series(&[50, 100, 100, 110, 120, 130, 140, 150]), window);
        assert_eq!(leaking.flat(), Some(false));
        assert_eq!(leaking.peak, 150);
        let short = RssFigures::from_samples(&series(&[1, 2, 3]), window);
        assert_eq!(short.flat(), None);
    }
}
