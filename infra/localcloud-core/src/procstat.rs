//! CPU time and peak memory of a process, read from `/proc` (Linux): function
//! processes for Lambda metering (as a whole and by named thread), servers for
//! the benchmarks.

/// `/proc/<pid>/stat` counts in USER_HZ, which Linux fixes at 100 for userspace.
const TICKS_PER_SECOND: f64 = 100.0;

/// User plus system CPU time of `pid` in milliseconds; `None` once it is gone.
pub fn cpu_ms(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&stat).map(|(_, ticks)| ticks_to_ms(ticks))
}

/// One reading of a process: its whole CPU time (every thread, ended ones
/// included: the kernel keeps their time in the process's) and that of each
/// of its named threads alive at the moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CpuReading {
    pub total_ms: f64,
    /// Named threads other than the main one (see [`named_thread`]).
    pub threads: Vec<ThreadCpu>,
    /// Every live thread's time spent runnable but waiting for a CPU
    /// (`task/<tid>/schedstat`, second field), main thread included.
    pub run_queue_waits: Vec<ThreadWait>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThreadWait {
    pub tid: u32,
    /// Its time runnable but waiting for a CPU so far.
    pub ms: f64,
    /// Its time slices so far: each one began with a wait, from its wake-up
    /// or preemption to its arrival on a CPU.
    pub slices: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ThreadCpu {
    pub tid: u32,
    /// Its `comm`: the name it gave itself, cut to 15 bytes by the kernel.
    pub name: String,
    /// User plus system CPU time of this thread alone.
    pub cpu_ms: f64,
}

/// The CPU time of `pid` and of its named threads, and every thread's
/// run-queue wait; `None` once it is gone. A thread's `task/<tid>/stat`
/// holds its `comm` (field 2) beside its times, so `task/<tid>/comm` need
/// not be opened too.
pub fn read_cpu(pid: u32) -> Option<CpuReading> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (main_name, ticks) = parse_stat(&stat)?;
    let mut threads = Vec::new();
    let mut run_queue_waits = Vec::new();
    // Unreadable entries are threads that ended since the listing.
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for task in tasks.flatten() {
            let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok()) else {
                continue;
            };
            let schedstat = std::fs::read_to_string(task.path().join("schedstat"));
            if let Some((ms, slices)) = schedstat.ok().as_deref().and_then(parse_run_queue_wait) {
                run_queue_waits.push(ThreadWait { tid, ms, slices });
            }
            if tid == pid {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(task.path().join("stat")) {
                threads.extend(named_thread(tid, &text, main_name));
            }
        }
    }
    Some(CpuReading {
        total_ms: ticks_to_ms(ticks),
        threads,
        run_queue_waits,
    })
}

/// `schedstat`: time on the CPU, time waiting on a run queue (both in ns),
/// and the number of time slices: the wait in ms and the slices.
pub fn parse_run_queue_wait(schedstat: &str) -> Option<(f64, u64)> {
    let mut fields = schedstat.split_whitespace().skip(1);
    let wait_ns: u64 = fields.next()?.parse().ok()?;
    let slices: u64 = fields.next()?.parse().ok()?;
    Some((wait_ns as f64 / 1e6, slices))
}

/// One process's threads, read again and again through files kept open:
/// Lambda reads every thread's run-queue wait at both ends of each
/// invocation, and its CPU by thread after invocations, and opening
/// `task/<tid>/schedstat` and `stat` by path each time added an open and a
/// close per thread and file, and a listing of the threads. The thread list
/// is read again only when the thread count changes (the link count of
/// `/proc/<pid>/task` is 2 plus the threads: one `fstat`) or a thread's
/// file stops answering (it ended, maybe with a new one in its place).
pub struct ThreadReader {
    pid: u32,
    task_dir: std::fs::File,
    /// The process's `stat`, opened at the first CPU reading.
    stat: Option<std::fs::File>,
    threads: Vec<HeldThread>,
    buffer: Vec<u8>,
}

