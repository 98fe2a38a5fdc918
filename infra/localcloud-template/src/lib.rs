//! Reads a SAM `template.yaml` into a resolved model the local cloud can
//! start: queues (dead-letter queues first), tables (`CreateTable` bodies),
//! functions (with policies and SQS event sources) and HTTP APIs (with
//! routes), S3 buckets, plus resolved parameters, outputs and exports.
//!
//! Everything the local cloud cannot run is an error, and everything it
//! safely ignores is a warning; each names the logical id, the property path
//! and the line. All problems are reported at once.
//!
//! Local conventions, where AWS would generate something:
//! - a resource without a name gets `{StackName}-{LogicalId}` (queues add
//!   `.fifo` when FIFO); AWS would append a random suffix;
//! - an HTTP API's id (`Ref`) is [`ResolveContext::api_id`] of its logical
//!   id (lower case by default), and `ApiEndpoint` comes from
//!   [`ResolveContext::api_urls`] or [`ResolveContext::api_url`];
//! - the implicit API of `HttpApi` events without `ApiId` is
//!   `ServerlessHttpApi`, as in SAM.
//!
//! ```
//! use localcloud_template::{load_str, ResolveContext, Target};
//!
//! let template = r#"
//! Transform: AWS::Serverless-2016-10-31
//! Resources:
//!   Jobs:
//!     Type: AWS::SQS::Queue
//!   Worker:
//!     Type: AWS::Serverless::Function
//!     Properties:
//!       Runtime: provided.al2023
//!       Policies:
//!         - SQSPollerPolicy: {QueueName: !GetAtt Jobs.QueueName}
//!       Events:
//!         Work:
//!           Type: SQS
//!           Properties: {Queue: !GetAtt Jobs.Arn, BatchSize: 5}
//! "#;
//! let app = load_str(template, &ResolveContext::default()).unwrap();
//! let worker = app.function("Worker").unwrap();
//! assert_eq!(worker.name, "local-Worker");
//! assert_eq!(worker.sqs_events[0].queue.as_deref(), Some("Jobs"));
//! assert!(worker
//!     .actions_on(&Target::Queue("local-Jobs".into()))
//!     .contains(&"sqs:ReceiveMessage"));
//! ```

mod api;
mod bucket;
mod capacity;
mod context;
mod decl;
mod diag;
mod emit;
mod events;
mod function;
mod globals;
mod lmi_variant;
mod model;
mod names;
mod outputs;
mod params;
mod policy;
mod props;
mod queue;
mod rest_api;
mod rest_variant;
mod scaling;
mod schedule;
mod scope;
mod summary;
mod table;
mod template;
mod variant;
mod versions;
mod yaml;

use std::path::Path;

pub use capacity::{DEFAULT_MEMORY_GIB_PER_VCPU, MEMORY_GIB_PER_VCPU};
pub use context::ResolveContext;
pub use diag::{Diagnostic, Severity, TemplateError};
pub use function::cargo_binary;
pub use lmi_variant::{lmi_variant, LMI_CAPACITY_PROVIDER, LMI_MIN_MEMORY_MB};
pub use model::{
    Application, Bucket, Build, CapacityProvider, CapacityProviderConfig, Function, FunctionAlias,
    FunctionScaling, FunctionUrl, FunctionVersion, HttpApi, Parameter, Queue, RestApi, Route,
    ScheduleEvent, SqsEvent, Table,
};
pub use policy::{Grant, Policy, PolicySource, Target};
pub use rest_variant::{rest_variant, RestVariantError, REST_STAGE};
pub use schedule::parse_rate;
pub use summary::{summary, DeclaredParameter, Summary};
pub use variant::VariantError;
pub use versions::FIRST_VERSION;

/// Reads a template from text.
pub fn load_str(text: &str, ctx: &ResolveContext) -> Result<Application, TemplateError> {
    template::load_str(text, ctx)
}

/// Reads a template file. For `rust-cargolambda` functions without
/// `BuildProperties.Binary`, the binary is derived from
/// `{template dir}/{CodeUri}/Cargo.toml` (see [`cargo_binary`]); when that
/// fails the binary stays `None` and a warning says why.
pub fn load(path: impl AsRef<Path>, ctx: &ResolveContext) -> Result<Application, TemplateError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| TemplateError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let mut app = load_str(&text, ctx)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    for f in &mut app.functions {
        if let Some(warning) = derive_binary(f, dir) {
            app.warnings.push(warning);
        }
    }
    Ok(app)
}

fn derive_binary(f: &mut Function, dir: &Path) -> Option<Diagnostic> {
    let build = f
        .build
        .as_mut()
        .filter(|b| b.method == "rust-cargolambda")?;
    if build.binary.is_some() {
        return None;
    }
    let manifest = dir
        .join(f.code_uri.as_deref().unwrap_or("."))
        .join("Cargo.toml");
    let derived = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))
        .and_then(|text| cargo_binary(&text));
    match derived {
        Ok(bin) => {
            build.binary = Some(bin);
            None
        }
        Err(message) => Some(Diagnostic {
            severity: Severity::Warning,
            logical_id: Some(f.logical_id.clone()),
            path: "Metadata.BuildProperties.Binary".into(),
            line: 0,
            message,
        }),
    }
}
