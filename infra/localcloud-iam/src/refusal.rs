//! A refused call, answered in the service's own protocol with AWS's code
//! and message: access denied, a bad or stale signature, an unknown or
//! expired token.

use bytes::Bytes;
use http::StatusCode;
use localcloud_core::xml::escape;

use crate::classify::Protocol;
use crate::eval::Decision;

#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    Denied {
        principal: String,
        action: String,
        resource: String,
        decision: Decision,
    },
    SignatureMismatch,
    /// The request's date is more than 15 minutes from now.
    SignatureExpired {
        signed: String,
        now: String,
        earlier: bool,
    },
    /// No `X-Amz-Date`.
    MissingDate,
    /// An `ASIA` key the local cloud never minted, or a token that is not its.
    InvalidToken,
    ExpiredToken,
}

impl Refusal {
    /// IAM's wording, e.g. "User: arn:aws:sts::123456789012:assumed-role/R/f
    /// is not authorized to perform: dynamodb:PutItem on resource: arn:...
    /// because no identity-based policy allows the dynamodb:PutItem action".
    /// https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html
    pub fn denied_message(
        principal: &str,
        action: &str,
        resource: &str,
        decision: Decision,
        quote_resource: bool,
    ) -> String {
        let resource = if quote_resource {
            format!("\"{resource}\"")
        } else {
            resource.to_string()
        };
        let why = match decision {
            Decision::ExplicitDeny => {
                "with an explicit deny in an identity-based policy".to_string()
            }
            _ => format!("because no identity-based policy allows the {action} action"),
        };
        format!("User: {principal} is not authorized to perform: {action} on resource: {resource} {why}")
    }

