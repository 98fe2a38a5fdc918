//! DynamoDB's data model and expression languages, pure Rust and synchronous:
//! attribute values with their wire format and size rules ([`value`], [`wire`]),
//! exact 38-digit numbers ([`number`]), the condition, update, projection and key
//! condition expressions ([`expr`]) and PartiQL statements parsed into those
//! expressions' trees ([`partiql`]). Error texts are AWS's ValidationException
//! messages, so the service layer can return them unchanged.

pub mod expr;
pub mod number;
pub mod partiql;
pub mod value;
pub mod wire;

pub use expr::{
    parse_condition, parse_filter, parse_key_condition, parse_projection, parse_update, Condition,
    ExprError, ExpressionContext, ExpressionKind, KeyCondition, Projection, RangeCondition,
    UpdateExpression,
};
pub use number::{Number, NumberError};
pub use value::{compare_key_values, item_size, AttributeValue, Item};
