//! The public function: `GET /orders/{size}` over any transport to the back end.

use lambda_http::{Body, Request, RequestExt, Response};
use serde_json::json;
use transport::{Transport, TransportError};

use crate::model::{parse_size, Order};

/// Answers one request. Failures are JSON `{"message": ...}` with a status
/// that tells them apart: 400 bad size, 503 back end at capacity (throttled),
/// 504 no answer in time, 502 back end failed.
pub async fn handle(transport: &impl Transport, request: &Request) -> Response<Body> {
    let raw = request
        .path_parameters_ref()
        .and_then(|p| p.first("size"))
        .map(str::to_owned)
        .unwrap_or_else(|| {
            request
                .uri()
                .path()
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_string()
        });
    let size = match parse_size(&raw) {
        Ok(size) => size,
        Err(e) => return respond(400, json!({"message": e.to_string()})),
    };
    match transport.call(json!({"size": size})).await {
        Ok(answer) => match serde_json::from_value::<Vec<Order>>(answer) {
            Ok(orders) if orders.len() == size as usize => respond(200, json!(orders)),
            Ok(orders) => {
                tracing::error!(
                    wanted = size,
                    got = orders.len(),
                    "back end returned the wrong number of orders"
                );
                respond(
                    502,
                    json!({"message": "the orders back end gave a wrong answer"}),
                )
            }
            Err(e) => {
                tracing::error!("back end answer is not a list of orders: {e}");
                respond(
                    502,
                    json!({"message": "the orders back end gave a wrong answer"}),
                )
            }
        },
        Err(e) => failure(e),
    }
}

fn failure(error: TransportError) -> Response<Body> {
    tracing::warn!("orders request failed: {error}");
    match error {
        TransportError::Throttled { reason } => respond(
            503,
            json!({"message": format!("the orders back end is at capacity ({reason})")}),
        ),
        TransportError::Timeout { waited_ms } => respond(
            504,
            json!({"message": format!("the orders back end did not answer within {waited_ms} ms")}),
        ),
        TransportError::CalleeFailed { error_type, .. } if error_type == "BadRequest" => respond(
            400,
            json!({"message": "the orders back end rejected the request"}),
        ),
        _ => respond(502, json!({"message": "the orders back end failed"})),
    }
}

fn respond(status: u16, body: serde_json::Value) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Body::Text(body.to_string()))
        .expect("static response parts are valid")
}

/// The transport to the back end the settings ask for, built once per
/// execution environment.
pub fn transport_for(
    settings: &crate::settings::ApiSettings,
    config: &aws_config::SdkConfig,
) -> transport::AnyTransport {
    settings
        .transport
        .transports(config)
        .remove(crate::settings::BACKEND)
        .expect("the settings name the back end")
}
