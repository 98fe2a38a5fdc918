//! Intrinsic functions: `Ref`, `Fn::GetAtt`, `Fn::Sub`, `Fn::Join`,
//! `Fn::Select`, `Fn::Split`, `Fn::If`, `Fn::FindInMap` and the condition
//! functions, evaluated against parameters, conditions and resource names.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::context::ResolveContext;
use crate::yaml::{Kind, Node};

/// What a logical id stands for, as far as `Ref` and `Fn::GetAtt` care.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ResKind {
    Function,
    HttpApi,
    /// An `AWS::Serverless::Api` (REST API).
    RestApi,
    /// The `AWS::Lambda::Url` SAM generates as `{Function}Url` from
    /// `FunctionUrlConfig`; its name is the function's logical id.
    FunctionUrl,
    Queue,
    Table,
    /// `AWS::S3::Bucket`.
    Bucket,
    /// `AWS::Serverless::CapacityProvider` or `AWS::Lambda::CapacityProvider`:
    /// `Ref` is its name.
    CapacityProvider,
    /// The execution role SAM generates as `{Function}Role`; only its name
    /// and ARN exist locally.
    Role,
    /// `AWS::Lambda::Version`: its name is its ARN, what `Ref` gives.
    Version,
    /// `AWS::Lambda::Alias`: its name is its ARN, what `Ref` gives.
    Alias,
    /// A type the local cloud does not create; referring to it is an error.
    Other(String),
}

#[derive(Debug, Clone)]
pub(crate) struct Symbol {
    pub kind: ResKind,
    /// Physical name (API id for APIs); `None` until it is resolved.
    pub name: Option<String>,
}

pub(crate) type Symbols = BTreeMap<String, Symbol>;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ResolveError {
    /// Depends on a resource name or condition not computed yet.
    Pending(String),
    Invalid {
        line: usize,
        message: String,
        /// Keys from the resolved node down to the failing one, dotted.
        path: String,
        cause: Cause,
    },
}

/// Why a node is invalid, where a caller treats one cause apart from the
/// rest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Cause {
    /// `Fn::ImportValue` of an export no stack has.
    NoExport,
    /// Anything else the template gets wrong.
    Other,
}

impl ResolveError {
    /// The same error, one key further from the resolved node's root.
    fn under(self, key: &str) -> ResolveError {
        match self {
            ResolveError::Invalid {
                line,
                message,
                path,
                cause,
            } => ResolveError::Invalid {
                line,
                message,
                path: if path.is_empty() {
                    key.to_string()
                } else {
                    format!("{key}.{path}")
                },
                cause,
            },
            pending => pending,
        }
    }
}

type Resolved = Result<Option<Value>, ResolveError>;

fn invalid<T>(line: usize, message: impl Into<String>) -> Result<T, ResolveError> {
    invalid_because(Cause::Other, line, message)
}

fn invalid_because<T>(
    cause: Cause,
    line: usize,
    message: impl Into<String>,
) -> Result<T, ResolveError> {
    Err(ResolveError::Invalid {
        line,
        message: message.into(),
        path: String::new(),
        cause,
    })
}

pub(crate) struct Scope<'a> {
    pub ctx: &'a ResolveContext,
    pub params: &'a BTreeMap<String, Value>,
    /// Every declared condition; `None` while not yet evaluated.
    pub conditions: &'a BTreeMap<String, Option<bool>>,
    pub symbols: &'a Symbols,
    pub mappings: Option<&'a Node>,
}