struct HeldThread {
    tid: u32,
    schedstat: std::fs::File,
    /// Its `stat`, opened at the first CPU reading.
    stat: Option<std::fs::File>,
}

impl ThreadReader {
    /// `None` if the process is already gone.
    pub fn open(pid: u32) -> Option<Self> {
        let task_dir = std::fs::File::open(format!("/proc/{pid}/task")).ok()?;
        let mut reader = Self {
            pid,
            task_dir,
            stat: None,
            threads: Vec::new(),
            buffer: vec![0; 1024],
        };
        reader.list_threads().then_some(reader)
    }

    /// Each live thread's run-queue wait so far, into `out` (cleared first);
    /// false once the process is gone.
    pub fn read_waits(&mut self, out: &mut Vec<ThreadWait>) -> bool {
        out.clear();
        self.read_with(|reader| {
            out.clear();
            reader.read_listed_waits(out)
        })
    }

    /// What [`read_cpu`] reads, through the held files; `None` once the
    /// process is gone.
    pub fn read_cpu(&mut self) -> Option<CpuReading> {
        let mut reading = None;
        self.read_with(|reader| {
            reading = reader.read_listed_cpu();
            reading.is_some()
        });
        reading
    }

    /// Runs `read` over the listed threads, listing them again first if
    /// their count changed, and again (up to three times) while a thread
    /// did not answer: in a process whose threads come and go (the local
    /// cloud's blocking pool, a test harness) one may end between the
    /// listing and its read.
    fn read_with(&mut self, mut read: impl FnMut(&mut Self) -> bool) -> bool {
        use std::os::unix::fs::MetadataExt;
        let threads = self
            .task_dir
            .metadata()
            .map(|m| m.nlink().saturating_sub(2));
        if threads.ok() != Some(self.threads.len() as u64) && !self.list_threads() {
            return false;
        }
        read(self) || (0..3).any(|_| self.list_threads() && read(self))
    }

    /// Reads every listed thread's wait; false if one did not answer.
    fn read_listed_waits(&mut self, out: &mut Vec<ThreadWait>) -> bool {
        for thread in &self.threads {
            let Some((ms, slices)) =
                read_at(&thread.schedstat, &mut self.buffer).and_then(parse_run_queue_wait)
            else {
                return false;
            };
            out.push(ThreadWait {
                tid: thread.tid,
                ms,
                slices,
            });
        }
        true
    }

    fn read_listed_cpu(&mut self) -> Option<CpuReading> {
        let pid = self.pid;
        let stat = match &self.stat {
            Some(stat) => stat,
            None => self
                .stat
                .insert(std::fs::File::open(format!("/proc/{pid}/stat")).ok()?),
        };
        let (main_name, ticks) = parse_stat(read_at(stat, &mut self.buffer)?)?;
        let main_name = main_name.to_string();
        let mut reading = CpuReading {
            total_ms: ticks_to_ms(ticks),
            ..CpuReading::default()
        };
        for thread in &mut self.threads {
            let (ms, slices) =
                read_at(&thread.schedstat, &mut self.buffer).and_then(parse_run_queue_wait)?;
            reading.run_queue_waits.push(ThreadWait {
                tid: thread.tid,
                ms,
                slices,
            });
            if thread.tid == pid {
                continue;
            }
            let tid = thread.tid;
            let stat = match &thread.stat {
                Some(stat) => stat,
                None => thread
                    .stat
                    .insert(std::fs::File::open(format!("/proc/{pid}/task/{tid}/stat")).ok()?),
            };
            let text = read_at(stat, &mut self.buffer)?;
            reading.threads.extend(named_thread(tid, text, &main_name));
        }
        Some(reading)
    }

