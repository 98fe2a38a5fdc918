//! Which IAM actions on which resources one HTTP request asks for, by
//! service. Batches are authorised per action and table, as IAM does
//! (`BatchWriteItem` needs `dynamodb:BatchWriteItem` on each table;
//! `TransactWriteItems` the underlying `PutItem`, `UpdateItem`, ...;
//! `SendMessageBatch` needs `sqs:SendMessage`).
//! https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html
//! https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsqs.html
//! https://docs.aws.amazon.com/service-authorization/latest/reference/list_awslambda.html

use http::Method;
use serde_json::Value;

use crate::eval::Request;

/// How the service answers, so that a refusal is in its own protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    DynamoDb,
    Sqs,
    Lambda,
    S3,
    Sts,
    /// Anything else (CloudFormation, the admin endpoints): not enforced.
    Other,
}

/// What a request asks for: the protocol, the operation's name and the
/// (action, resource) pairs IAM evaluates.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub protocol: Protocol,
    pub operation: String,
    pub requests: Vec<Request>,
}

/// Region and account the resources' ARNs are in.
pub struct Where<'a> {
    pub region: &'a str,
    pub account: &'a str,
}

impl Where<'_> {
    fn arn(&self, service: &str, resource: &str) -> String {
        format!(
            "arn:aws:{service}:{}:{}:{resource}",
            self.region, self.account
        )
    }
}

pub fn classify(request: &http::Request<bytes::Bytes>, service: &str, at: &Where) -> Call {
    let target = request
        .headers()
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok());
    if let Some(target) = target {
        let (prefix, op) = target.split_once('.').unwrap_or((target, ""));
        let body: Value = serde_json::from_slice(request.body()).unwrap_or(Value::Null);
        return match prefix {
            p if p.starts_with("DynamoDB_") => dynamodb(op, &body, at),
            "AmazonSQS" => sqs(op, &body, at),
            _ => other(op),
        };
    }
    match service {
        "lambda" => lambda(request, at),
        "s3" => s3(request),
        "sts" => sts(request),
        _ => other(""),
    }
}

fn other(op: &str) -> Call {
    Call {
        protocol: Protocol::Other,
        operation: op.to_string(),
        requests: Vec::new(),
    }
}

fn dynamodb(op: &str, body: &Value, at: &Where) -> Call {
    let table = |name: &str| at.arn("dynamodb", &format!("table/{name}"));
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let mut requests = Vec::new();
    let mut push = |action: &str, resource: String| {
        let r = Request::new(format!("dynamodb:{action}"), resource);
        if !requests.contains(&r) {
            requests.push(r);
        }
    };
    match op {
        "BatchGetItem" | "BatchWriteItem" => {
            for name in body
                .get("RequestItems")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|m| m.keys())
            {
                push(op, table(name));
            }
        }
        "TransactWriteItems" | "TransactGetItems" => {
            for item in body
                .get("TransactItems")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                for (kind, action) in [
                    ("Put", "PutItem"),
                    ("Update", "UpdateItem"),
                    ("Delete", "DeleteItem"),
                    ("ConditionCheck", "ConditionCheckItem"),
                    ("Get", "GetItem"),
                ] {
                    if let Some(name) = item.get(kind).and_then(|i| str_of(i, "TableName")) {
                        push(action, table(&name));
                    }
                }
            }
        }
        // PartiQL is authorised per statement: dynamodb:PartiQLSelect, ...Insert,
        // ...Update or ...Delete on the table or index it names
        // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-iam.html).
        "ExecuteStatement" | "BatchExecuteStatement" | "ExecuteTransaction" => {
            let single = str_of(body, "Statement").into_iter();
            let listed = ["Statements", "TransactStatements"]
                .iter()
                .filter_map(|key| body.get(*key).and_then(Value::as_array))
                .flatten()
                .filter_map(|s| str_of(s, "Statement"));
            for statement in single.chain(listed) {
                match partiql_target(&statement) {
                    Some((action, target)) => push(action, at.arn("dynamodb", &target)),
                    None => push(op, "*".into()),
                }
            }
        }
        _ => match str_of(body, "TableName") {
            Some(name) => match str_of(body, "IndexName") {
                Some(index) => push(
                    op,
                    at.arn("dynamodb", &format!("table/{name}/index/{index}")),
                ),
                None => push(op, table(&name)),
            },
            None => push(op, "*".into()),
        },
    }
    Call {
        protocol: Protocol::DynamoDb,
        operation: op.to_string(),
        requests,
    }
}

