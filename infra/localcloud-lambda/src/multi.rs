//! An execution environment of Lambda Managed Instances: one process serves
//! up to `AWS_LAMBDA_MAX_CONCURRENCY` invocations at once, its runtime
//! workers polling `/next` in parallel and answering by request id
//! ("Understanding the Lambda Managed Instances execution environment",
//! https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-execution-environment.html).
//!
//! What that page documents, and this module does:
//! - concurrent processing: each invocation goes to whichever worker polls,
//!   and its answer back to its own caller;
//! - independent timeouts: an invocation that outlasts the function's timeout
//!   fails alone; the environment and the other invocations go on (Lambda
//!   does not stop the handler either);
//! - an error posted for one invocation fails that invocation only;
//! - a process that exits fails every invocation it held, and the
//!   environment is replaced.
//!
//! A driver task owns the [`Environment`]; callers reach it through a
//! [`MultiEnvironment`], whose slots bound the invocations in flight.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use localcloud_core::procstat;
use parking_lot::Mutex;
use tokio::sync::{mpsc, oneshot, watch, OwnedSemaphorePermit, Semaphore};

use crate::environment::{Completion, Environment, Happening, MemoryCheck};
use crate::runtime_api::{Invocation, RuntimeEvent};

/// What the driver is told when its environment's CPU is to be read
/// (after each answer) and when the environment goes.
pub struct Hooks {
    pub sample: Box<dyn FnMut(&mut Environment) + Send>,
    pub retire: Box<dyn FnOnce(&Environment) + Send>,
}

/// The callers' side of one multi-concurrent environment.
pub struct MultiEnvironment {
    requests: mpsc::UnboundedSender<Request>,
    slots: Arc<Semaphore>,
    alive: watch::Receiver<bool>,
    peak_memory_mb: Arc<AtomicU64>,
    pid: u32,
    /// The process's CPU milliseconds at the scaler's last reading, and when.
    last_cpu: Mutex<Option<(f64, Instant)>>,
    /// The share of its vCPUs it used between the scaler's last two
    /// readings (0 before two), as `f64` bits: the router reads it on every
    /// invocation, without a lock.
    busy_bits: AtomicU64,
    /// Invocations it takes at once.
    max: u32,
    /// When an invocation last started or ended in it: the scaler retires
    /// environments that have been idle long enough.
    last_active: Mutex<Instant>,
}

struct Request {
    invocation: Invocation,
    reply: oneshot::Sender<Completion>,
}

impl MultiEnvironment {
    /// Starts the driver of a ready environment serving up to `max`
    /// invocations at once; it stops the process on `shutdown`, when the
    /// memory limit is passed, or when this handle is dropped.
    pub fn spawn(
        env: Environment,
        max: u32,
        memory_mb: u32,
        hooks: Hooks,
        shutdown: watch::Receiver<bool>,
    ) -> Arc<Self> {
        let pid = env.pid;
        let (requests, inbox) = mpsc::unbounded_channel();
        let (alive_tx, alive) = watch::channel(true);
        let peak_memory_mb = Arc::new(AtomicU64::new(0));
        let driver = Driver {
            env,
            inbox,
            waiters: HashMap::new(),
            memory_mb,
            peak_memory_mb: peak_memory_mb.clone(),
            hooks,
        };
        tokio::spawn(async move {
            driver.run(shutdown).await;
            let _ = alive_tx.send(false);
        });
        let max = max.max(1);
        Arc::new(Self {
            requests,
            slots: Arc::new(Semaphore::new(max as usize)),
            alive,
            peak_memory_mb,
            pid,
            last_cpu: Mutex::new(None),
            busy_bits: AtomicU64::new(0f64.to_bits()),
            max,
            last_active: Mutex::new(Instant::now()),
        })
    }

    /// Invocations running in it now (slots taken).
    pub fn in_flight(&self) -> u32 {
        let free = u32::try_from(self.slots.available_permits()).unwrap_or(u32::MAX);
        self.max.saturating_sub(free)
    }

    /// How long it has had no invocation, as of `now`; `None` while one runs.
    pub fn idle_for(&self, now: Instant) -> Option<Duration> {
        (self.in_flight() == 0).then(|| now.saturating_duration_since(*self.last_active.lock()))
    }

    /// Reads the process's CPU time and returns the share of its `vcpus` it
    /// used since the last reading (`None` at the first, or once it is gone).
    pub fn measure_cpu(&self, vcpus: f64, now: Instant) -> Option<f64> {
        let cpu_ms = procstat::cpu_ms(self.pid)?;
        let (before_ms, at) = self.last_cpu.lock().replace((cpu_ms, now))?;
        let elapsed_ms = now.saturating_duration_since(at).as_secs_f64() * 1000.0;
        if elapsed_ms <= 0.0 || vcpus <= 0.0 {
            return None;
        }
        let busy = ((cpu_ms - before_ms).max(0.0) / elapsed_ms / vcpus).clamp(0.0, 1.0);
        self.busy_bits.store(busy.to_bits(), Ordering::Relaxed);
        Some(busy)
    }

