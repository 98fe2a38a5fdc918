//! Which CPU share produced a run's durations (`localcloud serve
//! --cpu-share`), and how much of its billed time was this machine's
//! contention rather than the quota AWS applies: per invocation, in dollars,
//! and the durations and dollars as AWS would bill them beside the measured
//! ones.

use localcloud_metrics::{CpuShareMetrics, CpuShareMode};

use crate::results::RunRecord;
use crate::target::CpuShare;

/// With no interval known for the cost per successful request, taking the
/// contention out must move it by more than this share of it to be warned of.
pub const CONTENTION_WARNING: f64 = 0.05;

/// What the reports say about one run's CPU: the mode, its contention, and a
/// warning when taking the contention out moves the cost per successful
/// request out of its interval ([`contention_warning`]).
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
    let invocations: f64 = metering.functions.values().map(|f| f.invocations).sum();
    let (billed_ms, billed_as_aws) = metering.billed_ms();
    let dollars = cost_as_aws(r);
    let contention = share.map(|s| {
        let per_invocation = |ms: f64| if invocations > 0.0 { ms / invocations } else { 0.0 };
        let mut text = if metering.contention_measured() {
            let wake_up_ms = metering.wake_up_ms();
            format!(
                "contention {:.3} ms per invocation, {:.1} % of the billed time ({contention_ms:.0} ms of {billed_ms:.0} ms waiting for cores busy with other work, beyond the quota, within the invocations); idle cores' wake-up {:.3} ms per invocation ({wake_up_ms:.0} ms)",
                per_invocation(contention_ms),
                s * 100.0,
                per_invocation(wake_up_ms),
            )
        } else {
            format!(
                "contention {:.1} % of the billed time ({contention_ms:.0} ms of {billed_ms:.0} ms waiting for a core beyond the quota, all threads over the whole run: results before it was measured per invocation)",
                s * 100.0
            )
        };
        text.push_str(&format!(
            "; as AWS would bill them (this machine's waits taken out): {billed_as_aws:.0} ms billed"
        ));
        if let Some((raw, as_aws)) = dollars {
            text.push_str(&format!(
                ", ${as_aws:.4} per million successful requests against ${raw:.4} as measured (this machine's waits ${:.4})",
                raw - as_aws
            ));
        }
        text
    });
    // Only the contention's part of the deduction is warned of: the idle
    // cores' wake-ups are this machine's at any load, and more users or
    // cores would not take them out (the note gives them).
    let waits_ms = contention_ms + metering.wake_up_ms();
    let contention_part = if waits_ms > 0.0 {
        contention_ms / waits_ms
    } else {
        0.0
    };
    let interval = r
        .spread
        .as_ref()
        .and_then(|s| s.usd_per_million_ok.as_ref())
        .map(|usd| (usd.lo, usd.hi));
    let warning = dollars.and_then(|(raw, as_aws)| {
        contention_warning(raw, raw - (raw - as_aws) * contention_part, interval)
    });
    Some(CpuNote {
        mode,
        contention,
        warning,
    })
}

/// The run's dollars per million successful requests as measured and as AWS
/// would bill them (its contention's dollars taken out); `None` for a run
/// not priced or without a success.
pub fn cost_as_aws(r: &RunRecord) -> Option<(f64, f64)> {
    let cost = r.cost.as_ref()?;
    let raw = cost.usd_per_million_successful?;
    let successes = r.summary.successes as f64;
    let duration_usd = cost.duration_usd();
    let contention = r
        .metering
        .as_ref()?
        .contention_usd(duration_usd)
        .unwrap_or(0.0);
    Some((raw, raw - contention / successes * 1e6))
}

