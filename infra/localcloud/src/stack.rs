//! A SAM application brought up from its `template.yaml`: tables and queues
//! created in the emulated services, every function ready to run as its real
//! binary, each HTTP API on its own listener, and the SQS event source
//! mappings polling. The template is the single source of truth.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use localcloud_apigw::{GatewayHandle, HttpApiConfig, RouteConfig};
use localcloud_core::RequestContext;
use localcloud_dynamodb::DynamoDb;
use localcloud_esm::{EsmConfig, EsmHandle};
use localcloud_lambda::{Architecture, FunctionConfig, LambdaConfig, LambdaService};
use localcloud_sqs::SqsService;
use localcloud_template::{Application, ResolveContext};
use parking_lot::Mutex;
use serde_json::{json, Value};

#[derive(Debug, Clone)]
pub struct StackConfig {
    pub template: PathBuf,
    /// `AWS::StackName`, and the prefix of generated resource names.
    pub stack_name: String,
    /// `--parameter-overrides`.
    pub parameter_overrides: BTreeMap<String, String>,
    /// Where cargo put the functions' binaries (`target/debug` or `target/release`).
    pub binaries_dir: PathBuf,
    /// The first HTTP API listens here, the next on the following port, in
    /// template order; `None` picks free ports.
    pub first_api_port: Option<u16>,
    /// `<function>.log` files with the functions' output and REPORT lines.
    pub log_dir: PathBuf,
    pub account_concurrency_limit: u32,
    /// A warm execution environment unused this long is shut down.
    pub idle_timeout: Duration,
    /// The template's text, read instead of the file `template` (a deploy).
    pub template_body: Option<String>,
    /// Binaries by function logical id, before `binaries_dir` (code from S3).
    pub binaries: BTreeMap<String, PathBuf>,
    /// Ports by HTTP API logical id, before `first_api_port` (an update
    /// keeps its APIs' URLs).
    pub api_ports: BTreeMap<String, u16>,
    pub region: String,
    pub account_id: String,
    /// Values of other stacks' exports, for `Fn::ImportValue`.
    pub imports: BTreeMap<String, String>,
    /// Give `NoEcho` parameters without a value a random development value
    /// (`serve --template`); a deploy requires values, as AWS does.
    pub generate_no_echo: bool,
}

impl StackConfig {
    pub fn new(template: impl Into<PathBuf>) -> Self {
        Self {
            template: template.into(),
            stack_name: "local".into(),
            parameter_overrides: BTreeMap::new(),
            binaries_dir: PathBuf::from("target/debug"),
            first_api_port: None,
            log_dir: PathBuf::from(".localcloud/logs"),
            account_concurrency_limit: 1000,
            idle_timeout: Duration::from_secs(300),
            template_body: None,
            binaries: BTreeMap::new(),
            api_ports: BTreeMap::new(),
            region: localcloud_core::context::DEFAULT_REGION.into(),
            account_id: localcloud_core::context::DEFAULT_ACCOUNT.into(),
            imports: BTreeMap::new(),
            generate_no_echo: true,
        }
    }

