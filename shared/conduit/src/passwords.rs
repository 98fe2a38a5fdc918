//! Password hashing: Argon2id with OWASP's minimum (m = 19 MiB, t = 2, p = 1),
//! and the password policy of NIST SP 800-63B section 5.1.1.2.
//!
//! Every hash and verification of the process runs on one dedicated thread
//! that reuses one block buffer. Hashing on whatever thread served the request
//! let each thread's allocator arena keep its own 19 MiB: a function's Max
//! Memory Used grew by one buffer per thread until it was killed at its
//! `MemorySize`. With one thread and one buffer, memory stays flat.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};

use argon2::password_hash::generate_salt;
use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::oneshot;

/// The name of the hashing thread. The local cloud meters each named thread's
/// CPU, and the bench reports this one's as Argon2id's share of the
/// functions' CPU (a login costs as much CPU as dozens of reads).
pub const THREAD_NAME: &str = "argon2";

/// NIST SP 800-63B 5.1.1.2: at least 8 characters.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// NIST asks for at least 64; 256 leaves room for passphrases and password
/// managers while keeping requests small (hashing cost does not depend on it).
pub const MAX_PASSWORD_CHARS: usize = 256;

/// Why a password is refused, as the RealWorld 422 message for `password`.
pub fn policy_violation(password: &str) -> Option<String> {
    // NIST counts each Unicode code point as one character.
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        Some(format!(
            "is too short (minimum is {MIN_PASSWORD_CHARS} characters)"
        ))
    } else if chars > MAX_PASSWORD_CHARS {
        Some(format!(
            "is too long (maximum is {MAX_PASSWORD_CHARS} characters)"
        ))
    } else {
        None
    }
}

/// The salt of the stand-in hash an unknown user's login is checked against,
/// so that "no such email" costs the same Argon2 work as "wrong password".
const DUMMY_SALT: &[u8] = b"conduit-no-such-user";

#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    #[error("password hashing failed: {0}")]
    Hashing(String),
    #[error("the password hashing thread is gone")]
    WorkerGone,
}

enum Work {
    Hash(String),
    /// Against a stored PHC string, or against the stand-in when `None`.
    Verify(String, Option<String>),
}

enum Outcome {
    Hashed(Result<String, PasswordError>),
    Verified(bool),
}

struct Job {
    work: Work,
    runs: Arc<AtomicU64>,
    reply: oneshot::Sender<Outcome>,
}

/// A handle on the process's hashing thread; cheap to clone. Counts the
/// Argon2 computations done for it, so tests can see the work was done.
#[derive(Clone, Default)]
pub struct Passwords {
    runs: Arc<AtomicU64>,
}

impl std::fmt::Debug for Passwords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Passwords")
            .field("runs", &self.runs())
            .finish()
    }
}

impl Passwords {
    /// A PHC string (`$argon2id$v=19$m=19456,t=2,p=1$...`) with a fresh salt.
    pub async fn hash(&self, password: &str) -> Result<String, PasswordError> {
        match self.submit(Work::Hash(password.to_owned())).await? {
            Outcome::Hashed(result) => result,
            Outcome::Verified(_) => Err(PasswordError::WorkerGone),
        }
    }

    /// Whether `password` matches `stored`. `None` (no such user) and an
    /// unparsable stored hash are false after the same Argon2 work as a match.
    pub async fn verify(&self, password: &str, stored: Option<&str>) -> bool {
        let work = Work::Verify(password.to_owned(), stored.map(str::to_owned));
        matches!(self.submit(work).await, Ok(Outcome::Verified(true)))
    }

    /// Argon2 computations done for this handle so far.
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }

    async fn submit(&self, work: Work) -> Result<Outcome, PasswordError> {
        let (reply, answer) = oneshot::channel();
        let job = Job {
            work,
            runs: self.runs.clone(),
            reply,
        };
        worker().send(job).map_err(|_| PasswordError::WorkerGone)?;
        answer.await.map_err(|_| PasswordError::WorkerGone)
    }
}

/// The one hashing thread of the process, started on first use.
fn worker() -> &'static mpsc::Sender<Job> {
    static WORKER: OnceLock<mpsc::Sender<Job>> = OnceLock::new();
    WORKER.get_or_init(|| {
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name(THREAD_NAME.into())
            .spawn(move || {
                let mut hasher = Hasher::default();
                for job in queue {
                    let before = hasher.computed;
                    let outcome = hasher.run(job.work);
                    job.runs
                        .fetch_add(hasher.computed - before, Ordering::Relaxed);
                    // The caller may have given up (request cancelled): nothing to do.
                    let _ = job.reply.send(outcome);
                }
            })
            .expect("spawn the password hashing thread");
        jobs
    })
}

/// Argon2 over one buffer, allocated at the first hash and reused after.
#[derive(Default)]
struct Hasher {
    blocks: Vec<Block>,
    /// Argon2 computations started, for [`Passwords::runs`].
    computed: u64,
}

impl Hasher {
    fn run(&mut self, work: Work) -> Outcome {
        match work {
            Work::Hash(password) => Outcome::Hashed(self.hash(&password)),
            Work::Verify(password, stored) => {
                Outcome::Verified(self.verify(&password, stored.as_deref()))
            }
        }
    }

