//! What the engine asks of a [`Backend`], which creates a stack's resources
//! (in `localcloud`), and what they say to each other: a [`Deployment`] in,
//! what it [`Deployed`] or its [`Failure`] out.

use std::collections::BTreeMap;

use async_trait::async_trait;

/// One deployment of a template: what a [`Backend`] brings up.
#[derive(Debug, Clone, PartialEq)]
pub struct Deployment {
    pub stack_name: String,
    pub stack_id: String,
    pub region: String,
    pub account_id: String,
    pub template: String,
    /// A value for every declared parameter.
    pub parameters: BTreeMap<String, String>,
    /// Every export of the other stacks: name -> value (`Fn::ImportValue`).
    pub imports: BTreeMap<String, String>,
}

/// A resource of a stack as CloudFormation lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub logical_id: String,
    pub resource_type: String,
    pub physical_id: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub key: String,
    pub value: String,
    /// `Export.Name`, when the output exports.
    pub export: Option<String>,
}

/// What a template brings up, or would.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Deployed {
    pub resources: Vec<Resource>,
    pub outputs: Vec<Output>,
}

/// Why a template cannot be deployed; `logical_id` names the resource
/// that failed, when one did.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub logical_id: Option<String>,
    pub resource_type: Option<String>,
    pub reason: String,
}

impl Failure {
    pub fn stack(reason: impl Into<String>) -> Self {
        Self {
            logical_id: None,
            resource_type: None,
            reason: reason.into(),
        }
    }
}

/// What creates a stack's resources.
#[async_trait]
pub trait Backend: Send + Sync + 'static {
    /// What `deployment` would create, checked without creating anything;
    /// an error fails the change set.
    fn plan(&self, deployment: &Deployment) -> Result<Deployed, Failure>;

    /// Brings the stack to `deployment`: creates it, or updates what runs
    /// under this stack name. On an error nothing of this deployment may be
    /// left running; the engine then rolls back (deletes the stack, or
    /// deploys the previous deployment again).
    async fn deploy(&self, deployment: &Deployment) -> Result<Deployed, Failure>;

    /// Deletes everything of the stack.
    async fn delete(&self, stack_name: &str) -> Result<(), Failure>;

    /// The text of a template at `TemplateURL` (in the local S3).
    fn fetch_template(&self, url: &str) -> Result<String, String>;
}
