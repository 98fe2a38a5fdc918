//! The SLA a tuning judges each memory size by, and why those bounds. An
//! SLA no size can meet answers nothing ("no cheapest or balanced pick"), so
//! the default follows the scenario's designed floor: the orders back end
//! waits `OrdersDelayMs` (500 ms) per request by design, so the orders
//! scenarios get that wait plus a margin; `conduit-mixed` keeps the Conduit
//! experiment's SLA (`sla.rs`). A bound given on the command line wins.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::sla::Sla;
use crate::variants::Experiment;

/// Over the orders back end's wait, for the p95 bound: room for the API
/// function, the Invoke or queue hops and DynamoDB, at any memory size.
pub const ORDERS_P95_MARGIN_MS: f64 = 250.0;
/// Over the orders back end's wait, for the p99 bound (500 ms: the Conduit
/// experiment's 1 s at the template's 500 ms wait).
pub const ORDERS_P99_MARGIN_MS: f64 = 500.0;
/// The back end's wait when the template does not say (the function's own
/// default for `ORDERS_DELAY_MS`, `shared/orders/src/settings.rs`).
const ORDERS_DELAY_DEFAULT_MS: f64 = 500.0;

/// The bounds given on the command line (`--sla-p95-ms`, `--sla-p99-ms`);
/// `None`: the scenario's default.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SlaAsked {
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
}

/// The SLA used, and why those bounds, in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChosenSla {
    pub sla: Sla,
    pub reason: String,
}

/// The orders back end's designed wait: the template's `OrdersDelayMs`
/// default (a tuning runs the template's parameters, no overrides).
pub fn orders_delay_ms(template_defaults: &BTreeMap<String, String>) -> anyhow::Result<f64> {
    let Some(text) = template_defaults.get("OrdersDelayMs") else {
        return Ok(ORDERS_DELAY_DEFAULT_MS);
    };
    let delay: f64 = text
        .parse()
        .map_err(|_| anyhow::anyhow!("the template's OrdersDelayMs is {text:?}, not a number"))?;
    anyhow::ensure!(
        delay.is_finite() && delay >= 0.0,
        "the template's OrdersDelayMs is {delay}"
    );
    Ok(delay)
}

