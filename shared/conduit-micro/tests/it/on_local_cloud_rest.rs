//! The REST API version of the project's template (template-rest.yaml, the
//! one LocalStack's free plan can deploy) on the local cloud with the real
//! function binaries: the conduit crate's API suite, unchanged, through the
//! monolith's REST API and both microservice variants' REST APIs.

use crate::all_scenarios;
use crate::common::cloud::Cloud;
use crate::common::Client;

/// The client of a REST API: its URL ends with the stage, `/Prod`.
fn rest_client(cloud: &Cloud, api: &str) -> Client {
    let url = &cloud.cloud.stack().unwrap().api_urls()[api];
    assert!(url.ends_with("/Prod"), "{url}");
    Client::http(url)
}

/// Every conduit scenario on a fresh cloud, through one REST API.
macro_rules! scenarios_through {
    ($api:expr; $($name:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $name() {
                let cloud = Cloud::start_template("template-rest.yaml").await;
                crate::common::scenarios::$name(&rest_client(&cloud, $api)).await;
                cloud.stop().await;
            }
        )*
    };
}

mod monolith_rest {
    use super::*;
    macro_rules! each {
        ($($name:ident),* $(,)?) => { scenarios_through!("ConduitApi"; $($name),*); };
    }
    all_scenarios!(each);
}

/// The microservice variants: routes split over four functions, one call
/// that crosses every service (an article listing with authors' profiles).
mod microservices_rest {
    use super::*;

    scenarios_through!("ConduitMicroInvokeApi"; feed_pages_across_several_authors);

    mod by_queue {
        use super::*;
        scenarios_through!("ConduitMicroQueueApi"; feed_pages_across_several_authors);
    }
}
