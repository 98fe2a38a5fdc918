//! STS: `GetCallerIdentity` (who the caller is, from its credentials),
//! `AssumeRole` of a role the local cloud knows (a function's execution
//! role) and `GetSessionToken`, with credentials the local cloud mints and
//! therefore verifies.
//! https://docs.aws.amazon.com/STS/latest/APIReference/API_Operations.html

use std::sync::Arc;

use async_trait::async_trait;
use chrono::Duration;
use localcloud_core::context::{new_request_id, signing_service};
use localcloud_core::xml::Xml;
use localcloud_core::{HttpRequest, HttpResponse, PathService, RequestContext};
use localcloud_iam::refusal::Refusal;
use localcloud_iam::{Caller, Credentials, Decision, Iam, Principal};

use crate::query::{response, Params, QueryError};

const NS: &str = "https://sts.amazonaws.com/doc/2011-06-15/";

/// The STS endpoint (requests signed for `sts`).
#[derive(Default)]
pub struct Sts {
    iam: Option<Arc<Iam>>,
}

impl Sts {
    pub fn new(iam: Arc<Iam>) -> Self {
        Self { iam: Some(iam) }
    }
}

/// A role's unique id (`AROA...`), stable for its ARN.
fn role_id(arn: &str) -> String {
    const BASE32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut id = String::from("AROA");
    for round in 0..17u64 {
        for b in arn.bytes().chain(round.to_le_bytes()) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        id.push(BASE32[(h % 32) as usize] as char);
    }
    id
}

fn credentials_xml(doc: &mut Xml, c: &Credentials) {
    doc.open("Credentials")
        .text("AccessKeyId", &c.access_key_id)
        .text("SecretAccessKey", &c.secret_access_key)
        .text("SessionToken", &c.session_token)
        .text(
            "Expiration",
            c.expiration
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        )
        .close("Credentials");
}

/// `DurationSeconds` within `[min, max]`, else STS's validation message.
fn duration(params: &Params, default: i64, max: i64) -> Result<Duration, QueryError> {
    let Some(text) = params.get("DurationSeconds") else {
        return Ok(Duration::seconds(default));
    };
    let seconds: i64 = text.parse().map_err(|_| {
        QueryError::new(400, "ValidationError", format!("Value '{text}' at 'durationSeconds' failed to satisfy constraint: Member must be a number"))
    })?;
    if seconds < 900 {
        return Err(QueryError::new(400, "ValidationError", format!("1 validation error detected: Value '{seconds}' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900")));
    }
    if seconds > max {
        return Err(QueryError::new(
            400,
            "ValidationError",
            "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.",
        ));
    }
    Ok(Duration::seconds(seconds))
}

fn access_denied(message: String) -> QueryError {
    QueryError::new(403, "AccessDenied", message)
}

impl Sts {
    fn get_caller_identity(
        &self,
        caller: &Caller,
        ctx: &RequestContext,
        rid: &str,
    ) -> HttpResponse {
        let (arn, user_id, account) = match caller {
            Caller::Session(s) => match &s.principal {
                Principal::AssumedRole { role, session_name } => (
                    s.principal.arn(),
                    format!("{}:{session_name}", role_id(&role.arn())),
                    role.account.clone(),
                ),
                Principal::Administrator { account } => {
                    (s.principal.arn(), account.clone(), account.clone())
                }
            },
            Caller::Administrator => (
                format!("arn:aws:iam::{}:root", ctx.account_id),
                ctx.account_id.clone(),
                ctx.account_id.clone(),
            ),
        };
        response(NS, "GetCallerIdentity", rid, |doc| {
            doc.text("Arn", arn)
                .text("UserId", user_id)
                .text("Account", account);
        })
    }

