//! The local cloud: every emulated service behind one endpoint
//! (`127.0.0.1:4566` by default, like LocalStack's), started in-process by
//! [`LocalCloud::start`] or from the command line by `localcloud serve`.
//!
//! The services live in their own crates (`localcloud-dynamodb`,
//! `localcloud-sqs`, ...); this crate composes them, adds the admin endpoints
//! (`/_localcloud/...`) and owns start-up and shutdown.

mod admin;
mod apigw_api;
pub mod binaries;
mod code;
pub mod deploy;
pub mod faults;
pub mod gateways;
pub mod iam_report;
mod lambda_api;
mod roles;
pub mod schedules;
pub mod stack;
mod stack_error;
pub mod state;
pub mod testing;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use localcloud_core::{Dispatcher, ServerHandle};
use localcloud_dynamodb::{DynamoDb, DynamoDbConfig};
use localcloud_s3::S3Service;
use localcloud_sqs::SqsService;

pub use admin::Admin;
pub use code::zip_of;
pub use deploy::{Deployer, Deployments};
pub use stack::{MemorySizeOverride, Stack, StackConfig};
pub use stack_error::StackError;

/// Where the local cloud listens when nothing else is said: loopback only.
pub const DEFAULT_BIND: &str = "127.0.0.1:4566";

#[derive(Debug, Clone)]
pub struct LocalCloudConfig {
    /// Address to listen on; port 0 picks a free one.
    pub bind: SocketAddr,
    /// DynamoDB tables and SQS queues are loaded from here at start (if the
    /// file exists) and written back on [`LocalCloud::shutdown`] ([`state`]).
    pub state_file: Option<PathBuf>,
    pub dynamodb: DynamoDbConfig,
    /// A SAM application to bring up (`--template`).
    pub stack: Option<StackConfig>,
    /// Latency injected into DynamoDB, SQS and Invoke calls (`--latency-profile`).
    pub latency: Option<Arc<localcloud_core::LatencyProfile>>,
    /// Deployed stacks keep their unpacked code (`code/`) and function logs
    /// (`logs/`) here.
    pub state_dir: PathBuf,
    /// How every stack's execution environments get CPU (`--cpu-share`).
    pub cpu_share: localcloud_lambda::CpuShare,
    /// `--iam`: calls signed with a function role's credentials are
    /// enforced (the default), only warned about, or not checked.
    pub iam: localcloud_iam::Mode,
}

impl Default for LocalCloudConfig {
    fn default() -> Self {
        Self {
            bind: DEFAULT_BIND.parse().expect("valid default address"),
            state_file: None,
            dynamodb: DynamoDbConfig::default(),
            stack: None,
            latency: None,
            state_dir: PathBuf::from(".localcloud"),
            cpu_share: localcloud_lambda::CpuShare::default(),
            iam: localcloud_iam::Mode::default(),
        }
    }
}

