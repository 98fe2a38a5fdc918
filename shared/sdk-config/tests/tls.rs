//! The HTTPS client of `sdk_config` verifies servers as the SDK's default
//! does, against exactly the bundle it is given: a DynamoDB call to a TLS
//! server whose certificate chains to a root of the bundle succeeds; the same
//! call when the bundle holds only another root fails before any request
//! reaches the server.

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// A root of trust and the PEM of its certificate.
fn root(name: &str) -> (CertifiedIssuer<'static, KeyPair>, String) {
    let mut params = CertificateParams::new(Vec::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
    let pem = issuer.pem();
    (issuer, pem)
}

/// A DynamoDB endpoint on `localhost` over TLS, its certificate issued by
/// `issuer`, answering every request with an empty ListTables page. Returns
/// its port and the count of requests it answered.
async fn tls_dynamodb(issuer: &CertifiedIssuer<'static, KeyPair>) -> (u16, Arc<AtomicUsize>) {
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&key, issuer)
        .unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![cert.der().clone()],
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
    )
    .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let answered = Arc::new(AtomicUsize::new(0));
    let counter = answered.clone();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            let counter = counter.clone();
            tokio::spawn(async move {
                // A client that does not trust the certificate aborts here.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = hyper::service::service_fn(move |_request: Request<Incoming>| {
                    counter.fetch_add(1, Ordering::SeqCst);
                    async {
                        Ok::<_, Infallible>(
                            Response::builder()
                                .header("content-type", "application/x-amz-json-1.0")
                                .body(r#"{"TableNames":[]}"#.to_owned())
                                .unwrap(),
                        )
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    (port, answered)
}

fn dynamodb(port: u16, trusted_pem: String) -> aws_sdk_dynamodb::Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        .endpoint_url(format!("https://localhost:{port}"))
        .retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled())
        .http_client(sdk_config::https_client(trusted_pem.into_bytes()).unwrap())
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

#[tokio::test]
async fn a_server_whose_certificate_chains_to_a_root_of_the_bundle_is_trusted() {
    let (server_root, server_root_pem) = root("server root");
    let (_, other_root_pem) = root("other root");
    let (port, answered) = tls_dynamodb(&server_root).await;
    // A bundle of several roots, the server's not first, as a system bundle is.
    let bundle = format!("# a comment line\n{other_root_pem}{server_root_pem}");

    let tables = dynamodb(port, bundle).list_tables().send().await.unwrap();

    assert_eq!(tables.table_names(), &[] as &[String]);
    assert_eq!(answered.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_server_whose_certificate_chains_to_no_root_of_the_bundle_is_refused() {
    let (server_root, _) = root("server root");
    let (_, other_root_pem) = root("other root");
    let (port, answered) = tls_dynamodb(&server_root).await;

    let error = dynamodb(port, other_root_pem)
        .list_tables()
        .send()
        .await
        .unwrap_err();

    let error = format!("{:?}", aws_sdk_dynamodb::error::DisplayErrorContext(&error));
    assert!(
        error.contains("UnknownIssuer"),
        "expected a certificate verification failure, got {error}"
    );
    assert_eq!(answered.load(Ordering::SeqCst), 0);
}
