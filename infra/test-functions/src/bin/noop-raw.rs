//! A no-op HTTP function with the cheapest runtime client there can be: the
//! thin runtime's blocking keep-alive connection to the Runtime API
//! (`thin_runtime::RuntimeApi`), no async runtime, no event parsing. Behind
//! the HTTP API benchmark it leaves almost nothing but what the emulator
//! itself does (the gateway and the runtime hops), where `noop-http` adds
//! what `lambda_runtime` and `lambda_http` cost.
//!
//! It answers every event with the API Gateway response `200 "ok"` and says
//! in `x-handler-ns` how long it spent between having read the event and
//! starting to write the answer.

use std::time::Instant;

use thin_runtime::RuntimeApi;

fn main() {
    let mut api = RuntimeApi::from_env().unwrap_or_else(|e| die(&e.to_string()));
    loop {
        // The Runtime API closing the connection ends the environment.
        let invocation = api
            .next_invocation()
            .unwrap_or_else(|e| die(&format!("next invocation: {e}")));
        let started = Instant::now();
        let handler_ns = started.elapsed().as_nanos();
        // The whole payload 2.0 response, as `lambda_http` writes it.
        let body = format!(
            "{{\"statusCode\":200,\"headers\":{{\"content-type\":\"text/plain\",\"x-handler-ns\":\"{handler_ns}\"}},\"multiValueHeaders\":{{}},\"body\":\"ok\",\"isBase64Encoded\":false,\"cookies\":[]}}"
        );
        api.respond(&invocation.request_id, body.as_bytes())
            .unwrap_or_else(|e| die(&format!("posting the response: {e}")));
    }
}

fn die(message: &str) -> ! {
    eprintln!("noop-raw: {message}");
    std::process::exit(1)
}
