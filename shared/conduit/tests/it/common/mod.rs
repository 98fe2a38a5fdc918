//! Test client over `conduit::handle`, shared by the in-memory and DynamoDB suites.
#![allow(dead_code)]

pub mod client;
pub mod scenarios;

use conduit::{handle, ApiResponse, App};

pub use client::tokens;

pub type Client = client::Client<App>;

impl client::Api for App {
    async fn send(&self, request: client::RawRequest<'_>) -> ApiResponse {
        handle(self, request.parse()).await
    }
}

impl Client {
    pub fn in_memory() -> Self {
        Self {
            app: App::in_memory(tokens()),
        }
    }
}
