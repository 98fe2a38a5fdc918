//! CPU time of one function's processes, as a whole and by thread name,
//! with the time they waited for a CPU and were held back by their quota:
//! the last reading of each live process, the final readings of exited ones,
//! and the totals at the last reset.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use localcloud_core::procstat::CpuReading;

/// CPU milliseconds of processes, in all and by named thread.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CpuTotals {
    pub ms: f64,
    /// By thread name; several threads of one name add up.
    pub threads: BTreeMap<String, f64>,
    /// Runnable but not running, summed over threads.
    pub run_queue_wait_ms: f64,
    /// Held back by the environments' CPU quotas.
    pub throttled_ms: f64,
}

impl CpuTotals {
    fn add(&mut self, other: &CpuTotals) {
        self.ms += other.ms;
        self.run_queue_wait_ms += other.run_queue_wait_ms;
        self.throttled_ms += other.throttled_ms;
        for (name, ms) in &other.threads {
            *self.threads.entry(name.clone()).or_default() += ms;
        }
    }

    /// `self - earlier`, for totals that only grow: a name of `earlier` is
    /// always in `self`.
    fn since(&self, earlier: &CpuTotals) -> CpuTotals {
        let threads = self
            .threads
            .iter()
            .map(|(name, ms)| (name.clone(), ms - earlier.threads.get(name).unwrap_or(&0.0)))
            .collect();
        CpuTotals {
            ms: self.ms - earlier.ms,
            threads,
            run_queue_wait_ms: self.run_queue_wait_ms - earlier.run_queue_wait_ms,
            throttled_ms: self.throttled_ms - earlier.throttled_ms,
        }
    }
}

/// Reads a process's throttled time (its group's `cpu.stat`).
pub type ThrottleSource = Option<PathBuf>;

#[derive(Default)]
pub struct CpuAccount {
    live: HashMap<u32, ProcessCpu>,
    exited: CpuTotals,
    baseline: CpuTotals,
}

impl CpuAccount {
    /// A new process; `throttles` is its group's `cpu.stat`, if it has one.
    pub fn started(&mut self, pid: u32, throttles: ThrottleSource) {
        self.live.insert(
            pid,
            ProcessCpu {
                throttle_source: throttles,
                ..ProcessCpu::default()
            },
        );
    }

    /// Takes a reading of a live process.
    #[cfg(test)]
    pub fn record(&mut self, pid: u32, reading: &CpuReading) {
        self.live.entry(pid).or_default().record(reading, None);
    }

    /// Takes a reading of a live process whose group's throttled time was
    /// read with it (`None`: read it from the group's `cpu.stat`).
    pub fn record_throttled(&mut self, pid: u32, reading: &CpuReading, throttled_ms: Option<f64>) {
        self.live
            .entry(pid)
            .or_default()
            .record(reading, throttled_ms);
    }

    /// Moves a process to the exited totals, with its final reading if it
    /// could still be read.
    pub fn retire(&mut self, pid: u32, last: Option<&CpuReading>) {
        if let Some(mut process) = self.live.remove(&pid) {
            if let Some(reading) = last {
                process.record(reading, None);
            }
            self.exited.add(&process.totals());
        }
    }

    /// Totals since start or the last reset, after reading each live process
    /// again with `read`.
    pub fn totals(&mut self, read: impl Fn(u32) -> Option<CpuReading>) -> CpuTotals {
        let mut all = self.exited.clone();
        for (pid, process) in self.live.iter_mut() {
            if let Some(reading) = read(*pid) {
                process.record(&reading, None);
            }
            all.add(&process.totals());
        }
        all.since(&self.baseline)
    }

    /// Starts the totals again from zero; `totals` are the ones just taken.
    pub fn reset(&mut self, totals: &CpuTotals) {
        self.baseline.add(totals);
    }

    pub fn process_ids(&self) -> Vec<u32> {
        self.live.keys().copied().collect()
    }
}

