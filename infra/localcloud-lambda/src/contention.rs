//! This machine's contention in one invocation: the time the invocation
//! waited for a core beyond what its CPU quota held back, within its window
//! (from the event handed to the runtime to its answer). On AWS the
//! environment has its share to itself and the services it calls run
//! elsewhere; here the environment's threads and the local cloud's (which
//! serve its Runtime API and every call it makes) compete with other
//! environments, the load generator and whatever else runs for a few
//! cores, so the measured duration holds waits AWS would not bill.
//!
//! Per window, from the run-queue waits of each thread
//! (`/proc/<pid>/task/<tid>/schedstat`, second field) at both ends
//! ([`invocation_contention_ms`]):
//! - the environment's part: the largest growth of one of its threads'
//!   waits, less the growth of its group's throttled time (`cpu.stat`),
//!   clamped to [0, the window]. The largest and not the sum: two threads
//!   waiting at the same moment delay the invocation once, and a worker
//!   woken to steal work waits without delaying anything. The largest
//!   thread's wait counts no moment twice, so it is at most the time during
//!   which at least one thread waited, itself at most the window; it is the
//!   whole delay when the invocation's work waited on one thread (a request
//!   served as one task, as Rust runtimes do), less where it waited on
//!   several threads in turn. The throttled time is subtracted whole: a
//!   thread's waits for its throttled group lie within the group's
//!   throttled time on that core, and `cpu.stat` adds up the cores, so the
//!   difference is at most the largest thread's wait for other reasons.
//!   This part is a lower bound of the time some thread of the environment
//!   waited for a reason other than its quota.
//! - the local cloud's part: the largest growth of one of the local cloud's
//!   own threads' waits, at most the time the function was blocked on a
//!   reply (the window less its CPU time, its own part and its throttled
//!   time): a local cloud thread that waits for a core delays an invocation
//!   only while the function waits for that thread's answer. It is at most
//!   what the local cloud's waits could have delayed the invocation by, and
//!   more than they did where they delayed another invocation's calls
//!   instead (under concurrent load).
//!
//! The sum never exceeds the window.

use std::path::Path;
use std::sync::OnceLock;

use localcloud_core::procstat::{CpuReading, ThreadReader, ThreadWait};
use parking_lot::Mutex;

use crate::cpu_share::ThrottleReader;

/// The largest growth of one thread's run-queue wait from `start` to `end`,
/// in ms: a thread new at `end` counts from zero, one gone is left out
/// (what it waited is not known), a lower figure under a known id (a new
/// thread under a reused id) counts nothing.
pub fn largest_wait_ms(start: &[ThreadWait], end: &[ThreadWait]) -> f64 {
    end.iter()
        .map(|now| {
            let before = start
                .iter()
                .find(|s| s.tid == now.tid)
                .map_or(0.0, |s| s.ms);
            now.ms - before
        })
        .fold(0.0, f64::max)
}

/// What one window's two readings found.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WindowWaits {
    /// [`largest_wait_ms`] of the environment's threads.
    pub environment_ms: f64,
    /// Growth of the environment group's throttled time (0 without a group).
    pub throttled_ms: f64,
    /// [`largest_wait_ms`] of the local cloud's threads (0 if unread).
    pub local_cloud_ms: f64,
}

/// The contention of an invocation whose window took `wall_ms` of which its
/// environment's process used `cpu_ms` of CPU (`None`: unknown, the local
/// cloud's part is then left out), clamped to `[0, wall_ms]`: the
/// environment's part plus the local cloud's (the module's docs).
pub fn invocation_contention_ms(waits: WindowWaits, wall_ms: f64, cpu_ms: Option<f64>) -> f64 {
    let wall_ms = wall_ms.max(0.0);
    let throttled = waits.throttled_ms.max(0.0);
    let environment = (waits.environment_ms - throttled).clamp(0.0, wall_ms);
    let blocked = cpu_ms.map_or(0.0, |cpu| {
        (wall_ms - cpu.max(0.0) - environment - throttled).max(0.0)
    });
    let local_cloud = waits.local_cloud_ms.clamp(0.0, blocked);
    (environment + local_cloud).min(wall_ms)
}

