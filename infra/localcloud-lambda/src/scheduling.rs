//! The local cloud's threads give way to the functions it runs.
//!
//! On a machine of few cores the kernel often runs a function and the local
//! cloud on the same core (it wakes a task on its waker's core). Under the
//! default policy the local cloud, woken by a function's write (a DynamoDB
//! request, a log line), preempts the function at once and runs its part
//! while the function waits on the run queue with work left: the function's
//! duration holds the emulator's CPU, and the contention probe counts it.
//! `SCHED_BATCH` threads never preempt on wake-up (sched(7): "this policy
//! will cause the scheduler to always assume that the thread is
//! CPU-intensive ... it will apply a small scheduling penalty with respect to
//! wakeup behavior"), yet keep their fair share of the CPU: the local cloud
//! runs when the function blocks or at the end of its slice. Measured with
//! scripts/contention-check.py (docs/cpu-share.md, "Contention is not
//! quota"): on an idle machine contention fell from 28 % of the billed time
//! to a few percent, the measured durations unchanged.
//!
//! A thread's policy is inherited by the threads and processes it creates,
//! so environments are spawned under the normal policy ([`spawn_normal`]).

use std::io;

/// Whether the local cloud's threads yield to the functions on wake-up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SchedPolicy {
    /// `SCHED_BATCH`: the functions are never preempted by the local cloud
    /// waking up (the default).
    #[default]
    Batch,
    /// The kernel's default policy (`SCHED_OTHER`), as before.
    Normal,
}

impl std::str::FromStr for SchedPolicy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "batch" => Ok(Self::Batch),
            "normal" => Ok(Self::Normal),
            other => Err(format!(
                "unknown scheduling policy {other:?}: batch or normal"
            )),
        }
    }
}

impl SchedPolicy {
    fn code(self) -> libc::c_int {
        match self {
            SchedPolicy::Batch => libc::SCHED_BATCH,
            SchedPolicy::Normal => libc::SCHED_OTHER,
        }
    }
}

/// Puts the calling thread under `policy`; the threads it creates after
/// inherit it, so call it before starting the async runtime.
pub fn apply_to_this_thread(policy: SchedPolicy) -> io::Result<()> {
    set_this_thread(policy.code())
}

/// Runs `spawn` (which creates a process) with the calling thread under the
/// normal policy, so the process starts as it would on its own, then puts
/// the thread back under its policy. Costs two system calls where the
/// thread runs under `SCHED_BATCH`, none otherwise.
pub fn spawn_normal<T>(spawn: impl FnOnce() -> T) -> T {
    // SAFETY: sched_getscheduler reads the calling thread's policy.
    let policy = unsafe { libc::sched_getscheduler(0) };
    if policy != libc::SCHED_BATCH || set_this_thread(libc::SCHED_OTHER).is_err() {
        return spawn();
    }
    let spawned = spawn();
    // Lowering a thread's priority back is always permitted.
    let _ = set_this_thread(libc::SCHED_BATCH);
    spawned
}

fn set_this_thread(policy: libc::c_int) -> io::Result<()> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: pid 0 is the calling thread; param is a valid sched_param.
    if unsafe { libc::sched_setscheduler(0, policy, &param) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy_of(pid: u32) -> i32 {
        // SAFETY: reads a process's policy; -1 if it is gone.
        unsafe { libc::sched_getscheduler(pid as libc::pid_t) }
    }

    #[test]
    fn a_process_spawned_by_a_batch_thread_runs_under_the_normal_policy() {
        std::thread::spawn(|| {
            apply_to_this_thread(SchedPolicy::Batch).unwrap();
            assert_eq!(policy_of(0), libc::SCHED_BATCH);
            let mut child = spawn_normal(|| {
                std::process::Command::new("sleep")
                    .arg("5")
                    .spawn()
                    .unwrap()
            });
            let child_policy = policy_of(child.id());
            // Without spawn_normal the child inherits SCHED_BATCH.
            let mut inherited = std::process::Command::new("sleep")
                .arg("5")
                .spawn()
                .unwrap();
            let inherited_policy = policy_of(inherited.id());
            for c in [&mut child, &mut inherited] {
                c.kill().unwrap();
                c.wait().unwrap();
            }
            assert_eq!(child_policy, libc::SCHED_OTHER);
            assert_eq!(inherited_policy, libc::SCHED_BATCH);
            assert_eq!(
                policy_of(0),
                libc::SCHED_BATCH,
                "the thread is back under its policy"
            );
        })
        .join()
        .unwrap();
    }
}
