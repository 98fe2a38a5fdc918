//! What a mapping costs and did: SQS requests (receives are billed, empty
//! ones too), Lambda invocations, and how batches ended.

use crate::scaling::Activity;

pub use localcloud_metrics::EsmMetrics;

/// Zeroes the counters of a reset; the poller count is a level, not a counter.
pub fn reset(metrics: &mut EsmMetrics) {
    let pollers = metrics.pollers;
    *metrics = EsmMetrics::new(&metrics.function, &metrics.queue_arn);
    metrics.pollers = pollers;
}

/// Activity of `now` since `earlier`, for the scaler. Resets in between read
/// as no activity rather than wrapping.
pub fn activity_since(s: &EsmMetrics, earlier: &EsmMetrics) -> Activity {
    Activity {
        batches: s.batches.saturating_sub(earlier.batches),
        empty_receives: s.empty_receives.saturating_sub(earlier.empty_receives),
        short_receives: s.short_receives.saturating_sub(earlier.short_receives),
        waited_receives: s.waited_receives.saturating_sub(earlier.waited_receives),
        throttles: s
            .throttled_invokes
            .saturating_sub(earlier.throttled_invokes),
    }
}
