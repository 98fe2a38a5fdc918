//! `Event` invocations: accepted at once, run in the background, retried as
//! Lambda does. A function error (timeouts and crashes included) uses up one
//! of the retries (two by default); a throttle waits and tries again without
//! using one, until the event is too old. Every attempt keeps the request id.

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use localcloud_core::InvokeError;

use crate::function::Function;
use crate::state::Inner;
use crate::versions::Invoked;

pub(crate) fn enqueue(
    inner: Arc<Inner>,
    function: Arc<Function>,
    invoked: Invoked,
    payload: Bytes,
    caller: String,
    request_id: String,
) {
    tokio::spawn(async move {
        let received = Instant::now();
        let mut retries_used = 0;
        let mut shutdown = inner.shutdown_signal();
        loop {
            if inner.is_shutting_down() || received.elapsed() > inner.config.async_max_event_age {
                tracing::warn!(function = %function.config.name, %request_id, "event dropped unprocessed");
                return;
            }
            let result = inner
                .run(
                    &function,
                    &invoked,
                    payload.clone(),
                    &caller,
                    "Event",
                    request_id.clone(),
                )
                .await;
            let delay = match result {
                Ok(response) if response.function_error.is_none() => return,
                Ok(_) => match inner.config.async_retry_delays.get(retries_used) {
                    Some(delay) => {
                        retries_used += 1;
                        *delay
                    }
                    None => {
                        tracing::warn!(function = %function.config.name, %request_id, "event failed after all retries");
                        return;
                    }
                },
                Err(InvokeError::Throttled { .. }) => inner.config.async_throttle_delay,
                Err(_) => return,
            };
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = shutdown.wait_for(|stop| *stop) => return,
            }
        }
    });
}
