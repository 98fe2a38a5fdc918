//! CloudFormation's operations on the query protocol (requests signed for
//! `cloudformation`).

use async_trait::async_trait;
use localcloud_core::context::{new_request_id, signing_service};
use localcloud_core::{HttpRequest, HttpResponse, PathService, RequestContext};

use crate::engine::{no_stack, Caller, CloudFormation};
use crate::query::{response, Params, QueryError};
use crate::render;

const NS: &str = "http://cloudformation.amazonaws.com/doc/2010-05-15/";

#[async_trait]
impl PathService for CloudFormation {
    async fn handle(&self, request: HttpRequest) -> Result<HttpResponse, HttpRequest> {
        if signing_service(&request).as_deref() != Some("cloudformation") {
            return Err(request);
        }
        let ctx = RequestContext::from_headers(request.headers());
        let caller = Caller {
            region: ctx.region.clone(),
            account_id: ctx.account_id.clone(),
        };
        let params = Params::parse(request.uri().query(), request.body());
        let request_id = new_request_id();
        let action = params.get("Action").unwrap_or_default().to_string();
        Ok(self
            .call(&caller, &action, &params, &request_id)
            .await
            .unwrap_or_else(|e| e.into_response(NS, &request_id)))
    }
}

impl CloudFormation {
    async fn call(
        &self,
        caller: &Caller,
        action: &str,
        params: &Params,
        id: &str,
    ) -> Result<HttpResponse, QueryError> {
        let ok = |f: &dyn Fn(&mut localcloud_core::xml::Xml)| Ok(response(NS, action, id, f));
        match action {
            "CreateChangeSet" => {
                let (cs, stack) = self.create_change_set(caller, params)?;
                ok(&|doc| {
                    doc.text("Id", &cs).text("StackId", &stack);
                })
            }
            "DescribeChangeSet" => {
                let (s, c) = self.change_set(params)?;
                ok(&|doc| render::change_set(doc, &s, &c))
            }
            "ExecuteChangeSet" => {
                self.execute_change_set(params).await?;
                ok(&|_| {})
            }
            "CreateStack" | "UpdateStack" => {
                let id = self.create_or_update_stack(caller, params, action == "UpdateStack").await?;
                ok(&|doc| {
                    doc.text("StackId", &id);
                })
            }
            "DeleteChangeSet" => {
                self.delete_change_set(params)?;
                ok(&|_| {})
            }
            "ListChangeSets" => {
                let s = self.stack(params.required("StackName")?)?;
                ok(&|doc| {
                    doc.open("Summaries");
                    for c in &s.change_sets {
                        doc.open("member")
                            .text("StackId", &s.id)
                            .text("StackName", &s.name)
                            .text("ChangeSetId", &c.id)
                            .text("ChangeSetName", &c.name)
                            .text("ExecutionStatus", c.execution.as_str())
                            .text("Status", render::status(c))
                            .text("CreationTime", render::time(&c.created))
                            .close("member");
                    }
                    doc.close("Summaries");
                })
            }
            "DescribeStacks" => {
                let stacks = match params.get("StackName") {
                    Some(name) => vec![self.stack(name)?],
                    None => self.stacks().into_iter().filter(|s| s.deleted.is_none()).collect(),
                };
                ok(&|doc| {
                    doc.open("Stacks");
                    for s in &stacks {
                        render::stack(doc, s);
                    }
                    doc.close("Stacks");
                })
            }
            "ListStacks" => {
                let wanted = params.list("StackStatusFilter");
                let stacks: Vec<_> = self.stacks().into_iter().filter(|s| wanted.is_empty() || wanted.iter().any(|w| w == s.status.as_str())).collect();
                ok(&|doc| {
                    doc.open("StackSummaries");
                    for s in &stacks {
                        doc.open("member").text("StackId", &s.id).text("StackName", &s.name).text("CreationTime", render::time(&s.created)).text("StackStatus", s.status.as_str());
                        if let Some(t) = &s.deleted {
                            doc.text("DeletionTime", render::time(t));
                        }
                        doc.close("member");
                    }
                    doc.close("StackSummaries");
                })
            }
            "DescribeStackEvents" => {
                let s = self.stack(params.required("StackName")?)?;
                ok(&|doc| {
                    doc.open("StackEvents");
                    for e in s.events.iter().rev() {
                        render::event(doc, &s, e);
                    }
                    doc.close("StackEvents");
                })
            }
            "DescribeStackResources" | "ListStackResources" | "DescribeStackResource" => self.resources(action, params, id),
            "GetTemplate" => {
                let name = params.required("StackName")?;
                let s = self.stack(name)?;
                let template = match (&s.current, params.get("ChangeSetName")) {
                    (_, Some(_)) => self.change_set(params)?.1.deployment.template,
                    (Some(d), None) => d.template.clone(),
                    (None, None) => return Err(no_stack(name)),
                };
                ok(&|doc| {
                    doc.text("TemplateBody", &template).open("StagesAvailable").text("member", "Original").text("member", "Processed").close("StagesAvailable");
                })
            }
            "GetTemplateSummary" | "ValidateTemplate" => {
                let template = match params.get("StackName") {
                    Some(name) => self.stack(name)?.current.map(|d| d.template).ok_or_else(|| no_stack(name))?,
                    None => self.template_of(params)?,
                };
                let summary = localcloud_template::summary(&template).map_err(|e| QueryError::validation(format!("Template format error: {e}")))?;
                let with_types = action == "GetTemplateSummary";
                ok(&|doc| render::summary(doc, &summary, with_types))
            }
            "DeleteStack" => {
                self.delete_stack(params).await?;
                ok(&|_| {})
            }
            "ListExports" => {
                let exports = self.exports();
                ok(&|doc| {
                    doc.open("Exports");
                    for (name, (stack, value)) in &exports {
                        doc.open("member").text("ExportingStackId", stack).text("Name", name).text("Value", value).close("member");
                    }
                    doc.close("Exports");
                })
            }
            other => Err(QueryError::new(
                400,
                "InvalidAction",
                format!("Operation {other} is not supported by the local cloud's CloudFormation (see docs/deploy.md)"),
            )),
        }
    }

