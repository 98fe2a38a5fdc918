//! DynamoDB's expression languages: condition/filter, update, projection and key
//! condition expressions. Parsing happens in two steps like AWS reports errors:
//! syntax first (`parser.rs`), then meaning (`resolve.rs`: placeholders, reserved
//! words, functions, operand types). Every error text is AWS's ValidationException
//! message, prefixed "Invalid <Kind>Expression: " where AWS prefixes it.
//!
//! Imports point down: `error.rs`, `context.rs`, `path.rs`, `reserved.rs` and the
//! `lexer.rs`/`parser` syntax at the bottom; `condition.rs` (the resolved tree) on
//! them; `resolve.rs` on those; each language (`key_condition.rs`, `projection.rs`,
//! `update.rs`) on top. This file only declares and re-exports.

mod condition;
mod context;
mod error;
mod key_condition;
mod lexer;
mod parser;
mod path;
mod projection;
mod reserved;
mod resolve;
mod update;

pub use condition::{Condition, Operand};
pub use context::ExpressionContext;
pub use error::{ExprError, ExpressionKind};
pub use key_condition::{parse_key_condition, KeyCondition, RangeCondition};
pub use parser::Comparator;
pub(crate) use path::check_overlap;
pub use path::{DocumentPath, PathElement};
pub use projection::{parse_projection, Projection};
pub use reserved::is_reserved_word;
pub use resolve::{parse_condition, parse_filter};
pub use update::{parse_update, SetOperand, SetValue, UpdateAction, UpdateExpression};
