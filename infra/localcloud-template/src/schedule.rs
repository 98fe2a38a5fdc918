//! `Schedule` events (SAM's EventBridge rule with a schedule expression):
//! `rate(...)` expressions, which the local cloud runs; `cron(...)` is not
//! supported locally.
//!
//! Rate expressions, as EventBridge defines them
//! (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-scheduled-rule-pattern.html):
//! `rate(value unit)`, a positive whole value, the unit `minute`, `minutes`,
//! `hour`, `hours`, `day` or `days`, singular when the value is 1 and plural
//! otherwise.

use std::time::Duration;

use crate::diag::At;
use crate::model::ScheduleEvent;
use crate::props::{check_keys, Reader};
use crate::yaml::Node;

/// The period of a `rate(...)` expression, or why it is not one.
pub fn parse_rate(expression: &str) -> Result<Duration, String> {
    let inner = expression
        .trim()
        .strip_prefix("rate(")
        .and_then(|e| e.strip_suffix(')'))
        .ok_or_else(|| {
            if expression.trim().starts_with("cron(") {
                "cron(...) schedules are not supported locally; use rate(...)".to_string()
            } else {
                format!("`{expression}` is not a schedule expression: rate(value unit)")
            }
        })?;
    let mut parts = inner.split_whitespace();
    let (Some(value), Some(unit), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!("`{expression}`: a rate is rate(value unit)"));
    };
    let value: u64 = value
        .parse()
        .ok()
        .filter(|v| *v > 0)
        .ok_or_else(|| format!("`{expression}`: the value must be a positive whole number"))?;
    let (seconds, singular) = match unit {
        "minute" | "minutes" => (60, unit == "minute"),
        "hour" | "hours" => (3600, unit == "hour"),
        "day" | "days" => (86_400, unit == "day"),
        _ => {
            return Err(format!(
                "`{expression}`: the unit must be minute(s), hour(s) or day(s)"
            ))
        }
    };
    if singular != (value == 1) {
        return Err(format!(
            "`{expression}`: the unit is singular for a value of 1 and plural otherwise"
        ));
    }
    Ok(Duration::from_secs(value * seconds))
}

/// One `Schedule` event of a function.
pub(crate) fn schedule_event(
    event: &str,
    props: &Node,
    at: &At,
    r: &mut Reader,
) -> Option<ScheduleEvent> {
    let used = [
        "Schedule",
        "Enabled",
        "State",
        "Input",
        "Name",
        "Description",
    ];
    check_keys(
        props,
        &used,
        &["DeadLetterConfig", "RetryPolicy"],
        at,
        r.diags,
    );
    let line_of = |key: &str| props.get(key).map_or(props.line, |e| e.key_line);
    let before = r.diags.items.len();
    let Some(expression) = r.string(props, "Schedule", at) else {
        if r.diags.items.len() == before {
            r.diags.error(
                at,
                props.line,
                "a Schedule event needs Schedule (rate(...))",
            );
        }
        return None;
    };
    let rate = match parse_rate(&expression) {
        Ok(rate) => rate,
        Err(message) => {
            r.diags
                .error(&at.child("Schedule"), line_of("Schedule"), message);
            return None;
        }
    };
    let state_enabled = match r.string(props, "State", at).as_deref() {
        None | Some("ENABLED") => true,
        Some("DISABLED") => false,
        Some(other) => {
            let m = format!("State must be ENABLED or DISABLED, not `{other}`");
            r.diags.error(&at.child("State"), line_of("State"), m);
            return None;
        }
    };
    let enabled = r.bool(props, "Enabled", at).unwrap_or(true) && state_enabled;
    let input = r.string(props, "Input", at);
    if let Some(text) = &input {
        if serde_json::from_str::<serde_json::Value>(text).is_err() {
            r.diags.error(
                &at.child("Input"),
                line_of("Input"),
                "Input must be JSON text",
            );
            return None;
        }
    }
    let name = r.string(props, "Name", at);
    Some(ScheduleEvent {
        name: event.to_string(),
        rule_name: name,
        expression,
        rate,
        enabled,
        input,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_in_minutes_hours_and_days_are_read() {
        assert_eq!(parse_rate("rate(1 minute)"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_rate("rate(15 minutes)"), Ok(Duration::from_secs(900)));
        assert_eq!(parse_rate("rate(2 hours)"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_rate("rate(1 day)"), Ok(Duration::from_secs(86_400)));
    }

    #[test]
    fn malformed_rates_and_cron_are_refused_with_the_reason() {
        let error = |e: &str| parse_rate(e).unwrap_err();
        assert!(error("rate(1 minutes)").contains("singular"));
        assert!(error("rate(5 minute)").contains("plural"));
        assert!(error("rate(0 minutes)").contains("positive"));
        assert!(error("rate(5 weeks)").contains("unit"));
        assert!(error("rate(5)").contains("rate(value unit)"));
        assert!(error("cron(0 12 * * ? *)").contains("not supported locally"));
        assert!(error("every 5 minutes").contains("not a schedule expression"));
    }
}
