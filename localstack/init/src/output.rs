//! The bootstrap's output, read from its pipes under one lock, so that the
//! logs of an invocation taken when its result arrives hold every line the
//! bootstrap wrote before sending it. A reader thread copies lines as they
//! come (to the container's log); `take` first drains what the pipes hold.

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

struct Pipe {
    file: File,
    /// The start of a line whose end has not been read yet.
    partial: Vec<u8>,
    open: bool,
}

#[derive(Default)]
struct State {
    pipes: Vec<Pipe>,
    /// Which bootstrap the pipes are of: a restart replaces them.
    generation: u64,
    text: String,
}

impl State {
    /// Reads what the pipes hold now, without blocking: complete lines go
    /// to the text (and the container's log).
    fn drain(&mut self) {
        for pipe in self.pipes.iter_mut().filter(|p| p.open) {
            let available = bytes_available(pipe.file.as_raw_fd());
            if available == 0 {
                continue;
            }
            let mut chunk = vec![0; available];
            match pipe.file.read(&mut chunk) {
                Ok(0) | Err(_) => pipe.open = false,
                Ok(n) => pipe.partial.extend_from_slice(&chunk[..n]),
            }
            while let Some(end) = pipe.partial.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = pipe.partial.drain(..=end).collect();
                let line = String::from_utf8_lossy(&line[..end]);
                eprintln!("{line}");
                self.text.push_str(&line);
                self.text.push('\n');
            }
        }
    }
}

#[derive(Default)]
pub(crate) struct Output(Mutex<State>);

impl Output {
    /// The state, even after a thread panicked holding it: the lines read
    /// so far are still worth sending.
    fn state(&self) -> MutexGuard<'_, State> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Captures a newly started bootstrap's pipes, in place of the last one's.
    pub(crate) fn capture(self: &Arc<Self>, pipes: Vec<OwnedFd>) {
        let generation = {
            let mut state = self.state();
            state.drain();
            state.generation += 1;
            state.pipes = pipes
                .into_iter()
                .map(|fd| Pipe {
                    file: File::from(fd),
                    partial: Vec::new(),
                    open: true,
                })
                .collect();
            state.generation
        };
        let output = Arc::clone(self);
        std::thread::spawn(move || output.copy_as_it_comes(generation));
    }

    /// The output since the last take: every line written before now.
    pub(crate) fn take(&self) -> String {
        let mut state = self.state();
        state.drain();
        std::mem::take(&mut state.text)
    }

    /// Until the bootstrap's pipes are closed or replaced. Only the open
    /// pipes are polled: a closed one would wake the poll at once, forever.
    fn copy_as_it_comes(&self, generation: u64) {
        loop {
            let open: Vec<RawFd> = {
                let state = self.state();
                if state.generation != generation {
                    return;
                }
                state
                    .pipes
                    .iter()
                    .filter(|p| p.open)
                    .map(|p| p.file.as_raw_fd())
                    .collect()
            };
            if open.is_empty() {
                return;
            }
            let hung_up = wait_readable(&open, Duration::from_millis(100));
            let mut state = self.state();
            if state.generation != generation {
                return;
            }
            state.drain();
            // A pipe its writer closed and that is read to the end: nothing
            // more will come from it (the other may still have lines to come).
            for pipe in state.pipes.iter_mut() {
                let fd = pipe.file.as_raw_fd();
                if hung_up.contains(&fd) && bytes_available(fd) == 0 {
                    pipe.open = false;
                }
            }
        }
    }
}

/// The bytes a pipe holds (FIONREAD), 0 when it holds none or is closed.
fn bytes_available(fd: RawFd) -> usize {
    let mut available: libc::c_int = 0;
    // SAFETY: FIONREAD writes one c_int through the pointer, which is valid.
    let status = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut available) };
    if status == 0 {
        available.max(0) as usize
    } else {
        0
    }
}

/// Waits until one of the pipes has data or was closed, or the timeout;
/// the pipes whose writer closed its end.
fn wait_readable(fds: &[RawFd], timeout: Duration) -> Vec<RawFd> {
    let mut polled: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: the pointer and length describe the vector, which outlives the call.
    let ready = unsafe {
        libc::poll(
            polled.as_mut_ptr(),
            polled.len() as libc::nfds_t,
            timeout.as_millis() as libc::c_int,
        )
    };
    if ready <= 0 {
        return Vec::new();
    }
    polled
        .iter()
        .filter(|p| p.revents & (libc::POLLHUP | libc::POLLNVAL) != 0)
        .map(|p| p.fd)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::process::{Child, Command, Stdio};

    /// A shell running `script`, its stdin, stdout and stderr piped.
    fn sh(script: &str) -> Child {
        Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    #[test]
    fn take_has_every_line_written_before_it() {
        // GIVEN a process that wrote lines to both pipes (and has ended, so
        // every line is in a pipe), none of them read yet
        let mut child = sh("echo out-1; echo err-1 >&2; echo out-2");
        let pipes = vec![
            OwnedFd::from(child.stdout.take().unwrap()),
            OwnedFd::from(child.stderr.take().unwrap()),
        ];
        child.wait().unwrap();
        let output = Arc::new(Output::default());
        output.capture(pipes);
        // WHEN taken at once, whether the reader thread has run or not
        let text = output.take();
        // THEN every line is there, each stream's in its order
        let mut lines: Vec<&str> = text.lines().collect();
        let position = |l: &str| lines.iter().position(|&x| x == l);
        assert!(position("out-1") < position("out-2"), "{text:?}");
        lines.sort();
        assert_eq!(lines, ["err-1", "out-1", "out-2"], "{text:?}");
        // AND a second take has only what came after: nothing
        assert_eq!(output.take(), "");
    }

    #[test]
    fn a_pipe_closed_early_leaves_the_other_one_read() {
        // GIVEN a bootstrap that closes its stdout, then writes to stderr
        let mut child = sh("exec 1>&-; sleep 0.3; echo late >&2");
        let output = Arc::new(Output::default());
        output.capture(vec![
            OwnedFd::from(child.stdout.take().unwrap()),
            OwnedFd::from(child.stderr.take().unwrap()),
        ]);
        // WHEN it has ended
        child.wait().unwrap();
        // THEN the line it wrote after closing stdout is in the output
        assert_eq!(output.take(), "late\n");
    }

    #[test]
    fn a_line_split_across_reads_is_one_line() {
        // GIVEN a line whose first part is written, its end not yet
        let mut child = sh("printf half-; read _; echo line");
        let output = Arc::new(Output::default());
        output.capture(vec![OwnedFd::from(child.stdout.take().unwrap())]);
        // WHEN taken before its end was written, then after
        let before = output.take();
        writeln!(child.stdin.take().unwrap()).unwrap();
        child.wait().unwrap();
        let after = output.take();
        // THEN the line is whole, once
        assert_eq!((before.as_str(), after.as_str()), ("", "half-line\n"));
    }
}
