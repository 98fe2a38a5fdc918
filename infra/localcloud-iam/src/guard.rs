//! The local cloud's IAM: calls signed with credentials it minted are
//! verified (SigV4, token, expiry) and, for role sessions, evaluated against
//! the role's policies before any service sees them. Other callers (the
//! user's CLI, `sam deploy`, keys it never minted that do not start with
//! `ASIA`) are the account's administrator.

use std::str::FromStr;

use chrono::{Duration, Utc};
use localcloud_core::context::new_request_id;
use localcloud_core::{Guard, HttpRequest, HttpResponse};

use crate::classify::{classify, Protocol, Where};
use crate::condition::Context;
use crate::eval::{evaluate, Decision, Request};
use crate::refusal::Refusal;
use crate::role::Role;
use crate::session::{Credentials, Principal, Session, Sessions};
use crate::sigv4::{self, Authorization, SignatureError};
use crate::usage::Usage;

/// `--iam`: what happens to a call its role does not allow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// Refused with the service's `AccessDenied` error, as on AWS.
    #[default]
    Enforce,
    /// Answered, logged as a warning and recorded as denied.
    Warn,
    /// Neither checked nor recorded; signatures are not verified.
    Off,
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "enforce" => Ok(Mode::Enforce),
            "warn" => Ok(Mode::Warn),
            "off" => Ok(Mode::Off),
            other => Err(format!("--iam is enforce, warn or off, not {other:?}")),
        }
    }
}

/// How long Lambda's and `AssumeRole`'s credentials last by default.
pub const FUNCTION_CREDENTIALS: Duration = Duration::hours(12);
pub const DEFAULT_SESSION: Duration = Duration::hours(1);

#[derive(Debug, Default)]
pub struct Iam {
    pub mode: Mode,
    pub sessions: Sessions,
    pub usage: Usage,
}

/// Who signed a request, once its signature is checked.
pub enum Caller {
    /// Not signed with credentials the local cloud minted.
    Administrator,
    Session(Session),
}

impl Iam {
    pub fn new(mode: Mode) -> Self {
        Self {
            mode,
            ..Self::default()
        }
    }

    /// Registers a function's execution role and mints the credentials its
    /// environments get (session name: the function's name, as Lambda does).
    pub fn function_credentials(&self, role: Role, function: &str) -> Credentials {
        let role = self.sessions.put_role(role);
        self.sessions.open(
            Principal::AssumedRole {
                role,
                session_name: function.to_string(),
            },
            FUNCTION_CREDENTIALS,
        )
    }

    /// Evaluates one request of `role`'s session and records the outcome.
    pub fn authorize(&self, role: &Role, session: &str, request: &Request) -> Decision {
        let decision = evaluate(role.policies.iter().map(|p| &p.document), request);
        if self.mode != Mode::Off {
            self.usage.record(&role.name, session, request, decision);
        }
        decision
    }

    /// The caller of a request: its session, when signed with credentials
    /// the local cloud minted (verified), else the administrator.
    pub fn caller(&self, request: &HttpRequest) -> Result<Caller, (Refusal, String)> {
        let Some(auth) = request
            .headers()
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(Authorization::parse)
        else {
            return Ok(Caller::Administrator);
        };
        if !auth.access_key_id.starts_with("ASIA") {
            return Ok(Caller::Administrator);
        }
        let service = auth.service.clone();
        let refuse = |r: Refusal| Err((r, service.clone()));
        let Some(session) = self.sessions.get(&auth.access_key_id) else {
            return refuse(Refusal::InvalidToken);
        };
        let token = request
            .headers()
            .get("x-amz-security-token")
            .and_then(|v| v.to_str().ok());
        if token != Some(session.credentials.session_token.as_str()) {
            return refuse(Refusal::InvalidToken);
        }
        let now = Utc::now();
        if now > session.credentials.expiration {
            return refuse(Refusal::ExpiredToken);
        }
        match sigv4::verify(request, &auth, &session.credentials.secret_access_key, now) {
            Ok(()) => Ok(Caller::Session(session)),
            Err(SignatureError::Mismatch) => refuse(Refusal::SignatureMismatch),
            Err(SignatureError::MissingDate) => refuse(Refusal::MissingDate),
            Err(SignatureError::Expired {
                signed,
                now,
                earlier,
            }) => refuse(Refusal::SignatureExpired {
                signed,
                now,
                earlier,
            }),
        }
    }

    fn protocol(request: &HttpRequest, service: &str) -> Protocol {
        if let Some(target) = request
            .headers()
            .get("x-amz-target")
            .and_then(|v| v.to_str().ok())
        {
            if target.starts_with("DynamoDB_") {
                return Protocol::DynamoDb;
            }
            if target.starts_with("AmazonSQS") {
                return Protocol::Sqs;
            }
        }
        match service {
            "lambda" => Protocol::Lambda,
            "s3" => Protocol::S3,
            "sts" => Protocol::Sts,
            "sqs" => Protocol::Sqs,
            _ => Protocol::DynamoDb,
        }
    }
}

