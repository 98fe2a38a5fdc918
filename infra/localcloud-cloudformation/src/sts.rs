//! STS: `GetCallerIdentity` (who the caller is, from its credentials),
//! `AssumeRole` of a role the local cloud knows (a function's execution
//! role), `GetSessionToken` and `GetFederationToken`, with credentials the
//! local cloud mints and therefore verifies; and `DecodeAuthorizationMessage`,
//! which has nothing to decode (the local cloud's refusals are in clear).
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

/// A session or federated user name: 2 to `max` characters of `[\w+=,.@-]`.
fn check_name(name: &str, member: &str, max: usize) -> Result<(), QueryError> {
    if !(2..=max).contains(&name.len()) {
        return Err(QueryError::validation(format!("1 validation error detected: Value '{name}' at '{member}' failed to satisfy constraint: Member must have length between 2 and {max}")));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_+=,.@-".contains(c))
    {
        return Err(QueryError::validation(format!("1 validation error detected: Value '{name}' at '{member}' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*")));
    }
    Ok(())
}

/// The session policy of GetFederationToken: a JSON object of at most
/// 2,048 characters; its packed size as the percentage of the limit it
/// takes (the local cloud does not compress it as AWS does).
fn packed_policy_size(policy: &str) -> Result<usize, QueryError> {
    const MAX: usize = 2048;
    if !matches!(
        serde_json::from_str::<serde_json::Value>(policy),
        Ok(serde_json::Value::Object(_))
    ) {
        return Err(QueryError::new(
            400,
            "MalformedPolicyDocument",
            "The policy is not in the valid JSON format.",
        ));
    }
    if policy.len() > MAX {
        return Err(QueryError::new(
            400,
            "PackedPolicyTooLarge",
            format!(
                "Packed size of the policy exceeds the limit by {}%.",
                (policy.len() - MAX) * 100 / MAX
            ),
        ));
    }
    Ok((policy.len() * 100).div_ceil(MAX))
}

/// How an answer names who holds the credentials it issues.
struct Holder<'a> {
    action: &'a str,
    element: &'a str,
    id_element: &'a str,
    id: String,
}

/// Mints credentials for `principal` and answers with them and their
/// holder (`<AssumedRoleUser><AssumedRoleId>..<Arn>..`), then `rest`.
fn issue(
    iam: &Iam,
    principal: Principal,
    lifetime: Duration,
    holder: Holder,
    rid: &str,
    rest: impl FnOnce(&mut Xml),
) -> HttpResponse {
    let arn = principal.arn();
    let credentials = iam.sessions.open(principal, lifetime);
    response(NS, holder.action, rid, |doc| {
        credentials_xml(doc, &credentials);
        doc.open(holder.element)
            .text(holder.id_element, holder.id)
            .text("Arn", arn)
            .close(holder.element);
        rest(doc);
    })
}

fn access_denied(message: String) -> QueryError {
    QueryError::new(403, "AccessDenied", message)
}

/// The account of a caller with long-term credentials; `operation` (one
/// that mints credentials) refuses a session's, as on AWS.
fn administrator_account(
    caller: &Caller,
    ctx: &RequestContext,
    operation: &str,
) -> Result<String, QueryError> {
    match caller {
        Caller::Session(_) => Err(access_denied(format!(
            "Cannot call {operation} with session credentials"
        ))),
        Caller::Administrator => Ok(ctx.account_id.clone()),
    }
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
                Principal::FederatedUser { account, name } => (
                    s.principal.arn(),
                    format!("{account}:{name}"),
                    account.clone(),
                ),
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
        check_name(&session_name, "roleSessionName", 64)?;
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
        let holder = Holder {
            action: "AssumeRole",
            element: "AssumedRoleUser",
            id_element: "AssumedRoleId",
            id: format!("{}:{session_name}", role_id(&role.arn())),
        };
        let principal = Principal::AssumedRole { role, session_name };
        Ok(issue(iam, principal, lifetime, holder, rid, |_| {}))
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
        let account = administrator_account(caller, ctx, "GetSessionToken")?;
        let credentials = iam
            .sessions
            .open(Principal::Administrator { account }, lifetime);
        Ok(response(NS, "GetSessionToken", rid, |doc| {
            credentials_xml(doc, &credentials);
        }))
    }

    /// Credentials of a federated user, for the account's administrator
    /// (its root user: at most an hour, a longer duration is cut to one, as
    /// AWS does); a session's credentials are refused.
    /// https://docs.aws.amazon.com/STS/latest/APIReference/API_GetFederationToken.html
    fn get_federation_token(
        &self,
        iam: &Iam,
        caller: &Caller,
        ctx: &RequestContext,
        params: &Params,
        rid: &str,
    ) -> Result<HttpResponse, QueryError> {
        let name = params.required("Name")?.to_string();
        check_name(&name, "name", 32)?;
        let lifetime = duration(params, 43_200, 129_600)?.min(Duration::seconds(3600));
        let packed = params.get("Policy").map(packed_policy_size).transpose()?;
        let account = administrator_account(caller, ctx, "GetFederationToken")?;
        let holder = Holder {
            action: "GetFederationToken",
            element: "FederatedUser",
            id_element: "FederatedUserId",
            id: format!("{account}:{name}"),
        };
        let principal = Principal::FederatedUser { account, name };
        Ok(issue(iam, principal, lifetime, holder, rid, |doc| {
            if let Some(size) = packed {
                doc.text("PackedPolicySize", size.to_string());
            }
        }))
    }
}

/// The local cloud encodes no authorization message (its AccessDenied
/// messages say why in clear), so every message is one it cannot decode.
/// https://docs.aws.amazon.com/STS/latest/APIReference/API_DecodeAuthorizationMessage.html
fn decode_authorization_message(params: &Params) -> Result<HttpResponse, QueryError> {
    params.required("EncodedMessage")?;
    Err(QueryError::new(
        400,
        "InvalidAuthorizationMessageException",
        "The error message could not be decoded: the local cloud encodes no authorization messages.",
    ))
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
            (Some("GetFederationToken"), Some(iam)) => {
                self.get_federation_token(iam, &caller, &ctx, &params, &request_id)
            }
            (Some("DecodeAuthorizationMessage"), _) => decode_authorization_message(&params),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_two_to_max_characters_of_sts_s_alphabet() {
        assert!(check_name("alice@example.com", "name", 32).is_ok());
        for bad in ["a", "has space", &"x".repeat(33)] {
            let err = check_name(bad, "name", 32).unwrap_err();
            assert_eq!(err.code, "ValidationError", "{bad}");
            assert!(err.message.contains("'name'"), "{}", err.message);
        }
    }

    #[test]
    fn session_policies_must_be_json_objects_within_the_packed_limit() {
        assert_eq!(packed_policy_size(r#"{"Version":"2012-10-17"}"#), Ok(2));
        assert_eq!(
            packed_policy_size("[1]").unwrap_err().code,
            "MalformedPolicyDocument"
        );
        let big = format!(r#"{{"Sid":"{}"}}"#, "x".repeat(3000));
        assert_eq!(
            packed_policy_size(&big).unwrap_err().code,
            "PackedPolicyTooLarge"
        );
    }
}
