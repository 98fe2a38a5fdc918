//! CPU time and peak memory of a process, read from `/proc` (Linux): function
//! processes for Lambda metering, servers for the benchmarks.

/// `/proc/<pid>/stat` counts in USER_HZ, which Linux fixes at 100 for userspace.
const TICKS_PER_SECOND: f64 = 100.0;

/// User plus system CPU time of `pid` in milliseconds; `None` once it is gone.
pub fn cpu_ms(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_cpu_ticks(&stat).map(|ticks| ticks as f64 * 1000.0 / TICKS_PER_SECOND)
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

/// utime + stime, fields 14 and 15; the command name (field 2) may hold spaces
/// and parentheses, so fields are counted from the last `)`.
fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

fn parse_vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ticks_are_counted_after_the_command_name() {
        let stat = "4242 (my (odd) fn) S 1 4242 4242 0 -1 4194560 300 0 0 0 17 5 0 0 20 0 1 0 123 1000 200";
        assert_eq!(parse_cpu_ticks(stat), Some(22));
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
}