    fn blocks(&mut self, params: &Params) -> &mut [Block] {
        let needed = params.block_count();
        if self.blocks.len() < needed {
            self.blocks.resize(needed, Block::default());
        }
        &mut self.blocks[..needed]
    }

    fn compute(
        &mut self,
        argon2: &Argon2<'_>,
        params: &Params,
        password: &str,
        salt: &[u8],
        out: &mut [u8],
    ) -> Result<(), argon2::Error> {
        self.computed += 1;
        let blocks = self.blocks(params);
        argon2.hash_password_into_with_memory(password.as_bytes(), salt, out, blocks)
    }

    fn hash(&mut self, password: &str) -> Result<String, PasswordError> {
        let failed = |e: &dyn std::fmt::Display| PasswordError::Hashing(e.to_string());
        let params = Params::DEFAULT;
        let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
        let salt = generate_salt();
        let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
        self.compute(&argon2, &params, password, &salt, &mut out)
            .map_err(|e| failed(&e))?;
        let hash = PasswordHash {
            algorithm: Algorithm::Argon2id.ident(),
            version: Some(Version::V0x13.into()),
            params: ParamsString::try_from(&params).map_err(|e| failed(&e))?,
            salt: Some(Salt::new(&salt).map_err(|e| failed(&e))?),
            hash: Some(Output::new(&out).map_err(|e| failed(&e))?),
        };
        Ok(hash.to_string())
    }

    fn verify(&mut self, password: &str, stored: Option<&str>) -> bool {
        match stored.and_then(|s| PasswordHash::new(s).ok()) {
            Some(stored) => self.matches(password, &stored).unwrap_or(false),
            None => {
                self.stand_in(password);
                false
            }
        }
    }

    /// None when the stored hash is not one we can check (then no work is
    /// done for it, so the stand-in's work is done instead).
    fn matches(&mut self, password: &str, stored: &PasswordHash) -> Option<bool> {
        let parsed = (|| {
            let algorithm = Algorithm::try_from(stored.algorithm.as_str()).ok()?;
            let version = match stored.version {
                Some(v) => Version::try_from(v).ok()?,
                None => Version::default(),
            };
            let params = Params::try_from(stored).ok()?;
            Some((algorithm, version, params, stored.salt?, stored.hash?))
        })();
        let Some((algorithm, version, params, salt, expected)) = parsed else {
            self.stand_in(password);
            return None;
        };
        let argon2 = Argon2::new(algorithm, version, params.clone());
        let mut out = vec![0u8; expected.len()];
        self.compute(&argon2, &params, password, &salt, &mut out)
            .ok()?;
        // `Output`'s equality is constant-time.
        Some(Output::new(&out).ok()? == expected)
    }

    fn stand_in(&mut self, password: &str) {
        let params = Params::DEFAULT;
        let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
        let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
        let _ = self.compute(&argon2, &params, password, DUMMY_SALT, &mut out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn password_verifies_only_against_its_own_hash() {
        let passwords = Passwords::default();
        let hash = passwords.hash("hunter42").await.unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(passwords.verify("hunter42", Some(&hash)).await);
        assert!(!passwords.verify("hunter43", Some(&hash)).await);
        assert!(!passwords.verify("hunter42", Some("not a hash")).await);
    }

    #[tokio::test]
    async fn hashes_of_the_reference_implementation_verify() {
        // GIVEN a hash made by the argon2 crate's own PasswordHasher
        use argon2::PasswordHasher;
        let stored = Argon2::default()
            .hash_password(b"correct horse")
            .unwrap()
            .to_string();
        // THEN the dedicated thread checks it the same way
        let passwords = Passwords::default();
        assert!(passwords.verify("correct horse", Some(&stored)).await);
        assert!(!passwords.verify("correct horsf", Some(&stored)).await);
    }

    #[tokio::test]
    async fn unknown_user_and_wrong_password_both_do_the_argon2_work() {
        let passwords = Passwords::default();
        let hash = passwords.hash("hunter42").await.unwrap();
        let before = passwords.runs();
        assert!(!passwords.verify("hunter43", Some(&hash)).await);
        assert_eq!(passwords.runs(), before + 1);
        assert!(!passwords.verify("hunter43", None).await);
        assert_eq!(passwords.runs(), before + 2);
    }

    #[tokio::test]
    async fn hashing_runs_on_the_thread_named_for_metering() {
        // GIVEN a hash done
        Passwords::default().hash("hunter42").await.unwrap();
        // THEN this process has a thread of that name, which the local cloud
        // meters apart (Linux cuts names at 15 bytes: this one must fit)
        assert!(THREAD_NAME.len() <= 15);
        let names: Vec<String> = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .flatten()
            .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
            .map(|comm| comm.trim_end().to_string())
            .collect();
        assert!(names.iter().any(|n| n == THREAD_NAME), "{names:?}");
    }

    #[test]
    fn policy_takes_8_to_256_characters_counted_as_code_points() {
        assert!(policy_violation("1234567").unwrap().contains("too short"));
        assert_eq!(policy_violation("12345678"), None);
        // 8 characters, 16 bytes
        assert_eq!(policy_violation("éééééééé"), None);
        assert_eq!(policy_violation(&"x".repeat(64)), None);
        assert_eq!(policy_violation(&"x".repeat(256)), None);
        assert!(policy_violation(&"x".repeat(257))
            .unwrap()
            .contains("too long"));
    }
}