    /// Opens the `schedstat` of threads not yet held and lets go of ended
    /// ones; false once the process is gone.
    fn list_threads(&mut self) -> bool {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{}/task", self.pid)) else {
            return false;
        };
        let mut held = std::mem::take(&mut self.threads);
        for task in tasks.flatten() {
            let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok()) else {
                continue;
            };
            let thread = match held.iter().position(|t| t.tid == tid) {
                Some(i) => held.swap_remove(i),
                None => match std::fs::File::open(task.path().join("schedstat")) {
                    Ok(schedstat) => HeldThread {
                        tid,
                        schedstat,
                        stat: None,
                    },
                    // Ended since the listing.
                    Err(_) => continue,
                },
            };
            self.threads.push(thread);
        }
        !self.threads.is_empty()
    }
}

/// The text of a `/proc` file read afresh through a held `file` (a read at
/// offset 0 renders it again), in `buffer`.
fn read_at<'a>(file: &std::fs::File, buffer: &'a mut [u8]) -> Option<&'a str> {
    use std::os::unix::fs::FileExt;
    let read = file.read_at(buffer, 0).ok()?;
    std::str::from_utf8(&buffer[..read]).ok()
}

/// CPU time of the calling thread alone, from `/proc/thread-self/stat`.
pub fn own_thread_cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    parse_stat(&stat).map(|(_, ticks)| ticks_to_ms(ticks))
}

/// A thread's figures from its `stat` text, if it is named: a thread that
/// never set a name keeps the one of the thread that created it, so a thread
/// still called like the main thread is counted with the process only.
pub fn named_thread(tid: u32, stat: &str, main_name: &str) -> Option<ThreadCpu> {
    let (name, ticks) = parse_stat(stat)?;
    (name != main_name).then(|| ThreadCpu {
        tid,
        name: name.to_string(),
        cpu_ms: ticks_to_ms(ticks),
    })
}

fn ticks_to_ms(ticks: u64) -> f64 {
    ticks as f64 * 1000.0 / TICKS_PER_SECOND
}

/// Peak resident memory (`VmHWM`) of `pid` in kB.
pub fn peak_rss_kb(pid: u32) -> Option<u64> {
    PeakRssReader::open(pid)?.read_kb()
}

/// Reads one process's peak memory again and again through a file kept open:
/// Lambda reads it once per invocation, and reopening `/proc/<pid>/status`
/// each time added an open and a close to every one.
pub struct PeakRssReader {
    status: std::fs::File,
    buffer: Vec<u8>,
}

impl PeakRssReader {
    /// `None` if the process is already gone.
    pub fn open(pid: u32) -> Option<Self> {
        let status = std::fs::File::open(format!("/proc/{pid}/status")).ok()?;
        Some(Self {
            status,
            buffer: vec![0; 4096],
        })
    }

    /// Peak resident memory (`VmHWM`) in kB; `None` once the process is gone.
    pub fn read_kb(&mut self) -> Option<u64> {
        use std::os::unix::fs::FileExt;
        // The kernel renders the whole file on a read at offset 0; VmHWM is
        // in its first kilobyte.
        let read = self.status.read_at(&mut self.buffer, 0).ok()?;
        let text = std::str::from_utf8(&self.buffer[..read]).ok()?;
        parse_vm_hwm(text)
    }
}

/// Reads one process's resident memory now (`/proc/<pid>/statm`, second
/// field) through a file kept open: the check of a running invocation
/// against its memory size. The kernel renders `statm` from a few counters,
/// where `status` (the peak, [`PeakRssReader`]) renders some fifty lines on
/// every read: reading it 4 times in each orders invocation was 13 % of the
/// local cloud's CPU (docs/benchmarks.md, "A quiet emulator").
pub struct ResidentReader {
    statm: std::fs::File,
    page_kb: u64,
}

impl ResidentReader {
    /// `None` if the process is already gone.
    pub fn open(pid: u32) -> Option<Self> {
        let statm = std::fs::File::open(format!("/proc/{pid}/statm")).ok()?;
        // SAFETY: sysconf has no preconditions.
        let page_bytes = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        Some(Self {
            statm,
            page_kb: u64::try_from(page_bytes)
                .ok()
                .filter(|&b| b > 0)
                .unwrap_or(4096)
                / 1024,
        })
    }