/// The SLA for a scenario of `experiment` whose orders back end waits
/// `orders_delay_ms`: each bound given in `asked`, the scenario's default
/// for the others (errors < 1 % always).
pub fn choose(experiment: Experiment, orders_delay_ms: f64, asked: SlaAsked) -> ChosenSla {
    // The default bounds, the why of both in words, and of each alone.
    let (default, why, why_p95, why_p99) = match experiment {
        Experiment::Orders => {
            let floor = format!(
                "the orders back end waits {orders_delay_ms:.0} ms by design (OrdersDelayMs)"
            );
            (
                Sla {
                    p95_ms: orders_delay_ms + ORDERS_P95_MARGIN_MS,
                    p99_ms: orders_delay_ms + ORDERS_P99_MARGIN_MS,
                    ..Sla::default()
                },
                format!(
                    "{floor}, + {ORDERS_P95_MARGIN_MS:.0} ms for p95 and + {ORDERS_P99_MARGIN_MS:.0} ms for p99"
                ),
                format!("{floor} + {ORDERS_P95_MARGIN_MS:.0} ms"),
                format!("{floor} + {ORDERS_P99_MARGIN_MS:.0} ms"),
            )
        }
        Experiment::Conduit => {
            let conduit = "the Conduit experiment's (docs/experiments.md, section 2)".to_string();
            (Sla::default(), conduit.clone(), conduit.clone(), conduit)
        }
    };
    let sla = Sla {
        p95_ms: asked.p95_ms.unwrap_or(default.p95_ms),
        p99_ms: asked.p99_ms.unwrap_or(default.p99_ms),
        ..default
    };
    let reason = match (asked.p95_ms, asked.p99_ms) {
        (Some(_), Some(_)) => "as given (--sla-p95-ms, --sla-p99-ms)".to_string(),
        (Some(_), None) => format!("p95 as given (--sla-p95-ms); p99: {why_p99}"),
        (None, Some(_)) => format!("p95: {why_p95}; p99 as given (--sla-p99-ms)"),
        (None, None) => why,
    };
    ChosenSla { sla, reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::Summary;

    /// A run's summary with these percentiles and error rate.
    fn measured(p95_ms: f64, p99_ms: f64, error_rate: f64) -> Summary {
        Summary {
            requests: 1000,
            successes: 1000 - (error_rate * 1000.0) as u64,
            error_rate,
            p95_ms: Some(p95_ms),
            p99_ms: Some(p99_ms),
            ..Summary::default()
        }
    }

    fn template_defaults(delay: &str) -> BTreeMap<String, String> {
        [("OrdersDelayMs".to_string(), delay.to_string())].into()
    }

    #[test]
    fn the_default_orders_sla_is_met_by_the_back_ends_designed_wait() {
        // GIVEN the template's 500 ms back end and no bound on the command line
        let delay = orders_delay_ms(&template_defaults("500")).unwrap();
        // WHEN the default tuning's SLA is chosen (orders-baseline)
        let chosen = choose(Experiment::Orders, delay, SlaAsked::default());
        // THEN it is the wait + 250 ms (p95) and + 500 ms (p99), errors < 1 %
        assert_eq!(chosen.sla.p95_ms, 750.0);
        assert_eq!(chosen.sla.p99_ms, 1000.0);
        assert_eq!(chosen.sla.max_error_rate, 0.01);
        // AND the 530 ms p95 every size measured (all broken under 500 ms) meets it
        assert!(chosen.sla.holds(&measured(530.0, 560.0, 0.0)));
        // AND a size that fails requests or lags well past the wait does not
        assert!(!chosen.sla.holds(&measured(530.0, 560.0, 0.02)));
        assert!(!chosen.sla.holds(&measured(800.0, 900.0, 0.0)));
        // AND the reason names the wait and the margin
        assert_eq!(
            chosen.reason,
            "the orders back end waits 500 ms by design (OrdersDelayMs), + 250 ms for p95 and + 500 ms for p99"
        );
    }

    #[test]
    fn the_default_follows_the_templates_wait() {
        // GIVEN a template whose back end waits 200 ms
        let delay = orders_delay_ms(&template_defaults("200")).unwrap();
        // THEN the bounds move with it
        let chosen = choose(Experiment::Orders, delay, SlaAsked::default());
        assert_eq!((chosen.sla.p95_ms, chosen.sla.p99_ms), (450.0, 700.0));
        assert!(chosen.reason.contains("waits 200 ms"), "{}", chosen.reason);
        // AND a template without the parameter gets the function's own 500 ms
        assert_eq!(orders_delay_ms(&BTreeMap::new()).unwrap(), 500.0);
        assert!(orders_delay_ms(&template_defaults("slow")).is_err());
    }

    #[test]
    fn an_explicit_bound_wins_over_the_default() {
        // GIVEN both bounds on the command line
        let asked = SlaAsked {
            p95_ms: Some(3000.0),
            p99_ms: Some(6000.0),
        };
        // THEN they are the SLA, for either experiment, and the reason says so
        for experiment in [Experiment::Orders, Experiment::Conduit] {
            let chosen = choose(experiment, 500.0, asked);
            assert_eq!((chosen.sla.p95_ms, chosen.sla.p99_ms), (3000.0, 6000.0));
            assert_eq!(chosen.reason, "as given (--sla-p95-ms, --sla-p99-ms)");
        }
        // AND a strict explicit p95 breaks what the default would have met
        let strict = SlaAsked {
            p95_ms: Some(500.0),
            p99_ms: None,
        };
        let chosen = choose(Experiment::Orders, 500.0, strict);
        assert_eq!((chosen.sla.p95_ms, chosen.sla.p99_ms), (500.0, 1000.0));
        assert!(!chosen.sla.holds(&measured(530.0, 560.0, 0.0)));
        assert_eq!(
            chosen.reason,
            "p95 as given (--sla-p95-ms); p99: the orders back end waits 500 ms by design (OrdersDelayMs) + 500 ms"
        );
    }

    #[test]
    fn conduit_keeps_the_conduit_experiments_sla() {
        let chosen = choose(Experiment::Conduit, 500.0, SlaAsked::default());
        assert_eq!(chosen.sla, Sla::default());
        assert_eq!(
            chosen.reason,
            "the Conduit experiment's (docs/experiments.md, section 2)"
        );
        let p99_only = SlaAsked {
            p95_ms: None,
            p99_ms: Some(2000.0),
        };
        let chosen = choose(Experiment::Conduit, 500.0, p99_only);
        assert_eq!((chosen.sla.p95_ms, chosen.sla.p99_ms), (500.0, 2000.0));
        assert!(chosen.reason.ends_with("p99 as given (--sla-p99-ms)"));
    }
}
