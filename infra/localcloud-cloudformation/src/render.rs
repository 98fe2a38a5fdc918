//! The XML shapes of CloudFormation's describe calls.
//! https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_DescribeStacks.html

use chrono::{DateTime, Utc};
use localcloud_core::xml::Xml;
use localcloud_template::Summary;

use crate::model::{ChangeSet, ChangeSetStatus, Event, StackRecord};

pub(crate) fn time(t: &DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// `NoEcho` values are masked, as AWS masks them.
fn parameters(
    doc: &mut Xml,
    values: &std::collections::BTreeMap<String, String>,
    no_echo: &std::collections::BTreeSet<String>,
) {
    doc.open("Parameters");
    for (key, value) in values {
        let shown = if no_echo.contains(key) {
            "****"
        } else {
            value.as_str()
        };
        doc.open("member")
            .text("ParameterKey", key)
            .text("ParameterValue", shown)
            .close("member");
    }
    doc.close("Parameters");
}

fn list(doc: &mut Xml, name: &str, items: &[String]) {
    doc.open(name);
    for item in items {
        doc.text("member", item);
    }
    doc.close(name);
}

fn tags(doc: &mut Xml, tags: &[(String, String)]) {
    doc.open("Tags");
    for (k, v) in tags {
        doc.open("member")
            .text("Key", k)
            .text("Value", v)
            .close("member");
    }
    doc.close("Tags");
}

pub(crate) fn stack(doc: &mut Xml, s: &StackRecord) {
    doc.open("member")
        .text("StackId", &s.id)
        .text("StackName", &s.name);
    if let Some(d) = &s.description {
        doc.text("Description", d);
    }
    parameters(doc, &s.parameters(), &s.no_echo);
    doc.text("CreationTime", time(&s.created));
    if let Some(t) = &s.updated {
        doc.text("LastUpdatedTime", time(t));
    }
    if let Some(t) = &s.deleted {
        doc.text("DeletionTime", time(t));
    }
    doc.text("StackStatus", s.status.as_str());
    if let Some(r) = &s.reason {
        doc.text("StackStatusReason", r);
    }
    doc.text("DisableRollback", "false");
    doc.open("NotificationARNs").close("NotificationARNs");
    list(doc, "Capabilities", &s.capabilities);
    doc.open("Outputs");
    for o in s.outputs() {
        doc.open("member")
            .text("OutputKey", &o.key)
            .text("OutputValue", &o.value);
        if let Some(e) = &o.export {
            doc.text("ExportName", e);
        }
        doc.close("member");
    }
    doc.close("Outputs");
    tags(doc, &s.tags);
    doc.text("EnableTerminationProtection", "false");
    doc.open("DriftInformation")
        .text("StackDriftStatus", "NOT_CHECKED")
        .close("DriftInformation");
    doc.close("member");
}

pub(crate) fn change_set(doc: &mut Xml, s: &StackRecord, c: &ChangeSet) {
    doc.text("ChangeSetName", &c.name)
        .text("ChangeSetId", &c.id)
        .text("StackId", &s.id)
        .text("StackName", &s.name);
    if let Some(d) = &c.description {
        doc.text("Description", d);
    }
    parameters(doc, &c.deployment.parameters, &s.no_echo);
    doc.text("CreationTime", time(&c.created));
    doc.text("ExecutionStatus", c.execution.as_str());
    doc.text("Status", status(c));
    if let Some(r) = &c.reason {
        doc.text("StatusReason", r);
    }
    doc.open("NotificationARNs").close("NotificationARNs");
    list(doc, "Capabilities", &c.capabilities);
    tags(doc, &c.tags);
    doc.open("Changes");
    for change in &c.changes {
        let r = &change.resource;
        doc.open("member")
            .text("Type", "Resource")
            .open("ResourceChange")
            .text("Action", change.action)
            .text("LogicalResourceId", &r.logical_id);
        if change.action != "Add" {
            doc.text("PhysicalResourceId", &r.physical_id);
        }
        doc.text("ResourceType", &r.resource_type);
        if change.action == "Modify" {
            doc.text("Replacement", "False");
        }
        doc.open("Scope")
            .close("Scope")
            .open("Details")
            .close("Details");
        doc.close("ResourceChange").close("member");
    }
    doc.close("Changes");
    doc.text("IncludeNestedStacks", "false");
}

pub(crate) fn status(c: &ChangeSet) -> &'static str {
    match c.status {
        ChangeSetStatus::CreateComplete => "CREATE_COMPLETE",
        ChangeSetStatus::Failed => "FAILED",
    }
}

pub(crate) fn event(doc: &mut Xml, s: &StackRecord, e: &Event) {
    doc.open("member")
        .text("StackId", &s.id)
        .text("EventId", &e.id)
        .text("StackName", &s.name)
        .text("LogicalResourceId", &e.logical_id)
        .text("PhysicalResourceId", &e.physical_id)
        .text("ResourceType", &e.resource_type)
        .text("Timestamp", time(&e.timestamp))
        .text("ResourceStatus", &e.status);
    if let Some(r) = &e.reason {
        doc.text("ResourceStatusReason", r);
    }
    doc.close("member");
}

/// `GetTemplateSummary` and `ValidateTemplate` share this shape.
pub(crate) fn summary(doc: &mut Xml, summary: &Summary, with_types: bool) {
    doc.open("Parameters");
    for p in &summary.parameters {
        doc.open("member").text("ParameterKey", &p.name);
        if let Some(d) = &p.default {
            doc.text("DefaultValue", d);
        }
        if with_types {
            doc.text("ParameterType", &p.ty);
        }
        doc.text("NoEcho", p.no_echo.to_string());
        if let Some(d) = &p.description {
            doc.text("Description", d);
        }
        doc.close("member");
    }
    doc.close("Parameters");
    if let Some(d) = &summary.description {
        doc.text("Description", d);
    }
    let iam = summary
        .resources
        .iter()
        .any(|(_, ty)| ty.starts_with("AWS::IAM::") || ty == "AWS::Serverless::Function");
    let capabilities: Vec<String> = if iam {
        vec!["CAPABILITY_IAM".into()]
    } else {
        Vec::new()
    };
    list(doc, "Capabilities", &capabilities);
    if iam {
        doc.text(
            "CapabilitiesReason",
            "The following resource(s) require capabilities: [AWS::IAM::Role]",
        );
    }
    list(doc, "DeclaredTransforms", &summary.transforms);
    if with_types {
        let mut types: Vec<String> = summary.resources.iter().map(|(_, t)| t.clone()).collect();
        types.sort();
        types.dedup();
        list(doc, "ResourceTypes", &types);
        doc.text("Version", "2010-09-09");
    }
}