    fn resources(
        &self,
        action: &str,
        params: &Params,
        id: &str,
    ) -> Result<HttpResponse, QueryError> {
        let s = self.stack(params.required("StackName")?)?;
        let time = render::time(&s.updated.unwrap_or(s.created));
        let wanted = params.get("LogicalResourceId");
        let resources: Vec<_> = s
            .deployed
            .resources
            .iter()
            .filter(|r| wanted.is_none_or(|w| w == r.logical_id))
            .collect();
        if action == "DescribeStackResource" && resources.is_empty() {
            return Err(QueryError::validation(format!(
                "Resource {} does not exist for stack {}",
                wanted.unwrap_or_default(),
                s.name
            )));
        }
        let (list, time_name) = match action {
            "ListStackResources" => ("StackResourceSummaries", "LastUpdatedTimestamp"),
            "DescribeStackResource" => ("StackResourceDetail", "LastUpdatedTimestamp"),
            _ => ("StackResources", "Timestamp"),
        };
        let status = if s.updated.is_some() {
            "UPDATE_COMPLETE"
        } else {
            "CREATE_COMPLETE"
        };
        Ok(response(NS, action, id, |doc| {
            let single = action == "DescribeStackResource";
            if !single {
                doc.open(list);
            }
            for r in &resources {
                doc.open(if single { list } else { "member" });
                if action != "ListStackResources" {
                    doc.text("StackName", &s.name).text("StackId", &s.id);
                }
                doc.text("LogicalResourceId", &r.logical_id)
                    .text("PhysicalResourceId", &r.physical_id)
                    .text("ResourceType", &r.resource_type)
                    .text(time_name, &time)
                    .text("ResourceStatus", status)
                    .open("DriftInformation")
                    .text("StackResourceDriftStatus", "NOT_CHECKED")
                    .close("DriftInformation");
                doc.close(if single { list } else { "member" });
            }
            if !single {
                doc.close(list);
            }
        }))
    }
}
