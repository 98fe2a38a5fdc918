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
//!   own threads' waits less the function's CPU time in the window, at most
//!   the time the function was blocked on a reply (the window less its CPU
//!   time, its own part and its throttled time): a local cloud thread that
//!   waits for a core delays an invocation only while the function waits
//!   for that thread's answer, and while the function ran the local cloud
//!   may have waited behind it on its core (under `SCHED_BATCH` it does:
//!   the `scheduling` module). It is at most
//!   what the local cloud's waits could have delayed the invocation by, and
//!   more than they did where they delayed another invocation's calls
//!   instead (under concurrent load).
//!
//! The sum never exceeds the window.
//!
//! Part of each thread's wait is not other work at all: a thread woken on
//! an idle core waits for that core to come out of its idle state (on the
//! 2-core VMs this project runs on, 100-150 µs per wake-up against a few µs
//! when the cores are busy). That is this machine's wait too, taken out of
//! the durations as AWS would bill them, but it is not contention: each
//! side's *contention* counts only what a thread waited beyond its time
//! slices' wake-ups at [`wake_up_floor_ms`] each ([`ThreadsWaits`]), and the
//! rest of the side's wait is its *wake-up*. With every core busy, a woken
//! thread preempts at once and what it waits is the other work's; on an idle
//! machine most of what remains is threads queued behind each other on one
//! core (docs/cpu-share.md, "Contention is not quota").

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Once, OnceLock};

use localcloud_core::procstat::{CpuReading, ThreadReader, ThreadWait};
use parking_lot::Mutex;

use crate::cpu_share::ThrottleReader;

/// One side's threads' waits in a window (see the module's docs).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ThreadsWaits {
    /// The largest growth of one thread's run-queue wait: a thread new at
    /// the end counts from zero, one gone is left out (what it waited is not
    /// known), a lower figure under a known id (a new thread under a reused
    /// id) counts nothing.
    pub waited_ms: f64,
    /// The largest growth of one thread's wait beyond its slices' wake-ups:
    /// `wait - slices x floor`, at least 0.
    pub beyond_wake_ups_ms: f64,
}

/// [`ThreadsWaits`] from two readings, each slice begun in the window
/// allowed `wake_up_floor_ms` of wake-up.
pub fn largest_waits(
    start: &[ThreadWait],
    end: &[ThreadWait],
    wake_up_floor_ms: f64,
) -> ThreadsWaits {
    end.iter()
        .map(|now| {
            let (ms, slices) = match start.iter().find(|s| s.tid == now.tid) {
                // A reused id: the new thread's figures are below the old one's.
                Some(s) if now.ms < s.ms || now.slices < s.slices => (0.0, 0),
                Some(s) => (now.ms - s.ms, now.slices - s.slices),
                None => (now.ms, now.slices),
            };
            let beyond = (ms - slices as f64 * wake_up_floor_ms).max(0.0);
            (ms, beyond)
        })
        .fold(ThreadsWaits::default(), |acc, (ms, beyond)| ThreadsWaits {
            waited_ms: acc.waited_ms.max(ms),
            beyond_wake_ups_ms: acc.beyond_wake_ups_ms.max(beyond),
        })
}

/// What one window's two readings found.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WindowWaits {
    /// The environment's threads.
    pub environment: ThreadsWaits,
    /// Growth of the environment group's throttled time (0 without a group).
    pub throttled_ms: f64,
    /// The local cloud's threads (0 if unread).
    pub local_cloud: ThreadsWaits,
}

/// An invocation's waits that were this machine's and not AWS's.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MachineWaits {
    /// Waits for cores busy with other work.
    pub contention_ms: f64,
    /// The rest: waits for idle cores to wake up.
    pub wake_up_ms: f64,
}

/// The machine's waits in an invocation whose window took `wall_ms` of which
/// its environment's process used `cpu_ms` of CPU (`None`: unknown, the
/// local cloud's part is then left out): the environment's part plus the
/// local cloud's (the module's docs), in all at most `wall_ms`, each split
/// into contention and wake-up.
pub fn invocation_waits(waits: WindowWaits, wall_ms: f64, cpu_ms: Option<f64>) -> MachineWaits {
    let wall_ms = wall_ms.max(0.0);
    let throttled = waits.throttled_ms.max(0.0);
    let environment = (waits.environment.waited_ms - throttled).clamp(0.0, wall_ms);
    let environment_contention =
        (waits.environment.beyond_wake_ups_ms - throttled).clamp(0.0, environment);
    let cpu = cpu_ms.unwrap_or(0.0).max(0.0);
    let blocked = cpu_ms.map_or(0.0, |_| (wall_ms - cpu - environment - throttled).max(0.0));
    // While the function's threads ran, a local cloud thread waiting for a
    // core (often queued behind that very function on its core) delayed
    // nothing of this invocation: up to the function's CPU time of the
    // local cloud's wait is left out.
    let local_cloud = (waits.local_cloud.waited_ms - cpu).clamp(0.0, blocked);
    let local_cloud_contention =
        (waits.local_cloud.beyond_wake_ups_ms - cpu).clamp(0.0, local_cloud);
    let total = (environment + local_cloud).min(wall_ms);
    let contention = (environment_contention + local_cloud_contention).min(total);
    MachineWaits {
        contention_ms: contention,
        wake_up_ms: total - contention,
    }
}

