//! A SAM application brought up from its `template.yaml`: tables and queues
//! created in the emulated services, every function ready to run as its real
//! binary, each HTTP API, REST API and function URL on its own listener, and
//! the SQS event source mappings polling. The template is the single source
//! of truth.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use localcloud_apigw::GatewayHandle;
use localcloud_core::RequestContext;
use localcloud_dynamodb::DynamoDb;
use localcloud_esm::{EsmConfig, EsmHandle};
use localcloud_lambda::{
    next_version, AliasConfig, Architecture, CpuShare, FunctionConfig, InheritedVersion,
    LambdaConfig, LambdaService, ManagedInstances, Publication, ScalingBounds, Snapshot,
};
use localcloud_metrics::MetricsDocument;
use localcloud_sqs::SqsService;
use localcloud_template::{Application, ResolveContext};
use parking_lot::Mutex;
use serde_json::{json, Value};

use crate::schedules::Rule;
use crate::stack_error::StackError;

#[derive(Debug, Clone)]
pub struct StackConfig {
    pub template: PathBuf,
    /// `AWS::StackName`, and the prefix of generated resource names.
    pub stack_name: String,
    /// `--parameter-overrides`.
    pub parameter_overrides: BTreeMap<String, String>,
    /// Where cargo put the functions' binaries (`target/debug` or `target/release`).
    pub binaries_dir: PathBuf,
    /// Look first where `sam build` and `cargo lambda build` put binaries,
    /// beside the template (`.aws-sam/build/<LogicalId>/bootstrap`,
    /// `target/lambda/<binary>/bootstrap`); see [`crate::binaries`].
    pub build_outputs: bool,
    /// The first API listens here, the next on the following port (HTTP
    /// APIs, REST APIs, function URLs, each in template order); `None` picks
    /// free ports.
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
    /// How environments get CPU; [`crate::LocalCloud`] sets it from
    /// [`crate::LocalCloudConfig::cpu_share`] for every stack it runs.
    pub cpu_share: CpuShare,
    /// Memory sizes replacing the template's (`serve --memory-size`).
    pub memory_sizes: Vec<MemorySizeOverride>,
    /// The versions the stack's previous deployment published, by function
    /// name (an update keeps them and numbers on).
    pub inherited_versions: BTreeMap<String, Vec<InheritedVersion>>,
    /// The version numbers of the previous deployment's
    /// `AWS::Lambda::Version` resources, by logical id.
    pub version_resources: BTreeMap<String, String>,
    /// IAM: each function gets its execution role's credentials, and its
    /// calls are evaluated against the role's policies. `None`: `test`
    /// credentials, nothing enforced.
    pub iam: Option<Arc<localcloud_iam::Iam>>,
}

/// `--memory-size [FUNCTION=]MB`: one function's memory size (by logical id
/// or name), or every function's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemorySizeOverride {
    pub function: Option<String>,
    pub mb: u32,
}

impl std::str::FromStr for MemorySizeOverride {
    type Err = String;

    /// Lambda's range: "between 128 MB and 10,240 MB in 1-MB increments"
    /// (AWS Lambda Developer Guide, "Configure Lambda function memory").
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (function, mb) = match text.rsplit_once('=') {
            Some((function, mb)) if !function.is_empty() => (Some(function.to_string()), mb),
            Some(_) => return Err(format!("{text:?}: a function name before '='")),
            None => (None, text),
        };
        let mb: u32 = mb
            .trim()
            .parse()
            .map_err(|_| format!("{text:?}: the memory size must be a number of MB"))?;
        if !(128..=10_240).contains(&mb) {
            return Err(format!("{text:?}: Lambda's memory size is 128 to 10240 MB"));
        }
        Ok(Self { function, mb })
    }
}

