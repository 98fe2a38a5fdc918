//! The Lambda Managed Instances version of the project's template
//! (template-lmi.yaml) on the local cloud with the real function binaries:
//! the Conduit functions on the thin runtime's concurrent mode, through the
//! monolith's API and both microservice variants'.

use crate::common::cloud::Cloud;

/// `scenario` on a fresh cloud through `api`; the fleet never had to refuse.
macro_rules! on_managed_instances {
    ($($name:ident: $api:expr, $scenario:ident;)*) => {
        $(
            #[tokio::test]
            async fn $name() {
                let cloud = Cloud::start_template("template-lmi.yaml").await;
                crate::common::scenarios::$scenario(&cloud.client($api)).await;
                let fleets = &cloud.metrics()["lambda"]["capacity_providers"];
                let fleet = fleets.as_object().and_then(|f| f.values().next()).expect("a fleet");
                assert_eq!(fleet["scaling_refusals"], 0, "{fleet}");
                cloud.stop().await;
            }
        )*
    };
}

on_managed_instances! {
    monolith_feed: "ConduitApi", feed_pages_across_several_authors;
    monolith_login: "ConduitApi", login_returns_user_and_wrong_password_is_401;
    microservices_by_invoke: "ConduitMicroInvokeApi", feed_pages_across_several_authors;
    microservices_by_queue: "ConduitMicroQueueApi", feed_pages_across_several_authors;
}
