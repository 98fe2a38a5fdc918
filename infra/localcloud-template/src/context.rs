//! What the caller knows and the template does not: where and as whom it runs.

use std::collections::BTreeMap;

/// The number of the version a new stack publishes.
pub const FIRST_VERSION: &str = "1";

/// Values for pseudo parameters, parameter overrides and the local URL shapes.
#[derive(Debug, Clone)]
pub struct ResolveContext {
    pub region: String,
    pub account_id: String,
    /// `AWS::StackName`; also the prefix of generated resource names.
    pub stack_name: String,
    pub partition: String,
    pub url_suffix: String,
    /// Queue URL shape; `{region}`, `{account}` and `{name}` are replaced.
    pub queue_url: String,
    /// HTTP API endpoint shape (`ApiEndpoint`, no stage); `{region}`,
    /// `{account}` and `{api_id}` are replaced.
    pub api_url: String,
    /// Endpoints by API logical id, overriding `api_url` (for example when
    /// each API has its own listener).
    pub api_urls: BTreeMap<String, String>,
    /// The id (`Ref`) of an HTTP API, from its logical id. Set it to the API
    /// gateway's own id function so that events and URLs agree.
    pub api_id: fn(&str) -> String,
    /// `--parameter-overrides`: parameter name -> value.
    pub parameter_overrides: BTreeMap<String, String>,
    /// Give `NoEcho` parameters that have neither a default nor an override a
    /// random value (development secrets) instead of failing.
    pub generate_no_echo: bool,
    /// Exports of other stacks, for `Fn::ImportValue`: export name -> value.
    pub imports: BTreeMap<String, String>,
    /// The number of the version a stack publishes of a function, by
    /// function name, where it is not [`FIRST_VERSION`] (an update
    /// continues the numbers of the stack's previous deployment).
    pub function_versions: BTreeMap<String, u64>,
}

impl Default for ResolveContext {
    fn default() -> Self {
        Self {
            region: "us-east-1".into(),
            account_id: "000000000000".into(),
            stack_name: "local".into(),
            partition: "aws".into(),
            url_suffix: "amazonaws.com".into(),
            queue_url: "http://127.0.0.1:4566/{account}/{name}".into(),
            api_url: "http://127.0.0.1:4566/_api/{api_id}".into(),
            api_urls: BTreeMap::new(),
            api_id: lower_case,
            parameter_overrides: BTreeMap::new(),
            generate_no_echo: false,
            imports: BTreeMap::new(),
            function_versions: BTreeMap::new(),
        }
    }
}

impl ResolveContext {
    /// The version number a stack publishes of the function `name`.
    pub fn version_of(&self, name: &str) -> String {
        self.function_versions
            .get(name)
            .map_or_else(|| FIRST_VERSION.to_string(), u64::to_string)
    }

    pub fn queue_url(&self, name: &str) -> String {
        self.queue_url
            .replace("{region}", &self.region)
            .replace("{account}", &self.account_id)
            .replace("{name}", name)
    }

    /// The endpoint of the API with this logical id and id.
    pub fn api_url(&self, logical_id: &str, api_id: &str) -> String {
        if let Some(url) = self.api_urls.get(logical_id) {
            return url.clone();
        }
        self.api_url
            .replace("{region}", &self.region)
            .replace("{account}", &self.account_id)
            .replace("{api_id}", api_id)
    }

    /// `arn:{partition}:{service}:{region}:{account}:{resource}`
    pub fn arn(&self, service: &str, resource: &str) -> String {
        format!(
            "arn:{}:{service}:{}:{}:{resource}",
            self.partition, self.region, self.account_id
        )
    }

    /// The endpoint AWS would give an HTTP API, as templates often spell it
    /// out with `!Sub`; see [`crate::Application::outputs`].
    pub fn aws_api_url(&self, api_id: &str) -> String {
        format!(
            "https://{api_id}.execute-api.{}.{}",
            self.region, self.url_suffix
        )
    }
}

fn lower_case(logical_id: &str) -> String {
    logical_id.to_ascii_lowercase()
}