impl MemorySizeOverride {
    /// The memory size `--memory-size` gives a function: the last override
    /// that names it, else the last one for every function, else `template`.
    pub fn resolve(overrides: &[Self], logical_id: &str, name: &str, template: u32) -> u32 {
        let named = |o: &&Self| {
            o.function
                .as_deref()
                .is_some_and(|f| f == logical_id || f == name)
        };
        overrides
            .iter()
            .rev()
            .find(named)
            .or_else(|| overrides.iter().rev().find(|o| o.function.is_none()))
            .map_or(template, |o| o.mb)
    }
}

impl StackConfig {
    pub fn new(template: impl Into<PathBuf>) -> Self {
        Self {
            template: template.into(),
            stack_name: "local".into(),
            parameter_overrides: BTreeMap::new(),
            binaries_dir: PathBuf::from("target/debug"),
            build_outputs: false,
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
            cpu_share: CpuShare::default(),
            memory_sizes: Vec::new(),
            inherited_versions: BTreeMap::new(),
            version_resources: BTreeMap::new(),
            iam: None,
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

/// A running application.
pub struct Stack {
    pub app: Application,
    pub lambda: Arc<LambdaService>,
    /// Every front door with its logical id.
    gateways: Mutex<Vec<(String, GatewayHandle)>>,
    mappings: Mutex<Vec<EsmHandle>>,
    /// One task per enabled `Schedule` rule.
    schedules: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    api_urls: BTreeMap<String, String>,
    /// Each function's execution role and its credentials, by logical id.
    roles: Roles,
}

/// Execution roles and their credentials, by function logical id.
type Roles = BTreeMap<String, (Arc<localcloud_iam::Role>, localcloud_iam::Credentials)>;

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
        let api_listeners =
            crate::gateways::bind_listeners(&draft, config.first_api_port, &config.api_ports)
                .await?;
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
        let (app, functions) = continue_versions(config, &mut ctx, app)?;

        let request_ctx = RequestContext::new(&ctx.region, &ctx.account_id);
        create_tables(&app, dynamodb, &request_ctx)?;
        create_queues(&app, sqs, &ctx)?;
        let roles = match &config.iam {
            Some(iam) => execution_roles(&app, iam, &ctx)?,
            None => BTreeMap::new(),
        };
        let credentials = app
            .functions
            .iter()
            .filter_map(|f| {
                let (_, c) = roles.get(&f.logical_id)?;
                Some((f.name.clone(), c.environment()))
            })
            .collect();
        let lambda = start_lambda(&app, functions, config, endpoint, &ctx, credentials)?;

        let invoker: Arc<dyn localcloud_core::Invoker> = lambda.clone();
        let gateways = crate::gateways::start_all(&app, &invoker, api_listeners)?;
        let api_urls = gateways
            .iter()
            .map(|(id, gateway)| (id.clone(), gateway.url.clone()))
            .collect();

        let consumer: Arc<dyn localcloud_core::QueueConsumer> = sqs.clone();
        let mut mappings = Vec::new();
        for function in &app.functions {
            for event in &function.sqs_events {
                let esm = EsmConfig {
                    function: function.invoke_target(),
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

        let rules = app
            .functions
            .iter()
            .flat_map(|f| f.schedule_events.iter().map(move |e| (f, e)))
            .map(|(f, e)| Rule::new(f, e, &ctx.stack_name, &ctx.region, &ctx.account_id))
            .collect();
        let schedules = crate::schedules::start(rules, invoker, &ctx.region, &ctx.account_id);

        Ok(Self {
            app,
            lambda,
            gateways: Mutex::new(gateways),
            mappings: Mutex::new(mappings),
            schedules: Mutex::new(schedules),
            api_urls,
            roles,
        })
    }

    /// A function's execution role and the credentials its environments
    /// have (by logical id), when the stack runs with IAM.
    pub fn role(
        &self,
        logical_id: &str,
    ) -> Option<&(Arc<localcloud_iam::Role>, localcloud_iam::Credentials)> {
        self.roles.get(logical_id)
    }

    /// Every function's execution role, by logical id.
    pub fn roles(&self) -> impl Iterator<Item = (&String, &Arc<localcloud_iam::Role>)> {
        self.roles.iter().map(|(id, (role, _))| (id, role))
    }

    /// Base URL (with stage) of each HTTP API and REST API, and of each
    /// function URL (`{Function}Url`, without its trailing `/`), by logical id.
    pub fn api_urls(&self) -> &BTreeMap<String, String> {
        &self.api_urls
    }

    /// The port of each API and function URL, by logical id.
    pub fn api_ports(&self) -> BTreeMap<String, u16> {
        self.gateways
            .lock()
            .iter()
            .map(|(id, g)| (id.clone(), g.addr.port()))
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

    /// The application's sections of the metrics document.
    pub fn fill_metrics(&self, doc: &mut MetricsDocument) {
        doc.apis = self
            .gateways
            .lock()
            .iter()
            .map(|(id, g)| (id.clone(), g.metrics()))
            .collect();
        doc.event_source_mappings = self.mappings.lock().iter().map(|m| m.metrics()).collect();
        doc.lambda = self.lambda.metrics();
    }

    /// The application's sections of the metrics document as JSON, for
    /// tests that look counters up by name.
    pub fn metrics(&self) -> Value {
        let mut doc = MetricsDocument::new();
        self.fill_metrics(&mut doc);
        json!({
            "lambda": doc.lambda,
            "apis": doc.apis,
            "event_source_mappings": doc.event_source_mappings,
        })
    }

    pub fn reset_metrics(&self) {
        self.lambda.reset_metrics();
        for (_, gateway) in self.gateways.lock().iter() {
            gateway.reset_metrics();
        }
        for mapping in self.mappings.lock().iter() {
            mapping.reset_metrics();
        }
    }

    /// Stops the schedules and pollers first (so nothing new is invoked),
    /// then the APIs, then every function process.
    pub async fn shutdown(&self) {
        for schedule in self.schedules.lock().drain(..) {
            schedule.abort();
        }
        let mappings: Vec<_> = self.mappings.lock().drain(..).collect();
        for mapping in mappings {
            mapping.shutdown().await;
        }
        let gateways: Vec<_> = self.gateways.lock().drain(..).collect();
        for (_, gateway) in gateways {
            gateway.shutdown().await;
        }
        self.lambda.shutdown().await;
    }
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
    localcloud_apigw::derive_api_id(logical_id)
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

/// The functions' configurations, their versions numbered on from the
/// stack's previous deployment (see [`plan_version`]). The template is read
/// again when a number is not the first, so that `Ref` and `Fn::GetAtt`
/// give it.
fn continue_versions(
    config: &StackConfig,
    ctx: &mut ResolveContext,
    app: Application,
) -> Result<(Application, Vec<FunctionConfig>), StackError> {
    let functions = function_configs(&app, config)?;
    let plans: BTreeMap<String, VersionPlan> = functions
        .iter()
        .filter(|f| f.publish.version && !f.publish.inherited.is_empty())
        .map(|f| (f.name.clone(), plan_version(&app, config, f)))
        .collect();
    let numbers: BTreeMap<String, u64> = plans
        .iter()
        .filter(|(_, plan)| plan.number != 1)
        .map(|(name, plan)| (name.clone(), plan.number))
        .collect();
    let (app, mut functions) = if numbers.is_empty() {
        (app, functions)
    } else {
        ctx.function_versions = numbers;
        let app = config.read(ctx)?;
        let functions = function_configs(&app, config)?;
        (app, functions)
    };
    for f in &mut functions {
        if plans.get(&f.name).is_some_and(|plan| plan.kept) {
            f.publish.version = false;
        }
    }
    Ok((app, functions))
}

/// A function's version on an update.
struct VersionPlan {
    number: u64,
    /// The previous deployment's version stays, unpublished again.
    kept: bool,
}

/// CloudFormation keeps an `AWS::Lambda::Version` whose resource stays in
/// the template (its properties cannot be updated: "Update requires:
/// Replacement"), so the version keeps its number and snapshot; a new
/// logical id (SAM's changes with the function's `CodeUri`) creates a
/// version, which publishes as `PublishVersion` does: the next number for
/// a changed function, the last one otherwise.
fn plan_version(app: &Application, config: &StackConfig, f: &FunctionConfig) -> VersionPlan {
    let kept = app
        .versions
        .iter()
        .filter(|v| v.function == f.name)
        .find_map(|v| config.version_resources.get(&v.logical_id)?.parse().ok());
    match kept {
        Some(number) => VersionPlan { number, kept: true },
        None => VersionPlan {
            number: next_version(&f.publish.inherited, &Snapshot::read(f)),
            kept: false,
        },
    }
}

fn function_configs(
    app: &Application,
    config: &StackConfig,
) -> Result<Vec<FunctionConfig>, StackError> {
    for named in &config.memory_sizes {
        if let Some(wanted) = &named.function {
            if !app
                .functions
                .iter()
                .any(|f| &f.logical_id == wanted || &f.name == wanted)
            {
                return Err(StackError::UnknownMemorySizeFunction {
                    function: wanted.clone(),
                    mb: named.mb,
                });
            }
        }
    }
    let mut functions = Vec::new();
    for function in &app.functions {
        let binary_name = function
            .build
            .as_ref()
            .and_then(|b| b.binary.clone())
            .unwrap_or_else(|| "bootstrap".to_string());
        let binary = match config.binaries.get(&function.logical_id) {
            // Code a deployment unpacked from S3.
            Some(path) if path.is_file() => path.clone(),
            Some(path) => {
                return Err(StackError::MissingBinary {
                    function: function.logical_id.clone(),
                    tried: path.display().to_string(),
                    hint: String::new(),
                })
            }
            None => {
                let search = crate::binaries::Search {
                    logical_id: &function.logical_id,
                    binary: &binary_name,
                    template_dir: config
                        .template
                        .parent()
                        .unwrap_or(std::path::Path::new(".")),
                    binaries_dir: &config.binaries_dir,
                    build_outputs: config.build_outputs,
                };
                let located = crate::binaries::locate(&search).map_err(|tried| {
                    StackError::MissingBinary {
                        function: function.logical_id.clone(),
                        tried: tried.join(", "),
                        hint: if config.binaries_dir.ends_with("release") {
                            " --release".into()
                        } else {
                            String::new()
                        },
                    }
                })?;
                tracing::info!(
                    "function {}: {} (from {})",
                    function.logical_id,
                    located.path.display(),
                    located.origin
                );
                located.path
            }
        };
        functions.push(FunctionConfig {
            name: function.name.clone(),
            binary,
            handler: function
                .handler
                .clone()
                .unwrap_or_else(|| "bootstrap".into()),
            memory_mb: MemorySizeOverride::resolve(
                &config.memory_sizes,
                &function.logical_id,
                &function.name,
                function.memory_size,
            ),
            timeout: Duration::from_secs(u64::from(function.timeout)),
            environment: function.environment.clone(),
            reserved_concurrency: function.reserved_concurrency,
            architecture: if function.architecture == "arm64" {
                Architecture::Arm64
            } else {
                Architecture::X86_64
            },
            managed: function
                .capacity_provider
                .as_ref()
                .map(|c| ManagedInstances {
                    provider: c.arn.rsplit(':').next().unwrap_or_default().to_string(),
                    memory_gib_per_vcpu: c.memory_gib_per_vcpu,
                    max_concurrency: c.per_environment_max_concurrency,
                    scaling: scaling_bounds(&c.scaling),
                }),
            publish: publication(app, &function.name, &config.inherited_versions),
        });
    }
    Ok(functions)
}

/// Each function's execution role, registered with IAM, and the
/// credentials its environments get. The Lambda service polls a function's
/// SQS event sources with its role: a role that may not receive from the
/// queue fails the stack, as `CreateEventSourceMapping` does on AWS.
fn execution_roles(
    app: &Application,
    iam: &localcloud_iam::Iam,
    ctx: &ResolveContext,
) -> Result<Roles, StackError> {
    let scope = localcloud_iam::sam::Scope {
        region: &ctx.region,
        account: &ctx.account_id,
    };
    let mut roles = BTreeMap::new();
    for function in &app.functions {
        let role = crate::roles::execution_role(function, &ctx.stack_name, &scope)?;
        let credentials = iam.function_credentials(role.clone(), &function.name);
        let role = iam
            .sessions
            .role(&role.arn())
            .expect("the role was just registered");
        for event in &function.sqs_events {
            for action in ["ReceiveMessage", "DeleteMessage", "GetQueueAttributes"] {
                let request =
                    localcloud_iam::Request::new(format!("sqs:{action}"), event.queue_arn.clone());
                let allowed = iam.authorize(&role, &function.name, &request).allowed();
                if !allowed && iam.mode == localcloud_iam::Mode::Enforce {
                    return Err(StackError::Start {
                        what: format!("event source mapping {}.{}", function.logical_id, event.name),
                        message: format!("InvalidParameterValueException: The provided execution role does not have permissions to call {action} on SQS"),
                    });
                }
            }
        }
        roles.insert(function.logical_id.clone(), (role, credentials));
    }
    Ok(roles)
}

fn start_lambda(
    app: &Application,
    functions: Vec<FunctionConfig>,
    config: &StackConfig,
    endpoint: SocketAddr,
    ctx: &ResolveContext,
    credentials: BTreeMap<String, BTreeMap<String, String>>,
) -> Result<Arc<LambdaService>, StackError> {
    let lambda_config = LambdaConfig {
        credentials,
        account_concurrency_limit: config.account_concurrency_limit,
        idle_timeout: config.idle_timeout,
        log_dir: Some(config.log_dir.clone()),
        endpoint_url: Some(format!("http://{endpoint}")),
        region: ctx.region.clone(),
        account_id: ctx.account_id.clone(),
        cpu_share: config.cpu_share,
        functions,
        capacity_providers: app
            .capacity_providers
            .iter()
            .map(capacity_provider)
            .collect::<Result<_, _>>()?,
        ..LambdaConfig::default()
    };
    LambdaService::start(lambda_config).map_err(|e| StackError::Start {
        what: "the Lambda service".into(),
        message: e.to_string(),
    })
}

/// `FunctionScalingConfig` as the Lambda service takes it: an unset
/// minimum is Lambda's default, an unset maximum none.
fn scaling_bounds(scaling: &localcloud_template::FunctionScaling) -> ScalingBounds {
    ScalingBounds {
        min: scaling
            .min_execution_environments
            .unwrap_or(ScalingBounds::default().min),
        max: scaling.max_execution_environments,
    }
}

/// The versions and aliases the template creates for the function `name`,
/// after those of the stack's previous deployment (SAM keeps the versions it
/// published; a function that publishes none any more has none).
fn publication(
    app: &Application,
    name: &str,
    inherited: &BTreeMap<String, Vec<InheritedVersion>>,
) -> Publication {
    let version = app.versions.iter().any(|v| v.function == name);
    Publication {
        version,
        inherited: match version {
            true => inherited.get(name).cloned().unwrap_or_default(),
            false => Vec::new(),
        },
        aliases: app
            .aliases
            .iter()
            .filter(|a| a.function == name)
            .map(|a| AliasConfig {
                name: a.name.clone(),
                function_version: a.function_version.clone(),
                description: a.description.clone(),
            })
            .collect(),
    }
}

/// A capacity provider's fleet, on the type its `InstanceRequirements`
/// allow (the first allowed type the local cloud knows, else its default
/// for the architecture unless excluded, else the first known type not
/// excluded).
fn capacity_provider(
    provider: &localcloud_template::CapacityProvider,
) -> Result<localcloud_lambda::CapacityProvider, StackError> {
    use localcloud_metrics::instances;
    let instance_type = instances::choose_instance_type(
        &provider.architecture,
        &provider.allowed_instance_types,
        &provider.excluded_instance_types,
    )
    .map_err(|message| StackError::Resource {
        what: format!("capacity provider {}", provider.logical_id),
        message,
    })?
    .to_string();
    Ok(localcloud_lambda::CapacityProvider {
        name: provider.name.clone(),
        instance_type,
        max_vcpu_count: provider.max_vcpu_count,
        target_cpu_utilisation: provider
            .target_cpu_utilization
            .map(|percent| percent / 100.0),
    })
}

#[cfg(test)]
mod memory_size_tests {
    use super::MemorySizeOverride;

    fn parsed(texts: &[&str]) -> Vec<MemorySizeOverride> {
        texts.iter().map(|t| t.parse().unwrap()).collect()
    }

    #[test]
    fn a_named_override_beats_the_one_for_every_function_and_the_last_wins() {
        let overrides = parsed(&[
            "512",
            "ConduitMonolithFunction=1024",
            "256",
            "bench-fn=2048",
        ]);
        let resolve = |id, name| MemorySizeOverride::resolve(&overrides, id, name, 128);
        assert_eq!(resolve("ConduitMonolithFunction", "x"), 1024);
        assert_eq!(resolve("Other", "bench-fn"), 2048);
        assert_eq!(resolve("Other", "other"), 256);
        assert_eq!(MemorySizeOverride::resolve(&[], "A", "a", 128), 128);
    }

    #[test]
    fn sizes_outside_lambda_s_range_and_bad_forms_are_refused_by_name() {
        for bad in ["64", "10241", "F=abc", "=512", "lots"] {
            let error = bad.parse::<MemorySizeOverride>().unwrap_err();
            assert!(error.contains(&format!("{bad:?}")), "{error}");
        }
        assert_eq!(
            "F=10240".parse::<MemorySizeOverride>(),
            Ok(MemorySizeOverride {
                function: Some("F".into()),
                mb: 10_240
            })
        );
    }
}

#[cfg(test)]
mod version_plan_tests {
    use super::*;

    const TEMPLATE: &str = r#"
Transform: AWS::Serverless-2016-10-31
Resources:
  Echo:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      CodeUri: s3://artifacts/echo.zip
      AutoPublishAlias: live
"#;

    /// The function as the stack configures it, after version 1 of
    /// `memory_mb` MB.
    fn echo(memory_mb: u32, previous_mb: u32) -> FunctionConfig {
        let at = |mb| FunctionConfig {
            memory_mb: mb,
            ..FunctionConfig::new("local-Echo", "/nonexistent/bootstrap")
        };
        let mut config = at(memory_mb);
        config.publish.version = true;
        config.publish.inherited = vec![InheritedVersion {
            number: 1,
            snapshot: Snapshot::read(&at(previous_mb)),
            description: String::new(),
        }];
        config
    }

    fn plan(version_resources: &[(String, &str)], function: &FunctionConfig) -> (u64, bool) {
        let app = localcloud_template::load_str(TEMPLATE, &ResolveContext::default()).unwrap();
        let config = StackConfig {
            version_resources: version_resources
                .iter()
                .map(|(id, n)| (id.clone(), n.to_string()))
                .collect(),
            ..StackConfig::new("template.yaml")
        };
        let plan = plan_version(&app, &config, function);
        (plan.number, plan.kept)
    }

    #[test]
    fn a_version_resource_that_stays_keeps_its_number_even_for_a_changed_function() {
        let app = localcloud_template::load_str(TEMPLATE, &ResolveContext::default()).unwrap();
        let id = app.versions[0].logical_id.clone();
        assert_eq!(plan(&[(id, "1")], &echo(256, 128)), (1, true));
    }

    #[test]
    fn a_new_version_resource_publishes_the_next_number_only_for_a_changed_function() {
        let old = [("EchoVersion0000000000".to_string(), "1")];
        assert_eq!(plan(&old, &echo(256, 128)), (2, false));
        assert_eq!(plan(&old, &echo(128, 128)), (1, false));
    }
}
