//! The two original experiments' figures, as docs/experiments.md restates
//! them: what each verdict is compared with.

/// Orders (docs/experiments.md, section 1: .NET, HTTP against MassTransit on
/// RabbitMQ, k6): p95 of the direct path at baseline.
pub const ORDERS_BASELINE_DIRECT_P95_MS: f64 = 513.0;
/// The messaging path's p95 at baseline (1.52 s).
pub const ORDERS_BASELINE_MESSAGING_P95_MS: f64 = 1520.0;
/// The direct path's failed share under highload (24,836 of the requests, 83 %).
pub const ORDERS_HIGHLOAD_DIRECT_FAILED: f64 = 0.83;
/// The messaging path under highload: nothing failed, 30.61 req/s at p95 6.39 s.
pub const ORDERS_HIGHLOAD_MESSAGING_FAILED: f64 = 0.0;
pub const ORDERS_HIGHLOAD_MESSAGING_RPS: f64 = 30.61;
pub const ORDERS_HIGHLOAD_MESSAGING_P95_MS: f64 = 6390.0;
/// Its consumer concurrency, implicit there: "apparently about 16".
pub const ORDERS_CONSUMERS: f64 = 16.0;

/// Conduit (docs/experiments.md, section 2: Go, PostgreSQL, one 8 vCPU
/// host): users held by the monolith.
pub const CONDUIT_MONOLITH_USERS: f64 = 60_000.0;
/// Four services on the same host, HTTP/JSON.
pub const CONDUIT_MICRO_USERS: f64 = 25_000.0;
/// CPU per public request: the monolith, then the four services.
pub const CONDUIT_MONOLITH_CPU_MS: f64 = 0.47;
pub const CONDUIT_MICRO_CPU_MS: f64 = 1.2;
