//! `Schedule` events: each enabled rule invokes its function asynchronously
//! (`InvocationType: Event`, as EventBridge does) once per period of its
//! `rate(...)`, the first time one period after the stack starts, with the
//! rule's `Input` or EventBridge's scheduled event
//! (https://docs.aws.amazon.com/eventbridge/latest/ref/events-ref-scheduler.html;
//! example in https://docs.aws.amazon.com/lambda/latest/dg/with-eventbridge-scheduler.html).

use std::sync::Arc;

use localcloud_core::invoke::{InvocationType, InvokeRequest};
use localcloud_core::Invoker;
use localcloud_template::{Function, ScheduleEvent};
use serde_json::{json, Value};
use tokio::task::JoinHandle;

/// One rule of one function, as the scheduler runs it.
#[derive(Debug, Clone)]
pub struct Rule {
    pub function: String,
    /// The rule's name: its `Name`, else `{stack}-{Function}{Event}`.
    pub name: String,
    pub arn: String,
    pub event: ScheduleEvent,
}

impl Rule {
    pub fn new(
        function: &Function,
        event: &ScheduleEvent,
        stack: &str,
        region: &str,
        account: &str,
    ) -> Self {
        let name = event
            .rule_name
            .clone()
            .unwrap_or_else(|| format!("{stack}-{}{}", function.logical_id, event.name));
        Self {
            // The alias of `AutoPublishAlias`, which SAM makes the rule's target.
            function: function.invoke_target(),
            arn: format!("arn:aws:events:{region}:{account}:rule/{name}"),
            name,
            event: event.clone(),
        }
    }

    /// What the function receives: the rule's `Input`, else the scheduled event.
    pub fn payload(
        &self,
        region: &str,
        account: &str,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Value {
        if let Some(input) = &self.event.input {
            if let Ok(value) = serde_json::from_str(input) {
                return value;
            }
        }
        json!({
            "version": "0",
            "id": uuid::Uuid::new_v4().to_string(),
            "detail-type": "Scheduled Event",
            "source": "aws.events",
            "account": account,
            "time": now.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            "region": region,
            "resources": [self.arn],
            "detail": {},
        })
    }
}

/// Starts one task per enabled rule; abort the handles to stop them.
pub fn start(
    rules: Vec<Rule>,
    invoker: Arc<dyn Invoker>,
    region: &str,
    account: &str,
) -> Vec<JoinHandle<()>> {
    rules
        .into_iter()
        .filter(|rule| rule.event.enabled)
        .map(|rule| {
            let (invoker, region, account) =
                (invoker.clone(), region.to_string(), account.to_string());
            tokio::spawn(async move {
                let period = rule.event.rate;
                let mut ticks =
                    tokio::time::interval_at(tokio::time::Instant::now() + period, period);
                ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
                loop {
                    ticks.tick().await;
                    let payload = rule.payload(&region, &account, chrono::Utc::now());
                    let request = InvokeRequest {
                        function: rule.function.clone(),
                        payload: payload.to_string().into(),
                        invocation_type: InvocationType::Event,
                        caller: format!("events:{}", rule.name),
                    };
                    if let Err(e) = invoker.invoke(request).await {
                        tracing::warn!(rule = rule.name, "scheduled invocation refused: {e}");
                    }
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    use async_trait::async_trait;
    use localcloud_core::invoke::{InvokeError, InvokeResponse};
    use parking_lot::Mutex;

    #[derive(Default)]
    struct Recorder(Mutex<Vec<InvokeRequest>>);

    #[async_trait]
    impl Invoker for Recorder {
        async fn invoke(&self, request: InvokeRequest) -> Result<InvokeResponse, InvokeError> {
            self.0.lock().push(request);
            Ok(InvokeResponse {
                request_id: "r".into(),
                payload: Default::default(),
                function_error: None,
                status: 202,
            })
        }
    }

    fn rule(function: &str, rate: Duration, enabled: bool, input: Option<&str>) -> Rule {
        Rule {
            function: function.into(),
            name: "stack-SweeperSweep".into(),
            arn: "arn:aws:events:us-east-1:000000000000:rule/stack-SweeperSweep".into(),
            event: ScheduleEvent {
                name: "Sweep".into(),
                rule_name: None,
                expression: "rate(1 minute)".into(),
                rate,
                enabled,
                input: input.map(String::from),
            },
        }
    }

    #[tokio::test]
    async fn an_enabled_rule_invokes_its_function_asynchronously_once_per_period() {
        // GIVEN an enabled rule every 100 ms (rates are minutes in templates;
        // the period is what the scheduler reads) and a disabled rule every 10 ms
        let recorder = Arc::new(Recorder::default());
        let period = Duration::from_millis(100);
        let handles = start(
            vec![
                rule("on", period, true, None),
                rule("off", Duration::from_millis(10), false, None),
            ],
            recorder.clone(),
            "us-east-1",
            "000000000000",
        );
        // WHEN the scheduler runs: nothing at once, then one call per period
        assert!(
            recorder.0.lock().is_empty(),
            "the first call waits a period"
        );
        let started = std::time::Instant::now();
        while recorder.0.lock().len() < 3 {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "no 3 calls in 10 s"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        handles.iter().for_each(JoinHandle::abort);
        // THEN the enabled rule's function was invoked asynchronously with
        // the scheduled event, at most once per period; the disabled one never
        let elapsed = started.elapsed();
        let calls = recorder.0.lock().clone();
        assert!(calls.len() as u128 <= elapsed.as_millis() / period.as_millis() + 1);
        for call in &calls {
            assert_eq!(call.function, "on");
            assert_eq!(call.invocation_type, InvocationType::Event);
            assert_eq!(call.caller, "events:stack-SweeperSweep");
            let event: Value = serde_json::from_slice(&call.payload).unwrap();
            assert_eq!(event["detail-type"], "Scheduled Event");
            assert_eq!(event["source"], "aws.events");
            assert_eq!(
                event["resources"][0],
                "arn:aws:events:us-east-1:000000000000:rule/stack-SweeperSweep"
            );
        }
    }

    #[test]
    fn the_scheduled_event_has_eventbridges_fields_and_input_replaces_it() {
        let now = chrono::DateTime::parse_from_rfc3339("2015-10-08T16:53:06Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let minute = Duration::from_secs(60);
        let event = rule("f", minute, true, None).payload("us-east-1", "123456789012", now);
        let keys: Vec<&str> = event
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "version",
                "id",
                "detail-type",
                "source",
                "account",
                "time",
                "region",
                "resources",
                "detail"
            ]
        );
        assert_eq!(event["time"], "2015-10-08T16:53:06Z");
        assert_eq!(event["account"], "123456789012");
        assert_eq!(event["detail"], json!({}));
        let input =
            rule("f", minute, true, Some(r#"{"sweep": true}"#)).payload("us-east-1", "1", now);
        assert_eq!(input, json!({"sweep": true}));
    }
}
