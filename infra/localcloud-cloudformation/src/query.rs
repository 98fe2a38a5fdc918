//! The AWS query protocol: form-encoded parameters in, XML out.
//! https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/CommonParameters.html

use std::collections::BTreeMap;

use bytes::Bytes;
use localcloud_core::url::form_decode;
use localcloud_core::xml::{escape, Xml};
use localcloud_core::HttpResponse;

/// The parameters of one call: `Action`, plus flattened members such as
/// `Parameters.member.1.ParameterKey`.
#[derive(Debug, Default, Clone)]
pub struct Params(BTreeMap<String, String>);

impl Params {
    /// From a form body and the URL's query string (both may carry parameters).
    pub fn parse(query: Option<&str>, body: &[u8]) -> Self {
        let body = String::from_utf8_lossy(body);
        let pairs = query.unwrap_or_default().split('&').chain(body.split('&'));
        Self(
            pairs
                .filter(|p| !p.is_empty())
                .map(|pair| {
                    let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                    (form_decode(k), form_decode(v))
                })
                .collect(),
        )
    }

    /// The same parameters with `name` set to `value`.
    pub fn with(mut self, name: &str, value: &str) -> Self {
        self.0.insert(name.to_string(), value.to_string());
        self
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// A required parameter, or the `ValidationError` AWS gives without it.
    pub fn required(&self, name: &str) -> Result<&str, QueryError> {
        self.get(name).filter(|v| !v.is_empty()).ok_or_else(|| {
            QueryError::validation(format!(
                "1 validation error detected: Value null at '{}' failed to satisfy constraint: Member must not be null",
                lower_first(name)
            ))
        })
    }

    /// `Name.member.N` values, in N order.
    pub fn list(&self, name: &str) -> Vec<String> {
        self.members(name).into_iter().map(|(_, v)| v).collect()
    }

    /// `Name.member.N.Field` structures as maps, in N order.
    pub fn structs(&self, name: &str) -> Vec<BTreeMap<String, String>> {
        let prefix = format!("{name}.member.");
        let mut by_index: BTreeMap<u32, BTreeMap<String, String>> = BTreeMap::new();
        for (k, v) in &self.0 {
            let Some(rest) = k.strip_prefix(&prefix) else {
                continue;
            };
            let Some((n, field)) = rest.split_once('.') else {
                continue;
            };
            if let Ok(n) = n.parse() {
                by_index
                    .entry(n)
                    .or_default()
                    .insert(field.to_string(), v.clone());
            }
        }
        by_index.into_values().collect()
    }

    fn members(&self, name: &str) -> Vec<(u32, String)> {
        let prefix = format!("{name}.member.");
        let mut out: Vec<(u32, String)> = self
            .0
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(&prefix)?.parse().ok()?, v.clone())))
            .collect();
        out.sort();
        out
    }
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

/// An error in the query protocol's shape:
/// `<ErrorResponse><Error><Type>Sender</Type><Code>..</Code><Message>..</Message></Error><RequestId>..</RequestId></ErrorResponse>`.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryError {
    pub status: u16,
    pub code: String,
    pub message: String,
}

impl QueryError {
    pub fn new(status: u16, code: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            code: code.to_string(),
            message: message.into(),
        }
    }

    /// CloudFormation's usual client error (400 `ValidationError`).
    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(400, "ValidationError", message)
    }

    pub fn into_response(self, ns: &str, request_id: &str) -> HttpResponse {
        let kind = if self.status >= 500 {
            "Receiver"
        } else {
            "Sender"
        };
        let body = format!(
            "<ErrorResponse xmlns=\"{ns}\"><Error><Type>{kind}</Type><Code>{}</Code><Message>{}</Message></Error><RequestId>{request_id}</RequestId></ErrorResponse>",
            escape(&self.code),
            escape(&self.message)
        );
        http::Response::builder()
            .status(self.status)
            .header("content-type", "text/xml")
            .header("x-amzn-requestid", request_id)
            .body(Bytes::from(body))
            .expect("valid error response")
    }
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for QueryError {}

/// `<{Action}Response><{Action}Result>..</{Action}Result><ResponseMetadata>..`
pub fn response(
    ns: &str,
    action: &str,
    request_id: &str,
    result: impl FnOnce(&mut Xml),
) -> HttpResponse {
    let root = format!("{action}Response");
    let mut doc = Xml::document(&root, ns);
    doc.open(&format!("{action}Result"));
    result(&mut doc);
    doc.close(&format!("{action}Result"));
    doc.open("ResponseMetadata")
        .text("RequestId", request_id)
        .close("ResponseMetadata");
    http::Response::builder()
        .status(200)
        .header("content-type", "text/xml")
        .header("x-amzn-requestid", request_id)
        .body(Bytes::from(doc.finish(&root)))
        .expect("valid query response")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_and_structures_are_read_in_index_order() {
        let p = Params::parse(
            Some("Action=CreateChangeSet"),
            b"Capabilities.member.2=CAPABILITY_AUTO_EXPAND&Capabilities.member.1=CAPABILITY_IAM&Parameters.member.10.ParameterKey=B&Parameters.member.2.ParameterKey=A&Parameters.member.2.ParameterValue=a+b%3D",
        );
        assert_eq!(p.get("Action"), Some("CreateChangeSet"));
        assert_eq!(
            p.list("Capabilities"),
            vec!["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"]
        );
        let params = p.structs("Parameters");
        assert_eq!(params[0]["ParameterKey"], "A");
        assert_eq!(params[0]["ParameterValue"], "a b=");
        assert_eq!(params[1]["ParameterKey"], "B");
    }

    #[test]
    fn a_missing_required_parameter_is_a_validation_error() {
        let err = Params::default().required("StackName").unwrap_err();
        assert_eq!(err.code, "ValidationError");
        assert!(err.message.contains("'stackName'"), "{}", err.message);
    }
}
