//! Executions and deletions: the status machine of a stack once a change
//! set runs (complete, or rolled back) or the stack is deleted.

use std::collections::BTreeMap;

use chrono::Utc;

use crate::backend::{Deployed, Failure};
use crate::engine::{changes, failure_reason, Caller, CloudFormation, ANSWER_WITHIN};
use crate::input::no_echo;
use crate::model::{ChangeSet, ChangeSetStatus, ExecutionStatus, StackRecord, StackStatus};
use crate::query::{Params, QueryError};

impl CloudFormation {
    /// `CreateStack` and `UpdateStack`: a change set made and executed at
    /// once. Its failure is the call's `ValidationError`; an update that
    /// changes nothing is AWS's "No updates are to be performed.".
    pub(crate) async fn create_or_update_stack(
        &self,
        caller: &Caller,
        params: &Params,
        update: bool,
    ) -> Result<String, QueryError> {
        let stack_name = params.required("StackName")?;
        let live = self
            .stack(stack_name)
            .ok()
            .filter(|s| s.status != StackStatus::ReviewInProgress);
        if !update && live.is_some() {
            return Err(QueryError::new(
                400,
                "AlreadyExistsException",
                format!("Stack [{stack_name}] already exists"),
            ));
        }
        let name = format!("localcloud-{}", uuid::Uuid::new_v4().simple());
        let params = params
            .clone()
            .with("ChangeSetName", &name)
            .with("ChangeSetType", if update { "UPDATE" } else { "CREATE" });
        let (_, stack_id) = self.create_change_set(caller, &params)?;
        let (_, change_set) = self.change_set(&params)?;
        if change_set.status == ChangeSetStatus::Failed {
            self.delete_change_set(&params)?;
            let reason = change_set.reason.unwrap_or_default();
            return Err(QueryError::validation(
                if reason == crate::engine::NO_CHANGES {
                    "No updates are to be performed.".to_string()
                } else {
                    reason
                },
            ));
        }
        self.execute_change_set(&params).await?;
        Ok(stack_id)
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
        self.update_stack(&stack.id, |s| {
            s.set_status(StackStatus::DeleteInProgress, Some("User Initiated".into()))
        });
        if let Some(reason) = self.exports_in_use(&stack, &BTreeMap::new()) {
            self.update_stack(&stack.id, |s| {
                s.set_status(StackStatus::DeleteFailed, Some(reason))
            });
            return Ok(());
        }
        let engine = self.clone();
        let task = tokio::spawn(async move {
            let _one_at_a_time = engine.inner.running.lock().await;
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
