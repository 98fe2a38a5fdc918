//! The local cloud's metering (`GET /_localcloud/metrics`, the
//! [`MetricsDocument`] contract of crate `localcloud-metrics`) into [`Usage`].
//!
//! The document is strict (every field required, none unknown, one version):
//! a counter the emulator does not produce is an error when it is read, never
//! a silent zero on the bill.

use localcloud_metrics::{ApiKind, FunctionMetrics, MetricsDocument};

use crate::usage::{FunctionUsage, ManagedUsage, QueueUsage, TableUsage, Usage};

/// `public_requests` comes from the load generator: the emulator cannot tell a
/// client's request from an internal one.
pub fn usage(doc: &MetricsDocument, label: &str, public_requests: f64) -> Usage {
    let lambda = doc
        .lambda
        .functions
        .iter()
        .map(|(name, f)| FunctionUsage {
            name: name.clone(),
            architecture: f.architecture.as_str().to_string(),
            memory_mb: f64::from(f.memory_mb),
            invocations: f.invocations as f64,
            billed_ms_total: f.billed_ms as f64,
            init_ms_total: f.init_ms,
            waiting_ms_total: f.waiting_ms,
            gb_seconds: Some(f.gb_seconds),
            managed: managed_usage(doc, f),
        })
        .collect();
    let mut sqs: Vec<QueueUsage> = doc
        .sqs
        .queues
        .iter()
        .filter(|(_, q)| q.billed_requests > 0)
        .map(|(arn, q)| QueueUsage {
            name: queue_name(arn).to_string(),
            billed_requests: q.billed_requests as f64,
        })
        .collect();
    if doc.sqs.unattributed_requests > 0 {
        sqs.push(QueueUsage {
            name: "(no queue)".into(),
            billed_requests: doc.sqs.unattributed_requests as f64,
        });
    }
    let dynamodb = doc
        .dynamodb
        .tables
        .iter()
        .map(|(name, t)| TableUsage {
            name: name.clone(),
            read_units: t.read_units,
            write_units: t.write_units,
        })
        .collect();
    let mut usage = Usage {
        label: label.to_string(),
        public_requests,
        lambda,
        sqs,
        dynamodb,
        log_bytes: doc
            .lambda
            .functions
            .values()
            .map(|f| f.log_bytes as f64)
            .sum(),
        data_transfer_out_bytes: doc
            .apis
            .values()
            .map(|a| a.data_transfer_out_bytes as f64)
            .sum(),
        ..Usage::default()
    };
    usage.api_gateway.http_requests = metered_requests(doc, ApiKind::Http);
    usage.api_gateway.rest_requests = metered_requests(doc, ApiKind::Rest);
    usage
}

/// A function on Lambda Managed Instances: its provider's instance type, its
/// part of the instances and its environments' settings (`None` on-demand).
/// A provider missing from the document is the default type for the
/// function's architecture, as the local cloud itself assumes.
pub fn managed_usage(doc: &MetricsDocument, f: &FunctionMetrics) -> Option<ManagedUsage> {
    let provider = f.capacity_provider.as_ref()?;
    let instance_type = doc.lambda.capacity_providers.get(provider).map_or_else(
        || {
            localcloud_metrics::instances::default_instance_type(f.architecture.as_str())
                .to_string()
        },
        |p| p.instance_type.clone(),
    );
    Some(ManagedUsage {
        capacity_provider: provider.clone(),
        instance_type,
        instance_seconds: f.instance_seconds,
        max_concurrency: f.max_concurrency,
        memory_gib_per_vcpu: f.memory_gib_per_vcpu,
    })
}

/// Billed requests of the APIs of one kind: each kind has its own price, and
/// function URLs none (<https://aws.amazon.com/lambda/pricing/>).
fn metered_requests(doc: &MetricsDocument, kind: ApiKind) -> f64 {
    doc.apis
        .values()
        .filter(|a| a.kind == kind)
        .map(|a| a.metered_requests as f64)
        .sum()
}