/// The readings of one live process. A thread's CPU counts up to its last
/// reading: one that ends between two readings loses what it used since the
/// last (the process total keeps it; the kernel folds an ended thread's time
/// into its process's). A long-lived thread such as Argon2id's loses only what
/// the process total loses, when the process dies on its own.
#[derive(Debug, Default)]
struct ProcessCpu {
    ms: f64,
    /// Run-queue wait of the threads seen so far: the last reading of each
    /// live thread, and what ended threads had at their last reading.
    waits: HashMap<u32, f64>,
    ended_wait_ms: f64,
    throttle_source: ThrottleSource,
    throttled_ms: f64,
    /// Threads seen alive at the last reading, by thread id.
    threads: HashMap<u32, ThreadCount>,
    /// Threads that ended (or whose id or name changed), by name.
    ended: BTreeMap<String, f64>,
}

#[derive(Debug)]
struct ThreadCount {
    name: String,
    ms: f64,
    /// The part of `ms` counted under another name (the thread was renamed).
    counted_before: f64,
}

impl ThreadCount {
    fn counted(&self) -> f64 {
        self.ms - self.counted_before
    }
}

impl ProcessCpu {
    fn record(&mut self, reading: &CpuReading, throttled_ms: Option<f64>) {
        self.ms = self.ms.max(reading.total_ms);
        self.record_waits(reading);
        let throttled_ms = throttled_ms.or_else(|| {
            self.throttle_source
                .as_deref()
                .and_then(crate::cpu_share::read_throttled_ms)
        });
        if let Some(ms) = throttled_ms {
            self.throttled_ms = self.throttled_ms.max(ms);
        }
        let mut alive = HashMap::with_capacity(reading.threads.len());
        for thread in &reading.threads {
            let count = match self.threads.remove(&thread.tid) {
                Some(last) if last.name == thread.name && last.ms <= thread.cpu_ms => ThreadCount {
                    ms: thread.cpu_ms,
                    ..last
                },
                last => {
                    // Renamed, the rest of its time counts under the new name;
                    // a new thread under a reused id counts from zero.
                    let counted_before = match &last {
                        Some(last) if last.ms <= thread.cpu_ms => last.ms,
                        _ => 0.0,
                    };
                    if let Some(last) = last {
                        self.end(last);
                    }
                    ThreadCount {
                        name: thread.name.clone(),
                        ms: thread.cpu_ms,
                        counted_before,
                    }
                }
            };
            alive.insert(thread.tid, count);
        }
        for (_, gone) in std::mem::replace(&mut self.threads, alive) {
            self.end(gone);
        }
    }

    /// A thread's wait only grows; one gone since the last reading keeps its
    /// last, and a lower figure under a known id is a new thread.
    fn record_waits(&mut self, reading: &CpuReading) {
        let mut alive = HashMap::with_capacity(reading.run_queue_waits.len());
        for wait in &reading.run_queue_waits {
            match self.waits.remove(&wait.tid) {
                Some(last) if last > wait.ms => self.ended_wait_ms += last,
                _ => {}
            }
            alive.insert(wait.tid, wait.ms);
        }
        self.ended_wait_ms += std::mem::replace(&mut self.waits, alive)
            .values()
            .sum::<f64>();
    }

    fn end(&mut self, thread: ThreadCount) {
        *self.ended.entry(thread.name.clone()).or_default() += thread.counted();
    }