impl Scope<'_> {
    /// Resolves a node to JSON; `None` means `AWS::NoValue` (the property or
    /// list item disappears).
    pub fn resolve(&self, node: &Node) -> Resolved {
        if let Some((name, arg)) = node.intrinsic() {
            return self.intrinsic(name, arg, node.line);
        }
        match &node.kind {
            Kind::Scalar { .. } => Ok(node.scalar_value()),
            Kind::Seq(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.extend(self.resolve(item)?);
                }
                Ok(Some(Value::Array(out)))
            }
            Kind::Map(entries) => {
                let mut out = serde_json::Map::new();
                for e in entries {
                    let v = self.resolve(&e.value).map_err(|err| err.under(&e.key))?;
                    if let Some(v) = v {
                        out.insert(e.key.clone(), v);
                    }
                }
                Ok(Some(Value::Object(out)))
            }
        }
    }

    /// Resolves to a value that must exist (not `AWS::NoValue`).
    pub fn value(&self, node: &Node) -> Result<Value, ResolveError> {
        match self.resolve(node)? {
            Some(v) => Ok(v),
            None => invalid(node.line, "AWS::NoValue is not allowed here"),
        }
    }

    pub fn string(&self, node: &Node) -> Result<String, ResolveError> {
        let v = self.value(node)?;
        as_text(&v).ok_or(()).or_else(|_| {
            invalid(
                node.line,
                format!("expected a string, got {}", describe(&v)),
            )
        })
    }

    fn list(&self, node: &Node) -> Result<Vec<Value>, ResolveError> {
        match self.value(node)? {
            Value::Array(items) => Ok(items),
            v => invalid(node.line, format!("expected a list, got {}", describe(&v))),
        }
    }

    fn args<'n, const N: usize>(
        &self,
        arg: &'n Node,
        name: &str,
    ) -> Result<&'n [Node; N], ResolveError> {
        match arg.seq().and_then(|items| items.try_into().ok()) {
            Some(items) => Ok(items),
            None => invalid(arg.line, format!("{name} takes a list of {N} items")),
        }
    }

    fn intrinsic(&self, name: &str, arg: &Node, line: usize) -> Resolved {
        match name {
            "Ref" => self.reference(&self.string(arg)?, line),
            "Condition" => self.condition(&self.string(arg)?, line).map(bool_value),
            "Fn::GetAtt" => self.get_att(arg).map(Some),
            "Fn::Sub" => self.sub(arg).map(|s| Some(Value::String(s))),
            "Fn::Join" => self.join(arg).map(|s| Some(Value::String(s))),
            "Fn::Select" => self.select(arg).map(Some),
            "Fn::Split" => self.split(arg).map(Some),
            "Fn::If" => self.fn_if(arg),
            "Fn::FindInMap" => self.find_in_map(arg).map(Some),
            "Fn::ImportValue" => {
                let name = self.string(arg)?;
                match self.ctx.imports.get(&name) {
                    Some(v) => Ok(Some(Value::String(v.clone()))),
                    None => invalid_because(
                        Cause::NoExport,
                        line,
                        format!("No export named {name} found"),
                    ),
                }
            }
            "Fn::Equals" | "Fn::Not" | "Fn::And" | "Fn::Or" => {
                self.eval_condition_fn(name, arg).map(bool_value)
            }
            other => invalid(
                line,
                format!("intrinsic function {other} is not supported locally"),
            ),
        }
    }

    fn reference(&self, name: &str, line: usize) -> Resolved {
        if let Some(v) = self.pseudo(name) {
            return Ok(v);
        }
        if let Some(v) = self.params.get(name) {
            return Ok(Some(v.clone()));
        }
        let (kind, res_name) = self.symbol(name, line)?;
        let v = match kind {
            ResKind::Queue => self.ctx.queue_url(res_name),
            ResKind::Function
            | ResKind::Table
            | ResKind::HttpApi
            | ResKind::RestApi
            | ResKind::Role
            | ResKind::Bucket
            | ResKind::CapacityProvider => res_name.to_string(),
            ResKind::FunctionUrl => self.ctx.arn("lambda", &format!("function:{res_name}")),
            ResKind::Version | ResKind::Alias => res_name.to_string(),
            ResKind::Other(ty) => return invalid(line, format!("cannot Ref a {ty}")),
        };
        Ok(Some(Value::String(v)))
    }

    fn pseudo(&self, name: &str) -> Option<Option<Value>> {
        let ctx = self.ctx;
        let s = |v: &str| Some(Some(Value::String(v.to_string())));
        match name {
            "AWS::Region" => s(&ctx.region),
            "AWS::AccountId" => s(&ctx.account_id),
            "AWS::StackName" => s(&ctx.stack_name),
            "AWS::Partition" => s(&ctx.partition),
            "AWS::URLSuffix" => s(&ctx.url_suffix),
            "AWS::StackId" => s(&ctx.arn(
                "cloudformation",
                &format!(
                    "stack/{}/00000000-0000-0000-0000-000000000000",
                    ctx.stack_name
                ),
            )),
            "AWS::NotificationARNs" => Some(Some(Value::Array(Vec::new()))),
            "AWS::NoValue" => Some(None),
            _ => None,
        }
    }

    /// The kind and physical name of a resource that can be referred to.
    fn symbol(&self, id: &str, line: usize) -> Result<(&ResKind, &str), ResolveError> {
        let Some(sym) = self.symbols.get(id) else {
            return invalid(
                line,
                format!("`{id}` is not a parameter, pseudo parameter or resource"),
            );
        };
        if let ResKind::Other(ty) = &sym.kind {
            return invalid(
                line,
                format!("`{id}` has type {ty}, which the local cloud does not create"),
            );
        }
        match &sym.name {
            Some(name) => Ok((&sym.kind, name)),
            None => Err(ResolveError::Pending(id.to_string())),
        }
    }

    fn get_att(&self, arg: &Node) -> Result<Value, ResolveError> {
        let (id, attr) = match arg.seq() {
            Some([id, attr]) => (self.string(id)?, self.string(attr)?),
            _ => match arg.text().and_then(|t| t.split_once('.')) {
                Some((id, attr)) => (id.to_string(), attr.to_string()),
                None => return invalid(arg.line, "Fn::GetAtt takes [LogicalId, Attribute]"),
            },
        };
        self.attribute(&id, &attr, arg.line).map(Value::String)
    }

    fn attribute(&self, id: &str, attr: &str, line: usize) -> Result<String, ResolveError> {
        let (kind, name) = self.symbol(id, line)?;
        let ctx = self.ctx;
        let v = match (kind, attr) {
            (ResKind::Queue, "Arn") => ctx.arn("sqs", name),
            (ResKind::Queue, "QueueName") => name.to_string(),
            (ResKind::Queue, "QueueUrl") => ctx.queue_url(name),
            (ResKind::Table, "Arn") => ctx.arn("dynamodb", &format!("table/{name}")),
            (ResKind::Function, "Arn") => ctx.arn("lambda", &format!("function:{name}")),
            (ResKind::CapacityProvider, "Arn") => {
                ctx.arn("lambda", &format!("capacity-provider:{name}"))
            }
            (ResKind::HttpApi, "ApiEndpoint") => ctx.api_url(id, name),
            (ResKind::HttpApi, "ApiId") => name.to_string(),
            (ResKind::RestApi, "RootResourceId") => name.chars().rev().take(6).collect(),
            (ResKind::FunctionUrl, "FunctionUrl") => {
                format!("{}/", ctx.api_url(id, name).trim_end_matches('/'))
            }
            (ResKind::FunctionUrl, "FunctionArn") => ctx.arn("lambda", &format!("function:{name}")),
            // S3 ARNs have neither region nor account.
            (ResKind::Bucket, "Arn") => format!("arn:{}:s3:::{name}", ctx.partition),
            (ResKind::Bucket, "DomainName") => format!("{name}.s3.{}", ctx.url_suffix),
            (ResKind::Bucket, "RegionalDomainName") => {
                format!("{name}.s3.{}.{}", ctx.region, ctx.url_suffix)
            }
            // IAM ARNs have no region.
            (ResKind::Role, "Arn") => {
                format!("arn:{}:iam::{}:role/{name}", ctx.partition, ctx.account_id)
            }
            (ResKind::Version | ResKind::Alias, _)
                if version_attribute(kind, attr, name).is_some() =>
            {
                version_attribute(kind, attr, name).unwrap_or_default()
            }
            _ => {
                return invalid(
                    line,
                    format!("attribute {id}.{attr} is not supported locally"),
                )
            }
        };
        Ok(v)
    }

    fn sub(&self, arg: &Node) -> Result<String, ResolveError> {
        let (template, vars) = match arg.seq() {
            Some([t, vars]) => (t, vars.map()),
            Some(_) => return invalid(arg.line, "Fn::Sub takes a string or [string, map]"),
            None => (arg, None),
        };
        let Some(text) = template.text() else {
            return invalid(template.line, "Fn::Sub template must be a string");
        };
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                return invalid(template.line, format!("unterminated ${{ in `{text}`"));
            };
            let var = &after[..end];
            if let Some(literal) = var.strip_prefix('!') {
                out.push_str("${");
                out.push_str(literal);
                out.push('}');
            } else {
                out.push_str(&self.sub_variable(var.trim(), vars, template.line)?);
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn sub_variable(
        &self,
        var: &str,
        vars: Option<&[crate::yaml::Entry]>,
        line: usize,
    ) -> Result<String, ResolveError> {
        if let Some(e) = vars.and_then(|v| v.iter().find(|e| e.key == var)) {
            return self.string(&e.value);
        }
        if self.pseudo(var).is_none() && !self.params.contains_key(var) {
            if let Some((id, attr)) = var.split_once('.') {
                return self.attribute(id, attr, line);
            }
        }
        let v = self.reference(var, line)?.unwrap_or(Value::Null);
        as_text(&v).ok_or(()).or_else(|_| {
            invalid(
                line,
                format!("${{{var}}} is {}, not a string", describe(&v)),
            )
        })
    }

    fn join(&self, arg: &Node) -> Result<String, ResolveError> {
        let [delim, list] = self.args(arg, "Fn::Join")?;
        let delim = self.string(delim)?;
        let items = self.list(list)?;
        let mut parts = Vec::with_capacity(items.len());
        for v in &items {
            match as_text(v) {
                Some(s) => parts.push(s),
                None => return invalid(list.line, format!("cannot join {}", describe(v))),
            }
        }
        Ok(parts.join(&delim))
    }

    fn select(&self, arg: &Node) -> Result<Value, ResolveError> {
        let [index, list] = self.args(arg, "Fn::Select")?;
        let i = self
            .string(index)?
            .parse::<usize>()
            .or_else(|_| invalid(index.line, "Fn::Select index must be a whole number"))?;
        let items = self.list(list)?;
        match items.into_iter().nth(i) {
            Some(v) => Ok(v),
            None => invalid(arg.line, format!("Fn::Select index {i} is out of range")),
        }
    }

    fn split(&self, arg: &Node) -> Result<Value, ResolveError> {
        let [delim, source] = self.args(arg, "Fn::Split")?;
        let delim = self.string(delim)?;
        if delim.is_empty() {
            return invalid(arg.line, "Fn::Split delimiter must not be empty");
        }
        let source = self.string(source)?;
        Ok(Value::Array(
            source.split(&delim).map(Value::from).collect(),
        ))
    }

    fn fn_if(&self, arg: &Node) -> Resolved {
        let [cond, then, otherwise] = self.args(arg, "Fn::If")?;
        let name = self.string(cond)?;
        if self.condition(&name, cond.line)? {
            self.resolve(then)
        } else {
            self.resolve(otherwise)
        }
    }

    fn find_in_map(&self, arg: &Node) -> Result<Value, ResolveError> {
        let [map, top, second] = self.args(arg, "Fn::FindInMap")?;
        let keys = [self.string(map)?, self.string(top)?, self.string(second)?];
        let mut node = self.mappings;
        for key in &keys {
            node = node.and_then(|n| n.get(key)).map(|e| &e.value);
        }
        match node {
            Some(n) => self.value(n),
            None => invalid(arg.line, format!("no mapping value at {}", keys.join("."))),
        }
    }

    pub fn condition(&self, name: &str, line: usize) -> Result<bool, ResolveError> {
        match self.conditions.get(name) {
            Some(Some(b)) => Ok(*b),
            Some(None) => Err(ResolveError::Pending(format!("condition {name}"))),
            None => invalid(line, format!("unknown condition `{name}`")),
        }
    }

    /// Evaluates a condition expression (as written under `Conditions`).
    pub fn eval_condition(&self, node: &Node) -> Result<bool, ResolveError> {
        match node.intrinsic() {
            Some(("Condition", arg)) => self.condition(&self.string(arg)?, arg.line),
            Some((name @ ("Fn::Equals" | "Fn::Not" | "Fn::And" | "Fn::Or"), arg)) => {
                self.eval_condition_fn(name, arg)
            }
            _ => invalid(
                node.line,
                "a condition must be Fn::Equals, Fn::Not, Fn::And, Fn::Or or Condition",
            ),
        }
    }

    fn eval_condition_fn(&self, name: &str, arg: &Node) -> Result<bool, ResolveError> {
        let Some(items) = arg.seq() else {
            return invalid(arg.line, format!("{name} takes a list"));
        };
        match name {
            "Fn::Equals" => {
                let [a, b] = self.args(arg, name)?;
                Ok(loose_text(&self.value(a)?) == loose_text(&self.value(b)?))
            }
            "Fn::Not" => {
                let [c] = self.args(arg, name)?;
                Ok(!self.eval_condition(c)?)
            }
            _ => {
                if !(2..=10).contains(&items.len()) {
                    return invalid(arg.line, format!("{name} takes 2 to 10 conditions"));
                }
                let mut values = Vec::with_capacity(items.len());
                for c in items {
                    values.push(self.eval_condition(c)?);
                }
                Ok(if name == "Fn::And" {
                    values.iter().all(|b| *b)
                } else {
                    values.iter().any(|b| *b)
                })
            }
        }
    }
}

