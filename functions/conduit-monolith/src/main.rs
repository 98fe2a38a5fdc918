//! The whole Conduit API as one Lambda function behind an HTTP API
//! (`ANY /api/{proxy+}`, payload v2). All logic lives in the `conduit` crate.
//!
//! Environment: `JWT_SECRET` (>= 32 bytes), `USERS_TABLE`, `FOLLOWS_TABLE`,
//! `ARTICLES_TABLE`, `COMMENTS_TABLE`; `AWS_ENDPOINT_URL` for the local cloud.

use conduit::auth::Tokens;
use conduit::store::dynamo::TableNames;
use conduit::App;
use lambda_http::{run, service_fn, tracing, Error, Request};

// glibc's malloc and free were a sixth of a request's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// One invocation at a time per execution environment: one thread serves it
// without waking others (docs/benchmarks.md, "CPU per request").
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();

    // Fail the INIT phase, not the first request, when configuration is wrong.
    let tokens = Tokens::from_env()?;
    let tables = TableNames::from_env()?;
    let config = conduit::sdk::load().await;
    let app = App::dynamo(aws_sdk_dynamodb::Client::new(&config), &tables, tokens);

    run(service_fn(|req: Request| {
        conduit::lambda::handler(&app, req)
    }))
    .await
}