/// Whether taking this machine's contention out of a run's bill moves the
/// figure the verdicts read, its dollars per million successful requests,
/// enough to change what they say: out of the figure's 95 % `interval`
/// (low, high) where one is known, else by more than [`CONTENTION_WARNING`]
/// of the measured figure. An interval of no width (a run no failure moved)
/// says nothing of how far the figure could go, and counts as unknown. The
/// warning, if so.
pub fn contention_warning(
    raw_per_m_ok: f64,
    deducted_per_m_ok: f64,
    interval: Option<(f64, f64)>,
) -> Option<String> {
    let moved = raw_per_m_ok - deducted_per_m_ok;
    let share = if raw_per_m_ok > 0.0 {
        moved / raw_per_m_ok
    } else {
        0.0
    };
    let beyond = match interval.filter(|(low, high)| high > low) {
        Some((low, high)) => {
            if (low..=high).contains(&deducted_per_m_ok) {
                return None;
            }
            format!("outside its 95 % interval (${low:.4}-${high:.4})")
        }
        None if share > CONTENTION_WARNING => format!(
            "over {:.0} % of it, no interval known",
            CONTENTION_WARNING * 100.0
        ),
        None => return None,
    };
    Some(format!(
        "WARNING: contention moves the cost per million successful requests from ${raw_per_m_ok:.4} as measured to ${deducted_per_m_ok:.4} as AWS would bill it ({:.1} %, {beyond}): the functions waited for this machine's cores beyond their CPU share, so the measured durations and their cost overstate AWS's; read the figures as AWS would bill them, or run fewer users or on more cores",
        share * 100.0
    ))
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
    fn old_results_say_their_contention_was_taken_over_the_whole_run() {
        // GIVEN a run of results before per-invocation contention, whose
        // functions waited for a core 1 % of their billed time
        let record = testdata::results().records[0].clone();
        // WHEN noted
        let calm = note(&record).unwrap();
        // THEN the share is said with where it came from, and no warning
        let text = calm.contention.as_deref().unwrap();
        assert!(
            text.starts_with("contention 1.0 % of the billed time"),
            "{text}"
        );
        assert!(text.contains("over the whole run"), "{text}");
        assert!(calm.warning.is_none(), "{calm:?}");
    }

    /// The testdata's first run with every function's contention measured
    /// per invocation: `per_invocation_ms` each, billed without it
    /// `billed_share` of the measured billed time.
    fn measured(per_invocation_ms: f64, billed_share: f64) -> RunRecord {
        let mut record = testdata::results().records[0].clone();
        for f in record.metering.as_mut().unwrap().functions.values_mut() {
            f.contention_measured = true;
            f.contention_ms = per_invocation_ms * f.invocations;
            f.billed_ms_without_contention = Some(f.billed_ms * billed_share);
        }
        record
    }

    #[test]
    fn measured_contention_is_given_per_invocation_and_in_dollars_beside_the_bill() {
        // GIVEN a run whose invocations waited 0.02 ms each, billed 1 % less without
        let record = measured(0.02, 0.99);
        // WHEN noted
        let text = note(&record).unwrap().contention.unwrap();
        // THEN the contention is per invocation, and AWS's bill is beside the measured one
        assert!(
            text.starts_with("contention 0.020 ms per invocation, "),
            "{text}"
        );
        let (raw, as_aws) = cost_as_aws(&record).unwrap();
        let cost = record.cost.as_ref().unwrap();
        let duration = cost.by_line.iter().find(|l| l.heading == "Lambda duration");
        let duration = duration.unwrap().usd;
        let per_m_ok = |usd: f64| usd / record.summary.successes as f64 * 1e6;
        // AND the dollars taken out are 1 % of the duration line's
        assert!(
            (raw - as_aws - per_m_ok(duration * 0.01)).abs() < 1e-9,
            "{raw} {as_aws}"
        );
        assert!(
            text.contains(&format!(
                ", ${as_aws:.4} per million successful requests against ${raw:.4} as measured"
            )),
            "{text}"
        );
    }

    #[test]
    fn a_deduction_within_the_interval_is_no_warning_and_one_outside_is() {
        // GIVEN a cost of $2.00 per million ok requests, $1.90 without contention
        // WHEN its interval holds $1.90, THEN no warning
        assert_eq!(contention_warning(2.0, 1.9, Some((1.85, 2.1))), None);
        // WHEN it does not, THEN the warning says both figures and the interval
        let warning = contention_warning(2.0, 1.9, Some((1.95, 2.05))).unwrap();
        assert!(
            warning.starts_with("WARNING: contention moves the cost per million successful requests from $2.0000 as measured to $1.9000 as AWS would bill it (5.0 %, outside its 95 % interval ($1.9500-$2.0500))"),
            "{warning}"
        );
    }

    #[test]
    fn without_an_interval_only_a_move_over_five_percent_is_a_warning() {
        assert_eq!(contention_warning(2.0, 1.91, None), None, "4.5 %");
        assert_eq!(
            contention_warning(2.0, 1.91, Some((2.0, 2.0))),
            None,
            "an interval of no width is no interval"
        );
        assert_eq!(contention_warning(0.0, 0.0, None), None, "nothing billed");
        let warning = contention_warning(2.0, 1.89, None).unwrap();
        assert!(
            warning.contains("(5.5 %, over 5 % of it, no interval known)"),
            "{warning}"
        );
    }

    #[test]
    fn a_run_warns_only_when_its_measured_contention_moves_its_cost_enough() {
        // GIVEN two runs: one billed 1 % less without contention, one 40 % less
        let calm = note(&measured(0.02, 0.99)).unwrap();
        let busy_record = measured(2.0, 0.6);
        let busy = note(&busy_record).unwrap();
        // THEN the calm one is not warned of
        assert!(calm.warning.is_none(), "{calm:?}");
        // AND the busy one is, with its figures
        let (raw, as_aws) = cost_as_aws(&busy_record).unwrap();
        assert!((raw - as_aws) / raw > CONTENTION_WARNING, "{raw} {as_aws}");
        let warning = busy.warning.expect("moved over 5 %");
        assert!(
            warning.starts_with(&format!(
                "WARNING: contention moves the cost per million successful requests from ${raw:.4}"
            )),
            "{warning}"
        );
    }

    #[test]
    fn idle_cores_wake_ups_are_noted_and_taken_out_but_not_warned_of() {
        // GIVEN a run billed 40 % less without this machine's waits, all of
        // them idle cores' wake-ups
        let mut record = measured(0.0, 0.6);
        for f in record.metering.as_mut().unwrap().functions.values_mut() {
            f.wake_up_ms = 2.0 * f.invocations;
        }
        let noted = note(&record).unwrap();
        // THEN the note gives them per invocation and the bill without them
        let text = noted.contention.unwrap();
        assert!(
            text.contains("idle cores' wake-up 2.000 ms per invocation"),
            "{text}"
        );
        let (raw, as_aws) = cost_as_aws(&record).unwrap();
        assert!((raw - as_aws) / raw > CONTENTION_WARNING, "{raw} {as_aws}");
        // AND no warning: no contention moved the cost
        assert_eq!(noted.warning, None);
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
    fn a_remote_run_has_no_note() {
        let mut record = testdata::results().records[0].clone();
        record.metering = None;
        assert_eq!(note(&record), None);
        assert_eq!(cost_as_aws(&record), None);
    }
}
