//! What IAM saw during a bench run (target local): each run's
//! `GET /_localcloud/iam` document (the contract,
//! `localcloud_metrics::iam::IamDocument`) merged into one, per function the
//! calls allowed and denied, the least policy and the grants no run used,
//! and the runs in which a call was denied. A denial means a scenario failed
//! for want of a permission: `bench run` says so and fails.

use localcloud_metrics::iam::{Denial, IamDocument};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IamEvidence {
    /// Every run's document, merged.
    pub document: IamDocument,
    /// The runs (report titles) in which IAM denied a call, with the calls.
    pub denied_in: Vec<DeniedRun>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeniedRun {
    pub run: String,
    /// `{function}: {action} on {resource} ({n}x)`.
    pub denials: Vec<String>,
}

impl IamEvidence {
    /// The first run's document.
    pub fn new(run: &str, document: IamDocument) -> Self {
        let mut evidence = Self {
            document: IamDocument::new(document.mode),
            denied_in: Vec::new(),
        };
        evidence.add(run, &document);
        evidence
    }

    /// Adds one run's document.
    pub fn add(&mut self, run: &str, document: &IamDocument) {
        let denials: Vec<String> = document.denials().iter().map(describe).collect();
        if !denials.is_empty() {
            self.denied_in.push(DeniedRun {
                run: run.to_string(),
                denials,
            });
        }
        self.document.merge(document);
    }

    /// Every denied call of the whole bench, merged across runs.
    pub fn denials(&self) -> Vec<String> {
        self.document.denials().iter().map(describe).collect()
    }
}

/// Adds a run's document to what the bench has (`None` before its first).
pub fn record(evidence: &mut Option<IamEvidence>, run: &str, document: IamDocument) {
    match evidence {
        Some(e) => e.add(run, &document),
        None => *evidence = Some(IamEvidence::new(run, document)),
    }
}

fn describe(d: &Denial) -> String {
    format!(
        "{} ({}): {} on {} ({}x)",
        d.logical_id, d.function, d.action, d.resource, d.count
    )
}

/// What `GET /_localcloud/iam` says of a run in which the orders queue
/// path's API function sent `allowed` requests and was denied `denied`, and
/// never used its grant to delete its reply queues.
#[cfg(test)]
pub fn iam_document(allowed: u64, denied: u64) -> IamDocument {
    let calls = vec![localcloud_metrics::iam::CallCount {
        action: "sqs:SendMessage".into(),
        resource: "arn:aws:sqs:us-east-1:000000000000:bench-orders-requests".into(),
        allowed,
        denied,
    }];
    let mut document = IamDocument::new(localcloud_metrics::iam::IamMode::Enforce);
    let grant = |action: &str, queue: &str| localcloud_metrics::iam::Grant {
        policy: "inline".into(),
        action: action.into(),
        resource: format!("arn:aws:sqs:us-east-1:000000000000:{queue}"),
    };
    document
        .functions
        .push(localcloud_metrics::iam::FunctionIam {
            stack: "bench".into(),
            function: "bench-OrdersQueueFunction".into(),
            logical_id: "OrdersQueueFunction".into(),
            role: "arn:aws:iam::000000000000:role/bench-OrdersQueueFunctionRole".into(),
            least_policy: localcloud_metrics::iam::least_policy(&calls),
            calls,
            grants: vec![
                grant("sqs:SendMessage", "bench-orders-requests"),
                grant("sqs:DeleteQueue", "bench-orders-reply-*"),
            ],
            unused_grants: vec![grant("sqs:DeleteQueue", "bench-orders-reply-*")],
        });
    document
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_merged_and_those_with_denials_named() {
        // GIVEN a clean run, then a run in which a send was denied twice
        let mut evidence = None;
        record(
            &mut evidence,
            "orders-baseline / orders-queue",
            iam_document(5, 0),
        );
        record(
            &mut evidence,
            "orders-faults / orders-queue",
            iam_document(3, 2),
        );
        // WHEN the evidence is read
        let evidence = evidence.unwrap();
        // THEN the calls are summed over both runs
        let f = &evidence.document.functions[0];
        assert_eq!(f.totals(), (8, 2));
        // AND only the second run is named, with the denied call
        assert_eq!(evidence.denied_in.len(), 1);
        assert_eq!(evidence.denied_in[0].run, "orders-faults / orders-queue");
        assert_eq!(
            evidence.denials(),
            ["OrdersQueueFunction (bench-OrdersQueueFunction): sqs:SendMessage on arn:aws:sqs:us-east-1:000000000000:bench-orders-requests (2x)"]
        );
    }
}
