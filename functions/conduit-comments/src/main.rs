//! Conduit's comments service (see `conduit_micro`): public HTTP API events,
//! internal requests by Invoke, and SQS batches of internal requests.

use conduit_micro::Service;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    conduit_micro::lambda::run(Service::Comments).await
}