    /// Resident memory in kB; `None` once the process is gone.
    pub fn read_kb(&mut self) -> Option<u64> {
        use std::os::unix::fs::FileExt;
        let mut buffer = [0u8; 128];
        let read = self.statm.read_at(&mut buffer, 0).ok()?;
        let text = std::str::from_utf8(&buffer[..read]).ok()?;
        let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
        Some(pages * self.page_kb)
    }
}

/// The command name (field 2) and utime + stime (fields 14 and 15). The name
/// may hold spaces and parentheses, so it ends at the last `)` and the other
/// fields are counted from there.
fn parse_stat(stat: &str) -> Option<(&str, u64)> {
    let (head, after_name) = stat.rsplit_once(')')?;
    let name = head.split_once('(')?.1;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((name, utime + stime))
}

fn parse_vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_queue_wait_is_the_second_schedstat_field() {
        assert_eq!(parse_run_queue_wait("5000000 2500000 7\n"), Some((2.5, 7)));
        assert_eq!(parse_run_queue_wait("5000000 2500000\n"), None);
    }

    #[test]
    fn cpu_ticks_are_counted_after_the_command_name() {
        let stat = "4242 (my (odd) fn) S 1 4242 4242 0 -1 4194560 300 0 0 0 17 5 0 0 20 0 1 0 123 1000 200";
        assert_eq!(parse_stat(stat), Some(("my (odd) fn", 22)));
        assert_eq!(parse_stat("4242 (fn) S 1 2 3"), None);
        assert_eq!(parse_stat("4242 fn) S"), None);
    }

    #[test]
    fn a_named_thread_is_read_from_its_stat_and_an_unnamed_one_is_not() {
        // GIVEN the stat texts of a thread named "argon2" and of one that kept
        // the main thread's name
        let argon2 =
            "4250 (argon2) S 1 4242 4242 0 -1 4194624 10 0 0 0 150 3 0 0 20 0 3 0 130 1000 200";
        let unnamed =
            "4251 (conduit fn) S 1 4242 4242 0 -1 4194624 10 0 0 0 40 2 0 0 20 0 3 0 131 1000 200";
        // WHEN read as threads of a process whose main thread is "conduit fn"
        // THEN the named one has its own CPU time (153 ticks of 10 ms)
        assert_eq!(
            named_thread(4250, argon2, "conduit fn"),
            Some(ThreadCpu {
                tid: 4250,
                name: "argon2".into(),
                cpu_ms: 1530.0
            })
        );
        // AND the unnamed one is left to the process total
        assert_eq!(named_thread(4251, unnamed, "conduit fn"), None);
        assert_eq!(named_thread(4252, "truncated (x", "conduit fn"), None);
    }

    #[test]
    fn own_threads_are_read_by_name_without_the_main_one() {
        // GIVEN a thread of this process named "procstat-test" that stays alive
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let (ready, started) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("procstat-test".into())
            .spawn(move || {
                ready.send(own_thread_cpu_ms()).unwrap();
                let _ = stopped.recv();
            })
            .unwrap();
        let own = started.recv().unwrap();
        // WHEN the process is read, by path and through held files
        let reading = read_cpu(std::process::id()).unwrap();
        let mut reader = ThreadReader::open(std::process::id()).unwrap();
        let held = reader.read_cpu().unwrap();
        stop.send(()).unwrap();
        thread.join().unwrap();
        // THEN that thread is listed once, by name, and the main thread is not
        for reading in [reading, held] {
            let named: Vec<&ThreadCpu> = reading
                .threads
                .iter()
                .filter(|t| t.name == "procstat-test")
                .collect();
            assert_eq!(named.len(), 1, "{reading:?}");
            assert!(named[0].cpu_ms >= own.unwrap());
            assert!(reading.threads.iter().all(|t| t.tid != std::process::id()));
            assert!(reading.total_ms >= named[0].cpu_ms);
            let pid = std::process::id();
            assert!(reading.run_queue_waits.iter().any(|w| w.tid == pid));
        }
    }

    #[test]
    fn held_readers_follow_threads_that_come_and_go() {
        // GIVEN this process read through held files
        let mut waits = ThreadReader::open(std::process::id()).expect("own process");
        let mut read = Vec::new();
        assert!(waits.read_waits(&mut read));
        let tids = |read: &[ThreadWait]| read.iter().map(|w| w.tid).collect::<Vec<_>>();
        assert!(tids(&read).contains(&std::process::id()));
        // WHEN a thread starts
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let (ready, started) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let link = std::fs::read_link("/proc/thread-self").unwrap();
            let tid = link.file_name().unwrap().to_str().unwrap().parse::<u32>();
            ready.send(tid.unwrap()).unwrap();
            let _ = stopped.recv();
        });
        let tid = started.recv().unwrap();
        // THEN it is read from then on, as /proc lists it
        assert!(waits.read_waits(&mut read));
        assert!(tids(&read).contains(&tid), "{read:?}");
        let fresh = read_cpu(std::process::id()).unwrap().run_queue_waits;
        let listed = fresh.iter().find(|w| w.tid == tid).unwrap();
        let held = read.iter().find(|w| w.tid == tid).unwrap();
        assert!(held.ms <= listed.ms, "{held:?} then {listed:?}");
        // WHEN it ends, THEN it is no longer read
        stop.send(()).unwrap();
        thread.join().unwrap();
        assert!(waits.read_waits(&mut read));
        assert!(!tids(&read).contains(&tid), "{read:?}");
    }

    #[test]
    fn a_held_wait_reader_ends_with_its_process() {
        let mut child = std::process::Command::new("sleep")
            .arg("10")
            .spawn()
            .unwrap();
        let mut reader = ThreadReader::open(child.id()).unwrap();
        let mut read = Vec::new();
        assert!(reader.read_waits(&mut read));
        assert_eq!(read.len(), 1);
        assert!(reader.read_cpu().is_some());
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!reader.read_waits(&mut read));
        assert!(read.is_empty());
        assert_eq!(reader.read_cpu(), None);
    }

    #[test]
    fn vm_hwm_is_read_in_kilobytes() {
        let status = "Name:\techo\nVmPeak:\t  10000 kB\nVmHWM:\t    15360 kB\nVmRSS:\t 9000 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(15360));
    }

    #[test]
    fn own_process_is_readable() {
        let pid = std::process::id();
        assert!(cpu_ms(pid).is_some());
        assert!(peak_rss_kb(pid).unwrap() > 0);
    }

    #[test]
    fn a_held_reader_follows_the_peak_and_ends_with_the_process() {
        let mut child = std::process::Command::new("sleep")
            .arg("10")
            .spawn()
            .unwrap();
        let mut reader = PeakRssReader::open(child.id()).unwrap();
        // The child may still be growing: readings through the held file are
        // fresh ones, in step with a newly opened one.
        let before = reader.read_kb().unwrap();
        let fresh = peak_rss_kb(child.id()).unwrap();
        let after = reader.read_kb().unwrap();
        assert!(0 < before && before <= fresh && fresh <= after);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(reader.read_kb(), None);
    }

    #[test]
    fn resident_memory_is_at_most_the_peak_and_grows_with_an_allocation() {
        let pid = std::process::id();
        let mut resident = ResidentReader::open(pid).unwrap();
        let before = resident.read_kb().unwrap();
        assert!(0 < before && before <= peak_rss_kb(pid).unwrap());
        // 64 MiB touched page by page: resident now, not only reserved.
        let block = std::hint::black_box(vec![1u8; 64 << 20]);
        let during = resident.read_kb().unwrap();
        assert!(
            during >= before + 60 * 1024,
            "{before} kB, then {during} kB"
        );
        assert!(during <= peak_rss_kb(pid).unwrap());
        drop(block);
    }
}