/// The IAM action and the resource (`table/T` or `table/T/index/I`) a
/// PartiQL statement needs; `None` where it names no table (the service
/// refuses it as malformed).
fn partiql_target(statement: &str) -> Option<(&'static str, String)> {
    let tokens = partiql_tokens(statement);
    let word = |i: usize| tokens.get(i).map(|t| t.to_ascii_uppercase());
    let verb = tokens.iter().position(|t| {
        matches!(
            t.to_ascii_uppercase().as_str(),
            "SELECT" | "INSERT" | "UPDATE" | "DELETE"
        )
    })?;
    let (action, name_at) = match word(verb)?.as_str() {
        "SELECT" => ("PartiQLSelect", after(&tokens, verb, "FROM")?),
        "DELETE" => ("PartiQLDelete", after(&tokens, verb, "FROM")?),
        "INSERT" => ("PartiQLInsert", after(&tokens, verb, "INTO")?),
        _ => ("PartiQLUpdate", verb + 1),
    };
    let table = tokens.get(name_at)?;
    let index = (tokens.get(name_at + 1).map(String::as_str) == Some("."))
        .then(|| tokens.get(name_at + 2))
        .flatten();
    Some(match index {
        Some(index) => (action, format!("table/{table}/index/{index}")),
        None => (action, format!("table/{table}")),
    })
}

/// The position after the first `keyword` that follows `from`.
fn after(tokens: &[String], from: usize, keyword: &str) -> Option<usize> {
    tokens[from..]
        .iter()
        .position(|t| t.eq_ignore_ascii_case(keyword))
        .map(|at| from + at + 1)
}

/// Words, quoted identifiers (unquoted, `""` for a quote) and single
/// punctuation; string literals ('...') are skipped, so a `FROM` inside a
/// value is not read as the keyword.
fn partiql_tokens(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                let mut quoted = String::new();
                while let Some(q) = chars.next() {
                    if q == c && chars.peek() == Some(&c) {
                        chars.next();
                        quoted.push(c);
                    } else if q == c {
                        break;
                    } else {
                        quoted.push(q);
                    }
                }
                if c == '"' {
                    tokens.push(quoted);
                }
            }
            c if c.is_alphanumeric() || c == '_' || c == '-' => {
                let mut word = c.to_string();
                while let Some(&w) = chars.peek() {
                    if !(w.is_alphanumeric() || w == '_' || w == '-') {
                        break;
                    }
                    word.push(w);
                    chars.next();
                }
                tokens.push(word);
            }
            c if c.is_whitespace() => {}
            c => tokens.push(c.to_string()),
        }
    }
    tokens
}

fn sqs(op: &str, body: &Value, at: &Where) -> Call {
    let action = match op {
        "SendMessageBatch" => "SendMessage",
        "DeleteMessageBatch" => "DeleteMessage",
        "ChangeMessageVisibilityBatch" => "ChangeMessageVisibility",
        other => other,
    };
    let queue = body
        .get("QueueUrl")
        .and_then(Value::as_str)
        .and_then(|url| {
            let mut parts = url.trim_end_matches('/').rsplit('/');
            let name = parts.next()?;
            let account = parts
                .next()
                .filter(|a| a.bytes().all(|b| b.is_ascii_digit()));
            Some(format!(
                "arn:aws:sqs:{}:{}:{name}",
                at.region,
                account.unwrap_or(at.account)
            ))
        })
        .or_else(|| {
            body.get("QueueName")
                .and_then(Value::as_str)
                .map(|name| at.arn("sqs", name))
        })
        .unwrap_or_else(|| "*".into());
    let mut requests = vec![Request::new(format!("sqs:{action}"), queue.clone())];
    // "To be able to tag a queue on creation, you must have the
    // sqs:CreateQueue and sqs:TagQueue permissions" (CreateQueue, Amazon SQS
    // API Reference).
    let tagged = body
        .get("tags")
        .and_then(Value::as_object)
        .is_some_and(|tags| !tags.is_empty());
    if op == "CreateQueue" && tagged {
        requests.push(Request::new("sqs:TagQueue".to_string(), queue));
    }
    Call {
        protocol: Protocol::Sqs,
        operation: op.to_string(),
        requests,
    }
}

