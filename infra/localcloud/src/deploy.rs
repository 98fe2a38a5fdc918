//! The CloudFormation backend: brings a deployed template up as a [`Stack`]
//! (the same code as `serve --template`), with function code from S3, and
//! tears it down again; and the registry of running stacks, which answers
//! the Lambda API for all of them.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use localcloud_cloudformation::{Backend, Deployed, Deployment, Failure, Output, Resource};
use localcloud_core::RequestContext;
use localcloud_dynamodb::DynamoDb;
use localcloud_s3::{S3Service, Setting};
use localcloud_sqs::SqsService;
use localcloud_template::{Application, TemplateError};
use parking_lot::RwLock;

use crate::code;
use crate::stack::{resolve_context, Stack, StackConfig};
use crate::stack_error::StackError;

/// Running stacks by name: deployed ones and the `--template` one.
#[derive(Default)]
pub struct Deployments {
    stacks: RwLock<BTreeMap<String, Arc<Stack>>>,
}

impl Deployments {
    pub fn insert(&self, name: &str, stack: Arc<Stack>) {
        self.stacks.write().insert(name.to_string(), stack);
    }

    pub fn remove(&self, name: &str) -> Option<Arc<Stack>> {
        self.stacks.write().remove(name)
    }

    pub fn get(&self, name: &str) -> Option<Arc<Stack>> {
        self.stacks.read().get(name).cloned()
    }

