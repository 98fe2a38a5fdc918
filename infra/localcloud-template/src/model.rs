//! The resolved application: what the local cloud creates, in creation order.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::diag::Diagnostic;
use crate::policy::Policy;

#[derive(Debug, Clone, PartialEq)]
pub struct Application {
    pub parameters: Vec<Parameter>,
    /// In dependency order: a dead-letter queue comes before its source queues.
    pub queues: Vec<Queue>,
    pub tables: Vec<Table>,
    pub functions: Vec<Function>,
    pub http_apis: Vec<HttpApi>,
    /// `AWS::Serverless::Api` (and the implicit `ServerlessRestApi`).
    pub rest_apis: Vec<RestApi>,
    pub buckets: Vec<Bucket>,
    /// `AWS::Serverless::CapacityProvider` and `AWS::Lambda::CapacityProvider`.
    pub capacity_providers: Vec<CapacityProvider>,
    /// `AWS::Lambda::Version`, and those SAM generates for `AutoPublishAlias`.
    pub versions: Vec<FunctionVersion>,
    /// `AWS::Lambda::Alias`, and those SAM generates for `AutoPublishAlias`.
    pub aliases: Vec<FunctionAlias>,
    /// Output name -> value. An output value that spells out an API's AWS
    /// endpoint (`https://{id}.execute-api.{region}.{suffix}`) is rewritten to
    /// the local endpoint, so a driver can read URLs from outputs.
    pub outputs: BTreeMap<String, String>,
    /// Output name -> export name (`Export.Name`), for outputs that export.
    pub exports: BTreeMap<String, String>,
    /// What was ignored because the local cloud does not need it.
    pub warnings: Vec<Diagnostic>,
}

impl Application {
    pub fn function(&self, logical_id: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.logical_id == logical_id)
    }

    pub fn queue(&self, logical_id: &str) -> Option<&Queue> {
        self.queues.iter().find(|q| q.logical_id == logical_id)
    }

    pub fn table(&self, logical_id: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.logical_id == logical_id)
    }

    pub fn http_api(&self, logical_id: &str) -> Option<&HttpApi> {
        self.http_apis.iter().find(|a| a.logical_id == logical_id)
    }

    pub fn rest_api(&self, logical_id: &str) -> Option<&RestApi> {
        self.rest_apis.iter().find(|a| a.logical_id == logical_id)
    }

    /// Names of the parameters that were given random values.
    pub fn generated_parameters(&self) -> Vec<&str> {
        self.parameters
            .iter()
            .filter(|p| p.generated)
            .map(|p| p.name.as_str())
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    /// A string, or a list of strings for `CommaDelimitedList` / `List<Number>`.
    pub value: Value,
    pub no_echo: bool,
    /// True when the value is random (a `NoEcho` parameter with no value).
    pub generated: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Queue {
    pub logical_id: String,
    pub name: String,
    pub url: String,
    pub arn: String,
    /// Attributes of an SQS `CreateQueue` call (all strings; `RedrivePolicy`
    /// as a JSON document string).
    pub attributes: BTreeMap<String, String>,
}

/// `AWS::S3::Bucket`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bucket {
    pub logical_id: String,
    /// `BucketName`, or `{stackname}-{logicalid}` in lower case.
    pub name: String,
    pub arn: String,
    /// `VersioningConfiguration.Status` (`Enabled` or `Suspended`).
    pub versioning: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub logical_id: String,
    pub name: String,
    pub arn: String,
    /// The JSON body of a DynamoDB `CreateTable` request.
    pub create_table: Value,
    /// `TimeToLiveSpecification.AttributeName` when TTL is enabled.
    pub ttl_attribute: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub logical_id: String,
    /// `FunctionName`, or `{StackName}-{LogicalId}` when absent (AWS would add
    /// a random suffix; locally the name is stable across restarts).
    pub name: String,
    pub arn: String,
    pub code_uri: Option<String>,
    pub handler: Option<String>,
    pub runtime: String,
    pub architecture: String,
    pub memory_size: u32,
    pub timeout: u32,
    pub environment: BTreeMap<String, String>,
    pub reserved_concurrency: Option<u32>,
    pub policies: Vec<Policy>,
    pub sqs_events: Vec<SqsEvent>,
    /// `Schedule` events: EventBridge rules that invoke the function.
    pub schedule_events: Vec<ScheduleEvent>,
    pub build: Option<Build>,
    /// `FunctionUrlConfig`.
    pub url: Option<FunctionUrl>,
    /// `CapacityProviderConfig`: the function runs on Lambda Managed
    /// Instances; `None` for the default (on-demand) compute type.
    pub capacity_provider: Option<CapacityProviderConfig>,
    /// `AutoPublishAlias`: SAM publishes a version, points this alias at it
    /// and sends the function's events to the alias.
    pub auto_publish_alias: Option<String>,
}