/// `name`, `name:qualifier`, or a (partial) ARN, as the function's ARN.
fn function_arn(name: &str, qualifier: Option<&str>, at: &Where) -> String {
    let name = match name.find("function:") {
        Some(i) => &name[i + "function:".len()..],
        None => name,
    };
    let (name, own) = match name.split_once(':') {
        Some((n, q)) => (n, Some(q)),
        None => (name, None),
    };
    match own.or(qualifier) {
        Some(q) => at.arn("lambda", &format!("function:{name}:{q}")),
        None => at.arn("lambda", &format!("function:{name}")),
    }
}

fn query_param(request: &http::Request<bytes::Bytes>, key: &str) -> Option<String> {
    request.uri().query()?.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == key).then(|| localcloud_core::url::percent_decode(v))
    })
}

fn lambda(request: &http::Request<bytes::Bytes>, at: &Where) -> Call {
    let path = request.uri().path();
    let method = request.method();
    let rest = path
        .strip_prefix("/2015-03-31/functions")
        .map(|r| r.trim_start_matches('/'));
    let segments: Vec<String> = rest
        .unwrap_or_default()
        .split('/')
        .filter(|s| !s.is_empty())
        .map(localcloud_core::url::percent_decode)
        .collect();
    let qualifier = query_param(request, "Qualifier");
    let function = |name: &str| function_arn(name, qualifier.as_deref(), at);
    let (op, resource) = match (rest.is_some(), method, segments.as_slice()) {
        (true, &Method::GET, []) => ("ListFunctions", "*".to_string()),
        (true, &Method::POST, [name, op]) if op == "invocations" => {
            ("InvokeFunction", function(name))
        }
        (true, &Method::GET, [name]) => ("GetFunction", function(name)),
        (true, &Method::GET, [name, op]) if op == "configuration" => {
            ("GetFunctionConfiguration", function(name))
        }
        (true, &Method::POST, [name, op]) if op == "versions" => ("PublishVersion", function(name)),
        (true, &Method::GET, [name, op]) if op == "versions" => {
            ("ListVersionsByFunction", function(name))
        }
        (true, &Method::POST, [name, op]) if op == "aliases" => ("CreateAlias", function(name)),
        (true, &Method::GET, [name, op]) if op == "aliases" => ("ListAliases", function(name)),
        (true, &Method::GET, [name, op, alias]) if op == "aliases" => (
            "GetAlias",
            function_arn(&format!("{name}:{alias}"), None, at),
        ),
        (true, &Method::PUT, [name, op, alias]) if op == "aliases" => (
            "UpdateAlias",
            function_arn(&format!("{name}:{alias}"), None, at),
        ),
        (true, &Method::DELETE, [name, op, alias]) if op == "aliases" => (
            "DeleteAlias",
            function_arn(&format!("{name}:{alias}"), None, at),
        ),
        (true, _, [name, ..]) => ("UnknownOperation", function(name)),
        _ if path.starts_with("/2015-03-31/event-source-mappings") => {
            ("ListEventSourceMappings", "*".to_string())
        }
        _ => ("UnknownOperation", "*".to_string()),
    };
    Call {
        protocol: Protocol::Lambda,
        operation: op.to_string(),
        requests: vec![Request::new(format!("lambda:{op}"), resource)],
    }
}

