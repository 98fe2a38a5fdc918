//! `GET /orders/{size}`: closed loop, no think time, like the original k6 runs.

use std::sync::Arc;

use goose::goose::{GooseMethod, Scenario, Transaction, TransactionFunction};
use serde_json::Value;

use super::{expect_json, send, Call};
use crate::recorder::Recorder;

pub const ROUTE: &str = "GET /orders/{size}";

/// A user that asks for `size` orders again and again.
pub fn scenario(size: u32, recorder: Arc<Recorder>) -> Scenario {
    let path: Arc<str> = format!("/orders/{size}").into();
    let get: TransactionFunction = Arc::new(move |user| {
        let (path, recorder) = (path.clone(), recorder.clone());
        Box::pin(async move {
            let validate = match size {
                5 => validate_size::<5>,
                100 => validate_size::<100>,
                _ => validate_any_list,
            };
            let call = Call {
                method: GooseMethod::Get,
                path: &path,
                name: ROUTE,
                token: None,
                body: None,
                validate,
            };
            send(user, &recorder, call).await.map(|_| ())
        })
    });
    Scenario::new("orders").register_transaction(Transaction::new(get).set_name(ROUTE))
}

fn validate_size<const N: usize>(status: u16, body: &str) -> Result<Value, String> {
    let value = validate_any_list(status, body)?;
    let len = value.as_array().map_or(0, Vec::len);
    if len != N {
        return Err(format!("{len} orders instead of {N}"));
    }
    Ok(value)
}

/// A JSON list of `{orderId: uuid, orderDate: text}`.
fn validate_any_list(status: u16, body: &str) -> Result<Value, String> {
    let value = expect_json(status, &[200], body)?;
    let orders = value.as_array().ok_or("not a list of orders")?;
    let well_formed = orders.iter().all(|o| {
        o.get("orderId").and_then(Value::as_str).map(str::len) == Some(36)
            && o.get("orderDate").is_some_and(Value::is_string)
    });
    if !well_formed {
        return Err("an order lacks orderId or orderDate".into());
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDER: &str = r#"{"orderId":"6f726465-7273-4000-8000-000000000001","orderDate":"2025-01-01T00:00:00.000Z"}"#;

    #[test]
    fn right_number_of_orders_is_accepted() {
        let body = format!("[{}]", [ORDER; 5].join(","));
        assert!(validate_size::<5>(200, &body).is_ok());
    }

    #[test]
    fn short_list_or_wrong_shape_is_a_failure() {
        let body = format!("[{}]", [ORDER; 4].join(","));
        assert_eq!(
            validate_size::<5>(200, &body).unwrap_err(),
            "4 orders instead of 5"
        );
        assert!(validate_any_list(200, r#"[{"orderId":"x"}]"#).is_err());
        assert!(validate_any_list(200, r#"{"orders":[]}"#).is_err());
    }

    #[test]
    fn throttled_answer_is_a_failure() {
        assert_eq!(
            validate_size::<5>(503, r#"{"message":"at capacity"}"#).unwrap_err(),
            "status 503"
        );
    }
}