/// The local cloud's own threads, read through files kept open and shared
/// by every environment (`None` where this process's threads cannot be read).
fn local_cloud() -> Option<&'static Mutex<ThreadReader>> {
    static OWN: OnceLock<Option<Mutex<ThreadReader>>> = OnceLock::new();
    OWN.get_or_init(|| ThreadReader::open(std::process::id()).map(Mutex::new))
        .as_ref()
}

/// Reads one environment's threads and group, and the local cloud's
/// threads, at both ends of each invocation, through files kept open.
pub struct ContentionProbe {
    threads: ThreadReader,
    throttles: Option<ThrottleReader>,
    start: Vec<ThreadWait>,
    start_throttled_ms: f64,
    /// The latest reading of the waits: every live thread's so far.
    latest: Vec<ThreadWait>,
    latest_throttled_ms: Option<f64>,
    local_start: Vec<ThreadWait>,
    local_end: Vec<ThreadWait>,
    local_read: bool,
    open_window: bool,
}

impl ContentionProbe {
    /// `None` if the process is gone; `cpu_stat` is its group's, if any.
    pub fn open(pid: u32, cpu_stat: Option<&Path>) -> Option<Self> {
        Some(Self {
            threads: ThreadReader::open(pid)?,
            throttles: cpu_stat.and_then(ThrottleReader::open),
            start: Vec::new(),
            start_throttled_ms: 0.0,
            latest: Vec::new(),
            latest_throttled_ms: None,
            local_start: Vec::new(),
            local_end: Vec::new(),
            local_read: false,
            open_window: false,
        })
    }

    /// The window opens: the event is about to be handed to the runtime.
    pub fn begin(&mut self) {
        self.open_window = self.read();
        if self.open_window {
            std::mem::swap(&mut self.start, &mut self.latest);
            self.start_throttled_ms = self.latest_throttled_ms.unwrap_or(0.0);
            self.local_read = read_local_cloud(&mut self.local_start);
        }
    }

    /// The window closes: what its threads waited, `None` if the
    /// environment could not be read at either end.
    pub fn end(&mut self) -> Option<WindowWaits> {
        if !std::mem::take(&mut self.open_window) || !self.read() {
            return None;
        }
        let local_cloud_ms = if self.local_read && read_local_cloud(&mut self.local_end) {
            largest_wait_ms(&self.local_start, &self.local_end)
        } else {
            0.0
        };
        Some(WindowWaits {
            environment_ms: largest_wait_ms(&self.start, &self.latest),
            throttled_ms: self.latest_throttled_ms.unwrap_or(0.0) - self.start_throttled_ms,
            local_cloud_ms,
        })
    }

    /// The process's CPU by thread, and its group's throttled time, for the
    /// function's CPU account: through the same held files.
    pub fn read_cpu(&mut self) -> Option<(CpuReading, Option<f64>)> {
        let reading = self.threads.read_cpu()?;
        Some((
            reading,
            self.throttles.as_mut().and_then(ThrottleReader::read_ms),
        ))
    }

    fn read(&mut self) -> bool {
        self.latest_throttled_ms = self.throttles.as_mut().and_then(ThrottleReader::read_ms);
        self.threads.read_waits(&mut self.latest)
    }
}

