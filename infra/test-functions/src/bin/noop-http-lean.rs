//! `noop-http` built the way the project's functions are: a one-thread Tokio
//! runtime and mimalloc. Beside `noop-http` (multi-thread runtime, system
//! allocator) and `noop-raw` (no runtime at all) it tells what an invocation's
//! floor owes to `lambda_runtime`'s layers and what to Tokio's threads
//! (docs/benchmarks.md, "The same measurements on a slower machine").

use lambda_http::{service_fn, Body, Error, Request, Response};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    lambda_http::run(service_fn(|_request: Request| async move {
        Response::builder()
            .status(200)
            .header("content-type", "text/plain")
            .body(Body::from("ok"))
            .map_err(Error::from)
    }))
    .await
}
