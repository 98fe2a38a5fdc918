//! The REST API version of the project's template (template-rest.yaml, the
//! one LocalStack's free plan can deploy) on the local cloud with the real
//! function binaries: the conduit crate's API suite, unchanged, through the
//! monolith's REST API and both microservice variants' REST APIs.

mod common;

use std::path::PathBuf;

use common::Client;
use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};

fn workspace() -> PathBuf {
    localcloud::testing::workspace_root()
}

struct Cloud {
    cloud: LocalCloud,
    _logs: tempfile::TempDir,
}

impl Cloud {
    async fn start() -> Self {
        let logs = tempfile::tempdir().unwrap();
        let mut stack = StackConfig::new(workspace().join("template-rest.yaml"));
        stack.binaries_dir =
            localcloud::testing::template_binaries(&workspace().join("template-rest.yaml"));
        stack.log_dir = logs.path().to_path_buf();
        stack.parameter_overrides.insert(
            "JwtSecret".into(),
            String::from_utf8(common::client::SECRET.to_vec()).unwrap(),
        );
        let config = LocalCloudConfig {
            stack: Some(stack),
            ..LocalCloudConfig::ephemeral()
        };
        let cloud = LocalCloud::start(config)
            .await
            .unwrap_or_else(|e| panic!("template-rest.yaml starts: {e}"));
        Self { cloud, _logs: logs }
    }

    /// The client of a REST API: its URL ends with the stage, `/Prod`.
    fn client(&self, api: &str) -> Client {
        let url = &self.cloud.stack().unwrap().api_urls()[api];
        assert!(url.ends_with("/Prod"), "{url}");
        Client::http(url)
    }

    async fn stop(self) {
        self.cloud.shutdown().await.unwrap();
    }
}

/// Every conduit scenario on a fresh cloud, through one REST API.
macro_rules! scenarios_through {
    ($api:expr; $($name:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $name() {
                let cloud = Cloud::start().await;
                crate::common::scenarios::$name(&cloud.client($api)).await;
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