/// The wait of one wake-up on an idle core on this machine, in ms: the 90th
/// percentile of a ping-pong between two threads of the local cloud, measured
/// once in the background when the first probe opens; 0 (every wait is
/// contention) until then or where it cannot be measured.
pub fn wake_up_floor_ms() -> f64 {
    static FLOOR_BITS: AtomicU64 = AtomicU64::new(0);
    static MEASURE: Once = Once::new();
    MEASURE.call_once(|| {
        let _ = std::thread::Builder::new()
            .name("wake-up-floor".into())
            .spawn(|| {
                if let Some(ms) = measure_wake_up_ms() {
                    FLOOR_BITS.store(ms.to_bits(), Ordering::Relaxed);
                }
            });
    });
    f64::from_bits(FLOOR_BITS.load(Ordering::Relaxed))
}

/// Wake-ups measured: a thread woken 120 times after pauses of 0.5 to 3 ms,
/// each wake-up's wait per slice from its own `schedstat`; the 90th
/// percentile of the last 100 (the first ones warm the threads up).
fn measure_wake_up_ms() -> Option<f64> {
    use std::sync::mpsc;
    let (wake, woken) = mpsc::channel::<()>();
    let (report, reports) = mpsc::channel::<Option<(f64, u64)>>();
    let sleeper = std::thread::Builder::new()
        .name("wake-up-probe".into())
        .spawn(move || {
            let own = || {
                std::fs::read_to_string("/proc/thread-self/schedstat")
                    .ok()
                    .as_deref()
                    .and_then(localcloud_core::procstat::parse_run_queue_wait)
            };
            while woken.recv().is_ok() {
                if report.send(own()).is_err() {
                    break;
                }
            }
        })
        .ok()?;
    let mut last = None;
    let mut per_wake_up = Vec::new();
    for i in 0..120u64 {
        std::thread::sleep(std::time::Duration::from_micros(500 + (i % 6) * 500));
        wake.send(()).ok()?;
        let now = reports.recv().ok()??;
        if let Some((ms, slices)) = last {
            let slices = now.1.saturating_sub(slices);
            if i >= 20 && slices > 0 {
                per_wake_up.push((now.0 - ms) / slices as f64);
            }
        }
        last = Some(now);
    }
    drop(wake);
    let _ = sleeper.join();
    percentile_90(per_wake_up)
}

