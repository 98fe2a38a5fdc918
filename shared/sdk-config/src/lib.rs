//! The AWS SDK configuration every function loads once, at init.
//!
//! What the SDK's defaults would find in a Lambda environment, found without
//! work a Lambda function never needs (docs/benchmarks.md, "Cold starts: what
//! the SDK does at init"):
//! - the trusted roots from the system's one bundle file, instead of that file
//!   and then every file of the certificates directories (on Debian, 146 more
//!   files holding the same certificates);
//! - each HTTPS connector, with its root store, built once per process instead
//!   of once per service client made and again on the first request;
//! - the region and the credentials from the environment variables Lambda
//!   always sets, instead of building the default chains, whose web-identity
//!   link builds an STS client (and parses its endpoint rules) and whose IMDS
//!   links build IMDS clients, all before the environment is even read.
//!
//! And the functions' logs, set up once by [`init_logs`] ([`logs`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use aws_config::environment::{
    EnvironmentVariableCredentialsProvider, EnvironmentVariableRegionProvider,
};
use aws_config::meta::region::ProvideRegion;
use aws_config::stalled_stream_protection::StalledStreamProtectionConfig;
use aws_config::{BehaviorVersion, SdkConfig};
use aws_credential_types::provider::ProvideCredentials;
use aws_smithy_async::rt::sleep::SharedAsyncSleep;
use aws_smithy_http_client::proxy::ProxyConfig;
use aws_smithy_http_client::tls::{self, TlsContext, TrustStore};
use aws_smithy_http_client::{ConnectorBuilder, HttpClientError};
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::connector_metadata::ConnectorMetadata;
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnectorSettings, SharedHttpClient, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::runtime_components::{
    RuntimeComponents, RuntimeComponentsBuilder,
};
use aws_smithy_types::config_bag::ConfigBag;
use aws_smithy_types::timeout::TimeoutConfig;

pub mod logs;

pub use logs::init_logs;

/// The environment's configuration (region, credentials, `AWS_ENDPOINT_URL`)
/// with the SDK's default retries (standard mode, three attempts: throttling
/// exists) and without stalled-stream protection. That protection watches
/// streaming bodies (S3 transfers) for throughput below 1 B/s after a 20 s
/// grace period, longer than our functions' 10 s timeout, so it could never
/// fire here; yet it wraps every request and response body in a throughput
/// log and a timer, about a tenth of the monolith's CPU per request
/// (docs/benchmarks.md, "Where a request's CPU goes"). Our DynamoDB, SQS and
/// Lambda bodies are a few KB, and a stalled call stays bounded by the
/// function's timeout (internal Invokes by their own, `CALL_TIMEOUT_MS`).
///
/// The region and credentials providers are the first links of the SDK's
/// default chains, used only when they find something, so the outcome is the
/// chains' own; elsewhere (no such variables) the chains are built as usual.
pub async fn load() -> SdkConfig {
    let mut loader = aws_config::defaults(BehaviorVersion::latest())
        .stalled_stream_protection(StalledStreamProtectionConfig::disabled());
    let env_region = EnvironmentVariableRegionProvider::new();
    if env_region.region().await.is_some() {
        loader = loader.region(env_region);
    }
    let env_credentials = EnvironmentVariableCredentialsProvider::new();
    if env_credentials.provide_credentials().await.is_ok() {
        loader = loader.credentials_provider(env_credentials);
    }
    if let Some(client) = system_bundle_client() {
        loader = loader.http_client(client);
    }
    loader.load().await
}

/// Where the trusted roots come from.
#[derive(Debug, PartialEq, Eq)]
pub enum Roots {
    /// The SDK's own loading (`rustls-native-certs`): the bundle file and the
    /// certificates directories, or what `SSL_CERT_FILE`/`SSL_CERT_DIR` name.
    SdkDefault,
    /// This one PEM bundle file, the system's complete trust store.
    Bundle(PathBuf),
}

/// The system's bundle when the environment names no roots of its own:
/// whoever sets `SSL_CERT_FILE` or `SSL_CERT_DIR` gets exactly the SDK's
/// handling of them. `probed_bundle` is the first bundle file that exists
/// among the distributions' known paths (`openssl_probe`), e.g. Debian's
/// `/etc/ssl/certs/ca-certificates.crt` or Amazon Linux 2023's
/// `/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem`. Both distributions
/// generate their certificates directory and their bundle from the same
/// sources (`update-ca-certificates`, `update-ca-trust`), so the bundle alone
/// trusts what the SDK's default trusts.
pub fn choose_roots(
    cert_file_set: bool,
    cert_dir_set: bool,
    probed_bundle: Option<PathBuf>,
) -> Roots {
    match probed_bundle {
        Some(bundle) if !cert_file_set && !cert_dir_set => Roots::Bundle(bundle),
        _ => Roots::SdkDefault,
    }
}

