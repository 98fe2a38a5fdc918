//! DynamoDB values and expressions.
