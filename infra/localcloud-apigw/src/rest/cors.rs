//! SAM's `Cors` on a REST API: an `OPTIONS` method on every resource, with a
//! mock integration answering 200 and the configured headers. Nothing is
//! added to the Lambda proxy responses themselves: with proxy integration
//! the function returns its own `Access-Control-Allow-Origin`.
//! <https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-property-api-corsconfiguration.html>,
//! <https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-cors.html>
//! ("For a Lambda ... proxy integration ... your backend is responsible for
//! returning the Access-Control-Allow-Origin ... headers").

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use serde::{Deserialize, Serialize};

use localcloud_core::HttpResponse;

/// `Cors` of an `AWS::Serverless::Api`, its values without SAM's single
/// quotes (`'*'` in the template is `*` here).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RestCors {
    pub allow_origin: String,
    /// `None`: the methods of the resource, as SAM fills them in.
    pub allow_methods: Option<String>,
    pub allow_headers: Option<String>,
    pub max_age: Option<String>,
    pub allow_credentials: bool,
}

impl RestCors {
    /// The generated `OPTIONS` method's answer for a resource declaring
    /// `methods` (`ANY` stands for all of them).
    pub fn options_response(&self, methods: &[&str]) -> HttpResponse {
        let mut response = HttpResponse::new(Bytes::new());
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let methods = self
            .allow_methods
            .clone()
            .unwrap_or_else(|| resource_methods(methods));
        let pairs = [
            (
                "access-control-allow-origin",
                Some(self.allow_origin.clone()),
            ),
            ("access-control-allow-methods", Some(methods)),
            ("access-control-allow-headers", self.allow_headers.clone()),
            ("access-control-max-age", self.max_age.clone()),
            (
                "access-control-allow-credentials",
                self.allow_credentials.then(|| "true".to_string()),
            ),
        ];
        for (name, value) in pairs {
            if let Some(value) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
                headers.insert(HeaderName::from_static(name), value);
            }
        }
        response
    }
}

/// SAM's default `Access-Control-Allow-Methods`: the resource's methods and
/// `OPTIONS`, sorted; `ANY` expands to every method.
fn resource_methods(methods: &[&str]) -> String {
    const ALL: &[&str] = &["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"];
    let mut out: Vec<&str> = if methods.contains(&"ANY") {
        ALL.to_vec()
    } else {
        methods.iter().copied().chain(["OPTIONS"]).collect()
    };
    out.sort_unstable();
    out.dedup();
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_answer_carries_the_configured_headers() {
        let cors = RestCors {
            allow_origin: "https://app.example".into(),
            allow_methods: None,
            allow_headers: Some("Content-Type,Authorization".into()),
            max_age: Some("600".into()),
            allow_credentials: true,
        };
        let response = cors.options_response(&["POST", "GET"]);
        let h = response.headers();
        assert_eq!(response.status(), 200);
        assert_eq!(h["access-control-allow-origin"], "https://app.example");
        assert_eq!(h["access-control-allow-methods"], "GET,OPTIONS,POST");
        assert_eq!(
            h["access-control-allow-headers"],
            "Content-Type,Authorization"
        );
        assert_eq!(h["access-control-max-age"], "600");
        assert_eq!(h["access-control-allow-credentials"], "true");
    }

    #[test]
    fn any_method_expands_to_every_method() {
        let cors = RestCors {
            allow_origin: "*".into(),
            ..RestCors::default()
        };
        let response = cors.options_response(&["ANY"]);
        assert_eq!(
            response.headers()["access-control-allow-methods"],
            "DELETE,GET,HEAD,OPTIONS,PATCH,POST,PUT"
        );
        assert!(response
            .headers()
            .get("access-control-allow-headers")
            .is_none());
    }
}