/// The SDK's default HTTPS client trusting the system bundle, or `None` to
/// leave the SDK its default (environment overrides, no bundle, a bundle that
/// cannot be read or holds no certificate).
fn system_bundle_client() -> Option<SharedHttpClient> {
    let roots = choose_roots(
        std::env::var_os("SSL_CERT_FILE").is_some(),
        std::env::var_os("SSL_CERT_DIR").is_some(),
        openssl_probe::probe().cert_file,
    );
    let Roots::Bundle(path) = roots else {
        return None;
    };
    let pem = std::fs::read(path).ok()?;
    if !holds_a_certificate(&pem) {
        return None;
    }
    https_client(pem).ok()
}

fn holds_a_certificate(pem: &[u8]) -> bool {
    const BEGIN: &[u8] = b"-----BEGIN CERTIFICATE-----";
    pem.windows(BEGIN.len()).any(|window| window == BEGIN)
}

/// The HTTPS client the SDK builds by default (`aws-smithy-runtime`'s
/// `default_https_client`: hyper 1, rustls on aws-lc-rs, the proxy from the
/// environment, the client's own timeouts and sleep) trusting exactly the
/// certificates of `trusted_pem`, a PEM bundle. Certificates are verified as
/// by the default client (webpki, the server name against the endpoint's host).
///
/// One difference: each connector (and so each decoding and parsing of the
/// roots) is built once per process and timeout settings. The SDK's client
/// builds one, and throws it away, for every service client made
/// (`validate_base_client_config`, so that the roots load at init), then
/// another on the first request; a function with three clients decoded its
/// roots four times.
pub fn https_client(trusted_pem: Vec<u8>) -> Result<SharedHttpClient, HttpClientError> {
    let tls_context = TlsContext::builder()
        .with_trust_store(TrustStore::empty().with_pem_certificate(trusted_pem))
        .build()?;
    Ok(SharedHttpClient::new(OnceBuiltConnectors {
        tls_context,
        connectors: Mutex::default(),
    }))
}

/// The connect and read timeouts a connector is built for.
type ConnectorKey = (Option<Duration>, Option<Duration>);

#[derive(Debug)]
struct OnceBuiltConnectors {
    tls_context: TlsContext,
    connectors: Mutex<HashMap<ConnectorKey, SharedHttpConnector>>,
}

impl OnceBuiltConnectors {
    fn connector(
        &self,
        settings: &HttpConnectorSettings,
        sleep: Option<SharedAsyncSleep>,
    ) -> SharedHttpConnector {
        let key = (settings.connect_timeout(), settings.read_timeout());
        let mut connectors = self
            .connectors
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        connectors
            .entry(key)
            .or_insert_with(|| {
                let mut connector = ConnectorBuilder::default()
                    .tls_provider(tls::Provider::Rustls(
                        tls::rustls_provider::CryptoMode::AwsLc,
                    ))
                    .tls_context(self.tls_context.clone());
                connector.set_connector_settings(Some(settings.clone()));
                connector.set_sleep_impl(sleep);
                connector.set_proxy_config(Some(ProxyConfig::from_env()));
                SharedHttpConnector::new(connector.build())
            })
            .clone()
    }
}

impl HttpClient for OnceBuiltConnectors {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        self.connector(settings, components.sleep_impl())
    }

    /// Builds the connector the client's requests will use, as the SDK's
    /// client loads its roots when a service client is made rather than on
    /// its first request; the settings are the orchestrator's
    /// (`aws-smithy-runtime`, `try_attempt`: connect and read timeouts of the
    /// client's `TimeoutConfig`).
    fn validate_base_client_config(
        &self,
        components: &RuntimeComponentsBuilder,
        cfg: &ConfigBag,
    ) -> Result<(), BoxError> {
        if let Some(timeouts) = cfg.load::<TimeoutConfig>() {
            let mut settings = HttpConnectorSettings::builder();
            settings.set_connect_timeout(timeouts.connect_timeout());
            settings.set_read_timeout(timeouts.read_timeout());
            self.connector(&settings.build(), components.sleep_impl());
        }
        Ok(())
    }

    fn connector_metadata(&self) -> Option<ConnectorMetadata> {
        Some(ConnectorMetadata::new("hyper", Some(Cow::Borrowed("1.x"))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_bundle_is_used_when_the_environment_names_no_roots() {
        let bundle = PathBuf::from("/etc/ssl/certs/ca-certificates.crt");
        assert_eq!(
            choose_roots(false, false, Some(bundle.clone())),
            Roots::Bundle(bundle)
        );
    }

    #[test]
    fn roots_named_by_the_environment_are_left_to_the_sdk() {
        let bundle = || Some(PathBuf::from("/etc/ssl/certs/ca-certificates.crt"));
        assert_eq!(choose_roots(true, false, bundle()), Roots::SdkDefault);
        assert_eq!(choose_roots(false, true, bundle()), Roots::SdkDefault);
        assert_eq!(choose_roots(true, true, bundle()), Roots::SdkDefault);
    }

    #[test]
    fn without_a_bundle_the_sdk_looks_for_roots_itself() {
        assert_eq!(choose_roots(false, false, None), Roots::SdkDefault);
    }

    #[test]
    fn a_file_without_a_certificate_block_is_not_a_bundle() {
        assert!(!holds_a_certificate(b""));
        assert!(!holds_a_certificate(b"-----BEGIN PRIVATE KEY-----\nAAAA\n"));
        assert!(holds_a_certificate(
            b"# comment\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
        ));
    }
}
