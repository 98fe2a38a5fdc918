//! Syntax only: turns tokens into raw trees that still hold placeholder names.
//! Meaning (placeholders, reserved words, function rules) is checked in `resolve.rs`,
//! because AWS reports syntax errors before any of those.
//!
//! Imports point down: `tree.rs` (the raw trees) and `cursor.rs` (the token cursor)
//! at the bottom, `operands.rs` on them, the grammars (`conditions.rs`, `clauses.rs`)
//! on top. This file only declares and re-exports.

mod clauses;
mod conditions;
mod cursor;
mod operands;
mod tree;

pub(crate) use clauses::{Clause, RawAction};
pub(crate) use cursor::{Parser, SyntaxError};
pub use tree::Comparator;
pub(crate) use tree::{RawCond, RawOperand, RawPathElem};