    /// Reads the template (`template_body`, else the file) with `ctx`.
    pub fn read(
        &self,
        ctx: &ResolveContext,
    ) -> Result<Application, localcloud_template::TemplateError> {
        match &self.template_body {
            Some(body) => localcloud_template::load_str(body, ctx),
            None => localcloud_template::load(&self.template, ctx),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StackError {
    #[error(transparent)]
    Template(#[from] localcloud_template::TemplateError),
    #[error("cannot create {what}: {message}")]
    Resource { what: String, message: String },
    #[error("function {function}: binary {path} not found; build the functions first with `cargo build --workspace --bins`{hint}")]
    MissingBinary {
        function: String,
        path: PathBuf,
        hint: String,
    },
    #[error("cannot start {what}: {message}")]
    Start { what: String, message: String },
}

/// A running application.
pub struct Stack {
    pub app: Application,
    pub lambda: Arc<LambdaService>,
    gateways: Mutex<Vec<GatewayHandle>>,
    mappings: Mutex<Vec<EsmHandle>>,
    api_urls: BTreeMap<String, String>,
}

impl Stack {
    /// Creates everything the template declares. `endpoint` is the local
    /// cloud's own address, given to functions as `AWS_ENDPOINT_URL`.
    pub async fn start(
        config: &StackConfig,
        endpoint: SocketAddr,
        dynamodb: &DynamoDb,
        sqs: &Arc<SqsService>,
    ) -> Result<Self, StackError> {
        let mut ctx = resolve_context(config, endpoint);
        // First pass: which APIs exist, so each can be given its address
        // before the template is resolved for good (outputs name the URLs).
        let draft = config.read(&ctx)?;
        // Bound now and kept: a port merely probed and released could be
        // taken by someone else before the gateway binds it.
        let mut api_listeners = bind_api_listeners(&draft, config).await?;
        ctx.api_urls = api_listeners
            .iter()
            .map(|(id, listener)| {
                let addr = listener
                    .local_addr()
                    .expect("bound listener has an address");
                (id.clone(), format!("http://{addr}"))
            })
            .collect();
        let app = config.read(&ctx)?;

        let request_ctx = RequestContext::new(&ctx.region, &ctx.account_id);
        create_tables(&app, dynamodb, &request_ctx)?;
        create_queues(&app, sqs, &ctx)?;
        let lambda = start_lambda(&app, config, endpoint, &ctx)?;

        if let Some((api, route)) = app
            .http_apis
            .iter()
            .flat_map(|api| api.routes.iter().map(move |r| (api, r)))
            .find(|(_, r)| r.payload_format_version != "2.0")
        {
            return Err(StackError::Start {
                what: format!("HTTP API {} route {}", api.logical_id, route.route_key()),
                message: format!(
                    "payload format {} is not emulated; use PayloadFormatVersion 2.0",
                    route.payload_format_version
                ),
            });
        }
        let mut gateways = Vec::new();
        for api in &app.http_apis {
            let api_config = gateway_config(&app, api);
            let listener =
                api_listeners
                    .remove(&api.logical_id)
                    .ok_or_else(|| StackError::Start {
                        what: format!("HTTP API {}", api.logical_id),
                        message: "the template changed between its two readings".into(),
                    })?;
            let handle =
                localcloud_apigw::start_on(api_config, lambda.clone(), listener).map_err(|e| {
                    StackError::Start {
                        what: format!("HTTP API {}", api.logical_id),
                        message: e.to_string(),
                    }
                })?;
            gateways.push(handle);
        }
        let api_urls = app
            .http_apis
            .iter()
            .zip(&gateways)
            .map(|(api, gateway)| (api.logical_id.clone(), gateway.url.clone()))
            .collect();

        let consumer: Arc<dyn localcloud_core::QueueConsumer> = sqs.clone();
        let mut mappings = Vec::new();
        for function in &app.functions {
            for event in &function.sqs_events {
                let esm = EsmConfig {
                    function: function.name.clone(),
                    queue_arn: event.queue_arn.clone(),
                    batch_size: event.batch_size,
                    maximum_batching_window: Duration::from_secs(u64::from(
                        event.maximum_batching_window_seconds,
                    )),
                    maximum_concurrency: event.maximum_concurrency,
                    report_batch_item_failures: event.report_batch_item_failures,
                    enabled: event.enabled,
                };
                let handle =
                    localcloud_esm::start(esm, consumer.clone(), lambda.clone()).map_err(|e| {
                        StackError::Start {
                            what: format!(
                                "event source mapping {}.{}",
                                function.logical_id, event.name
                            ),
                            message: e.to_string(),
                        }
                    })?;
                mappings.push(handle);
            }
        }

        Ok(Self {
            app,
            lambda,
            gateways: Mutex::new(gateways),
            mappings: Mutex::new(mappings),
            api_urls,
        })
    }

    /// Base URL (with stage) of each HTTP API, by logical id.
    pub fn api_urls(&self) -> &BTreeMap<String, String> {
        &self.api_urls
    }

    /// The port of each HTTP API, by logical id.
    pub fn api_ports(&self) -> BTreeMap<String, u16> {
        self.app
            .http_apis
            .iter()
            .zip(self.gateways.lock().iter())
            .map(|(api, g)| (api.logical_id.clone(), g.addr.port()))
            .collect()
    }

    /// What a client needs to reach the application: written to the
    /// endpoints file and printed at start-up.
    pub fn endpoints(&self, endpoint: &str) -> Value {
        json!({
            "endpoint": endpoint,
            "apis": self.api_urls,
            "functions": self.app.functions.iter().map(|f| (f.logical_id.clone(), f.name.clone())).collect::<BTreeMap<_, _>>(),
            "queues": self.app.queues.iter().map(|q| (q.logical_id.clone(), q.url.clone())).collect::<BTreeMap<_, _>>(),
            "tables": self.app.tables.iter().map(|t| (t.logical_id.clone(), t.name.clone())).collect::<BTreeMap<_, _>>(),
            "outputs": self.app.outputs,
        })
    }

    pub fn metrics(&self) -> Value {
        // Gateways were started in template order.
        let apis: BTreeMap<String, Value> = self
            .app
            .http_apis
            .iter()
            .zip(self.gateways.lock().iter())
            .map(|(api, g)| (api.logical_id.clone(), to_json(&g.metrics())))
            .collect();
        let mappings: Vec<Value> = self
            .mappings
            .lock()
            .iter()
            .map(|m| to_json(&m.metrics()))
            .collect();
        json!({
            "lambda": to_json(&self.lambda.metrics()),
            "apis": apis,
            "eventSourceMappings": mappings,
        })
    }

    pub fn reset_metrics(&self) {
        self.lambda.reset_metrics();
        for gateway in self.gateways.lock().iter() {
            gateway.reset_metrics();
        }
        for mapping in self.mappings.lock().iter() {
            mapping.reset_metrics();
        }
    }

    /// Stops the pollers first (so nothing new is invoked), then the APIs,
    /// then every function process.
    pub async fn shutdown(&self) {
        let mappings: Vec<_> = self.mappings.lock().drain(..).collect();
        for mapping in mappings {
            mapping.shutdown().await;
        }
        let gateways: Vec<_> = self.gateways.lock().drain(..).collect();
        for gateway in gateways {
            gateway.shutdown().await;
        }
        self.lambda.shutdown().await;
    }
}

fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

pub(crate) fn resolve_context(config: &StackConfig, endpoint: SocketAddr) -> ResolveContext {
    ResolveContext {
        stack_name: config.stack_name.clone(),
        queue_url: format!("http://{endpoint}/{{account}}/{{name}}"),
        parameter_overrides: config.parameter_overrides.clone(),
        generate_no_echo: config.generate_no_echo,
        region: config.region.clone(),
        account_id: config.account_id.clone(),
        imports: config.imports.clone(),
        api_id: gateway_api_id,
        ..ResolveContext::default()
    }
}

/// The API Gateway's own id for a logical id, so that `Ref` in the template
/// and `requestContext.apiId` in events agree.
fn gateway_api_id(logical_id: &str) -> String {
    HttpApiConfig::new(logical_id, Vec::new()).api_id()
}

async fn bind_api_listeners(
    app: &Application,
    config: &StackConfig,
) -> Result<BTreeMap<String, tokio::net::TcpListener>, StackError> {
    let first_port = config.first_api_port;
    let mut listeners = BTreeMap::new();
    for (i, api) in app.http_apis.iter().enumerate() {
        let failed = |message: String| StackError::Start {
            what: format!("HTTP API {}", api.logical_id),
            message,
        };
        let port = match first_port {
            _ if config.api_ports.contains_key(&api.logical_id) => {
                config.api_ports[&api.logical_id]
            }
            Some(first) => first
                .checked_add(i as u16)
                .ok_or_else(|| failed("no port left above --api-port".into()))?,
            None => 0,
        };
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| failed(format!("cannot listen on 127.0.0.1:{port}: {e}")))?;
        listeners.insert(api.logical_id.clone(), listener);
    }
    Ok(listeners)
}

fn create_tables(
    app: &Application,
    dynamodb: &DynamoDb,
    ctx: &RequestContext,
) -> Result<(), StackError> {
    for table in &app.tables {
        let failed = |message: String| StackError::Resource {
            what: format!("table {} ({})", table.logical_id, table.name),
            message,
        };
        let body = serde_json::to_vec(&table.create_table).map_err(|e| failed(e.to_string()))?;
        dynamodb
            .ensure_table(ctx, &body)
            .map_err(|e| failed(e.to_string()))?;
        if let Some(attribute) = &table.ttl_attribute {
            // Idempotent, so a table restored from a state file keeps working.
            dynamodb
                .ensure_ttl(&table.name, attribute)
                .map_err(|e| failed(e.to_string()))?;
        }
    }
    Ok(())
}

fn create_queues(
    app: &Application,
    sqs: &SqsService,
    ctx: &ResolveContext,
) -> Result<(), StackError> {
    // The template reader lists dead-letter queues before their sources.
    for queue in &app.queues {
        sqs.create_queue_in(
            &ctx.region,
            &ctx.account_id,
            &queue.name,
            &queue.attributes,
            BTreeMap::new(),
        )
        .map_err(|e| StackError::Resource {
            what: format!("queue {} ({})", queue.logical_id, queue.name),
            message: e.to_string(),
        })?;
    }
    Ok(())
}

fn start_lambda(
    app: &Application,
    config: &StackConfig,
    endpoint: SocketAddr,
    ctx: &ResolveContext,
) -> Result<Arc<LambdaService>, StackError> {
    let mut functions = Vec::new();
    for function in &app.functions {
        let binary_name = function
            .build
            .as_ref()
            .and_then(|b| b.binary.clone())
            .unwrap_or_else(|| "bootstrap".to_string());
        // Absolute, since function processes run in a directory of their own.
        let binary = match config.binaries.get(&function.logical_id) {
            Some(path) => path.clone(),
            None => std::path::absolute(config.binaries_dir.join(&binary_name))
                .unwrap_or_else(|_| config.binaries_dir.join(&binary_name)),
        };
        if !binary.is_file() {
            return Err(StackError::MissingBinary {
                function: function.logical_id.clone(),
                path: binary,
                hint: if config.binaries_dir.ends_with("release") {
                    " --release".into()
                } else {
                    String::new()
                },
            });
        }
        functions.push(FunctionConfig {
            name: function.name.clone(),
            binary,
            handler: function
                .handler
                .clone()
                .unwrap_or_else(|| "bootstrap".into()),
            memory_mb: function.memory_size,
            timeout: Duration::from_secs(u64::from(function.timeout)),
            environment: function.environment.clone(),
            reserved_concurrency: function.reserved_concurrency,
            architecture: if function.architecture == "arm64" {
                Architecture::Arm64
            } else {
                Architecture::X86_64
            },
        });
    }
    let lambda_config = LambdaConfig {
        account_concurrency_limit: config.account_concurrency_limit,
        idle_timeout: config.idle_timeout,
        log_dir: Some(config.log_dir.clone()),
        endpoint_url: Some(format!("http://{endpoint}")),
        region: ctx.region.clone(),
        account_id: ctx.account_id.clone(),
        functions,
        ..LambdaConfig::default()
    };
    LambdaService::start(lambda_config).map_err(|e| StackError::Start {
        what: "the Lambda service".into(),
        message: e.to_string(),
    })
}

fn gateway_config(app: &Application, api: &localcloud_template::HttpApi) -> HttpApiConfig {
    let routes = api
        .routes
        .iter()
        .map(|route| {
            let function = app
                .function(&route.function)
                .map(|f| f.name.clone())
                .unwrap_or_else(|| route.function.clone());
            let method = if route.method.is_empty() {
                "ANY"
            } else {
                &route.method
            };
            let config = RouteConfig::new(method, &route.path, &function);
            match route.timeout_ms {
                Some(ms) => config.with_timeout(Duration::from_millis(u64::from(ms))),
                None => config,
            }
        })
        .collect();
    let mut config = HttpApiConfig::new(api.logical_id.clone(), routes);
    config.stage = api.stage_name.clone();
    config.stage_variables = api.stage_variables.clone();
    // Events must carry the id that `Ref` gave the template.
    config.api_id = Some(api.api_id.clone());
    config
}