fn s3(request: &http::Request<bytes::Bytes>) -> Call {
    let host = request.headers().get("host").and_then(|v| v.to_str().ok());
    let address = localcloud_s3::address(host, request.uri().path());
    let query = request.uri().query().unwrap_or_default();
    let has = |k: &str| {
        query
            .split('&')
            .any(|p| p == k || p.starts_with(&format!("{k}=")))
    };
    let method = request.method();
    let (op, resource) = match (&address.bucket, &address.key) {
        (None, _) => ("ListAllMyBuckets", "*".to_string()),
        (Some(bucket), Some(key)) => {
            let object = format!("arn:aws:s3:::{bucket}/{key}");
            // A call naming a version needs the `*Version*` action.
            // https://docs.aws.amazon.com/AmazonS3/latest/userguide/using-with-s3-policy-actions.html
            let version = has("versionId");
            let op = match *method {
                Method::GET | Method::HEAD if has("tagging") && version => {
                    "GetObjectVersionTagging"
                }
                Method::GET | Method::HEAD if has("tagging") => "GetObjectTagging",
                Method::GET if has("acl") && version => "GetObjectVersionAcl",
                Method::GET if has("acl") => "GetObjectAcl",
                Method::GET if has("attributes") && version => "GetObjectVersionAttributes",
                Method::GET if has("attributes") => "GetObjectAttributes",
                Method::GET | Method::HEAD if version => "GetObjectVersion",
                Method::GET | Method::HEAD => "GetObject",
                Method::PUT if has("tagging") && version => "PutObjectVersionTagging",
                Method::PUT if has("tagging") => "PutObjectTagging",
                Method::PUT if has("acl") && version => "PutObjectVersionAcl",
                Method::PUT if has("acl") => "PutObjectAcl",
                Method::PUT | Method::POST => "PutObject",
                Method::DELETE if has("uploadId") => "AbortMultipartUpload",
                Method::DELETE if version => "DeleteObjectVersion",
                Method::DELETE => "DeleteObject",
                _ => "UnknownOperation",
            };
            (op, object)
        }
        (Some(bucket), None) => {
            let arn = format!("arn:aws:s3:::{bucket}");
            let op = match *method {
                Method::GET if has("location") => "GetBucketLocation",
                Method::GET if has("policy") => "GetBucketPolicy",
                Method::GET if has("versions") => "ListBucketVersions",
                Method::GET if has("acl") => "GetBucketAcl",
                Method::GET | Method::HEAD => "ListBucket",
                Method::PUT if has("acl") => "PutBucketAcl",
                Method::PUT if has("policy") => "PutBucketPolicy",
                Method::PUT => "CreateBucket",
                // `DeleteObjects` is authorised as `s3:DeleteObject`.
                Method::POST if has("delete") => "DeleteObject",
                Method::DELETE => "DeleteBucket",
                _ => "UnknownOperation",
            };
            (op, arn)
        }
    };
    Call {
        protocol: Protocol::S3,
        operation: op.to_string(),
        requests: vec![Request::new(format!("s3:{op}"), resource)],
    }
}

fn sts(request: &http::Request<bytes::Bytes>) -> Call {
    let action = sts_action(request);
    // `GetCallerIdentity` needs no permission; `GetSessionToken` and
    // `GetFederationToken` are refused to role sessions by STS itself (see
    // the STS service).
    let requests = match action.as_str() {
        "AssumeRole" => {
            let role = form_param(request, "RoleArn").unwrap_or_default();
            vec![Request::new("sts:AssumeRole", role)]
        }
        "DecodeAuthorizationMessage" => vec![Request::new("sts:DecodeAuthorizationMessage", "*")],
        _ => Vec::new(),
    };
    Call {
        protocol: Protocol::Sts,
        operation: action,
        requests,
    }
}

/// `Action` of a query-protocol request, from the form body or the query.
pub fn sts_action(request: &http::Request<bytes::Bytes>) -> String {
    form_param(request, "Action").unwrap_or_default()
}