/// `arn:aws:sqs:us-east-1:000000000000:orders` -> `orders`.
pub fn queue_name(arn_or_name: &str) -> &str {
    arn_or_name.rsplit(':').next().unwrap_or(arn_or_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use localcloud_metrics::{
        ApiMetrics, Architecture, FunctionMetrics, QueueMetrics, TableMetrics,
    };

    #[test]
    fn every_billed_counter_lands_in_usage() {
        // GIVEN a document with one API, function, queue and table
        let mut doc = MetricsDocument::new();
        doc.apis.insert(
            "ConduitApi".into(),
            ApiMetrics {
                metered_requests: 1002,
                data_transfer_out_bytes: 250_000,
                ..ApiMetrics::new(ApiKind::Http, "ConduitApi", "abc")
            },
        );
        doc.lambda.functions.insert(
            "conduit".into(),
            FunctionMetrics {
                memory_mb: 128,
                architecture: Architecture::Arm64,
                invocations: 1000,
                billed_ms: 2031,
                gb_seconds: 2031.0 * 128.0 / 1024.0 / 1000.0,
                init_ms: 26.1,
                log_bytes: 350_000,
                ..FunctionMetrics::default()
            },
        );
        let queue = QueueMetrics {
            billed_requests: 30,
            ..QueueMetrics::default()
        };
        doc.sqs
            .queues
            .insert("arn:aws:sqs:us-east-1:000000000000:orders".into(), queue);
        doc.sqs.unattributed_requests = 1;
        let table = TableMetrics {
            read_units: 750.5,
            write_units: 12.0,
            ..TableMetrics::default()
        };
        doc.dynamodb.tables.insert("articles".into(), table);
        // WHEN converted
        let usage = usage(&doc, "monolith", 1000.0);
        // THEN every billed counter is there
        assert_eq!(usage.api_gateway.http_requests, 1002.0);
        assert_eq!(usage.data_transfer_out_bytes, 250_000.0);
        assert_eq!(usage.log_bytes, 350_000.0);
        let f = &usage.lambda[0];
        assert_eq!(
            (f.name.as_str(), f.architecture.as_str()),
            ("conduit", "arm64")
        );
        assert_eq!(
            (f.invocations, f.billed_ms_total, f.init_ms_total),
            (1000.0, 2031.0, 26.1)
        );
        assert_eq!(
            (usage.sqs[0].name.as_str(), usage.sqs[0].billed_requests),
            ("orders", 30.0)
        );
        assert_eq!(usage.sqs[1].billed_requests, 1.0);
        assert_eq!(usage.dynamodb[0].read_units, 750.5);
        assert!(usage.validate().is_ok());
    }

    #[test]
    fn a_function_on_a_capacity_provider_brings_its_part_of_the_instances() {
        // GIVEN a managed function on an m7i.large fleet and an on-demand one
        let mut doc = MetricsDocument::new();
        let fleet = localcloud_metrics::CapacityProviderMetrics {
            instance_type: "m7i.large".into(),
            instance_seconds: 300.0,
            ..Default::default()
        };
        doc.lambda.capacity_providers.insert("fleet".into(), fleet);
        let managed = FunctionMetrics {
            memory_mb: 2048,
            invocations: 10,
            capacity_provider: Some("fleet".into()),
            instance_seconds: 120.0,
            ..FunctionMetrics::default()
        };
        doc.lambda.functions.insert("lmi".into(), managed);
        let on_demand = FunctionMetrics {
            memory_mb: 128,
            ..FunctionMetrics::default()
        };
        doc.lambda.functions.insert("od".into(), on_demand);
        // WHEN converted
        let usage = usage(&doc, "t", 10.0);
        // THEN the managed one has its provider's type and its own seconds
        let lmi = usage.lambda.iter().find(|f| f.name == "lmi").unwrap();
        let managed = lmi.managed.as_ref().expect("on a capacity provider");
        assert_eq!(
            (managed.instance_type.as_str(), managed.instance_seconds),
            ("m7i.large", 120.0)
        );
        assert_eq!(managed.capacity_provider, "fleet");
        // AND the on-demand one has none
        let od = usage.lambda.iter().find(|f| f.name == "od").unwrap();
        assert_eq!(od.managed, None);
    }

    #[test]
    fn each_apis_requests_are_billed_at_its_kinds_price() {
        // GIVEN an HTTP API, a REST API and a function URL, 1000 requests each
        let mut doc = MetricsDocument::new();
        for (id, kind) in [
            ("OrdersDirectApi", ApiKind::Http),
            ("OrdersQueueApi", ApiKind::Rest),
            ("EchoFunctionUrl", ApiKind::FunctionUrl),
        ] {
            let api = ApiMetrics {
                metered_requests: 1000,
                data_transfer_out_bytes: 100,
                ..ApiMetrics::new(kind, id, "abc")
            };
            doc.apis.insert(id.into(), api);
        }
        // WHEN converted and priced
        let usage = usage(&doc, "doors", 3000.0);
        let prices = crate::PriceTable::aws_default();
        let bill = crate::cost(&usage, &prices, "us-east-1", &Default::default()).unwrap();
        // THEN the REST API's requests are at the REST price ($3.50 per M),
        // the HTTP API's at the HTTP price ($1.00 per M), the function URL's
        // at none; every door's bytes out are data transfer
        assert_eq!(
            (
                usage.api_gateway.http_requests,
                usage.api_gateway.rest_requests
            ),
            (1000.0, 1000.0)
        );
        let usd = |item: &str| {
            bill.lines
                .iter()
                .filter(|l| l.service == "apigateway" && l.item == item)
                .map(|l| l.usd)
                .sum::<f64>()
        };
        assert!((usd("rest_requests") - 0.0035).abs() < 1e-12, "{bill:?}");
        assert!((usd("http_requests") - 0.0010).abs() < 1e-12, "{bill:?}");
        let api_gateway: f64 = bill
            .lines
            .iter()
            .filter(|l| l.service == "apigateway")
            .map(|l| l.usd)
            .sum();
        assert!((api_gateway - 0.0045).abs() < 1e-12);
        assert_eq!(usage.data_transfer_out_bytes, 300.0);
    }
}
