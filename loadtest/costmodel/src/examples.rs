//! The project's five variants as what-if scenarios, with ASSUMED durations (to be
//! replaced by measured ones): the worked examples of `docs/cost-model.md`.
//!
//! Shared assumptions: Rust on `provided.al2023`, arm64, 128 MB; 0.1 % cold starts of
//! 13 ms INIT; 350 log bytes per invocation (START, END, REPORT and one line); an
//! internal synchronous `Invoke` adds 12 ms of waiting beyond the callee's duration;
//! SQS to Lambda adds 16 ms (p50, aws-facts.md); a SendMessage or a reply's receive
//! costs the caller 5 ms.

use crate::metering::{ReadConsistency, WriteKind};
use crate::whatif::{
    ApiKind, ApiSpec, Consumer, FunctionSpec, QueueSpec, ReadSpec, Scenario, TableSpec, Trigger,
    WriteSpec,
};

/// Names accepted by [`by_name`].
pub const NAMES: [&str; 5] = [
    "conduit-monolith",
    "conduit-micro-invoke",
    "conduit-micro-queue",
    "orders-direct",
    "orders-queue",
];

/// Conduit: about 250 req/s per 1,000 users (experiments.md).
pub const CONDUIT_RATE: f64 = 250.0;
/// Orders: the original baseline served about 48 req/s.
pub const ORDERS_RATE: f64 = 50.0;

const INVOKE_OVERHEAD_MS: f64 = 12.0;
const ESM_LATENCY_MS: f64 = 16.0;
const SQS_CALL_MS: f64 = 5.0;
const BACKEND_SLEEP_MS: f64 = 500.0;

pub fn by_name(name: &str, rate: Option<f64>) -> Option<Scenario> {
    let conduit = rate.unwrap_or(CONDUIT_RATE);
    let orders = rate.unwrap_or(ORDERS_RATE);
    match name {
        "conduit-monolith" => Some(conduit_monolith(conduit)),
        "conduit-micro-invoke" => Some(conduit_micro_invoke(conduit)),
        "conduit-micro-queue" => Some(conduit_micro_queue(conduit)),
        "orders-direct" => Some(orders_direct(orders)),
        "orders-queue" => Some(orders_queue(orders)),
        _ => None,
    }
}

/// One "list articles" request: a Query of 20 articles (20 KB) and a batch read of
/// their 10 authors (0.5 KB each, each rounded to 4 KB), eventually consistent; one
/// favourite written by one request in twenty.
pub fn conduit_monolith(rate: f64) -> Scenario {
    Scenario {
        label: "conduit-monolith".into(),
        requests_per_second: rate,
        api: http_api(300),
        functions: vec![function("conduit", Trigger::PerRequest(1.0), 6.0, 0.0)],
        queues: vec![],
        tables: conduit_tables(),
    }
}

/// Articles answers and calls Profiles' batch API with a synchronous `Invoke`.
pub fn conduit_micro_invoke(rate: f64) -> Scenario {
    let profiles_ms = 3.0;
    let waiting = profiles_ms + INVOKE_OVERHEAD_MS;
    Scenario {
        label: "conduit-micro-invoke".into(),
        requests_per_second: rate,
        api: http_api(300),
        functions: vec![
            function("articles", Trigger::PerRequest(1.0), 5.0 + waiting, waiting),
            function("profiles", Trigger::PerRequest(1.0), profiles_ms, 0.0),
        ],
        queues: vec![],
        tables: conduit_tables(),
    }
}

/// Articles sends a request message to Profiles (event source mapping, batches of
/// one for latency) and waits for the reply on its own reply queue.
pub fn conduit_micro_queue(rate: f64) -> Scenario {
    let profiles_ms = 3.0 + SQS_CALL_MS;
    let waiting = SQS_CALL_MS + ESM_LATENCY_MS + profiles_ms + SQS_CALL_MS;
    Scenario {
        label: "conduit-micro-queue".into(),
        requests_per_second: rate,
        api: http_api(300),
        functions: vec![
            function("articles", Trigger::PerRequest(1.0), 5.0 + waiting, waiting),
            function(
                "profiles",
                Trigger::QueueBatches("profiles-requests".into()),
                profiles_ms,
                SQS_CALL_MS,
            ),
        ],
        queues: request_reply_queues("profiles-requests", "articles-replies", 200, 5_000),
        tables: conduit_tables(),
    }
}

/// The API function invokes the back end synchronously; the back end sleeps 500 ms.
pub fn orders_direct(rate: f64) -> Scenario {
    let backend_ms = BACKEND_SLEEP_MS + 2.0;
    let waiting = backend_ms + INVOKE_OVERHEAD_MS;
    Scenario {
        label: "orders-direct".into(),
        requests_per_second: rate,
        api: http_api(200),
        functions: vec![
            function(
                "orders-api",
                Trigger::PerRequest(1.0),
                2.0 + waiting,
                waiting,
            ),
            function("orders-backend", Trigger::PerRequest(1.0), backend_ms, 0.0),
        ],
        queues: vec![],
        tables: vec![],
    }
}

