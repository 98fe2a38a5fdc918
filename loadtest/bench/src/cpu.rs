//! CPU time, kept apart for the three parties of a local run: the function
//! processes (from the local cloud's Lambda metering), the local cloud itself
//! (its own `/proc` figures, a child process of the bench) and the load
//! generator (this process).

use serde::{Deserialize, Serialize};

/// USER_HZ: 100 on every Linux the project targets.
const TICKS_PER_SECOND: f64 = 100.0;

/// User + system CPU seconds from the text of `/proc/<pid>/stat`.
pub fn parse_proc_stat(stat: &str) -> Option<f64> {
    // The command name may hold spaces and parentheses: split after the last ')'.
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of the file (utime, stime) are 12 and 13 after the name.
    let user: f64 = fields.get(11)?.parse().ok()?;
    let system: f64 = fields.get(12)?.parse().ok()?;
    Some((user + system) / TICKS_PER_SECOND)
}

/// CPU seconds this process has used so far (0 where /proc is missing).
pub fn own_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| parse_proc_stat(&s))
        .unwrap_or(0.0)
}

/// CPU spent during one run, and per successful public request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuAccount {
    /// Function processes (all the variant's functions).
    pub functions_ms: f64,
    /// The part of `functions_ms` spent hashing and verifying passwords
    /// (Argon2id, on the functions' `argon2` threads): a login costs as much
    /// as dozens of reads, so a short run's figure depends on its logins.
    /// `None` where not metered (remote targets, files before schema 3).
    #[serde(default)]
    pub argon2_ms: Option<f64>,
    /// The local cloud's process (API Gateway, Lambda service, SQS, DynamoDB).
    pub localcloud_ms: f64,
    /// The load generator (Goose) in the bench process.
    pub load_generator_ms: f64,
    pub functions_ms_per_request: Option<f64>,
    #[serde(default)]
    pub argon2_ms_per_request: Option<f64>,
    /// `functions_ms_per_request` without Argon2id's part.
    #[serde(default)]
    pub functions_ms_per_request_excluding_argon2: Option<f64>,
    pub localcloud_ms_per_request: Option<f64>,
    /// Load generator CPU / wall time: near 1.0 (or the core count) it was
    /// saturated and the figures measure it, not the system under test.
    pub load_generator_cores: f64,
    pub load_generator_saturated: bool,
}

/// Above this share of one core the load generator is taken as saturated.
pub const SATURATION_CORES: f64 = 0.9;

impl CpuAccount {
    pub fn new(
        functions_ms: f64,
        argon2_ms: Option<f64>,
        localcloud_ms: f64,
        load_generator_ms: f64,
        wall_s: f64,
        public_requests: u64,
    ) -> Self {
        let per_request = |ms: f64| (public_requests > 0).then(|| ms / public_requests as f64);
        let cores = if wall_s > 0.0 {
            load_generator_ms / 1000.0 / wall_s
        } else {
            0.0
        };
        Self {
            functions_ms,
            argon2_ms,
            localcloud_ms,
            load_generator_ms,
            functions_ms_per_request: per_request(functions_ms),
            argon2_ms_per_request: argon2_ms.and_then(per_request),
            functions_ms_per_request_excluding_argon2: argon2_ms
                .and_then(|argon2| per_request(functions_ms - argon2)),
            localcloud_ms_per_request: per_request(localcloud_ms),
            load_generator_cores: cores,
            load_generator_saturated: cores >= SATURATION_CORES,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_gives_user_plus_system_seconds() {
        // GIVEN a stat line whose command name holds a space and a parenthesis
        let stat =
            "4242 (local cloud) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 9 0 100 0 0";
        // WHEN parsed
        // THEN utime 250 + stime 75 ticks = 3.25 s
        assert_eq!(parse_proc_stat(stat), Some(3.25));
        assert_eq!(
            parse_proc_stat("1 (x)) R 1 2 3 4 5 6 7 8 9 10 100 100"),
            Some(2.0)
        );
    }

    #[test]
    fn truncated_stat_is_refused() {
        assert_eq!(parse_proc_stat("42 (bench) S 1 2"), None);
        assert_eq!(parse_proc_stat("no parenthesis"), None);
    }

    #[test]
    fn own_process_has_used_some_cpu() {
        let spin: u64 = (0..2_000_000u64).fold(0, |a, b| a.wrapping_add(b * b));
        assert!(spin > 0);
        assert!(own_cpu_seconds() >= 0.0);
    }

    #[test]
    fn cpu_is_divided_per_successful_request_and_saturation_flagged() {
        // GIVEN 2 s of function CPU, 1 s of local cloud, 9.5 s of Goose over 10 s
        let account = CpuAccount::new(2000.0, None, 1000.0, 9500.0, 10.0, 1000);
        // THEN per-request figures and the saturation flag follow
        assert_eq!(account.functions_ms_per_request, Some(2.0));
        assert_eq!(account.localcloud_ms_per_request, Some(1.0));
        assert!((account.load_generator_cores - 0.95).abs() < 1e-9);
        assert!(account.load_generator_saturated);
        // AND no request gives no per-request figure rather than infinity
        assert_eq!(
            CpuAccount::new(5.0, None, 5.0, 1.0, 1.0, 0).functions_ms_per_request,
            None
        );
    }

    #[test]
    fn argon2_is_divided_apart_and_the_rest_per_request_beside_it() {
        // GIVEN 2 s of function CPU of which 1.5 s on Argon2id, over 1000 requests
        let account = CpuAccount::new(2000.0, Some(1500.0), 0.0, 0.0, 10.0, 1000);
        // THEN the split is per request, the whole figure unchanged
        assert_eq!(account.functions_ms_per_request, Some(2.0));
        assert_eq!(account.argon2_ms_per_request, Some(1.5));
        assert_eq!(account.functions_ms_per_request_excluding_argon2, Some(0.5));
        // AND an unmetered split stays unknown rather than zero
        let unknown = CpuAccount::new(2000.0, None, 0.0, 0.0, 10.0, 1000);
        assert_eq!(unknown.argon2_ms_per_request, None);
        assert_eq!(unknown.functions_ms_per_request_excluding_argon2, None);
    }
}