fn bool_value(b: bool) -> Option<Value> {
    Some(Value::Bool(b))
}

/// Strings, numbers and booleans as CloudFormation renders them in text.
pub(crate) fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// For `Fn::Equals`: compares scalars by their text, lists as JSON.
fn loose_text(v: &Value) -> String {
    as_text(v).unwrap_or_else(|| v.to_string())
}

pub(crate) fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// `Fn::GetAtt` of a version or an alias; `name` is its ARN.
pub(crate) fn version_attribute(kind: &ResKind, attr: &str, name: &str) -> Option<String> {
    match (kind, attr) {
        (ResKind::Version, "Version") => Some(name.rsplit(':').next()?.to_string()),
        (ResKind::Version, "FunctionArn") | (ResKind::Alias, "AliasArn") => Some(name.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_the_version_number_and_the_arns() {
        let arn = "arn:aws:lambda:us-east-1:1:function:f:1";
        assert_eq!(
            version_attribute(&ResKind::Version, "Version", arn).as_deref(),
            Some("1")
        );
        assert_eq!(
            version_attribute(&ResKind::Version, "FunctionArn", arn).as_deref(),
            Some(arn)
        );
        assert_eq!(
            version_attribute(&ResKind::Alias, "AliasArn", "x:live").as_deref(),
            Some("x:live")
        );
        assert_eq!(version_attribute(&ResKind::Alias, "Arn", "x"), None);
    }
}