    fn totals(&self) -> CpuTotals {
        let mut threads = self.ended.clone();
        for thread in self.threads.values() {
            *threads.entry(thread.name.clone()).or_default() += thread.counted();
        }
        CpuTotals {
            ms: self.ms,
            threads,
            run_queue_wait_ms: self.ended_wait_ms + self.waits.values().sum::<f64>(),
            throttled_ms: self.throttled_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use localcloud_core::procstat::ThreadCpu;

    fn reading(total_ms: f64, threads: &[(u32, &str, f64)]) -> CpuReading {
        CpuReading {
            total_ms,
            run_queue_waits: Vec::new(),
            threads: threads
                .iter()
                .map(|&(tid, name, cpu_ms)| ThreadCpu {
                    tid,
                    name: name.into(),
                    cpu_ms,
                })
                .collect(),
        }
    }

    fn threads(totals: &CpuTotals) -> Vec<(&str, f64)> {
        totals
            .threads
            .iter()
            .map(|(n, ms)| (n.as_str(), *ms))
            .collect()
    }

    #[test]
    fn threads_of_one_name_add_up_and_an_ended_one_keeps_its_last_reading() {
        // GIVEN a process with an argon2 thread and two workers
        let mut account = CpuAccount::default();
        account.started(7, None);
        account.record(
            7,
            &reading(
                100.0,
                &[(8, "argon2", 40.0), (9, "w", 10.0), (10, "w", 20.0)],
            ),
        );
        // WHEN a worker ends and the others go on
        account.record(7, &reading(150.0, &[(8, "argon2", 60.0), (9, "w", 15.0)]));
        let totals = account.totals(|_| None);
        // THEN each name sums its threads, the ended one at its last reading
        assert_eq!(totals.ms, 150.0);
        assert_eq!(threads(&totals), [("argon2", 60.0), ("w", 35.0)]);
    }

    #[test]
    fn an_exited_process_keeps_its_totals_and_a_reset_starts_from_zero() {
        // GIVEN two processes, one of which exits with a final reading
        let mut account = CpuAccount::default();
        account.started(1, None);
        account.started(2, None);
        account.record(1, &reading(30.0, &[(11, "argon2", 20.0)]));
        account.retire(1, Some(&reading(50.0, &[(11, "argon2", 40.0)])));
        // WHEN the live one is read at the totals
        let live = |pid| (pid == 2).then(|| reading(10.0, &[(21, "argon2", 5.0)]));
        let totals = account.totals(live);
        // THEN both count, the exited one at its final reading
        assert_eq!(totals.ms, 60.0);
        assert_eq!(threads(&totals), [("argon2", 45.0)]);
        assert_eq!(account.process_ids(), [2]);
        // AND after a reset only later CPU counts, names kept at zero
        account.reset(&totals);
        assert_eq!(threads(&account.totals(live)), [("argon2", 0.0)]);
        let later = |_| Some(reading(12.0, &[(21, "argon2", 7.0)]));
        let totals = account.totals(later);
        assert_eq!(totals.ms, 2.0);
        assert_eq!(threads(&totals), [("argon2", 2.0)]);
    }

    #[test]
    fn a_renamed_thread_is_not_counted_twice_and_a_reused_id_counts_from_zero() {
        // GIVEN a thread first seen before it named itself
        let mut account = CpuAccount::default();
        account.record(1, &reading(10.0, &[(5, "main", 1.0)]));
        // WHEN it is seen again under its own name
        account.record(1, &reading(20.0, &[(5, "argon2", 9.0)]));
        // THEN its time is split at the rename, never counted twice
        assert_eq!(
            threads(&account.totals(|_| None)),
            [("argon2", 8.0), ("main", 1.0)]
        );
        // WHEN its id goes to a new thread with less time
        account.record(1, &reading(30.0, &[(5, "argon2", 2.0)]));
        // THEN the ended thread keeps its time and the new one adds its own
        assert_eq!(
            threads(&account.totals(|_| None)),
            [("argon2", 10.0), ("main", 1.0)]
        );
    }

    #[test]
    fn run_queue_waits_add_up_over_threads_that_come_and_go() {
        use localcloud_core::procstat::ThreadWait;
        let waits = |w: &[(u32, f64)]| CpuReading {
            run_queue_waits: w
                .iter()
                .map(|&(tid, ms)| ThreadWait { tid, ms, slices: 0 })
                .collect(),
            ..CpuReading::default()
        };
        let mut account = CpuAccount::default();
        account.started(1, None);
        account.record(1, &waits(&[(1, 2.0), (2, 3.0)]));
        // Thread 2 ends with its 3 ms; thread 1 goes on; a new thread 2 starts.
        account.record(1, &waits(&[(1, 5.0), (2, 0.5)]));
        assert_eq!(account.totals(|_| None).run_queue_wait_ms, 8.5);
        account.retire(1, Some(&waits(&[(1, 6.0)])));
        assert_eq!(account.totals(|_| None).run_queue_wait_ms, 9.5);
    }

    #[test]
    fn a_reading_never_lowers_the_process_total() {
        let mut account = CpuAccount::default();
        account.record(1, &reading(40.0, &[]));
        account.retire(1, Some(&reading(30.0, &[])));
        assert_eq!(account.totals(|_| None).ms, 40.0);
    }
}