impl Guard for Iam {
    fn check(&self, request: &HttpRequest) -> Option<HttpResponse> {
        if self.mode == Mode::Off {
            return None;
        }
        let session = match self.caller(request) {
            Ok(Caller::Administrator) => return None,
            Ok(Caller::Session(session)) => session,
            Err((refusal, service)) => {
                return Some(refusal.response(Self::protocol(request, &service), &new_request_id()))
            }
        };
        let Principal::AssumedRole { role, session_name } = &session.principal else {
            return None;
        };
        let auth = request
            .headers()
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(Authorization::parse)
            .expect("a session's request has an Authorization header");
        let at = Where {
            region: &auth.region,
            account: &role.account,
        };
        let call = classify(request, &auth.service, &at);
        let principal = session.principal.arn();
        let now = Utc::now();
        let context = Context::default()
            .with("aws:RequestedRegion", auth.region.clone())
            .with("aws:SecureTransport", "false")
            .with(
                "aws:CurrentTime",
                now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            )
            .with("aws:EpochTime", now.timestamp().to_string())
            .with("aws:PrincipalArn", role.arn())
            .with("aws:PrincipalAccount", role.account.clone())
            .with("aws:PrincipalType", "AssumedRole");
        for mut one in call.requests {
            one.context = context.clone();
            let decision = self.authorize(role, session_name, &one);
            if decision.allowed() {
                continue;
            }
            let refusal = Refusal::Denied {
                principal: principal.clone(),
                action: one.action.clone(),
                resource: one.resource.clone(),
                decision,
            };
            match self.mode {
                Mode::Enforce => {
                    return Some(refusal.response(call.protocol, &new_request_id()));
                }
                Mode::Warn | Mode::Off => {
                    let (_, _, message) = refusal.parts(call.protocol);
                    tracing::warn!("IAM (warn only): {message}");
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::PolicyDocument;
    use crate::role::NamedPolicy;
    use serde_json::json;

    fn iam_with_reader(mode: Mode) -> (Iam, Credentials) {
        let iam = Iam::new(mode);
        let role = Role {
            name: "app-ReaderRole".into(),
            account: "123456789012".into(),
            policies: vec![NamedPolicy {
                source: "inline".into(),
                document: PolicyDocument::parse(&json!({"Statement": [{
                    "Effect": "Allow", "Action": "dynamodb:GetItem",
                    "Resource": "arn:aws:dynamodb:us-east-1:123456789012:table/Users"
                }]}))
                .unwrap(),
            }],
        };
        let credentials = iam.function_credentials(role, "app-reader");
        (iam, credentials)
    }

    fn dynamodb_call(operation: &str, credentials: &Credentials) -> HttpRequest {
        let mut request = http::Request::post("/")
            .header("host", "127.0.0.1:4566")
            .header("x-amz-target", format!("DynamoDB_20120810.{operation}"))
            .header("x-amz-security-token", credentials.session_token.as_str())
            .body(bytes::Bytes::from_static(br#"{"TableName":"Users"}"#))
            .unwrap();
        sigv4::sign(
            &mut request,
            &credentials.access_key_id,
            &credentials.secret_access_key,
            "us-east-1",
            "dynamodb",
            Utc::now(),
        );
        request
    }

    fn code(response: &HttpResponse) -> String {
        let body: serde_json::Value = serde_json::from_slice(response.body()).unwrap();
        body["__type"].as_str().unwrap().to_string()
    }

    #[test]
    fn a_role_session_is_allowed_what_its_policies_allow_and_recorded() {
        let (iam, creds) = iam_with_reader(Mode::Enforce);
        assert!(iam.check(&dynamodb_call("GetItem", &creds)).is_none());
        let refused = iam.check(&dynamodb_call("PutItem", &creds)).unwrap();
        assert_eq!(refused.status(), 400);
        assert_eq!(
            code(&refused),
            "com.amazon.coral.service#AccessDeniedException"
        );
        let usage = iam.usage.by_role();
        assert_eq!(usage[0].calls.len(), 2);
        assert_eq!(usage[0].denied().len(), 1);
    }

    #[test]
    fn warn_mode_answers_and_records_off_mode_does_neither() {
        let (iam, creds) = iam_with_reader(Mode::Warn);
        assert!(iam.check(&dynamodb_call("PutItem", &creds)).is_none());
        assert_eq!(iam.usage.by_role()[0].denied().len(), 1);
        let (iam, creds) = iam_with_reader(Mode::Off);
        assert!(iam.check(&dynamodb_call("PutItem", &creds)).is_none());
        assert!(iam.usage.by_role().is_empty());
    }

    #[test]
    fn tampered_unknown_and_foreign_credentials() {
        let (iam, creds) = iam_with_reader(Mode::Enforce);
        // A body changed after signing.
        let (parts, _) = dynamodb_call("GetItem", &creds).into_parts();
        let tampered = http::Request::from_parts(parts, bytes::Bytes::from_static(b"{}"));
        let refused = iam.check(&tampered).unwrap();
        assert_eq!(
            code(&refused),
            "com.amazon.coral.service#InvalidSignatureException"
        );
        // An ASIA key never minted.
        let unknown = Credentials {
            access_key_id: "ASIAZZZZZZZZZZZZZZZZ".into(),
            ..creds.clone()
        };
        let refused = iam.check(&dynamodb_call("GetItem", &unknown)).unwrap();
        assert_eq!(
            code(&refused),
            "com.amazon.coral.service#UnrecognizedClientException"
        );
        // Anything else is the administrator, signature unchecked.
        let admin = Credentials {
            access_key_id: "AKIDEXAMPLE".into(),
            ..creds
        };
        assert!(iam.check(&dynamodb_call("PutItem", &admin)).is_none());
    }

    #[test]
    fn modes_parse_from_the_command_line() {
        assert_eq!("enforce".parse(), Ok(Mode::Enforce));
        assert_eq!("warn".parse(), Ok(Mode::Warn));
        assert_eq!("off".parse(), Ok(Mode::Off));
        assert!("on".parse::<Mode>().is_err());
    }
}
