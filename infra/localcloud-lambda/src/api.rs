//! The Lambda REST-JSON API on the shared endpoint: Invoke, GetFunction and
//! GetFunctionConfiguration (each with `Qualifier`), and the version and
//! alias operations (`versions_api`), in the shapes `aws-sdk-lambda`
//! parses. Errors carry their code in `x-amzn-ErrorType` and
//! `{"Type","message"}` bodies.

use async_trait::async_trait;
use bytes::Bytes;
use http::{Method, StatusCode};
use localcloud_core::context::new_request_id;
// SDKs percent-encode ARNs in the path (`%3A` -> `:`).
use localcloud_core::url::percent_decode;
use localcloud_core::{
    HttpRequest, HttpResponse, InvocationType, InvokeError, InvokeRequest, PathService,
};
use serde_json::{json, Value};

use crate::function::Function;
use crate::names::{self, LATEST};
use crate::service::LambdaService;
use crate::versions::{Snapshot, Version, VersionError};

const PREFIX: &str = "/2015-03-31/functions/";

#[async_trait]
impl PathService for LambdaService {
    async fn handle(&self, request: HttpRequest) -> Result<HttpResponse, HttpRequest> {
        let Some(rest) = request.uri().path().strip_prefix(PREFIX) else {
            return Err(request);
        };
        let segments: Vec<String> = rest.split('/').map(percent_decode).collect();
        let response = match (request.method(), segments.as_slice()) {
            (&Method::POST, [name, op]) if op == "invocations" => {
                self.invoke_api(name, &request).await
            }
            (&Method::GET, [name]) => self.get_function(name, &request, true),
            (&Method::GET, [name, op]) if op == "configuration" => {
                self.get_function(name, &request, false)
            }
            (&Method::POST, [name, op]) if op == "versions" => self.publish_version(name, &request),
            (&Method::GET, [name, op]) if op == "versions" => self.list_versions(name, &request),
            (&Method::POST, [name, op]) if op == "aliases" => self.create_alias(name, &request),
            (&Method::GET, [name, op]) if op == "aliases" => self.list_aliases(name, &request),
            (&Method::GET, [name, op, alias]) if op == "aliases" => self.get_alias(name, alias),
            (&Method::PUT, [name, op, alias]) if op == "aliases" => {
                self.update_alias(name, alias, &request)
            }
            (&Method::DELETE, [name, op, alias]) if op == "aliases" => {
                self.delete_alias(name, alias)
            }
            _ => Err(ApiError::new(
                404,
                "UnknownOperationException",
                "Operation not supported by the local cloud",
            )),
        };
        Ok(response.unwrap_or_else(|err| err.into_response()))
    }
}

impl LambdaService {
    /// The `FunctionConfiguration` of every function, as `ListFunctions`
    /// lists them; with `all_versions` (`FunctionVersion=ALL`), each
    /// function's published versions after it.
    pub fn configurations(&self, all_versions: bool) -> Vec<Value> {
        let mut out = Vec::new();
        for function in self.inner.functions.values() {
            out.push(configuration(function));
            if all_versions {
                let published = function.versions.published();
                out.extend(published.iter().map(|v| version_configuration(function, v)));
            }
        }
        out
    }

    /// True when `reference` (name, ARN or partial ARN) names a function here.
    pub fn has_function(&self, reference: &str) -> bool {
        self.inner.lookup(reference).is_ok()
    }

    async fn invoke_api(
        &self,
        name: &str,
        request: &HttpRequest,
    ) -> Result<HttpResponse, ApiError> {
        let invocation_type = match header(request, "x-amz-invocation-type") {
            None | Some("RequestResponse") => InvocationType::RequestResponse,
            Some("Event") => InvocationType::Event,
            Some("DryRun") => InvocationType::DryRun,
            Some(other) => {
                return Err(ApiError::new(
                    400,
                    "InvalidParameterValueException",
                    &format!("Unsupported invocation type {other}"),
                ))
            }
        };
        let invoke = InvokeRequest {
            function: name.to_string(),
            payload: request.body().clone(),
            invocation_type,
            caller: "api".to_string(),
        };
        let qualifier = query_param(request, "Qualifier");
        let resolved = self.inner.resolve(name, qualifier.as_deref())?;
        let executed = resolved.target.version.clone();
        let response = self.inner.clone().invoke_resolved(resolved, invoke).await?;
        let mut builder = http::Response::builder()
            .status(response.status)
            .header("content-type", "application/json")
            .header("x-amzn-requestid", &response.request_id);
        if response.status == 200 {
            builder = builder.header("x-amz-executed-version", executed);
        }
        if let Some(error) = &response.function_error {
            builder = builder.header("x-amz-function-error", error);
        }
        Ok(builder
            .body(response.payload)
            .expect("invoke response headers are valid"))
    }

    fn get_function(
        &self,
        name: &str,
        request: &HttpRequest,
        with_code: bool,
    ) -> Result<HttpResponse, ApiError> {
        let qualifier = query_param(request, "Qualifier");
        let resolved = self.inner.resolve(name, qualifier.as_deref())?;
        let function = &resolved.function;
        // Unqualified, GetFunction describes $LATEST, also on Managed Instances.
        let configuration = match (&resolved.qualifier, &resolved.target.published) {
            (Some(qualifier), Some(version)) => configuration_of(
                &version.snapshot,
                &names::qualified_arn(&function.arn, qualifier),
                &version.name,
                &version.description,
            ),
            _ => configuration(function),
        };
        let body = if with_code {
            let mut body = json!({
                "Configuration": configuration,
                "Code": {
                    "RepositoryType": "Local",
                    "Location": format!("file://{}", function.config.binary.display()),
                },
            });
            if let Some(reserved) = function.config.reserved_concurrency {
                body["Concurrency"] = json!({ "ReservedConcurrentExecutions": reserved });
            }
            body
        } else {
            configuration
        };
        Ok(json_response(200, &body))
    }
}