fn percentile_90(mut samples: Vec<f64>) -> Option<f64> {
    samples.sort_by(f64::total_cmp);
    let at = (samples.len() * 9 / 10).min(samples.len().checked_sub(1)?);
    samples.get(at).copied()
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
        // Starts the floor's measurement, in the background, at the first probe.
        wake_up_floor_ms();
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
        let floor = wake_up_floor_ms();
        let local_cloud = if self.local_read && read_local_cloud(&mut self.local_end) {
            largest_waits(&self.local_start, &self.local_end, floor)
        } else {
            ThreadsWaits::default()
        };
        Some(WindowWaits {
            environment: largest_waits(&self.start, &self.latest, floor),
            throttled_ms: self.latest_throttled_ms.unwrap_or(0.0) - self.start_throttled_ms,
            local_cloud,
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

    fn largest_wait_ms(start: &[ThreadWait], end: &[ThreadWait]) -> f64 {
        largest_waits(start, end, 0.0).waited_ms
    }

    fn total_ms(waits: MachineWaits) -> f64 {
        waits.contention_ms + waits.wake_up_ms
    }

    fn waits(w: &[(u32, f64)]) -> Vec<ThreadWait> {
        w.iter()
            .map(|&(tid, ms)| ThreadWait { tid, ms, slices: 0 })
            .collect()
    }

    fn sliced(w: &[(u32, f64, u64)]) -> Vec<ThreadWait> {
        w.iter()
            .map(|&(tid, ms, slices)| ThreadWait { tid, ms, slices })
            .collect()
    }

    /// A side whose every wait was beyond its wake-ups.
    fn busy(ms: f64) -> ThreadsWaits {
        ThreadsWaits {
            waited_ms: ms,
            beyond_wake_ups_ms: ms,
        }
    }

    fn environment(waited: f64, throttled: f64) -> WindowWaits {
        WindowWaits {
            environment: busy(waited),
            throttled_ms: throttled,
            local_cloud: ThreadsWaits::default(),
        }
    }

    fn contention(waits: WindowWaits, wall_ms: f64, cpu_ms: Option<f64>) -> f64 {
        invocation_waits(waits, wall_ms, cpu_ms).contention_ms
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
    fn waits_within_the_slices_wake_ups_are_not_contention() {
        // GIVEN a 0.15 ms wake-up floor; thread 1 ran 4 slices and waited
        // 0.5 ms (wake-ups on idle cores), thread 2 ran 2 slices and waited
        // 2.3 ms (1 ms once preempted by other work)
        let start = sliced(&[(1, 10.0, 100), (2, 20.0, 50)]);
        let end = sliced(&[(1, 10.5, 104), (2, 22.3, 52)]);
        let side = largest_waits(&start, &end, 0.15);
        // THEN the largest wait is 2.3 ms, of which 2.0 beyond wake-ups
        assert!((side.waited_ms - 2.3).abs() < 1e-9, "{side:?}");
        assert!((side.beyond_wake_ups_ms - 2.0).abs() < 1e-9, "{side:?}");
        // AND the thread within its wake-ups counts no contention alone
        let idle = largest_waits(&start[..1], &end[..1], 0.15);
        assert_eq!(idle.beyond_wake_ups_ms, 0.0);
        // AND the invocation's machine waits split so: 2.0 contention, 0.3 wake-up
        let window = WindowWaits {
            environment: side,
            ..WindowWaits::default()
        };
        let split = invocation_waits(window, 10.0, Some(1.0));
        assert!((split.contention_ms - 2.0).abs() < 1e-9, "{split:?}");
        assert!((split.wake_up_ms - 0.3).abs() < 1e-9, "{split:?}");
    }

    #[test]
    fn the_quota_s_hold_backs_are_neither_contention_nor_wake_ups() {
        // GIVEN a thread that waited 8 ms while its group was throttled 6 ms
        // THEN 2 ms were this machine's; throttling beyond the wait is 0, not less
        assert_eq!(contention(environment(8.0, 6.0), 100.0, Some(1.0)), 2.0);
        assert_eq!(contention(environment(8.0, 20.0), 100.0, Some(1.0)), 0.0);
        let throttled = invocation_waits(environment(8.0, 20.0), 100.0, Some(1.0));
        assert_eq!(total_ms(throttled), 0.0);
    }

    #[test]
    fn the_machine_s_waits_never_exceed_the_invocation_s_duration() {
        let waits = WindowWaits {
            environment: busy(8.0),
            throttled_ms: 0.0,
            local_cloud: busy(8.0),
        };
        assert_eq!(contention(waits, 5.0, Some(0.0)), 5.0);
        assert_eq!(contention(waits, -1.0, Some(0.0)), 0.0);
        let waking = WindowWaits {
            environment: ThreadsWaits {
                waited_ms: 8.0,
                beyond_wake_ups_ms: 1.0,
            },
            ..waits
        };
        let split = invocation_waits(waking, 5.0, Some(0.0));
        assert_eq!(total_ms(split), 5.0);
        assert_eq!(split.contention_ms, 1.0);
    }

    #[test]
    fn the_local_cloud_s_waits_count_only_while_the_function_was_blocked_on_it() {
        // GIVEN a 10 ms window with 4 ms of the function's CPU, 1 ms of its
        // threads' wait: 5 ms blocked on replies
        let waits = |local_cloud_ms| WindowWaits {
            environment: busy(1.0),
            throttled_ms: 0.0,
            local_cloud: busy(local_cloud_ms),
        };
        // WHEN the local cloud's threads waited 3 ms, no more than the
        // function ran, THEN none counts: they may have queued behind it
        assert_eq!(contention(waits(3.0), 10.0, Some(4.0)), 1.0);
        // WHEN they waited 7 ms, THEN the 3 ms beyond the function's CPU
        assert_eq!(contention(waits(7.0), 10.0, Some(4.0)), 4.0);
        // WHEN they waited 12 ms, THEN only the 5 ms the function was blocked
        assert_eq!(contention(waits(12.0), 10.0, Some(4.0)), 6.0);
        // AND with the function's CPU unknown, none of them
        assert_eq!(contention(waits(7.0), 10.0, None), 1.0);
        // AND time held back by the quota is not time blocked on a reply
        let throttled = WindowWaits {
            throttled_ms: 5.0,
            ..waits(12.0)
        };
        assert_eq!(contention(throttled, 10.0, Some(4.0)), 1.0);
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
    fn the_wake_up_floor_is_the_90th_percentile_of_its_samples() {
        let samples: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(percentile_90(samples), Some(91.0));
        assert_eq!(percentile_90(vec![0.2]), Some(0.2));
        assert_eq!(percentile_90(Vec::new()), None);
    }

    #[test]
    fn the_wake_up_floor_is_measured_on_this_machine() {
        // GIVEN this process's threads (a ping-pong of 120 wake-ups)
        let floor = measure_wake_up_ms().expect("schedstat readable");
        // THEN it is a wait (its size is this machine's and its load's)
        assert!(floor >= 0.0 && floor.is_finite(), "{floor} ms");
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
            waits.environment.waited_ms >= waits.environment.beyond_wake_ups_ms
                && waits.local_cloud.waited_ms >= waits.local_cloud.beyond_wake_ups_ms
                && waits.local_cloud.beyond_wake_ups_ms >= 0.0,
            "{waits:?}"
        );
        assert_eq!(waits.throttled_ms, 0.0);
        let (reading, throttled) = probe.read_cpu().expect("own process");
        let pid = std::process::id();
        assert!(reading.run_queue_waits.iter().any(|t| t.tid == pid));
        assert_eq!(throttled, None);
    }
}
