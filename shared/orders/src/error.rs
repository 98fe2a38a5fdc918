//! What goes wrong in the orders back end and in seeding its table.

#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error("DynamoDB: {0}")]
    Store(String),
    #[error("only {found} of {wanted} orders are stored: seed the table first (`bench seed-orders`, docs/bench.md)")]
    Missing { wanted: u32, found: usize },
    #[error("{0}")]
    BadRequest(String),
}

pub(crate) fn store_error(error: impl std::error::Error) -> BackendError {
    BackendError::Store(aws_sdk_dynamodb::error::DisplayErrorContext(error).to_string())
}