/// The API function sends `GetOrders` to a queue and waits for the reply; a worker
/// (event source mapping, batches of one) sleeps 500 ms and replies.
pub fn orders_queue(rate: f64) -> Scenario {
    let worker_ms = BACKEND_SLEEP_MS + 2.0 + SQS_CALL_MS;
    let waiting = SQS_CALL_MS + ESM_LATENCY_MS + worker_ms + SQS_CALL_MS;
    Scenario {
        label: "orders-queue".into(),
        requests_per_second: rate,
        api: http_api(200),
        functions: vec![
            function(
                "orders-api",
                Trigger::PerRequest(1.0),
                2.0 + waiting,
                waiting,
            ),
            function(
                "orders-worker",
                Trigger::QueueBatches("orders-requests".into()),
                worker_ms,
                SQS_CALL_MS,
            ),
        ],
        queues: request_reply_queues("orders-requests", "orders-replies", 100, 650),
        tables: vec![],
    }
}

fn http_api(request_bytes: u64) -> Option<ApiSpec> {
    Some(ApiSpec {
        kind: ApiKind::Http,
        request_bytes,
    })
}

fn function(name: &str, trigger: Trigger, duration_ms: f64, waiting_ms: f64) -> FunctionSpec {
    FunctionSpec {
        name: name.into(),
        architecture: "arm64".into(),
        memory_mb: 128.0,
        trigger,
        duration_ms,
        waiting_ms,
        cold_start_ratio: 0.001,
        init_ms: 13.0,
        log_bytes_per_invocation: 350.0,
    }
}

fn request_reply_queues(
    requests: &str,
    replies: &str,
    request_bytes: u64,
    reply_bytes: u64,
) -> Vec<QueueSpec> {
    vec![
        QueueSpec {
            name: requests.into(),
            messages_per_request: 1.0,
            message_bytes: request_bytes,
            consumer: Consumer::EventSourceMapping {
                batch_size: 1.0,
                pollers: 5.0,
            },
        },
        QueueSpec {
            name: replies.into(),
            messages_per_request: 1.0,
            message_bytes: reply_bytes,
            // One long poll that returns with the reply; replies are not
            // deleted but expire with the queue's retention (transport::reply).
            consumer: Consumer::Client {
                receives_per_message: 1.0,
                deletes_per_message: 0.0,
            },
        },
    ]
}

fn conduit_tables() -> Vec<TableSpec> {
    vec![
        TableSpec {
            name: "articles".into(),
            reads: vec![ReadSpec {
                per_request: 1.0,
                bytes: 20 * 1024,
                consistency: ReadConsistency::Eventual,
            }],
            writes: vec![WriteSpec {
                per_request: 0.05,
                item_bytes: 200,
                kind: WriteKind::Standard,
            }],
        },
        TableSpec {
            name: "users".into(),
            reads: vec![ReadSpec {
                per_request: 10.0,
                bytes: 512,
                consistency: ReadConsistency::Eventual,
            }],
            writes: vec![],
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{cost, ratio, CostBreakdown, CostOptions, Metering, PriceTable};

    fn priced(name: &str) -> CostBreakdown {
        let prices = PriceTable::aws_default();
        let metering = Metering::from_prices(&prices.region("us-east-1", None).unwrap()).unwrap();
        let scenario = by_name(name, None).unwrap();
        let usage = scenario.usage(&metering).unwrap();
        let options = CostOptions {
            requests_per_second: Some(scenario.requests_per_second),
            ..CostOptions::default()
        };
        cost(&usage, &prices, "us-east-1", &options).unwrap()
    }

    #[test]
    fn figures_quoted_in_the_cost_model_doc_still_hold() {
        // docs/cost-model.md, "Worked examples": $ per 1M requests and $ per month
        // with free tier; update the doc when an assumption changes.
        let documented = [
            ("conduit-monolith", 2.346, 1_497.61),
            ("conduit-micro-invoke", 2.742, 1_757.67),
            ("conduit-micro-queue", 4.782, 3_097.55),
            ("orders-direct", 3.432, 442.74),
            ("orders-queue", 5.472, 710.40),
        ];
        for (name, per_million, per_month) in documented {
            let b = priced(name);
            let month = b.monthly.as_ref().unwrap().usd_with_free_tier;
            assert!(
                (b.usd_per_million_requests - per_million).abs() < 0.0005,
                "{name}: {}",
                b.usd_per_million_requests
            );
            assert!((month - per_month).abs() < 0.005, "{name}: {month}");
        }
    }

    #[test]
    fn every_example_prices_without_error() {
        for name in NAMES {
            let b = priced(name);
            assert!(b.usd_per_request > 0.0, "{name}");
        }
        assert!(by_name("nope", None).is_none());
    }

    #[test]
    fn splitting_conduit_costs_more_and_queues_cost_most() {
        let mono = priced("conduit-monolith");
        let invoke = priced("conduit-micro-invoke");
        let queue = priced("conduit-micro-queue");
        let invoke_ratio = ratio(&invoke, &mono).per_request.unwrap();
        let queue_ratio = ratio(&queue, &mono).per_request.unwrap();
        assert!(invoke_ratio > 1.0, "{invoke_ratio}");
        assert!(queue_ratio > invoke_ratio, "{queue_ratio}");
    }

    #[test]
    fn orders_api_function_pays_for_the_500_ms_wait_in_both_variants() {
        for name in ["orders-direct", "orders-queue"] {
            let b = priced(name);
            let waiting = b
                .lines
                .iter()
                .find(|l| l.resource == "orders-api" && l.item == "duration (waiting)")
                .unwrap();
            // at least 500 ms x 0.125 GB / 1000 = 0.0625 GB-s per public request
            assert!(waiting.quantity / b.public_requests >= 0.0625, "{name}");
        }
    }
}