    /// Every running stack, by name.
    pub fn all(&self) -> Vec<(String, Arc<Stack>)> {
        self.stacks
            .read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

/// What a deploy brings up and where.
pub struct Deployer {
    pub endpoint: SocketAddr,
    pub dynamodb: Arc<DynamoDb>,
    pub sqs: Arc<SqsService>,
    pub s3: Arc<S3Service>,
    /// Code cache (`code/`) and function logs (`logs/`).
    pub state_dir: PathBuf,
    pub deployments: Arc<Deployments>,
    pub cpu_share: localcloud_lambda::CpuShare,
    pub iam: Arc<localcloud_iam::Iam>,
}

impl Deployer {
    fn config(&self, d: &Deployment) -> StackConfig {
        StackConfig {
            stack_name: d.stack_name.clone(),
            template_body: Some(d.template.clone()),
            parameter_overrides: d.parameters.clone(),
            region: d.region.clone(),
            account_id: d.account_id.clone(),
            imports: d.imports.clone(),
            generate_no_echo: false,
            iam: Some(self.iam.clone()),
            log_dir: self.state_dir.join("logs"),
            cpu_share: self.cpu_share,
            ..StackConfig::new(PathBuf::from("template.yaml"))
        }
    }

    fn read(&self, config: &StackConfig) -> Result<Application, Failure> {
        config
            .read(&resolve_context(config, self.endpoint))
            .map_err(|e| template_failure(&e))
    }

    /// Unpacks each function's `CodeUri: s3://bucket/key` package; the
    /// binaries by logical id.
    fn fetch_code(&self, app: &Application) -> Result<BTreeMap<String, PathBuf>, Failure> {
        let cache = self.state_dir.join("code");
        std::fs::create_dir_all(&cache)
            .map_err(|e| Failure::stack(format!("cannot create {}: {e}", cache.display())))?;
        let mut binaries = BTreeMap::new();
        for f in &app.functions {
            let failed = |message: String| Failure {
                logical_id: Some(f.logical_id.clone()),
                resource_type: Some("AWS::Lambda::Function".into()),
                reason: format!("Resource handler returned message: \"{message}\""),
            };
            let uri = f.code_uri.as_deref().unwrap_or_default();
            let (bucket, key) = localcloud_s3::parse_url(uri).filter(|_| uri.starts_with("s3://")).ok_or_else(|| {
                failed(format!("'CodeUri' {uri:?} is not a valid S3 Uri of the form 's3://bucket/key'; package the template first (sam deploy does)"))
            })?;
            let object = self.s3.get_object(&bucket, &key).map_err(|e| {
                failed(format!(
                    "Error occurred while GetObject. S3 Error Code: {}. S3 Error Message: {}",
                    e.code, e.message
                ))
            })?;
            let dir = code::unpack(&object.body, &cache).map_err(|e| failed(e.to_string()))?;
            binaries.insert(f.logical_id.clone(), dir.join("bootstrap"));
        }
        Ok(binaries)
    }

    /// A resource name another running stack already uses.
    fn clash(&self, stack_name: &str, app: &Application) -> Result<(), Failure> {
        for (other_name, other) in self
            .deployments
            .all()
            .into_iter()
            .filter(|(n, _)| n != stack_name)
        {
            let ours = resources(app);
            let theirs = resources(&other.app);
            if let Some(r) = ours.iter().find(|r| {
                theirs
                    .iter()
                    .any(|t| t.resource_type == r.resource_type && t.physical_id == r.physical_id)
            }) {
                return Err(Failure {
                    logical_id: Some(r.logical_id.clone()),
                    resource_type: Some(r.resource_type.clone()),
                    reason: format!("{} already exists in stack {other_name}", r.physical_id),
                });
            }
        }
        Ok(())
    }

    fn create_buckets(&self, app: &Application, region: &str) -> Result<(), Failure> {
        for b in &app.buckets {
            let failed = |e: localcloud_s3::S3Error| Failure {
                logical_id: Some(b.logical_id.clone()),
                resource_type: Some("AWS::S3::Bucket".into()),
                reason: format!("Resource handler returned message: \"{}\"", e.message),
            };
            if !self.s3.bucket_exists(&b.name) {
                self.s3.create_bucket(&b.name, region).map_err(failed)?;
            }
            if let Some(status) = &b.versioning {
                let body = format!("<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Status>{status}</Status></VersioningConfiguration>");
                self.s3
                    .put_setting(&b.name, Setting::Versioning, body.into())
                    .map_err(failed)?;
            }
        }
        Ok(())
    }

    /// Queues that exist already take the template's attributes (an update
    /// changes them in place, as CloudFormation does for SQS attributes).
    fn update_queues(&self, app: &Application) -> Result<(), Failure> {
        for q in &app.queues {
            let Ok(queue) = self.sqs.queue_by_arn(&q.arn) else {
                continue;
            };
            let mut attributes = q.attributes.clone();
            attributes.remove("FifoQueue");
            self.sqs
                .set_queue_attributes(&queue, &attributes)
                .map_err(|e| Failure {
                    logical_id: Some(q.logical_id.clone()),
                    resource_type: Some("AWS::SQS::Queue".into()),
                    reason: format!("Resource handler returned message: \"{}\"", e.message),
                })?;
        }
        Ok(())
    }

    /// Deletes the tables, queues and buckets of `app` that `keep` does not have.
    fn remove_data(
        &self,
        app: &Application,
        keep: Option<&Application>,
        region: &str,
        account: &str,
    ) {
        let ctx = RequestContext::new(region, account);
        for t in app
            .tables
            .iter()
            .filter(|t| keep.is_none_or(|k| !k.tables.iter().any(|x| x.name == t.name)))
        {
            let body = serde_json::json!({ "TableName": t.name }).to_string();
            let _ = self.dynamodb.call(&ctx, "DeleteTable", body.as_bytes());
        }
        for q in app
            .queues
            .iter()
            .rev()
            .filter(|q| keep.is_none_or(|k| !k.queues.iter().any(|x| x.name == q.name)))
        {
            if let Ok(queue) = self.sqs.queue_by_arn(&q.arn) {
                self.sqs.delete_queue(&queue);
            }
        }
        for b in app
            .buckets
            .iter()
            .filter(|b| keep.is_none_or(|k| !k.buckets.iter().any(|x| x.name == b.name)))
        {
            let _ = self.s3.delete_bucket(&b.name);
        }
    }
}

#[async_trait]
impl Backend for Deployer {
    fn plan(&self, d: &Deployment) -> Result<Deployed, Failure> {
        let app = self.read(&self.config(d))?;
        self.clash(&d.stack_name, &app)?;
        Ok(deployed(&app))
    }

    async fn deploy(&self, d: &Deployment) -> Result<Deployed, Failure> {
        let mut config = self.config(d);
        let app = self.read(&config)?;
        self.clash(&d.stack_name, &app)?;
        config.binaries = self.fetch_code(&app)?;
        let previous = self.deployments.remove(&d.stack_name);
        if let Some(old) = &previous {
            // The APIs keep their ports, so their URLs survive an update;
            // the functions keep their versions.
            config.api_ports = old.api_ports();
            config.inherited_versions = old.lambda.inheritable_versions();
            config.version_resources = old
                .app
                .versions
                .iter()
                .map(|v| (v.logical_id.clone(), v.version.clone()))
                .collect();
            old.shutdown().await;
        }
        let prepared = self
            .update_queues(&app)
            .and_then(|()| self.create_buckets(&app, &d.region));
        let started = match prepared {
            Ok(()) => Stack::start(&config, self.endpoint, &self.dynamodb, &self.sqs)
                .await
                .map_err(stack_failure),
            Err(f) => Err(f),
        };
        match started {
            Ok(stack) => {
                if let Some(old) = &previous {
                    self.remove_data(&old.app, Some(&stack.app), &d.region, &d.account_id);
                }
                let result = deployed(&stack.app);
                self.deployments.insert(&d.stack_name, Arc::new(stack));
                Ok(result)
            }
            Err(failure) => {
                // Nothing this deployment added stays; the engine redeploys
                // the previous template (which restarts its functions).
                self.remove_data(
                    &app,
                    previous.as_ref().map(|p| &p.app),
                    &d.region,
                    &d.account_id,
                );
                Err(failure)
            }
        }
    }

    async fn delete(&self, stack_name: &str) -> Result<(), Failure> {
        let Some(stack) = self.deployments.get(stack_name) else {
            return Ok(());
        };
        // A bucket with objects cannot be deleted; nothing is, then.
        if let Some(b) = stack.app.buckets.iter().find(|b| {
            self.s3
                .with_bucket(&b.name, |x| Ok(!x.objects.is_empty()))
                .unwrap_or(false)
        }) {
            return Err(Failure {
                logical_id: Some(b.logical_id.clone()),
                resource_type: Some("AWS::S3::Bucket".into()),
                reason:
                    "The bucket you tried to delete is not empty (Service: S3, Status Code: 409)"
                        .into(),
            });
        }
        self.deployments.remove(stack_name);
        stack.shutdown().await;
        let region = stack.lambda.config().region.clone();
        let account = stack.lambda.config().account_id.clone();
        self.remove_data(&stack.app, None, &region, &account);
        Ok(())
    }

    fn fetch_template(&self, url: &str) -> Result<String, String> {
        let (bucket, key) =
            localcloud_s3::parse_url(url).ok_or_else(|| format!("{url} names no S3 object"))?;
        let object = self
            .s3
            .get_object(&bucket, &key)
            .map_err(|e| e.to_string())?;
        String::from_utf8(object.body.to_vec())
            .map_err(|_| "the template is not UTF-8 text".to_string())
    }
}

/// Resources as CloudFormation lists them (SAM's types as the types SAM
/// transforms them to).
fn resources(app: &Application) -> Vec<Resource> {
    let r = |id: &str, ty: &str, physical: &str| Resource {
        logical_id: id.to_string(),
        resource_type: ty.to_string(),
        physical_id: physical.to_string(),
    };
    let mut out = Vec::new();
    out.extend(
        app.buckets
            .iter()
            .map(|b| r(&b.logical_id, "AWS::S3::Bucket", &b.name)),
    );
    out.extend(
        app.queues
            .iter()
            .map(|q| r(&q.logical_id, "AWS::SQS::Queue", &q.url)),
    );
    out.extend(
        app.tables
            .iter()
            .map(|t| r(&t.logical_id, "AWS::DynamoDB::Table", &t.name)),
    );
    out.extend(
        app.functions
            .iter()
            .map(|f| r(&f.logical_id, "AWS::Lambda::Function", &f.name)),
    );
    out.extend(
        app.http_apis
            .iter()
            .map(|a| r(&a.logical_id, "AWS::ApiGatewayV2::Api", &a.api_id)),
    );
    // A version's and an alias's physical id is its ARN, what `Ref` gives.
    out.extend(
        app.versions
            .iter()
            .map(|v| r(&v.logical_id, "AWS::Lambda::Version", &v.arn)),
    );
    out.extend(
        app.aliases
            .iter()
            .map(|a| r(&a.logical_id, "AWS::Lambda::Alias", &a.arn)),
    );
    // `Ref` of a capacity provider is its name.
    out.extend(
        app.capacity_providers
            .iter()
            .map(|p| r(&p.logical_id, "AWS::Lambda::CapacityProvider", &p.name)),
    );
    out
}

fn deployed(app: &Application) -> Deployed {
    Deployed {
        resources: resources(app),
        outputs: app
            .outputs
            .iter()
            .map(|(key, value)| Output {
                key: key.clone(),
                value: value.clone(),
                export: app.exports.get(key).cloned(),
            })
            .collect(),
    }
}

/// A template problem as CloudFormation reports a failed transform or
/// resource: the first problem's logical id, every problem in the reason.
fn template_failure(e: &TemplateError) -> Failure {
    let problems = e.problems();
    Failure {
        logical_id: problems.iter().find_map(|p| p.logical_id.clone()),
        resource_type: None,
        reason: match problems.is_empty() {
            true => e.to_string(),
            false => format!(
                "Template error: {}",
                problems
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        },
    }
}

fn stack_failure(e: StackError) -> Failure {
    let logical_id = match &e {
        StackError::MissingBinary { function, .. } | StackError::Policy { function, .. } => {
            Some(function.clone())
        }
        StackError::Template(t) => return template_failure(t),
        _ => None,
    };
    Failure {
        logical_id,
        resource_type: None,
        reason: e.to_string(),
    }
}
