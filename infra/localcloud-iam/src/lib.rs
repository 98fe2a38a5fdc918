//! IAM as AWS enforces it, for the local cloud.
//!
//! Pure and table-tested: policy documents ([`document`], [`condition`]),
//! their evaluation ([`eval`]), SAM's policy templates and AWS managed
//! policies ([`sam`]), what each request asks for ([`classify`]), the least
//! policy a run used ([`usage`]), SigV4 ([`sigv4`]). On top: the sessions
//! and credentials the local cloud mints ([`session`]), the refusals in each
//! service's protocol ([`refusal`]) and the [`Guard`] the endpoint runs
//! before every service ([`guard`]).

pub mod classify;
pub mod condition;
pub mod document;
pub mod error;
pub mod eval;
pub mod glob;
pub mod guard;
pub mod refusal;
pub mod role;
pub mod sam;
pub mod session;
pub mod sigv4;
pub mod usage;

pub use document::{Effect, Names, PolicyDocument, Statement};
pub use error::PolicyError;
pub use eval::{evaluate, Decision, Request};
pub use guard::{Caller, Iam, Mode};
pub use localcloud_core::Guard;
pub use role::{NamedPolicy, Role};
pub use session::{Credentials, Principal, Session, Sessions};
