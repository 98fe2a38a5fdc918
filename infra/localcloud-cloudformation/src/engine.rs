//! The engine: stack and change set records, parameter resolution, and the
//! status machine of executions, rollbacks and deletions.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use localcloud_template::Summary;
use parking_lot::Mutex;

use crate::backend::{Backend, Deployed, Deployment, Failure, Resource};
use crate::input::{check_capabilities, check_name, no_echo, resolve_parameters, tags};
use crate::model::{Change, ChangeSet, ChangeSetStatus, ExecutionStatus, StackRecord, StackStatus};
use crate::query::{Params, QueryError};

/// How long `ExecuteChangeSet` and `DeleteStack` wait for their task before
/// answering (AWS answers at once; clients poll either way).
pub(crate) const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// Reason of a change set that changes nothing, as AWS words it.
pub(crate) const NO_CHANGES: &str =
    "The submitted information didn't contain changes. Submit different information to create a change set.";

#[derive(Clone)]
pub struct CloudFormation {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub backend: Arc<dyn Backend>,
    /// Every stack ever made, deleted ones included (they stay visible by id).
    pub stacks: Mutex<Vec<StackRecord>>,
    /// One backend operation at a time.
    pub running: tokio::sync::Mutex<()>,
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

    /// The live stacks other than `exporter` whose deployment imports
    /// `export`: re-planned without it, they fail on its `Fn::ImportValue`.
    pub(crate) fn importers_of(&self, export: &str, exporter: &str) -> Vec<String> {
        let missing = format!("No export named {export} found");
        let stacks = self.stacks();
        stacks
            .iter()
            .filter(|s| s.deleted.is_none() && s.id != exporter)
            .filter_map(|s| Some((s, s.current.clone()?)))
            .filter(|(_, d)| d.imports.contains_key(export))
            .filter(|(_, d)| {
                let mut without = d.clone();
                without.imports.remove(export);
                matches!(self.inner.backend.plan(&without), Err(f) if f.reason.contains(&missing))
            })
            .map(|(s, _)| s.name.clone())
            .collect()
    }

    /// Why `stack`'s exports cannot go away, when another stack imports one:
    /// "After another stack imports an output value, you can't delete the
    /// stack that is exporting the output value or modify the exported output
    /// value" (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-importvalue.html).
    /// `kept` are the exports (name -> value) the stack will still have.
    pub(crate) fn exports_in_use(
        &self,
        stack: &StackRecord,
        kept: &BTreeMap<String, String>,
    ) -> Option<String> {
        stack.outputs().iter().find_map(|o| {
            let export = o.export.as_ref()?;
            let change = match kept.get(export) {
                Some(value) if *value == o.value => return None,
                Some(_) => "updated",
                None => "deleted",
            };
            let importer = self.importers_of(export, &stack.id).into_iter().next()?;
            Some(format!(
                "Export {export} cannot be {change} as it is in use by {importer}"
            ))
        })
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
        let planned = self.plan(&deployment, &exports).and_then(|plan| {
            let kept = plan
                .outputs
                .iter()
                .filter_map(|o| Some((o.export.clone()?, o.value.clone())))
                .collect();
            match existing
                .as_ref()
                .and_then(|s| self.exports_in_use(s, &kept))
            {
                Some(reason) => Err(reason),
                None => Ok(plan),
            }
        });
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

    pub(crate) fn update_stack(&self, id: &str, f: impl FnOnce(&mut StackRecord)) {
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
pub(crate) fn changes(current: &[Resource], planned: &Deployed) -> Vec<Change> {
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

/// A failure as one line: `Resource X: reason`.
pub(crate) fn failure_reason(f: &Failure) -> String {
    match &f.logical_id {
        Some(id) => format!("{id}: {}", f.reason),
        None => f.reason.clone(),
    }
}