/// One parameter of a query-protocol request (form body, else URL query).
pub fn form_param(request: &http::Request<bytes::Bytes>, key: &str) -> Option<String> {
    let body = std::str::from_utf8(request.body()).unwrap_or_default();
    [body, request.uri().query().unwrap_or_default()]
        .into_iter()
        .flat_map(|s| s.split('&'))
        .find_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            (k == key).then(|| localcloud_core::url::form_decode(v))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: Where<'static> = Where {
        region: "us-east-1",
        account: "123456789012",
    };

    fn json_call(target: &str, body: &str) -> Call {
        let request = http::Request::post("/")
            .header("x-amz-target", target)
            .body(bytes::Bytes::from(body.to_string()))
            .unwrap();
        classify(&request, "dynamodb", &AT)
    }

    fn pairs(call: &Call) -> Vec<(String, String)> {
        call.requests
            .iter()
            .map(|r| (r.action.clone(), r.resource.clone()))
            .collect()
    }

    #[test]
    fn dynamodb_calls_name_their_tables_and_indexes() {
        let t = |n: &str| format!("arn:aws:dynamodb:us-east-1:123456789012:table/{n}");
        let cases = [
            (
                "DynamoDB_20120810.GetItem",
                r#"{"TableName":"Users","Key":{}}"#,
                vec![("dynamodb:GetItem", t("Users"))],
            ),
            (
                "DynamoDB_20120810.Query",
                r#"{"TableName":"Users","IndexName":"ByEmail"}"#,
                vec![("dynamodb:Query", t("Users/index/ByEmail"))],
            ),
            (
                "DynamoDB_20120810.BatchGetItem",
                r#"{"RequestItems":{"A":{},"B":{}}}"#,
                vec![
                    ("dynamodb:BatchGetItem", t("A")),
                    ("dynamodb:BatchGetItem", t("B")),
                ],
            ),
            (
                "DynamoDB_20120810.TransactWriteItems",
                r#"{"TransactItems":[{"Put":{"TableName":"A"}},{"Update":{"TableName":"B"}},{"Put":{"TableName":"A"}},{"ConditionCheck":{"TableName":"B"}}]}"#,
                vec![
                    ("dynamodb:PutItem", t("A")),
                    ("dynamodb:UpdateItem", t("B")),
                    ("dynamodb:ConditionCheckItem", t("B")),
                ],
            ),
            (
                "DynamoDB_20120810.ExecuteStatement",
                r#"{"Statement":"SELECT * FROM \"Users\".\"ByEmail\" WHERE email = 'x FROM y'"}"#,
                vec![("dynamodb:PartiQLSelect", t("Users/index/ByEmail"))],
            ),
            (
                "DynamoDB_20120810.BatchExecuteStatement",
                r#"{"Statements":[{"Statement":"insert into Orders value {'id': ?}"},{"Statement":"DELETE FROM \"Orders\" WHERE id = 1"}]}"#,
                vec![
                    ("dynamodb:PartiQLInsert", t("Orders")),
                    ("dynamodb:PartiQLDelete", t("Orders")),
                ],
            ),
            (
                "DynamoDB_20120810.ExecuteTransaction",
                r#"{"TransactStatements":[{"Statement":"UPDATE \"A\" SET n = n + 1 WHERE id = 'a'"},{"Statement":"EXISTS(SELECT * FROM B WHERE id = 'b')"}]}"#,
                vec![
                    ("dynamodb:PartiQLUpdate", t("A")),
                    ("dynamodb:PartiQLSelect", t("B")),
                ],
            ),
            (
                "DynamoDB_20120810.ExecuteStatement",
                r#"{"Statement":"not a statement"}"#,
                vec![("dynamodb:ExecuteStatement", "*".into())],
            ),
            (
                "DynamoDB_20120810.ListTables",
                "{}",
                vec![("dynamodb:ListTables", "*".into())],
            ),
            (
                "DynamoDB_20120810.GetItem",
                "not json",
                vec![("dynamodb:GetItem", "*".into())],
            ),
        ];
        for (target, body, want) in cases {
            let want: Vec<(String, String)> =
                want.into_iter().map(|(a, r)| (a.to_string(), r)).collect();
            assert_eq!(pairs(&json_call(target, body)), want, "{target} {body}");
        }
    }

    #[test]
    fn sqs_batches_are_the_single_action_on_the_url_queue() {
        let call = json_call(
            "AmazonSQS.SendMessageBatch",
            r#"{"QueueUrl":"http://127.0.0.1:4566/123456789012/jobs","Entries":[]}"#,
        );
        assert_eq!(call.protocol, Protocol::Sqs);
        assert_eq!(
            pairs(&call),
            vec![(
                "sqs:SendMessage".to_string(),
                "arn:aws:sqs:us-east-1:123456789012:jobs".to_string()
            )]
        );
        let create = json_call("AmazonSQS.CreateQueue", r#"{"QueueName":"new"}"#);
        assert_eq!(
            pairs(&create),
            vec![(
                "sqs:CreateQueue".to_string(),
                "arn:aws:sqs:us-east-1:123456789012:new".to_string()
            )]
        );
    }

    #[test]
    fn creating_a_tagged_queue_asks_for_tag_queue_too() {
        let tagged = json_call(
            "AmazonSQS.CreateQueue",
            r#"{"QueueName":"new","tags":{"heartbeat":"1"}}"#,
        );
        let queue = "arn:aws:sqs:us-east-1:123456789012:new".to_string();
        assert_eq!(
            pairs(&tagged),
            vec![
                ("sqs:CreateQueue".to_string(), queue.clone()),
                ("sqs:TagQueue".to_string(), queue)
            ]
        );
        let no_tags = json_call("AmazonSQS.CreateQueue", r#"{"QueueName":"new","tags":{}}"#);
        assert_eq!(no_tags.requests.len(), 1);
    }

    #[test]
    fn lambda_invoke_names_the_function_and_its_qualifier() {
        let call = |path: &str| {
            let request = http::Request::post(path).body(bytes::Bytes::new()).unwrap();
            pairs(&classify(&request, "lambda", &AT))
        };
        let f = "arn:aws:lambda:us-east-1:123456789012:function:worker";
        assert_eq!(
            call("/2015-03-31/functions/worker/invocations"),
            vec![("lambda:InvokeFunction".into(), f.to_string())]
        );
        assert_eq!(
            call("/2015-03-31/functions/worker/invocations?Qualifier=live"),
            vec![("lambda:InvokeFunction".into(), format!("{f}:live"))]
        );
        assert_eq!(
            call("/2015-03-31/functions/arn%3Aaws%3Alambda%3Aus-east-1%3A123456789012%3Afunction%3Aworker%3A3/invocations"),
            vec![("lambda:InvokeFunction".into(), format!("{f}:3"))]
        );
    }

    /// The (action, resource) pairs of one path-style S3 request.
    fn s3_call(method: &str, path: &str) -> Vec<(String, String)> {
        let request = http::Request::builder()
            .method(method)
            .uri(path)
            .header("host", "127.0.0.1:4566")
            .body(bytes::Bytes::new())
            .unwrap();
        pairs(&classify(&request, "s3", &AT))
    }

    #[test]
    fn s3_objects_and_buckets() {
        let call = s3_call;
        assert_eq!(
            call("GET", "/b/k/x.txt"),
            vec![("s3:GetObject".into(), "arn:aws:s3:::b/k/x.txt".into())]
        );
        assert_eq!(
            call("PUT", "/b/k"),
            vec![("s3:PutObject".into(), "arn:aws:s3:::b/k".into())]
        );
        assert_eq!(
            call("GET", "/b?list-type=2"),
            vec![("s3:ListBucket".into(), "arn:aws:s3:::b".into())]
        );
    }

    #[test]
    fn s3_calls_naming_a_version_or_an_acl_need_their_own_actions() {
        let action = |method: &str, path: &str| s3_call(method, path)[0].0.clone();
        for (method, path, expected) in [
            ("GET", "/b/k?versionId=v1", "s3:GetObjectVersion"),
            ("DELETE", "/b/k?versionId=v1", "s3:DeleteObjectVersion"),
            (
                "GET",
                "/b/k?tagging&versionId=v1",
                "s3:GetObjectVersionTagging",
            ),
            ("PUT", "/b/k?acl", "s3:PutObjectAcl"),
            ("GET", "/b/k?attributes", "s3:GetObjectAttributes"),
            ("GET", "/b?versions", "s3:ListBucketVersions"),
            ("PUT", "/b?acl", "s3:PutBucketAcl"),
        ] {
            assert_eq!(action(method, path), expected, "{method} {path}");
        }
    }
}