fn read_local_cloud(out: &mut Vec<ThreadWait>) -> bool {
    local_cloud().is_some_and(|own| own.lock().read_waits(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waits(w: &[(u32, f64)]) -> Vec<ThreadWait> {
        w.iter().map(|&(tid, ms)| ThreadWait { tid, ms }).collect()
    }

    fn environment(waited: f64, throttled: f64) -> WindowWaits {
        WindowWaits {
            environment_ms: waited,
            throttled_ms: throttled,
            local_cloud_ms: 0.0,
        }
    }

    #[test]
    fn threads_waiting_at_once_count_once_not_added_up() {
        // GIVEN two threads that each waited 3 ms and 2 ms in the window
        let start = waits(&[(1, 10.0), (2, 20.0)]);
        let end = waits(&[(1, 13.0), (2, 22.0)]);
        // WHEN the window's wait is taken
        // THEN it is the larger wait, not their 5 ms sum
        assert_eq!(largest_wait_ms(&start, &end), 3.0);
    }

    #[test]
    fn the_quota_s_hold_backs_are_not_contention() {
        // GIVEN a thread that waited 8 ms while its group was throttled 6 ms
        // THEN 2 ms were this machine's; throttling beyond the wait is 0, not less
        assert_eq!(
            invocation_contention_ms(environment(8.0, 6.0), 100.0, Some(1.0)),
            2.0
        );
        assert_eq!(
            invocation_contention_ms(environment(8.0, 20.0), 100.0, Some(1.0)),
            0.0
        );
    }

    #[test]
    fn contention_never_exceeds_the_invocation_s_duration() {
        let waits = WindowWaits {
            environment_ms: 8.0,
            throttled_ms: 0.0,
            local_cloud_ms: 8.0,
        };
        assert_eq!(invocation_contention_ms(waits, 5.0, Some(0.0)), 5.0);
        assert_eq!(invocation_contention_ms(waits, -1.0, Some(0.0)), 0.0);
    }

    #[test]
    fn the_local_cloud_s_waits_count_only_while_the_function_was_blocked_on_it() {
        // GIVEN a 10 ms window with 4 ms of the function's CPU, 1 ms of its
        // threads' wait: 5 ms blocked on replies
        let waits = |local_cloud_ms| WindowWaits {
            environment_ms: 1.0,
            throttled_ms: 0.0,
            local_cloud_ms,
        };
        // WHEN the local cloud's threads waited 3 ms, THEN all 3 count
        assert_eq!(invocation_contention_ms(waits(3.0), 10.0, Some(4.0)), 4.0);
        // WHEN they waited 7 ms, THEN only the 5 ms the function was blocked
        assert_eq!(invocation_contention_ms(waits(7.0), 10.0, Some(4.0)), 6.0);
        // AND with the function's CPU unknown, none of them
        assert_eq!(invocation_contention_ms(waits(7.0), 10.0, None), 1.0);
        // AND time held back by the quota is not time blocked on a reply
        let throttled = WindowWaits {
            throttled_ms: 5.0,
            ..waits(7.0)
        };
        assert_eq!(invocation_contention_ms(throttled, 10.0, Some(4.0)), 1.0);
    }

    #[test]
    fn a_thread_born_in_the_window_counts_from_zero_and_a_reused_id_never_lowers() {
        // GIVEN thread 3 born in the window (4 ms waited), thread 2's id
        // reused by a new thread with less wait than the old one had
        let start = waits(&[(1, 1.0), (2, 50.0)]);
        let end = waits(&[(1, 2.0), (2, 0.5), (3, 4.0)]);
        // THEN the newborn's wait counts whole, the reused id adds nothing
        assert_eq!(largest_wait_ms(&start, &end), 4.0);
        // AND a window with no thread read is no wait
        assert_eq!(largest_wait_ms(&start, &[]), 0.0);
    }

    #[test]
    fn a_live_process_s_window_is_read_and_an_unopened_one_is_none() {
        // GIVEN this test process, probed without a group
        let mut probe = ContentionProbe::open(std::process::id(), None).expect("own process");
        // WHEN a window closes that was never opened
        // THEN it says nothing
        assert_eq!(probe.end(), None);
        // AND a window opened and closed has readings of both processes
        probe.begin();
        let waits = probe.end().expect("read at both ends");
        assert!(
            waits.environment_ms >= 0.0 && waits.local_cloud_ms >= 0.0,
            "{waits:?}"
        );
        assert_eq!(waits.throttled_ms, 0.0);
        let (reading, throttled) = probe.read_cpu().expect("own process");
        let pid = std::process::id();
        assert!(reading.run_queue_waits.iter().any(|t| t.tid == pid));
        assert_eq!(throttled, None);
    }
}
