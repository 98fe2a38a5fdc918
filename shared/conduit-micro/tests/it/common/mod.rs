//! A Conduit client over the microservices, in process or over HTTP, with the
//! interface the conduit crate's scenarios expect, so that those scenarios
//! (its integration tests) run here unchanged.
#![allow(dead_code)]

#[path = "../../../../conduit/tests/it/common/scenarios/mod.rs"]
pub mod scenarios;

/// The conduit crate's test client, over a [`Target`] here.
#[path = "../../../../conduit/tests/it/common/client.rs"]
pub mod client;

pub mod cloud;
pub mod http_client;

use std::sync::Arc;

use conduit::ApiResponse;
use conduit_micro::cluster::Cluster;

pub use client::tokens;

pub enum Target {
    InProcess(Arc<Cluster>),
    /// Base URL of an HTTP API.
    Http(String),
}

impl client::Api for Target {
    async fn send(&self, request: client::RawRequest<'_>) -> ApiResponse {
        match self {
            Target::InProcess(cluster) => cluster.handle(request.parse()).await,
            Target::Http(base) => http_client::send(base, request).await,
        }
    }
}

pub type Client = client::Client<Target>;

impl Client {
    pub fn in_process() -> (Self, Arc<Cluster>) {
        let cluster = Arc::new(Cluster::in_memory(tokens()));
        let client = Self {
            app: Target::InProcess(cluster.clone()),
        };
        (client, cluster)
    }

    pub fn http(base: &str) -> Self {
        Self {
            app: Target::Http(base.trim_end_matches('/').to_owned()),
        }
    }
}
