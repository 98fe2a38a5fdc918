//! The whole Conduit API as one Lambda function behind an API Gateway proxy
//! integration (`ANY /api/{proxy+}`). All logic lives in the `conduit` crate;
//! the thin runtime (`thin_runtime`) talks to Lambda.
//!
//! Environment: `JWT_SECRET` (>= 32 bytes), `USERS_TABLE`, `FOLLOWS_TABLE`,
//! `ARTICLES_TABLE`, `COMMENTS_TABLE`; `AWS_ENDPOINT_URL` for the local cloud.

use conduit::auth::Tokens;
use conduit::store::dynamo::TableNames;
use conduit::App;
use thin_runtime::{Function, FunctionError};

// glibc's malloc and free were a sixth of a request's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Monolith(App);

impl Function for Monolith {
    async fn invoke(&self, event: &[u8]) -> Result<Vec<u8>, FunctionError> {
        conduit::lambda::invoke(&self.0, event)
            .await
            .map_err(|e| FunctionError::new("BadRequest", e.to_string()))
    }
}

/// The INIT phase: configuration errors fail it, not the first request.
async fn init() -> Result<Monolith, FunctionError> {
    let tokens = Tokens::from_env().map_err(FunctionError::config_invalid)?;
    let tables = TableNames::from_env().map_err(FunctionError::config_invalid)?;
    let config = sdk_config::load().await;
    let client = aws_sdk_dynamodb::Client::new(&config);
    Ok(Monolith(App::dynamo(client, &tables, tokens)))
}

fn main() -> Result<(), thin_runtime::RuntimeError> {
    sdk_config::init_logs();
    thin_runtime::run(init())
}
