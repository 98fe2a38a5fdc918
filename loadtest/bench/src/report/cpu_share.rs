//! Which CPU share produced a run's durations (`localcloud serve
//! --cpu-share`), and how much of its billed time was this machine's
//! contention rather than the quota AWS applies.

use localcloud_metrics::{CpuShareMetrics, CpuShareMode};

use crate::results::RunRecord;
use crate::target::CpuShare;

/// Contention above this share of the billed time is reported as a warning.
pub const CONTENTION_WARNING: f64 = 0.05;

/// What the reports say about one run's CPU: the mode, its contention, and a
/// warning when the contention is over [`CONTENTION_WARNING`].
#[derive(Debug, Clone, PartialEq)]
pub struct CpuNote {
    pub mode: String,
    pub contention: Option<String>,
    pub warning: Option<String>,
}

/// The mode in words: what produced the durations.
pub fn mode_text(share: &CpuShareMetrics) -> String {
    match share.mode {
        CpuShareMode::CgroupV1 | CpuShareMode::CgroupV2 => format!(
            "CPU share: {} (each environment at memory/1,769 vCPU)",
            share.mode.as_str()
        ),
        CpuShareMode::Model => {
            let mut text = "CPU share: model (durations stretched from each invocation's measured CPU time to memory/1,769 vCPU)".to_string();
            if let Some(reason) = &share.fallback_reason {
                text.push_str(&format!("; the kernel's quota was not available: {reason}"));
            }
            text
        }
        CpuShareMode::Off => {
            "CPU share: off: unthrottled cores, durations under-count AWS's CPU time".into()
        }
    }
}

/// Whether the local cloud applied another CPU share than the one asked
/// (`aws` is met by either cgroup version or by the model it falls back to):
/// a local cloud without the flag runs unthrottled whatever was asked.
pub fn not_as_asked(asked: CpuShare, applied: CpuShareMode) -> bool {
    match asked {
        CpuShare::Aws => applied == CpuShareMode::Off,
        CpuShare::Model => applied != CpuShareMode::Model,
        CpuShare::Off => applied != CpuShareMode::Off,
    }
}

/// `; not as asked (--cpu-share X)` when the run's local cloud applied
/// another share than `results` asked, else nothing.
pub fn asked_note(asked: Option<CpuShare>, r: &RunRecord) -> String {
    let applied = r.metering.as_ref().and_then(|m| m.cpu_share.as_ref());
    match (asked, applied) {
        (Some(asked), Some(applied)) if not_as_asked(asked, applied.mode) => {
            format!("; not as asked (--cpu-share {})", asked.as_str())
        }
        _ => String::new(),
    }
}

/// The note of a metered run; `None` for a remote target's (no metering).
pub fn note(r: &RunRecord) -> Option<CpuNote> {
    let metering = r.metering.as_ref()?;
    let mode = metering.cpu_share.as_ref().map_or_else(
        || "CPU share: not recorded (results before schema 4)".to_string(),
        mode_text,
    );
    let share = metering.contention_share();
    let contention_ms: f64 = metering.functions.values().map(|f| f.contention_ms).sum();
    let billed_ms: f64 = metering.functions.values().map(|f| f.billed_ms).sum();
    let contention = share.map(|s| {
        format!(
            "contention {:.1} % of the billed time ({contention_ms:.0} ms of {billed_ms:.0} ms waiting for a core beyond the quota)",
            s * 100.0
        )
    });
    let warning = share.filter(|s| *s > CONTENTION_WARNING).map(|s| {
        format!(
            "WARNING: contention was {:.1} % of the billed time (over {:.0} %): the functions waited for this machine's cores beyond their CPU share, so these durations and their cost overstate AWS's; run fewer users or on more cores",
            s * 100.0,
            CONTENTION_WARNING * 100.0
        )
    });
    Some(CpuNote {
        mode,
        contention,
        warning,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata;

    fn share(mode: CpuShareMode, reason: Option<&str>) -> CpuShareMetrics {
        CpuShareMetrics {
            mode,
            fallback_reason: reason.map(String::from),
        }
    }

    #[test]
    fn each_mode_says_what_produced_the_durations() {
        assert_eq!(
            mode_text(&share(CpuShareMode::CgroupV1, None)),
            "CPU share: cgroup-v1 (each environment at memory/1,769 vCPU)"
        );
        assert!(
            mode_text(&share(CpuShareMode::CgroupV2, None)).starts_with("CPU share: cgroup-v2 (")
        );
        let model = mode_text(&share(CpuShareMode::Model, Some("cpu.max is read-only")));
        assert!(model.starts_with("CPU share: model ("), "{model}");
        assert!(
            model.ends_with("not available: cpu.max is read-only"),
            "{model}"
        );
        assert_eq!(
            mode_text(&share(CpuShareMode::Off, None)),
            "CPU share: off: unthrottled cores, durations under-count AWS's CPU time"
        );
    }

    #[test]
    fn contention_over_five_percent_of_the_billed_time_is_a_warning() {
        // GIVEN a run whose functions waited for a core 1 % of their billed time
        let mut record = testdata::results().records[0].clone();
        let calm = note(&record).unwrap();
        assert!(calm.warning.is_none(), "{calm:?}");
        assert!(
            calm.contention
                .as_deref()
                .unwrap()
                .starts_with("contention 1.0 % of the billed time"),
            "{calm:?}"
        );
        // WHEN one of its functions waited 12 % of the run's billed time
        let metering = record.metering.as_mut().unwrap();
        let billed: f64 = metering.functions.values().map(|f| f.billed_ms).sum();
        let first = metering.functions.values_mut().next().unwrap();
        first.contention_ms += 0.11 * billed;
        // THEN the note warns, with the share
        let busy = note(&record).unwrap();
        let warning = busy.warning.expect("over 5 %");
        assert!(
            warning.starts_with("WARNING: contention was 12.0 % of the billed time (over 5 %)"),
            "{warning}"
        );
    }

    #[test]
    fn a_local_cloud_that_did_not_apply_the_share_asked_is_named() {
        assert!(!not_as_asked(CpuShare::Aws, CpuShareMode::CgroupV2));
        assert!(!not_as_asked(CpuShare::Aws, CpuShareMode::Model));
        assert!(not_as_asked(CpuShare::Aws, CpuShareMode::Off));
        assert!(not_as_asked(CpuShare::Model, CpuShareMode::CgroupV1));
        assert!(!not_as_asked(CpuShare::Off, CpuShareMode::Off));
        let mut record = testdata::results().records[0].clone();
        assert_eq!(asked_note(Some(CpuShare::Aws), &record), "");
        record.metering.as_mut().unwrap().cpu_share = Some(share(CpuShareMode::Off, None));
        assert_eq!(
            asked_note(Some(CpuShare::Aws), &record),
            "; not as asked (--cpu-share aws)"
        );
        assert_eq!(asked_note(None, &record), "");
    }

    #[test]
    fn just_under_five_percent_is_no_warning_and_a_remote_run_has_no_note() {
        let mut record = testdata::results().records[0].clone();
        for f in record.metering.as_mut().unwrap().functions.values_mut() {
            f.contention_ms = f.billed_ms * 0.0499;
        }
        assert!(note(&record).unwrap().warning.is_none());
        record.metering = None;
        assert_eq!(note(&record), None);
    }
}