    /// (status, code, message) as `protocol`'s service says it.
    pub fn parts(&self, protocol: Protocol) -> (u16, &'static str, String) {
        use Protocol::*;
        match self {
            Refusal::Denied {
                principal,
                action,
                resource,
                decision,
            } => match protocol {
                // SQS names the action in lower case ("sqs:sendmessage").
                Sqs => (
                    403,
                    "AccessDenied",
                    Self::denied_message(
                        principal,
                        &action.to_ascii_lowercase(),
                        resource,
                        *decision,
                        false,
                    ),
                ),
                S3 => (
                    403,
                    "AccessDenied",
                    Self::denied_message(principal, action, resource, *decision, true),
                ),
                Sts => (
                    403,
                    "AccessDenied",
                    Self::denied_message(principal, action, resource, *decision, false),
                ),
                Lambda => (
                    403,
                    "AccessDeniedException",
                    Self::denied_message(principal, action, resource, *decision, false),
                ),
                DynamoDb | Other => (
                    400,
                    "AccessDeniedException",
                    Self::denied_message(principal, action, resource, *decision, false),
                ),
            },
            Refusal::SignatureMismatch => match protocol {
                S3 => (403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.".into()),
                Sqs | Sts => (403, "SignatureDoesNotMatch", MISMATCH.into()),
                Lambda => (403, "InvalidSignatureException", MISMATCH.into()),
                DynamoDb | Other => (400, "InvalidSignatureException", MISMATCH.into()),
            },
            Refusal::SignatureExpired { signed, now, earlier } => {
                let message = if *earlier {
                    format!("Signature expired: {signed} is now earlier than {} ({now} - 15 min.)", shift(now, -15))
                } else {
                    format!("Signature not yet current: {signed} is still later than {} ({now} + 15 min.)", shift(now, 15))
                };
                match protocol {
                    S3 => (403, "RequestTimeTooSkewed", "The difference between the request time and the current time is too large.".into()),
                    Sqs | Sts => (403, "SignatureDoesNotMatch", message),
                    Lambda => (403, "InvalidSignatureException", message),
                    DynamoDb | Other => (400, "InvalidSignatureException", message),
                }
            }
            Refusal::MissingDate => match protocol {
                S3 => (403, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header".into()),
                Sqs | Sts => (400, "IncompleteSignature", "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.".into()),
                Lambda => (403, "IncompleteSignatureException", "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.".into()),
                DynamoDb | Other => (400, "IncompleteSignatureException", "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.".into()),
            },
            Refusal::InvalidToken => match protocol {
                S3 => (400, "InvalidToken", "The provided token is malformed or otherwise invalid.".into()),
                Sqs | Sts => (403, "InvalidClientTokenId", INVALID_TOKEN.into()),
                Lambda => (403, "UnrecognizedClientException", INVALID_TOKEN.into()),
                DynamoDb | Other => (400, "UnrecognizedClientException", INVALID_TOKEN.into()),
            },
            Refusal::ExpiredToken => match protocol {
                S3 => (400, "ExpiredToken", "The provided token has expired.".into()),
                Sqs | Sts => (403, "ExpiredToken", EXPIRED_TOKEN.into()),
                Lambda => (403, "ExpiredTokenException", EXPIRED_TOKEN.into()),
                DynamoDb | Other => (400, "ExpiredTokenException", EXPIRED_TOKEN.into()),
            },
        }
    }

    /// The whole HTTP response.
    pub fn response(&self, protocol: Protocol, request_id: &str) -> http::Response<Bytes> {
        let (status, code, message) = self.parts(protocol);
        let status = StatusCode::from_u16(status).expect("valid status");
        let builder = http::Response::builder()
            .status(status)
            .header("x-amzn-requestid", request_id);
        let json = |type_name: String| {
            serde_json::json!({"__type": type_name, "Message": message}).to_string()
        };
        let response = match protocol {
            Protocol::DynamoDb | Protocol::Other => builder
                .header("content-type", "application/x-amz-json-1.0")
                .body(Bytes::from(json(format!("com.amazon.coral.service#{code}")))),
            // SQS's JSON protocol keeps the query protocol's code in
            // `x-amzn-query-error`, where the SDKs read it.
            Protocol::Sqs => builder
                .header("content-type", "application/x-amz-json-1.0")
                .header("x-amzn-query-error", format!("{code};Sender"))
                .body(Bytes::from(json(format!("com.amazon.coral.service#{code}")))),
            Protocol::Lambda => builder
                .header("content-type", "application/json")
                .header("x-amzn-errortype", code)
                .body(Bytes::from(
                    serde_json::json!({"Type": "User", "Message": message}).to_string(),
                )),
            Protocol::S3 => builder.header("content-type", "application/xml").body(Bytes::from(format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{}</Message><RequestId>{request_id}</RequestId></Error>",
                escape(&message)
            ))),
            Protocol::Sts => builder.header("content-type", "text/xml").body(Bytes::from(format!(
                "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>Sender</Type><Code>{code}</Code><Message>{}</Message></Error><RequestId>{request_id}</RequestId></ErrorResponse>",
                escape(&message)
            ))),
        };
        response.expect("static response parts are valid")
    }
}

const MISMATCH: &str = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";
const INVALID_TOKEN: &str = "The security token included in the request is invalid.";
const EXPIRED_TOKEN: &str = "The security token included in the request is expired";

/// `20250101T001500Z` moved by `minutes`.
fn shift(stamp: &str, minutes: i64) -> String {
    chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%SZ")
        .map(|t| {
            (t + chrono::Duration::minutes(minutes))
                .format("%Y%m%dT%H%M%SZ")
                .to_string()
        })
        .unwrap_or_else(|_| stamp.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denied(decision: Decision) -> Refusal {
        Refusal::Denied {
            principal: "arn:aws:sts::123456789012:assumed-role/app-ReaderRole/app-reader".into(),
            action: "dynamodb:PutItem".into(),
            resource: "arn:aws:dynamodb:us-east-1:123456789012:table/Users".into(),
            decision,
        }
    }

    #[test]
    fn access_denied_reads_as_on_aws() {
        let (status, code, message) = denied(Decision::ImplicitDeny).parts(Protocol::DynamoDb);
        assert_eq!((status, code), (400, "AccessDeniedException"));
        assert_eq!(message, "User: arn:aws:sts::123456789012:assumed-role/app-ReaderRole/app-reader is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table/Users because no identity-based policy allows the dynamodb:PutItem action");
        let (_, _, message) = denied(Decision::ExplicitDeny).parts(Protocol::DynamoDb);
        assert!(message.ends_with("table/Users with an explicit deny in an identity-based policy"));
    }

    #[test]
    fn each_protocol_has_its_own_shape() {
        let r = denied(Decision::ImplicitDeny);
        let dynamodb = r.response(Protocol::DynamoDb, "rid");
        let body: serde_json::Value = serde_json::from_slice(dynamodb.body()).unwrap();
        assert_eq!(
            body["__type"],
            "com.amazon.coral.service#AccessDeniedException"
        );
        let sqs = r.response(Protocol::Sqs, "rid");
        assert_eq!(sqs.status(), 403);
        assert_eq!(sqs.headers()["x-amzn-query-error"], "AccessDenied;Sender");
        let lambda = r.response(Protocol::Lambda, "rid");
        assert_eq!(
            lambda.headers()["x-amzn-errortype"],
            "AccessDeniedException"
        );
        let s3 = r.response(Protocol::S3, "rid");
        let text = String::from_utf8(s3.body().to_vec()).unwrap();
        assert!(text.contains("<Code>AccessDenied</Code>"), "{text}");
        assert!(text.contains("on resource: &quot;arn:"), "{text}");
    }

    #[test]
    fn a_stale_signature_names_both_times() {
        let r = Refusal::SignatureExpired {
            signed: "20250101T000000Z".into(),
            now: "20250101T002000Z".into(),
            earlier: true,
        };
        let (_, code, message) = r.parts(Protocol::DynamoDb);
        assert_eq!(code, "InvalidSignatureException");
        assert_eq!(message, "Signature expired: 20250101T000000Z is now earlier than 20250101T000500Z (20250101T002000Z - 15 min.)");
    }
}
