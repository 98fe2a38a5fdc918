//! Behaviour of the public API, written once and run against every store
//! implementation (in memory, DynamoDB emulator). Each takes a fresh client.

pub use super::{tokens, Client};
use http::Method;

pub const GET: Method = Method::GET;
pub const POST: Method = Method::POST;
pub const PUT: Method = Method::PUT;
pub const DELETE: Method = Method::DELETE;

mod articles;
mod comments;
mod favorites;
mod profiles;
mod tags;
mod users;

pub use articles::*;
pub use comments::*;
pub use favorites::*;
pub use profiles::*;
pub use tags::*;
pub use users::*;
