//! STS `GetCallerIdentity`: who the caller is, from its credentials.
//! https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html

use async_trait::async_trait;
use localcloud_core::context::{new_request_id, signing_service};
use localcloud_core::{HttpRequest, HttpResponse, PathService, RequestContext};

use crate::query::{response, Params, QueryError};

const NS: &str = "https://sts.amazonaws.com/doc/2011-06-15/";

/// The STS endpoint (requests signed for `sts`).
#[derive(Default)]
pub struct Sts;

#[async_trait]
impl PathService for Sts {
    async fn handle(&self, request: HttpRequest) -> Result<HttpResponse, HttpRequest> {
        if signing_service(&request).as_deref() != Some("sts") {
            return Err(request);
        }
        let ctx = RequestContext::from_headers(request.headers());
        let params = Params::parse(request.uri().query(), request.body());
        let request_id = new_request_id();
        Ok(match params.get("Action") {
            Some("GetCallerIdentity") => response(NS, "GetCallerIdentity", &request_id, |doc| {
                doc.text("Arn", format!("arn:aws:iam::{}:root", ctx.account_id))
                    .text("UserId", &ctx.account_id)
                    .text("Account", &ctx.account_id);
            }),
            other => QueryError::new(
                400,
                "InvalidAction",
                format!(
                    "Could not find operation {} for version 2011-06-15",
                    other.unwrap_or_default()
                ),
            )
            .into_response(NS, &request_id),
        })
    }
}