/// A published version of a function of the template.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionVersion {
    /// The `AWS::Lambda::Version`'s, or SAM's `{Function}Version{hash}`.
    pub logical_id: String,
    /// The function's name.
    pub function: String,
    /// Always [`crate::FIRST_VERSION`]: a stack publishes each function once.
    pub version: String,
    /// `Ref`: the version's ARN, `arn:...:function:{name}:{version}`.
    pub arn: String,
    pub description: String,
}

/// An alias of a function of the template.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionAlias {
    /// The `AWS::Lambda::Alias`'s, or SAM's `{Function}Alias{Name}`.
    pub logical_id: String,
    /// The function's name.
    pub function: String,
    pub name: String,
    /// `$LATEST` or a version number.
    pub function_version: String,
    /// `Ref`: the alias's ARN, `arn:...:function:{name}:{alias}`.
    pub arn: String,
    pub description: String,
}

/// A capacity provider: the EC2 fleet Lambda Managed Instances run on.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityProvider {
    pub logical_id: String,
    /// `CapacityProviderName`, or `{StackName}-{LogicalId}`.
    pub name: String,
    /// `arn:{partition}:lambda:{region}:{account}:capacity-provider:{name}`.
    pub arn: String,
    /// `MaxVCpuCount` (SAM `ScalingConfig`, CloudFormation
    /// `CapacityProviderScalingConfig`): the fleet's vCPUs at most.
    pub max_vcpu_count: Option<u32>,
    /// The CPU utilisation (percent) its fleet scales to: SAM
    /// `ScalingConfig.AverageCPUUtilization`, CloudFormation's
    /// `LambdaCapacityProviderAverageCPUUtilization` scaling policy;
    /// `None`: Lambda's own (`ScalingMode: Auto`).
    pub target_cpu_utilization: Option<f64>,
    /// `InstanceRequirements.Architectures`: `x86_64` (the default) or `arm64`.
    pub architecture: String,
    /// `InstanceRequirements` `AllowedTypes` (SAM) or `AllowedInstanceTypes`
    /// (CloudFormation); empty when any type may be used.
    pub allowed_instance_types: Vec<String>,
    /// `InstanceRequirements` `ExcludedTypes` (SAM) or
    /// `ExcludedInstanceTypes` (CloudFormation): types not to use, "even if
    /// they meet other requirements"; never given with allowed ones.
    pub excluded_instance_types: Vec<String>,
}

/// A function's `CapacityProviderConfig`, validated as Lambda validates it.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityProviderConfig {
    /// The provider's ARN (SAM `Arn`).
    pub arn: String,
    /// Logical id of the provider when this template declares it.
    pub provider: Option<String>,
    /// `ExecutionEnvironmentMemoryGiBPerVCpu`: 2, 4 or 8.
    pub memory_gib_per_vcpu: u32,
    /// `PerExecutionEnvironmentMaxConcurrency` (1 to 1,600) when given; the
    /// runtime's default applies otherwise.
    pub per_environment_max_concurrency: Option<u32>,
    /// The function's `FunctionScalingConfig`.
    pub scaling: FunctionScaling,
}

/// `FunctionScalingConfig`: the execution environments a function on
/// Lambda Managed Instances keeps at least and may have at most; unset,
/// Lambda's defaults (3, no maximum).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FunctionScaling {
    pub min_execution_environments: Option<u32>,
    pub max_execution_environments: Option<u32>,
}

/// A function URL (`FunctionUrlConfig`), SAM's `{Function}Url` resource.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionUrl {
    /// `{Function}Url`: the key of its endpoint in
    /// [`crate::ResolveContext::api_urls`].
    pub logical_id: String,
    /// `NONE` or `AWS_IAM`.
    pub auth_type: String,
    /// `Cors`, resolved but otherwise as written.
    pub cors: Option<Value>,
    /// `FunctionUrl`: the local URL, with a trailing `/` as AWS gives it.
    pub url: String,
}

impl Function {
    /// What the function's events invoke: the alias of `AutoPublishAlias`
    /// (`{name}:{alias}`), else the function.
    pub fn invoke_target(&self) -> String {
        match &self.auto_publish_alias {
            Some(alias) => format!("{}:{alias}", self.name),
            None => self.name.clone(),
        }
    }