/// `$LATEST`'s `FunctionConfiguration`.
pub(crate) fn configuration(function: &Function) -> Value {
    let snapshot = function.code.snapshot(&function.config);
    configuration_of(&snapshot, &function.arn, LATEST, "")
}

/// The `FunctionConfiguration` of `snapshot` as `version`, under `arn`
/// (qualified for a published version or an alias).
pub(crate) fn configuration_of(
    snapshot: &Snapshot,
    arn: &str,
    version: &str,
    description: &str,
) -> Value {
    let config = &snapshot.config;
    json!({
        "FunctionName": config.name,
        "FunctionArn": arn,
        "Runtime": "provided.al2023",
        "Role": format!("arn:aws:iam::{}:role/localcloud", account_of(arn)),
        "Handler": config.handler,
        "CodeSize": snapshot.code.size(),
        "CodeSha256": snapshot.code.sha256(),
        "Description": description,
        "Timeout": config.timeout.as_secs_f64().ceil() as u64,
        "MemorySize": config.memory_mb,
        "LastModified": snapshot.last_modified,
        "Version": version,
        "Environment": { "Variables": config.environment },
        "TracingConfig": { "Mode": "PassThrough" },
        "State": "Active",
        "LastUpdateStatus": "Successful",
        "PackageType": "Zip",
        "Architectures": [config.architecture.as_str()],
        "EphemeralStorage": { "Size": 512 },
    })
}

fn account_of(arn: &str) -> &str {
    arn.split(':').nth(4).unwrap_or_default()
}

/// A published version's `FunctionConfiguration`, under its qualified ARN.
pub(crate) fn version_configuration(function: &Function, version: &Version) -> Value {
    let mut value = configuration_of(
        &version.snapshot,
        &names::qualified_arn(&function.arn, &version.name),
        &version.name,
        &version.description,
    );
    value["RevisionId"] = json!(version.revision_id);
    value
}

/// An error of the Lambda API in its REST-JSON shape.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(crate) status: u16,
    code: String,
    pub(crate) message: String,
    reason: Option<String>,
}

impl ApiError {
    pub(crate) fn new(status: u16, code: &str, message: &str) -> Self {
        Self {
            status,
            code: code.to_string(),
            message: message.to_string(),
            reason: None,
        }
    }

    fn into_response(self) -> HttpResponse {
        let kind = if self.status >= 500 {
            "Service"
        } else {
            "User"
        };
        let mut body = json!({ "Type": kind, "message": self.message });
        if let Some(reason) = &self.reason {
            body["Reason"] = json!(reason);
        }
        let mut response = json_response(self.status, &body);
        if let Ok(code) = http::HeaderValue::from_str(&self.code) {
            response.headers_mut().insert("x-amzn-errortype", code);
        }
        response
    }
}

impl From<VersionError> for ApiError {
    fn from(err: VersionError) -> Self {
        InvokeError::from(err).into()
    }
}

impl From<InvokeError> for ApiError {
    fn from(err: InvokeError) -> Self {
        let message = err.to_string();
        match err {
            InvokeError::FunctionNotFound { .. } => {
                Self::new(404, "ResourceNotFoundException", &message)
            }
            InvokeError::Throttled { reason } => Self {
                reason: Some(reason),
                ..Self::new(429, "TooManyRequestsException", "Rate Exceeded.")
            },
            InvokeError::RequestTooLarge { .. } => {
                Self::new(413, "RequestTooLargeException", &message)
            }
            InvokeError::Service {
                status,
                code,
                message,
            } => Self::new(status, &code, &message),
        }
    }
}

pub(crate) fn json_response(status: u16, body: &Value) -> HttpResponse {
    http::Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header("content-type", "application/json")
        .header("x-amzn-requestid", new_request_id())
        .body(Bytes::from(body.to_string()))
        .expect("JSON response parts are valid")
}

fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request.headers().get(name).and_then(|v| v.to_str().ok())
}

pub(crate) fn query_param(request: &HttpRequest, name: &str) -> Option<String> {
    request.uri().query()?.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(key) == name).then(|| percent_decode(value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding_restores_arns_and_keeps_bad_escapes() {
        assert_eq!(
            percent_decode("arn%3Aaws%3Alambda%3Aus-east-1%3A000000000000%3Afunction%3Aecho"),
            "arn:aws:lambda:us-east-1:000000000000:function:echo"
        );
        assert_eq!(percent_decode("%24LATEST"), "$LATEST");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
    }

    #[test]
    fn throttles_carry_reason_and_user_type() {
        let err = ApiError::from(InvokeError::Throttled {
            reason: "ConcurrentInvocationLimitExceeded".into(),
        });
        let response = err.into_response();
        assert_eq!(response.status(), 429);
        assert_eq!(
            response.headers()["x-amzn-errortype"],
            "TooManyRequestsException"
        );
        let body: Value = serde_json::from_slice(response.body()).unwrap();
        assert_eq!(body["Reason"], "ConcurrentInvocationLimitExceeded");
        assert_eq!(body["Type"], "User");
        assert_eq!(body["message"], "Rate Exceeded.");
    }

    #[test]
    fn query_parameters_are_decoded() {
        let request = http::Request::post("/x?Other=1&Qualifier=%24LATEST")
            .body(Bytes::new())
            .unwrap();
        assert_eq!(
            query_param(&request, "Qualifier").as_deref(),
            Some("$LATEST")
        );
        assert_eq!(query_param(&request, "Missing"), None);
    }
}
