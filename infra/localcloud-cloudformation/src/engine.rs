//! The engine: stack and change set records, parameter resolution, and the
//! status machine of executions, rollbacks and deletions.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use localcloud_template::Summary;
use parking_lot::Mutex;

use crate::model::{Change, ChangeSet, ChangeSetStatus, ExecutionStatus, StackRecord, StackStatus};
use crate::query::{Params, QueryError};
use crate::{Backend, Deployed, Deployment, Failure};

/// How long `ExecuteChangeSet` and `DeleteStack` wait for their task before
/// answering (AWS answers at once; clients poll either way).
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// Reason of a change set that changes nothing, as AWS words it.
pub(crate) const NO_CHANGES: &str =
    "The submitted information didn't contain changes. Submit different information to create a change set.";

#[derive(Clone)]
pub struct CloudFormation {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    backend: Arc<dyn Backend>,
    /// Every stack ever made, deleted ones included (they stay visible by id).
    pub stacks: Mutex<Vec<StackRecord>>,
    /// One backend operation at a time.
    running: tokio::sync::Mutex<()>,
}

/// Where a call comes from.
#[derive(Debug, Clone)]
pub struct Caller {
    pub region: String,
    pub account_id: String,
}

impl CloudFormation {
    pub fn new(backend: Arc<dyn Backend>) -> Self {
        Self {
            inner: Arc::new(Inner {
                backend,
                stacks: Mutex::new(Vec::new()),
                running: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// A copy of a stack's record, by name (live stacks) or id (any).
    pub(crate) fn stack(&self, name_or_id: &str) -> Result<StackRecord, QueryError> {
        let stacks = self.inner.stacks.lock();
        find(&stacks, name_or_id)
            .map(|i| stacks[i].clone())
            .ok_or_else(|| no_stack(name_or_id))
    }

    pub(crate) fn stacks(&self) -> Vec<StackRecord> {
        self.inner.stacks.lock().clone()
    }

    /// Exports of every live stack: name -> (exporting stack id, value).
    pub(crate) fn exports(&self) -> BTreeMap<String, (String, String)> {
        let stacks = self.inner.stacks.lock();
        stacks
            .iter()
            .filter(|s| s.deleted.is_none())
            .flat_map(|s| {
                s.outputs()
                    .iter()
                    .filter_map(|o| Some((o.export.clone()?, (s.id.clone(), o.value.clone()))))
            })
            .collect()
    }

    /// The template of `TemplateBody` or `TemplateURL`.
    pub(crate) fn template_of(&self, params: &Params) -> Result<String, QueryError> {
        match (params.get("TemplateBody"), params.get("TemplateURL")) {
            (Some(body), None) => Ok(body.to_string()),
            (None, Some(url)) => self.inner.backend.fetch_template(url).map_err(|e| {
                QueryError::validation(format!("TemplateURL must be a supported URL: {e}"))
            }),
            (Some(_), Some(_)) => Err(QueryError::validation(
                "Specify exactly one of TemplateBody and TemplateURL",
            )),
            (None, None) => Err(QueryError::validation(
                "Either Template URL or Template Body must be specified.",
            )),
        }
    }

    pub(crate) fn create_change_set(
        &self,
        caller: &Caller,
        params: &Params,
    ) -> Result<(String, String), QueryError> {
        let stack_name = params.required("StackName")?;
        let name = params.required("ChangeSetName")?;
        check_name(stack_name, "stackName")?;
        check_name(name, "changeSetName")?;
        let update = match params.get("ChangeSetType").unwrap_or("UPDATE") {
            "UPDATE" => true,
            "CREATE" => false,
            other => {
                return Err(QueryError::validation(format!(
                    "ChangeSetType {other} is not supported locally (CREATE, UPDATE)"
                )))
            }
        };
        let existing = self.stack(stack_name).ok().filter(|s| s.deleted.is_none());
        let reviewing = existing
            .as_ref()
            .is_some_and(|s| s.status == StackStatus::ReviewInProgress);
        match (&existing, update) {
            (Some(s), false) if !reviewing => {
                return Err(QueryError::validation(format!(
                    "Stack [{stack_name}] already exists and cannot be created again with the changeSet [{name}]."
                )))
            }
            (None, true) => return Err(QueryError::validation(format!("Stack [{stack_name}] does not exist"))),
            (Some(s), true) if reviewing => {
                return Err(QueryError::validation(format!("Stack [{}] does not exist", s.name)))
            }
            (Some(s), true) if !s.status.updatable() => {
                return Err(QueryError::validation(format!(
                    "Stack:{} is in {} state and can not be updated.",
                    s.id,
                    s.status.as_str()
                )))
            }
            _ => {}
        }
        if existing
            .as_ref()
            .is_some_and(|s| s.change_sets.iter().any(|c| c.name == name))
        {
            return Err(QueryError::new(
                400,
                "AlreadyExistsException",
                format!("ChangeSet {name} already exists"),
            ));
        }
        let previous = existing.as_ref().and_then(|s| s.current.clone());
        let template = if params.get("UsePreviousTemplate") == Some("true") {
            previous
                .as_ref()
                .map(|d| d.template.clone())
                .ok_or_else(|| {
                    QueryError::validation(
                        "UsePreviousTemplate is only valid for a stack that has a template",
                    )
                })?
        } else {
            self.template_of(params)?
        };
        let summary = localcloud_template::summary(&template)
            .map_err(|e| QueryError::validation(format!("Template format error: {e}")))?;
        let parameters = resolve_parameters(&summary, params, previous.as_ref())?;
        let capabilities = params.list("Capabilities");
        check_capabilities(&summary, &capabilities)?;

        let stack_id = existing.as_ref().map(|s| s.id.clone()).unwrap_or_else(|| {
            format!(
                "arn:aws:cloudformation:{}:{}:stack/{stack_name}/{}",
                caller.region,
                caller.account_id,
                uuid::Uuid::new_v4()
            )
        });
        let exports = self.exports();
        let deployment = Deployment {
            stack_name: stack_name.to_string(),
            stack_id: stack_id.clone(),
            region: caller.region.clone(),
            account_id: caller.account_id.clone(),
            template,
            parameters,
            imports: exports
                .iter()
                .map(|(k, (_, v))| (k.clone(), v.clone()))
                .collect(),
        };
        let id = format!(
            "arn:aws:cloudformation:{}:{}:changeSet/{name}/{}",
            caller.region,
            caller.account_id,
            uuid::Uuid::new_v4()
        );
        let planned = self.plan(&deployment, &exports);
        let unchanged = previous.as_ref().is_some_and(|p| {
            p.template == deployment.template && p.parameters == deployment.parameters
        });
        let (status, reason, changes) = match planned {
            Err(reason) => (ChangeSetStatus::Failed, Some(reason), Vec::new()),
            Ok(_) if update && unchanged => (
                ChangeSetStatus::Failed,
                Some(NO_CHANGES.to_string()),
                Vec::new(),
            ),
            Ok(plan) => {
                let current = existing
                    .as_ref()
                    .map(|s| s.deployed.resources.clone())
                    .unwrap_or_default();
                (
                    ChangeSetStatus::CreateComplete,
                    None,
                    changes(&current, &plan),
                )
            }
        };
        let change_set = ChangeSet {
            name: name.to_string(),
            id: id.clone(),
            update,
            execution: if status == ChangeSetStatus::Failed {
                ExecutionStatus::Unavailable
            } else {
                ExecutionStatus::Available
            },
            status,
            reason,
            created: Utc::now(),
            description: params.get("Description").map(str::to_string),
            deployment,
            capabilities,
            tags: tags(params),
            changes,
        };
        let mut stacks = self.inner.stacks.lock();
        let index = match find(&stacks, &stack_id) {
            Some(i) => i,
            None => {
                stacks.push(new_stack(stack_name, &stack_id, &summary));
                let i = stacks.len() - 1;
                stacks[i].set_status(StackStatus::ReviewInProgress, Some("User Initiated".into()));
                i
            }
        };
        stacks[index].change_sets.push(change_set);
        Ok((id, stack_id))
    }

    /// Checks a deployment with the backend, and that its exports are free.
    fn plan(
        &self,
        deployment: &Deployment,
        exports: &BTreeMap<String, (String, String)>,
    ) -> Result<Deployed, String> {
        let plan = self
            .inner
            .backend
            .plan(deployment)
            .map_err(|f| failure_reason(&f))?;
        for export in plan.outputs.iter().filter_map(|o| o.export.as_ref()) {
            if let Some((owner, _)) = exports
                .get(export)
                .filter(|(owner, _)| *owner != deployment.stack_id)
            {
                return Err(format!(
                    "Export with name {export} is already exported by stack {}",
                    stack_name_of(owner)
                ));
            }
        }
        Ok(plan)
    }

    /// The stack and change set a `ChangeSetName` (name or ARN) and
    /// optional `StackName` designate.
    pub(crate) fn change_set(
        &self,
        params: &Params,
    ) -> Result<(StackRecord, ChangeSet), QueryError> {
        let name = params.required("ChangeSetName")?;
        let stacks = self.inner.stacks.lock();
        let candidates: Vec<&StackRecord> = match params.get("StackName") {
            Some(stack) => vec![&stacks[find(&stacks, stack).ok_or_else(|| no_stack(stack))?]],
            None if name.starts_with("arn:") => stacks.iter().collect(),
            None => {
                return Err(QueryError::validation(
                    "StackName must be specified if ChangeSetName is not specified as an ARN.",
                ))
            }
        };
        candidates
            .into_iter()
            .find_map(|s| {
                s.change_sets
                    .iter()
                    .find(|c| c.name == name || c.id == name)
                    .map(|c| (s.clone(), c.clone()))
            })
            .ok_or_else(|| {
                QueryError::new(
                    404,
                    "ChangeSetNotFound",
                    format!("ChangeSet [{name}] does not exist"),
                )
            })
    }

    pub(crate) fn delete_change_set(&self, params: &Params) -> Result<(), QueryError> {
        let (stack, change_set) = self.change_set(params)?;
        if change_set.execution == ExecutionStatus::ExecuteInProgress {
            return Err(QueryError::new(
                400,
                "InvalidChangeSetStatus",
                format!(
                    "Cannot delete ChangeSet in status {}",
                    change_set.execution.as_str()
                ),
            ));
        }
        self.update_stack(&stack.id, |s| {
            s.change_sets.retain(|c| c.id != change_set.id)
        });
        Ok(())
    }

    pub(crate) async fn execute_change_set(&self, params: &Params) -> Result<(), QueryError> {
        let (stack, change_set) = self.change_set(params)?;
        if change_set.execution != ExecutionStatus::Available {
            return Err(QueryError::new(
                400,
                "InvalidChangeSetStatus",
                format!(
                    "ChangeSet [{}] cannot be executed in its current execution status of [{}]",
                    change_set.id,
                    change_set.execution.as_str()
                ),
            ));
        }
        if stack.status.in_progress() {
            return Err(QueryError::validation(format!(
                "Stack:{} is in {} state and can not be updated.",
                stack.id,
                stack.status.as_str()
            )));
        }
        let start = if change_set.update {
            StackStatus::UpdateInProgress
        } else {
            StackStatus::CreateInProgress
        };
        self.update_stack(&stack.id, |s| {
            for c in &mut s.change_sets {
                c.execution = if c.id == change_set.id {
                    ExecutionStatus::ExecuteInProgress
                } else {
                    ExecutionStatus::Obsolete
                };
            }
            s.capabilities = change_set.capabilities.clone();
            s.tags = change_set.tags.clone();
            if change_set.update {
                s.updated = Some(Utc::now());
            }
            s.set_status(start, Some("User Initiated".into()));
        });
        let engine = self.clone();
        let task = tokio::spawn(async move { engine.run(stack.id, change_set).await });
        let _ = tokio::time::timeout(ANSWER_WITHIN, task).await;
        Ok(())
    }

    /// Runs one change set to its end: complete, or rolled back.
    async fn run(&self, stack_id: String, change_set: ChangeSet) {
        let _one_at_a_time = self.inner.running.lock().await;
        let deployment = &change_set.deployment;
        let before = self
            .stack(&stack_id)
            .map(|s| s.deployed)
            .unwrap_or_default();
        let verb = if change_set.update {
            "UPDATE"
        } else {
            "CREATE"
        };
        match self.inner.backend.deploy(deployment).await {
            Ok(deployed) => {
                let summary = localcloud_template::summary(&deployment.template).ok();
                self.update_stack(&stack_id, |s| {
                    resource_events(s, &before, &deployed, verb);
                    s.deployed = deployed;
                    s.current = Some(deployment.clone());
                    s.description = summary.as_ref().and_then(|x| x.description.clone());
                    s.no_echo = summary.map(|x| no_echo(&x)).unwrap_or_default();
                    set_execution(s, &change_set.id, ExecutionStatus::ExecuteComplete);
                    if change_set.update {
                        s.set_status(StackStatus::UpdateCompleteCleanupInProgress, None);
                        s.set_status(StackStatus::UpdateComplete, None);
                    } else {
                        s.set_status(StackStatus::CreateComplete, None);
                    }
                });
            }
            Err(failure) => self.roll_back(&stack_id, &change_set, &failure).await,
        }
    }

    async fn roll_back(&self, stack_id: &str, change_set: &ChangeSet, failure: &Failure) {
        let verb = if change_set.update {
            "update"
        } else {
            "create"
        };
        let failed_id = failure
            .logical_id
            .clone()
            .unwrap_or_else(|| change_set.deployment.stack_name.clone());
        let reason = format!("The following resource(s) failed to {verb}: [{failed_id}]. Rollback requested by user.");
        let previous = self.stack(stack_id).ok().and_then(|s| s.current);
        self.update_stack(stack_id, |s| {
            let ty = failure
                .resource_type
                .clone()
                .unwrap_or_else(|| "AWS::CloudFormation::Stack".into());
            s.event(
                &failed_id,
                "",
                &ty,
                &format!("{}_FAILED", verb.to_uppercase()),
                Some(failure.reason.clone()),
            );
            set_execution(s, &change_set.id, ExecutionStatus::ExecuteFailed);
            let status = if change_set.update {
                StackStatus::UpdateRollbackInProgress
            } else {
                StackStatus::RollbackInProgress
            };
            s.set_status(status, Some(reason.clone()));
        });
        let result = match (&previous, change_set.update) {
            (Some(previous), true) => self.inner.backend.deploy(previous).await.map(Some),
            _ => self
                .inner
                .backend
                .delete(&change_set.deployment.stack_name)
                .await
                .map(|()| None),
        };
        self.update_stack(stack_id, |s| match (result, change_set.update) {
            (Ok(Some(deployed)), _) => {
                s.deployed = deployed;
                s.set_status(StackStatus::UpdateRollbackCompleteCleanupInProgress, None);
                s.set_status(StackStatus::UpdateRollbackComplete, None);
            }
            (Ok(None), _) => {
                s.deployed = Deployed::default();
                s.set_status(StackStatus::RollbackComplete, None);
            }
            (Err(f), true) => {
                s.set_status(StackStatus::UpdateRollbackFailed, Some(failure_reason(&f)))
            }
            (Err(f), false) => s.set_status(StackStatus::CreateFailed, Some(failure_reason(&f))),
        });
    }

    /// `DeleteStack`: a missing stack is not an error, as on AWS.
    pub(crate) async fn delete_stack(&self, params: &Params) -> Result<(), QueryError> {
        let name = params.required("StackName")?;
        let Ok(stack) = self.stack(name) else {
            return Ok(());
        };
        if stack.deleted.is_some() || stack.status == StackStatus::DeleteInProgress {
            return Ok(());
        }
        if stack.status.in_progress() {
            return Err(QueryError::validation(format!(
                "Stack [{}] cannot be deleted while in status {}",
                stack.name,
                stack.status.as_str()
            )));
        }
        let exports = self.exports();
        self.update_stack(&stack.id, |s| {
            s.set_status(StackStatus::DeleteInProgress, Some("User Initiated".into()))
        });
        let engine = self.clone();
        let task = tokio::spawn(async move {
            let _one_at_a_time = engine.inner.running.lock().await;
            let _ = exports;
            let result = engine.inner.backend.delete(&stack.name).await;
            engine.update_stack(&stack.id, |s| match result {
                Ok(()) => {
                    for r in s.deployed.resources.clone() {
                        s.event(
                            &r.logical_id,
                            &r.physical_id,
                            &r.resource_type,
                            "DELETE_IN_PROGRESS",
                            None,
                        );
                        s.event(
                            &r.logical_id,
                            &r.physical_id,
                            &r.resource_type,
                            "DELETE_COMPLETE",
                            None,
                        );
                    }
                    s.deployed = Deployed::default();
                    s.deleted = Some(Utc::now());
                    s.set_status(StackStatus::DeleteComplete, None);
                }
                Err(f) => {
                    if let Some(id) = &f.logical_id {
                        let ty = f.resource_type.clone().unwrap_or_default();
                        s.event(id, "", &ty, "DELETE_FAILED", Some(f.reason.clone()));
                    }
                    let reason = format!(
                        "The following resource(s) failed to delete: [{}]. ",
                        f.logical_id.clone().unwrap_or_default()
                    );
                    s.set_status(StackStatus::DeleteFailed, Some(reason));
                }
            });
        });
        let _ = tokio::time::timeout(ANSWER_WITHIN, task).await;
        Ok(())
    }

    fn update_stack(&self, id: &str, f: impl FnOnce(&mut StackRecord)) {
        let mut stacks = self.inner.stacks.lock();
        if let Some(i) = find(&stacks, id) {
            f(&mut stacks[i]);
        }
    }
}

/// The live stack of this name, or the stack (live or deleted) of this id.
fn find(stacks: &[StackRecord], name_or_id: &str) -> Option<usize> {
    if name_or_id.starts_with("arn:") {
        return stacks.iter().position(|s| s.id == name_or_id);
    }
    stacks
        .iter()
        .position(|s| s.name == name_or_id && s.deleted.is_none())
}

pub(crate) fn no_stack(name: &str) -> QueryError {
    QueryError::validation(format!("Stack with id {name} does not exist"))
}

fn stack_name_of(id: &str) -> &str {
    id.split('/').nth(1).unwrap_or(id)
}

/// Stack and change set names: `[a-zA-Z][-a-zA-Z0-9]*`, at most 128.
fn check_name(name: &str, member: &str) -> Result<(), QueryError> {
    let valid = name.len() <= 128
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if valid || name.starts_with("arn:") {
        return Ok(());
    }
    Err(QueryError::validation(format!(
        "1 validation error detected: Value '{name}' at '{member}' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z][-a-zA-Z0-9]*"
    )))
}

/// A value for every declared parameter: given, previous (`UsePreviousValue`)
/// or default; unknown and missing ones are `ValidationError`s worded as AWS
/// words them.
fn resolve_parameters(
    summary: &Summary,
    params: &Params,
    previous: Option<&Deployment>,
) -> Result<BTreeMap<String, String>, QueryError> {
    let declared: BTreeSet<&str> = summary.parameters.iter().map(|p| p.name.as_str()).collect();
    let given = params.structs("Parameters");
    let unknown: Vec<&str> = given
        .iter()
        .filter_map(|p| p.get("ParameterKey").map(String::as_str))
        .filter(|k| !declared.contains(k))
        .collect();
    if !unknown.is_empty() {
        return Err(QueryError::validation(format!(
            "Parameters: [{}] do not exist in the template",
            unknown.join(", ")
        )));
    }
    let mut values = BTreeMap::new();
    let mut missing = Vec::new();
    for p in &summary.parameters {
        let entry = given
            .iter()
            .find(|g| g.get("ParameterKey") == Some(&p.name));
        let use_previous = entry
            .and_then(|e| e.get("UsePreviousValue"))
            .is_some_and(|v| v == "true");
        let value = if use_previous {
            let old = previous.and_then(|d| d.parameters.get(&p.name)).ok_or_else(|| {
                QueryError::validation(format!(
                    "Invalid input for parameter key {}. Cannot specify usePreviousValue as true for a parameter key not in the previous template",
                    p.name
                ))
            })?;
            Some(old.clone())
        } else {
            entry
                .and_then(|e| e.get("ParameterValue"))
                .cloned()
                .or_else(|| p.default.clone())
        };
        match value {
            Some(v) => {
                values.insert(p.name.clone(), v);
            }
            None => missing.push(p.name.clone()),
        }
    }
    if !missing.is_empty() {
        return Err(QueryError::validation(format!(
            "Parameters: [{}] must have values",
            missing.join(", ")
        )));
    }
    Ok(values)
}

/// IAM resources (and SAM functions, which create their roles) need
/// `CAPABILITY_IAM` or `CAPABILITY_NAMED_IAM`.
/// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/control-access-with-iam.html#using-iam-capabilities
fn check_capabilities(summary: &Summary, given: &[String]) -> Result<(), QueryError> {
    let needs_iam = summary
        .resources
        .iter()
        .any(|(_, ty)| ty.starts_with("AWS::IAM::") || ty == "AWS::Serverless::Function");
    let has_iam = given
        .iter()
        .any(|c| c == "CAPABILITY_IAM" || c == "CAPABILITY_NAMED_IAM");
    if needs_iam && !has_iam {
        return Err(QueryError::new(
            400,
            "InsufficientCapabilitiesException",
            "Requires capabilities : [CAPABILITY_IAM]",
        ));
    }
    Ok(())
}

fn tags(params: &Params) -> Vec<(String, String)> {
    params
        .structs("Tags")
        .into_iter()
        .filter_map(|t| {
            Some((
                t.get("Key")?.clone(),
                t.get("Value").cloned().unwrap_or_default(),
            ))
        })
        .collect()
}

fn no_echo(summary: &Summary) -> BTreeSet<String> {
    summary
        .parameters
        .iter()
        .filter(|p| p.no_echo)
        .map(|p| p.name.clone())
        .collect()
}

fn new_stack(name: &str, id: &str, summary: &Summary) -> StackRecord {
    StackRecord {
        name: name.to_string(),
        id: id.to_string(),
        status: StackStatus::ReviewInProgress,
        reason: None,
        created: Utc::now(),
        updated: None,
        deleted: None,
        description: summary.description.clone(),
        current: None,
        deployed: Deployed::default(),
        no_echo: no_echo(summary),
        capabilities: Vec::new(),
        tags: Vec::new(),
        events: Vec::new(),
        change_sets: Vec::new(),
    }
}

/// What a change set lists: resources added, kept (modified) and removed.
fn changes(current: &[crate::Resource], planned: &Deployed) -> Vec<Change> {
    let mut out: Vec<Change> = planned
        .resources
        .iter()
        .map(|r| Change {
            action: if current.iter().any(|c| c.logical_id == r.logical_id) {
                "Modify"
            } else {
                "Add"
            },
            resource: r.clone(),
        })
        .collect();
    out.extend(
        current
            .iter()
            .filter(|c| {
                !planned
                    .resources
                    .iter()
                    .any(|r| r.logical_id == c.logical_id)
            })
            .map(|c| Change {
                action: "Remove",
                resource: c.clone(),
            }),
    );
    out
}

/// Events of each resource an execution added, updated or removed.
fn resource_events(s: &mut StackRecord, before: &Deployed, after: &Deployed, verb: &str) {
    for change in changes(&before.resources, after) {
        let r = &change.resource;
        let verb = match change.action {
            "Add" => "CREATE",
            "Remove" => "DELETE",
            _ => verb,
        };
        s.event(
            &r.logical_id,
            "",
            &r.resource_type,
            &format!("{verb}_IN_PROGRESS"),
            None,
        );
        s.event(
            &r.logical_id,
            &r.physical_id,
            &r.resource_type,
            &format!("{verb}_COMPLETE"),
            None,
        );
    }
}

fn set_execution(s: &mut StackRecord, change_set_id: &str, status: ExecutionStatus) {
    for c in &mut s.change_sets {
        if c.id == change_set_id {
            c.execution = status;
        }
    }
}

/// A failure as one line: `Resource X: reason`.
fn failure_reason(f: &Failure) -> String {
    match &f.logical_id {
        Some(id) => format!("{id}: {}", f.reason),
        None => f.reason.clone(),
    }
}