    /// The actions of every grant of every policy that targets `target`,
    /// those of its service only (a grant on `*` names other services'
    /// actions too, `logs:*` of `AWSLambdaBasicExecutionRole`).
    pub fn actions_on(&self, target: &crate::policy::Target) -> Vec<&str> {
        self.policies
            .iter()
            .flat_map(|p| &p.grants)
            .filter(|g| g.covers(target))
            .flat_map(|g| g.actions.iter().map(String::as_str))
            .filter(|action| target.may_be_acted_on_by(action))
            .collect()
    }
}

/// How `sam build` builds the function (`Metadata`).
#[derive(Debug, Clone, PartialEq)]
pub struct Build {
    /// `BuildMethod`, e.g. `rust-cargolambda`.
    pub method: String,
    /// The cargo binary: `BuildProperties.Binary`. When absent, cargo-lambda
    /// builds every binary of the package at `CodeUri` and SAM takes the only
    /// one built (it fails if there are several); see [`crate::cargo_binary`].
    pub binary: Option<String>,
}

/// An SQS event source mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct SqsEvent {
    /// The event's name under `Events`.
    pub name: String,
    pub queue_arn: String,
    /// Logical id of the queue when it is defined in the template.
    pub queue: Option<String>,
    pub batch_size: u32,
    pub maximum_batching_window_seconds: u32,
    pub maximum_concurrency: Option<u32>,
    pub report_batch_item_failures: bool,
    pub enabled: bool,
}

/// A `Schedule` event: an EventBridge rule invoking the function
/// asynchronously at a fixed rate.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleEvent {
    /// The event's name under `Events`.
    pub name: String,
    /// `Name`, the rule's name when given.
    pub rule_name: Option<String>,
    /// `Schedule` as written, e.g. `rate(15 minutes)`.
    pub expression: String,
    /// The period of the rate expression.
    pub rate: std::time::Duration,
    /// `Enabled` and `State` together.
    pub enabled: bool,
    /// `Input`: JSON text sent instead of the scheduled event.
    pub input: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HttpApi {
    pub logical_id: String,
    /// What `Ref` returns: [`crate::ResolveContext::api_id`] of the logical id.
    pub api_id: String,
    /// True for the `ServerlessHttpApi` SAM creates for events without `ApiId`.
    pub implicit: bool,
    /// `$default` unless `StageName` says otherwise.
    pub stage_name: String,
    /// `ApiEndpoint`: the local base URL, without the stage.
    pub url: String,
    /// `CorsConfiguration`, resolved but otherwise as written.
    pub cors: Option<Value>,
    /// `StageVariables`, passed to functions in the event.
    pub stage_variables: BTreeMap<String, String>,
    pub routes: Vec<Route>,
}

impl HttpApi {
    /// The URL requests go to: the endpoint, plus `/{stage}` unless the stage
    /// is `$default`.
    pub fn stage_url(&self) -> String {
        if self.stage_name == "$default" {
            self.url.clone()
        } else {
            format!("{}/{}", self.url, self.stage_name)
        }
    }
}

/// An `AWS::Serverless::Api`: a REST API with Lambda proxy integrations.
#[derive(Debug, Clone, PartialEq)]
pub struct RestApi {
    pub logical_id: String,
    /// What `Ref` returns.
    pub api_id: String,
    /// True for the `ServerlessRestApi` SAM creates for `Api` events without
    /// `RestApiId`.
    pub implicit: bool,
    /// `StageName`; `Prod` for the implicit API.
    pub stage_name: String,
    /// The local base URL, without the stage.
    pub url: String,
    /// `BinaryMediaTypes`, with SAM's `~1` turned back into `/`.
    pub binary_media_types: Vec<String>,
    /// `Cors`: a string (the allowed origin) or a map, resolved as written.
    pub cors: Option<Value>,
    /// `Variables`: the stage variables.
    pub stage_variables: BTreeMap<String, String>,
    /// `MethodSettings` throttling for `/*/*`: (rate per second, burst).
    pub throttle: Option<(f64, u32)>,
    /// Methods on resources; `payload_format_version` is `1.0`.
    pub routes: Vec<Route>,
}

impl RestApi {
    /// The URL requests go to: the endpoint and `/{stage}`.
    pub fn stage_url(&self) -> String {
        format!("{}/{}", self.url, self.stage_name)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// Upper case; `ANY` matches every method (and is the method of the
    /// `$default` route).
    pub method: String,
    /// `/articles/{slug}`, `/{proxy+}`, or `$default`.
    pub path: String,
    /// Logical id of the function.
    pub function: String,
    /// Name of the event under the function's `Events`.
    pub event: String,
    pub payload_format_version: String,
    pub timeout_ms: Option<u32>,
}

impl Route {
    /// `GET /articles/{slug}`, or `$default`.
    pub fn route_key(&self) -> String {
        if self.path == "$default" {
            self.path.clone()
        } else {
            format!("{} {}", self.method, self.path)
        }
    }
}
