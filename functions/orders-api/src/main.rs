//! `GET /orders/{size}` behind an HTTP API. `TRANSPORT` chooses how the
//! back end is reached: `invoke` or `queue` (SQS request/reply).

use lambda_http::{run, service_fn, Error, Request};
use orders::settings::ApiSettings;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::tracing::init_default_subscriber();
    let settings = ApiSettings::from_env()?;
    let config = aws_config::load_from_env().await;
    let transport = orders::api::transport_for(&settings, &config);
    let transport = &transport;
    run(service_fn(move |request: Request| async move {
        Ok::<_, Error>(orders::api::handle(transport, &request).await)
    }))
    .await
}