    /// The share of its vCPUs it used at the last measure.
    pub fn cpu_busy(&self) -> f64 {
        f64::from_bits(self.busy_bits.load(Ordering::Relaxed))
    }

    /// A free slot, if the environment is alive and has one.
    pub fn try_reserve(&self) -> Option<OwnedSemaphorePermit> {
        if !self.is_alive() {
            return None;
        }
        self.slots.clone().try_acquire_owned().ok()
    }

    pub fn is_alive(&self) -> bool {
        *self.alive.borrow()
    }

    /// Runs one invocation in a reserved slot: its answer, or `TimedOut`
    /// when it outlasts `timeout` (only that invocation fails).
    pub async fn invoke(
        &self,
        invocation: Invocation,
        timeout: Duration,
        _slot: OwnedSemaphorePermit,
    ) -> Completion {
        *self.last_active.lock() = Instant::now();
        let (reply, answer) = oneshot::channel();
        if self.requests.send(Request { invocation, reply }).is_err() {
            return Completion::ShuttingDown;
        }
        let completion = match tokio::time::timeout(timeout, answer).await {
            Ok(Ok(completion)) => completion,
            // The driver ended without a word: the service is stopping.
            Ok(Err(_)) => Completion::ShuttingDown,
            Err(_) => Completion::TimedOut,
        };
        *self.last_active.lock() = Instant::now();
        completion
    }

    /// The process's peak memory so far (0 before the first reading).
    pub fn peak_memory_mb(&self) -> Option<u64> {
        Some(self.peak_memory_mb.load(Ordering::Relaxed)).filter(|&mb| mb > 0)
    }
}

struct Driver {
    env: Environment,
    inbox: mpsc::UnboundedReceiver<Request>,
    /// Invocations handed to the runtime, by request id.
    waiters: HashMap<String, oneshot::Sender<Completion>>,
    memory_mb: u32,
    peak_memory_mb: Arc<AtomicU64>,
    hooks: Hooks,
}

/// Why a driver stops.
enum End {
    /// The process exited: every invocation it held fails so.
    Exited(std::process::ExitStatus),
    OutOfMemory,
    /// Shutdown or no handle left: callers see the service stopping.
    Quietly,
}

impl Driver {
    async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        let mut memory_check = MemoryCheck::start();
        let end = loop {
            tokio::select! {
                biased;
                happening = self.env.next_happening() => match happening {
                    Happening::Runtime(Some(event)) => self.answer(event),
                    Happening::Runtime(None) => break End::Quietly,
                    Happening::Exited(Ok(status)) => break End::Exited(status),
                    Happening::Exited(Err(_)) => break End::Quietly,
                },
                request = self.inbox.recv() => match request {
                    Some(request) => {
                        memory_check.hasten();
                        self.dispatch(request);
                    }
                    None => break End::Quietly,
                },
                _ = shutdown.wait_for(|stop| *stop) => break End::Quietly,
                _ = memory_check.due() => {
                    if self.over_memory_now() {
                        break End::OutOfMemory;
                    }
                }
            }
        };
        for (_, waiter) in self.waiters.drain() {
            let _ = match end {
                End::Exited(status) => waiter.send(Completion::Exited(status)),
                End::OutOfMemory => waiter.send(Completion::OutOfMemory),
                End::Quietly => Ok(()),
            };
        }
        (self.hooks.retire)(&self.env);
        self.env.kill().await;
    }

    fn dispatch(&mut self, request: Request) {
        // Callers that timed out leave closed senders behind.
        self.waiters.retain(|_, waiter| !waiter.is_closed());
        let id = request.invocation.request_id.clone();
        if self.env.dispatch(request.invocation) {
            self.waiters.insert(id, request.reply);
        } else {
            let _ = request.reply.send(Completion::ShuttingDown);
        }
    }

    /// An answer goes to its own caller; one whose caller has gone is dropped.
    fn answer(&mut self, event: RuntimeEvent) {
        let (request_id, completion) = match event {
            RuntimeEvent::Response { request_id, body } => (request_id, Completion::Response(body)),
            RuntimeEvent::Error { request_id, body } => (request_id, Completion::Error(body)),
            RuntimeEvent::Next | RuntimeEvent::InitError { .. } => return,
        };
        self.over_memory();
        (self.hooks.sample)(&mut self.env);
        if let Some(waiter) = self.waiters.remove(&request_id) {
            let _ = waiter.send(completion);
        }
    }

    /// The check while invocations run: resident memory now against the
    /// size (the peak is read as each invocation ends).
    fn over_memory_now(&mut self) -> bool {
        self.env
            .read_resident_memory_mb()
            .is_some_and(|mb| mb > u64::from(self.memory_mb))
    }

    fn over_memory(&mut self) -> bool {
        let Some(mb) = self.env.read_peak_memory_mb() else {
            return false;
        };
        self.peak_memory_mb.store(mb, Ordering::Relaxed);
        mb > u64::from(self.memory_mb)
    }
}
