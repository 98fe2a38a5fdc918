//! A no-op HTTP function for the API Gateway benchmark: answers 200 "ok" and
//! says in `x-handler-ns` how long its handler ran, so that the benchmark can
//! subtract the function's own time from the latency it measures.

use std::time::Instant;

use lambda_http::{service_fn, Body, Error, Request, Response};

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::run(service_fn(|_request: Request| async move {
        let started = Instant::now();
        let response = Response::builder()
            .status(200)
            .header("content-type", "text/plain")
            .body(Body::from("ok"));
        let handler_ns = started.elapsed().as_nanos();
        let mut response = response?;
        response
            .headers_mut()
            .insert("x-handler-ns", handler_ns.to_string().parse()?);
        Ok::<_, Error>(response)
    }))
    .await
}
