//! One module per RealWorld resource; each parses its input, applies the rules and
//! shapes its response envelope.

pub mod articles;
pub mod comments;
pub mod profiles;
pub mod users;