    /// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
    fn assume_role(
        &self,
        iam: &Iam,
        caller: &Caller,
        params: &Params,
        rid: &str,
    ) -> Result<HttpResponse, QueryError> {
        let arn = params.required("RoleArn")?.to_string();
        let session_name = params.required("RoleSessionName")?.to_string();
        let valid_name = (2..=64).contains(&session_name.len())
            && session_name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_+=,.@-".contains(c));
        if !valid_name {
            return Err(QueryError::new(400, "ValidationError", format!("1 validation error detected: Value '{session_name}' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*")));
        }
        let lifetime = duration(params, 3600, 43_200)?;
        let caller_arn = match caller {
            Caller::Session(s) => s.principal.arn(),
            Caller::Administrator => String::new(),
        };
        let denied = |caller_arn: &str| {
            access_denied(Refusal::denied_message(
                caller_arn,
                "sts:AssumeRole",
                &arn,
                Decision::ImplicitDeny,
                false,
            ))
        };
        let Some(role) = iam.sessions.role(&arn) else {
            let who = if caller_arn.is_empty() {
                format!(
                    "arn:aws:iam::{}:root",
                    arn.split(':').nth(4).unwrap_or_default()
                )
            } else {
                caller_arn
            };
            return Err(denied(&who));
        };
        // A function's execution role trusts the Lambda service only (SAM's
        // AssumeRolePolicyDocument), so another role's session may not
        // assume it. The account's administrator may: locally, that is how
        // one acts as a function.
        if let Caller::Session(s) = caller {
            if matches!(s.principal, Principal::AssumedRole { .. }) {
                return Err(denied(&caller_arn));
            }
        }
        let principal = Principal::AssumedRole {
            role: role.clone(),
            session_name: session_name.clone(),
        };
        let assumed_arn = principal.arn();
        let credentials = iam.sessions.open(principal, lifetime);
        Ok(response(NS, "AssumeRole", rid, |doc| {
            credentials_xml(doc, &credentials);
            doc.open("AssumedRoleUser")
                .text(
                    "AssumedRoleId",
                    format!("{}:{session_name}", role_id(&role.arn())),
                )
                .text("Arn", assumed_arn)
                .close("AssumedRoleUser");
        }))
    }

    /// https://docs.aws.amazon.com/STS/latest/APIReference/API_GetSessionToken.html
    fn get_session_token(
        &self,
        iam: &Iam,
        caller: &Caller,
        ctx: &RequestContext,
        params: &Params,
        rid: &str,
    ) -> Result<HttpResponse, QueryError> {
        let lifetime = duration(params, 43_200, 129_600)?;
        let account = match caller {
            Caller::Session(_) => {
                return Err(access_denied(
                    "Cannot call GetSessionToken with session credentials".into(),
                ))
            }
            Caller::Administrator => ctx.account_id.clone(),
        };
        let credentials = iam
            .sessions
            .open(Principal::Administrator { account }, lifetime);
        Ok(response(NS, "GetSessionToken", rid, |doc| {
            credentials_xml(doc, &credentials);
        }))
    }
}

#[async_trait]
impl PathService for Sts {
    async fn handle(&self, request: HttpRequest) -> Result<HttpResponse, HttpRequest> {
        if signing_service(&request).as_deref() != Some("sts") {
            return Err(request);
        }
        let ctx = RequestContext::from_headers(request.headers());
        let params = Params::parse(request.uri().query(), request.body());
        let request_id = new_request_id();
        // The guard in front has verified the signature already.
        let caller = match &self.iam {
            Some(iam) => iam.caller(&request).unwrap_or(Caller::Administrator),
            None => Caller::Administrator,
        };
        let result = match (params.get("Action"), &self.iam) {
            (Some("GetCallerIdentity"), _) => {
                Ok(self.get_caller_identity(&caller, &ctx, &request_id))
            }
            (Some("AssumeRole"), Some(iam)) => self.assume_role(iam, &caller, &params, &request_id),
            (Some("GetSessionToken"), Some(iam)) => {
                self.get_session_token(iam, &caller, &ctx, &params, &request_id)
            }
            (other, _) => Err(QueryError::new(
                400,
                "InvalidAction",
                format!(
                    "Could not find operation {} for version 2011-06-15",
                    other.unwrap_or_default()
                ),
            )),
        };
        Ok(result.unwrap_or_else(|e| e.into_response(NS, &request_id)))
    }
}