impl LocalCloudConfig {
    /// Loopback on a free port, no persistence: for tests.
    pub fn ephemeral() -> Self {
        Self {
            bind: "127.0.0.1:0".parse().expect("valid address"),
            ..Self::default()
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    LoadState(#[from] state::StateError),
    #[error(transparent)]
    Stack(#[from] StackError),
}

/// A running local cloud. Dropping it without [`LocalCloud::shutdown`] stops
/// the listener but does not persist state.
pub struct LocalCloud {
    server: ServerHandle,
    dynamodb: Arc<DynamoDb>,
    sqs: Arc<SqsService>,
    s3: Arc<S3Service>,
    stack: Option<Arc<Stack>>,
    deployments: Arc<Deployments>,
    state_file: Option<PathBuf>,
    iam: Arc<localcloud_iam::Iam>,
}

impl LocalCloud {
    pub async fn start(config: LocalCloudConfig) -> Result<Self, StartError> {
        let listener = tokio::net::TcpListener::bind(config.bind)
            .await
            .map_err(|source| StartError::Bind {
                addr: config.bind,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| StartError::Bind {
            addr: config.bind,
            source,
        })?;

        let endpoint = format!("http://{addr}");
        let saved = match &config.state_file {
            Some(path) => state::load(path, config.dynamodb.clone(), &endpoint)?,
            None => None,
        };
        let state::Restored { dynamodb, sqs } = saved.unwrap_or_else(|| state::Restored {
            dynamodb: DynamoDb::new(config.dynamodb.clone()),
            sqs: Arc::new(SqsService::new(endpoint)),
        });
        let iam = Arc::new(localcloud_iam::Iam::new(config.iam));
        let stack = match &config.stack {
            Some(stack_config) => Some(Arc::new(
                Stack::start(
                    &StackConfig {
                        cpu_share: config.cpu_share,
                        iam: Some(iam.clone()),
                        ..stack_config.clone()
                    },
                    addr,
                    &dynamodb,
                    &sqs,
                )
                .await?,
            )),
            None => None,
        };
        let deployments = Arc::new(Deployments::default());
        if let (Some(stack), Some(stack_config)) = (&stack, &config.stack) {
            deployments.insert(&stack_config.stack_name, stack.clone());
        }
        let s3 = Arc::new(S3Service::new());
        let deployer = Deployer {
            endpoint: addr,
            dynamodb: dynamodb.clone(),
            sqs: sqs.clone(),
            s3: s3.clone(),
            state_dir: config.state_dir.clone(),
            deployments: deployments.clone(),
            cpu_share: config.cpu_share,
            iam: iam.clone(),
        };
        let cloudformation = localcloud_cloudformation::CloudFormation::new(Arc::new(deployer));
        let admin = Arc::new(Admin::new(
            dynamodb.clone(),
            sqs.clone(),
            stack.clone(),
            iam.clone(),
            deployments.clone(),
        ));
        let mut dispatcher = Dispatcher::new()
            .with_json(dynamodb.clone())
            .with_json(sqs.clone())
            .with_path(admin)
            .with_path(Arc::new(lambda_api::LambdaApi(deployments.clone())))
            .with_path(Arc::new(apigw_api::ApiGatewayApi(deployments.clone())))
            .with_path(Arc::new(cloudformation))
            .with_path(Arc::new(localcloud_cloudformation::Sts::new(iam.clone())))
            .with_path(s3.clone())
            .with_guard(iam.clone());
        if let Some(profile) = &config.latency {
            dispatcher = dispatcher.with_latency(profile.clone());
        }
        let server = localcloud_core::serve(listener, Arc::new(dispatcher))
            .map_err(|source| StartError::Bind { addr, source })?;
        Ok(Self {
            server,
            dynamodb,
            sqs,
            s3,
            stack,
            deployments,
            state_file: config.state_file,
            iam,
        })
    }

    /// IAM: roles, sessions and what each was allowed or denied.
    pub fn iam(&self) -> &Arc<localcloud_iam::Iam> {
        &self.iam
    }

    pub fn addr(&self) -> SocketAddr {
        self.server.addr
    }

    /// The URL to give AWS SDKs as `AWS_ENDPOINT_URL`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.server.addr)
    }

    pub fn dynamodb(&self) -> &Arc<DynamoDb> {
        &self.dynamodb
    }

    pub fn sqs(&self) -> &Arc<SqsService> {
        &self.sqs
    }

    pub fn s3(&self) -> &Arc<S3Service> {
        &self.s3
    }

    /// Every running stack: deployed ones and the `--template` one.
    pub fn deployments(&self) -> &Arc<Deployments> {
        &self.deployments
    }

    /// The SAM application, when started with one.
    pub fn stack(&self) -> Option<&Arc<Stack>> {
        self.stack.as_ref()
    }

    /// Stops the application (pollers, APIs, function processes), stops
    /// listening, then persists state if a state file was configured.
    pub async fn shutdown(self) -> Result<(), state::StateError> {
        for (_, stack) in self.deployments.all() {
            stack.shutdown().await;
        }
        self.server.shutdown().await;
        if let Some(path) = &self.state_file {
            state::save(path, &self.dynamodb, &self.sqs)?;
        }
        Ok(())
    }
}
