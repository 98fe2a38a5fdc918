//! The records the engine keeps: stacks, change sets, events.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use crate::backend::{Deployed, Deployment, Output, Resource};

/// Stack statuses.
/// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/stack-resource-configuration-complete.html
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackStatus {
    ReviewInProgress,
    CreateInProgress,
    CreateComplete,
    CreateFailed,
    RollbackInProgress,
    RollbackComplete,
    UpdateInProgress,
    UpdateCompleteCleanupInProgress,
    UpdateComplete,
    UpdateRollbackInProgress,
    UpdateRollbackCompleteCleanupInProgress,
    UpdateRollbackComplete,
    UpdateRollbackFailed,
    DeleteInProgress,
    DeleteComplete,
    DeleteFailed,
}

impl StackStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReviewInProgress => "REVIEW_IN_PROGRESS",
            Self::CreateInProgress => "CREATE_IN_PROGRESS",
            Self::CreateComplete => "CREATE_COMPLETE",
            Self::CreateFailed => "CREATE_FAILED",
            Self::RollbackInProgress => "ROLLBACK_IN_PROGRESS",
            Self::RollbackComplete => "ROLLBACK_COMPLETE",
            Self::UpdateInProgress => "UPDATE_IN_PROGRESS",
            Self::UpdateCompleteCleanupInProgress => "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS",
            Self::UpdateComplete => "UPDATE_COMPLETE",
            Self::UpdateRollbackInProgress => "UPDATE_ROLLBACK_IN_PROGRESS",
            Self::UpdateRollbackCompleteCleanupInProgress => {
                "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS"
            }
            Self::UpdateRollbackComplete => "UPDATE_ROLLBACK_COMPLETE",
            Self::UpdateRollbackFailed => "UPDATE_ROLLBACK_FAILED",
            Self::DeleteInProgress => "DELETE_IN_PROGRESS",
            Self::DeleteComplete => "DELETE_COMPLETE",
            Self::DeleteFailed => "DELETE_FAILED",
        }
    }

    pub fn in_progress(self) -> bool {
        self.as_str().ends_with("_IN_PROGRESS") && self != Self::ReviewInProgress
    }

    /// States from which an update change set may be made.
    pub fn updatable(self) -> bool {
        matches!(
            self,
            Self::CreateComplete | Self::UpdateComplete | Self::UpdateRollbackComplete
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeSetStatus {
    CreateComplete,
    Failed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutionStatus {
    Unavailable,
    Available,
    ExecuteInProgress,
    ExecuteComplete,
    ExecuteFailed,
    Obsolete,
}

impl ExecutionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unavailable => "UNAVAILABLE",
            Self::Available => "AVAILABLE",
            Self::ExecuteInProgress => "EXECUTE_IN_PROGRESS",
            Self::ExecuteComplete => "EXECUTE_COMPLETE",
            Self::ExecuteFailed => "EXECUTE_FAILED",
            Self::Obsolete => "OBSOLETE",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Change {
    /// `Add`, `Modify` or `Remove`.
    pub action: &'static str,
    pub resource: Resource,
}

#[derive(Debug, Clone)]
pub struct ChangeSet {
    pub name: String,
    pub id: String,
    pub update: bool,
    pub status: ChangeSetStatus,
    pub reason: Option<String>,
    pub execution: ExecutionStatus,
    pub created: DateTime<Utc>,
    pub description: Option<String>,
    pub deployment: Deployment,
    pub capabilities: Vec<String>,
    pub tags: Vec<(String, String)>,
    pub changes: Vec<Change>,
}

#[derive(Debug, Clone)]
pub struct Event {
    pub id: String,
    pub timestamp: DateTime<Utc>,
    pub logical_id: String,
    pub physical_id: String,
    pub resource_type: String,
    pub status: String,
    pub reason: Option<String>,
}

#[derive(Debug, Clone)]
pub struct StackRecord {
    pub name: String,
    pub id: String,
    pub status: StackStatus,
    pub reason: Option<String>,
    pub created: DateTime<Utc>,
    pub updated: Option<DateTime<Utc>>,
    pub deleted: Option<DateTime<Utc>>,
    pub description: Option<String>,
    /// What runs now (the last deployment that completed).
    pub current: Option<Deployment>,
    pub deployed: Deployed,
    pub no_echo: BTreeSet<String>,
    pub capabilities: Vec<String>,
    pub tags: Vec<(String, String)>,
    pub events: Vec<Event>,
    pub change_sets: Vec<ChangeSet>,
}

impl StackRecord {
    pub fn outputs(&self) -> &[Output] {
        &self.deployed.outputs
    }

    pub fn parameters(&self) -> BTreeMap<String, String> {
        self.current
            .as_ref()
            .map(|d| d.parameters.clone())
            .unwrap_or_default()
    }

    pub fn event(
        &mut self,
        logical_id: &str,
        physical_id: &str,
        ty: &str,
        status: &str,
        reason: Option<String>,
    ) {
        self.events.push(Event {
            id: uuid::Uuid::new_v4().to_string(),
            timestamp: Utc::now(),
            logical_id: logical_id.to_string(),
            physical_id: physical_id.to_string(),
            resource_type: ty.to_string(),
            status: status.to_string(),
            reason,
        });
    }

    /// An event of the stack itself, with its status set too.
    pub fn set_status(&mut self, status: StackStatus, reason: Option<String>) {
        self.status = status;
        self.reason = reason.clone();
        let (name, id) = (self.name.clone(), self.id.clone());
        self.event(
            &name,
            &id,
            "AWS::CloudFormation::Stack",
            status.as_str(),
            reason,
        );
    }
}
