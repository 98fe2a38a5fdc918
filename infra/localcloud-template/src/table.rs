//! `AWS::DynamoDB::Table` and `AWS::Serverless::SimpleTable` as the body of a
//! DynamoDB `CreateTable` request.

use serde_json::{json, Map, Value};

use crate::diag::{At, Severity};
use crate::model::Table;
use crate::props::{check_keys, Reader};
use crate::scope::as_text;
use crate::yaml::Node;

const TABLE_USED: &[&str] = &[
    "TableName",
    "KeySchema",
    "AttributeDefinitions",
    "BillingMode",
    "ProvisionedThroughput",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "TimeToLiveSpecification",
    "TableClass",
];
const TABLE_IGNORED: &[&str] = &[
    "Tags",
    "SSESpecification",
    "PointInTimeRecoverySpecification",
    "DeletionProtectionEnabled",
    "ContributorInsightsSpecification",
    "StreamSpecification",
    "KinesisStreamSpecification",
    "ResourcePolicy",
    "WarmThroughput",
    "OnDemandThroughput",
];
const SIMPLE_USED: &[&str] = &["TableName", "PrimaryKey", "ProvisionedThroughput"];
const SIMPLE_IGNORED: &[&str] = &[
    "Tags",
    "SSESpecification",
    "PointInTimeRecoverySpecification",
];
/// Index properties that `CreateTable` does not take and the local cloud ignores.
const INDEX_IGNORED: &[&str] = &[
    "ContributorInsightsSpecification",
    "OnDemandThroughput",
    "WarmThroughput",
];

pub(crate) fn table(id: &str, props: &Node, name: &str, r: &mut Reader) -> Option<Table> {
    let at = At::resource(id).child("Properties");
    check_keys(props, TABLE_USED, TABLE_IGNORED, &at, r.diags);
    let errors_before = r.diags.items.len();
    let mut body = Map::new();
    body.insert("TableName".into(), Value::from(name));
    let fail =
        |r: &mut Reader, key: &str, line: usize, m: String| r.diags.error(&at.child(key), line, m);
    let attrs = r.value(props, "AttributeDefinitions", &at);
    let keys = r.value(props, "KeySchema", &at);
    match (&attrs, &keys) {
        (Some((a, la)), Some((k, lk))) => {
            match attribute_definitions(a) {
                Ok(v) => {
                    body.insert("AttributeDefinitions".into(), v);
                }
                Err(m) => fail(r, "AttributeDefinitions", *la, m),
            }
            match key_schema(k) {
                Ok(v) => {
                    body.insert("KeySchema".into(), v);
                }
                Err(m) => fail(r, "KeySchema", *lk, m),
            }
        }
        _ => fail(
            r,
            "KeySchema",
            props.line,
            "KeySchema and AttributeDefinitions are required".into(),
        ),
    }
    let mode = r
        .string(props, "BillingMode", &at)
        .unwrap_or_else(|| "PROVISIONED".to_string());
    let provisioned = mode == "PROVISIONED";
    if !provisioned && mode != "PAY_PER_REQUEST" {
        let line = props.get("BillingMode").map_or(props.line, |e| e.key_line);
        fail(
            r,
            "BillingMode",
            line,
            format!("`{mode}` is not PROVISIONED or PAY_PER_REQUEST"),
        );
    }
    body.insert("BillingMode".into(), Value::from(mode));
    let throughput = r.value(props, "ProvisionedThroughput", &at);
    match throughput_for(provisioned, throughput.as_ref().map(|(v, _)| v)) {
        Ok(Some(t)) => {
            body.insert("ProvisionedThroughput".into(), t);
        }
        Ok(None) => {}
        Err(m) => {
            let line = throughput.map_or(props.line, |(_, l)| l);
            fail(r, "ProvisionedThroughput", line, m)
        }
    }
    for key in ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"] {
        let Some((v, line)) = r.value(props, key, &at) else {
            continue;
        };
        let global = key.starts_with("Global");
        match indexes(&v, global, provisioned) {
            Ok((v, ignored)) => {
                for k in ignored {
                    r.diags
                        .warn(&at.child(key).child(&k), line, "ignored by the local cloud");
                }
                body.insert(key.into(), v);
            }
            Err(m) => fail(r, key, line, m),
        }
    }
    if let Some(class) = r.string(props, "TableClass", &at) {
        body.insert("TableClass".into(), Value::from(class));
    }
    if body.contains_key("AttributeDefinitions") && body.contains_key("KeySchema") {
        if let Err(m) = definitions_match_keys(&body) {
            let line = attrs.as_ref().map_or(props.line, |(_, l)| *l);
            fail(r, "AttributeDefinitions", line, m);
        }
        if let Err((key, m)) = check_indexes(&body) {
            let line = props.get(key).map_or(props.line, |e| e.key_line);
            fail(r, key, line, m);
        }
    }
    let ttl_attribute = ttl(props, &at, r);
    check_name(props, name, &at, r);
    finish(id, name, body, ttl_attribute, errors_before, r)
}

pub(crate) fn simple_table(id: &str, props: &Node, name: &str, r: &mut Reader) -> Option<Table> {
    let at = At::resource(id).child("Properties");
    check_keys(props, SIMPLE_USED, SIMPLE_IGNORED, &at, r.diags);
    let errors_before = r.diags.items.len();
    let (key_name, key_type) = match r.value(props, "PrimaryKey", &at) {
        None => ("id".to_string(), "S"),
        Some((v, line)) => {
            let key_name = v.get("Name").and_then(as_text);
            let ty = match v.get("Type").and_then(as_text).as_deref() {
                Some("String") => Some("S"),
                Some("Number") => Some("N"),
                Some("Binary") => Some("B"),
                _ => None,
            };
            match (key_name, ty) {
                (Some(n), Some(t)) => (n, t),
                _ => {
                    let m = "PrimaryKey needs Name and Type (String, Number or Binary)";
                    r.diags.error(&at.child("PrimaryKey"), line, m);
                    ("id".to_string(), "S")
                }
            }
        }
    };
    let mut body = Map::new();
    body.insert("TableName".into(), Value::from(name));
    body.insert(
        "AttributeDefinitions".into(),
        json!([{"AttributeName": key_name, "AttributeType": key_type}]),
    );
    body.insert(
        "KeySchema".into(),
        json!([{"AttributeName": key_name, "KeyType": "HASH"}]),
    );
    match r.value(props, "ProvisionedThroughput", &at) {
        // SAM creates an on-demand table unless throughput is given.
        None => {
            body.insert("BillingMode".into(), Value::from("PAY_PER_REQUEST"));
        }
        Some((v, line)) => match throughput_for(true, Some(&v)) {
            Ok(t) => {
                body.insert("BillingMode".into(), Value::from("PROVISIONED"));
                body.insert("ProvisionedThroughput".into(), t.unwrap_or_default());
            }
            Err(m) => r.diags.error(&at.child("ProvisionedThroughput"), line, m),
        },
    }
    check_name(props, name, &at, r);
    finish(id, name, body, None, errors_before, r)
}

fn finish(
    id: &str,
    name: &str,
    body: Map<String, Value>,
    ttl_attribute: Option<String>,
    errors_before: usize,
    r: &mut Reader,
) -> Option<Table> {
    let failed = r.diags.items[errors_before..]
        .iter()
        .any(|d| d.severity == Severity::Error);
    (!failed).then(|| Table {
        logical_id: id.to_string(),
        name: name.to_string(),
        arn: r.scope.ctx.arn("dynamodb", &format!("table/{name}")),
        create_table: Value::Object(body),
        ttl_attribute,
    })
}

fn check_name(props: &Node, name: &str, at: &At, r: &mut Reader) {
    if let Err(m) = check_table_name(name) {
        let line = props.get("TableName").map_or(props.line, |e| e.key_line);
        r.diags.error(&at.child("TableName"), line, m);
    }
}

pub(crate) fn check_table_name(name: &str) -> Result<(), String> {
    let ok = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if (3..=255).contains(&name.len()) && ok {
        Ok(())
    } else {
        Err(format!(
            "table name `{name}` must be 3 to 255 letters, digits, _ - or ."
        ))
    }
}

fn ttl(props: &Node, at: &At, r: &mut Reader) -> Option<String> {
    let (v, line) = r.value(props, "TimeToLiveSpecification", at)?;
    let enabled = v.get("Enabled").and_then(as_text);
    let name = v.get("AttributeName").and_then(as_text);
    match (enabled.as_deref(), name) {
        (Some("true"), Some(n)) => Some(n),
        (Some("false"), _) => None,
        _ => {
            let m = "needs Enabled (true/false) and, when enabled, AttributeName";
            r.diags.error(&at.child("TimeToLiveSpecification"), line, m);
            None
        }
    }
}

fn attribute_definitions(v: &Value) -> Result<Value, String> {
    let items = v.as_array().ok_or("must be a list")?;
    let mut out = Vec::new();
    for a in items {
        let name = a.get("AttributeName").and_then(as_text);
        let ty = a.get("AttributeType").and_then(as_text);
        match (name, ty.as_deref()) {
            (Some(n), Some(t @ ("S" | "N" | "B"))) => {
                out.push(json!({"AttributeName": n, "AttributeType": t}))
            }
            _ => return Err("each item needs AttributeName and AttributeType S, N or B".into()),
        }
    }
    Ok(Value::Array(out))
}

fn key_schema(v: &Value) -> Result<Value, String> {
    let items = v.as_array().ok_or("must be a list")?;
    let mut out = Vec::new();
    for k in items {
        let name = k.get("AttributeName").and_then(as_text);
        let ty = k.get("KeyType").and_then(as_text);
        match (name, ty.as_deref()) {
            (Some(n), Some(t @ ("HASH" | "RANGE"))) => {
                out.push(json!({"AttributeName": n, "KeyType": t}))
            }
            _ => return Err("each key needs AttributeName and KeyType HASH or RANGE".into()),
        }
    }
    let types: Vec<_> = out.iter().map(|k| k["KeyType"].as_str()).collect();
    if !matches!(
        types.as_slice(),
        [Some("HASH")] | [Some("HASH"), Some("RANGE")]
    ) {
        return Err("a key schema is one HASH key, optionally followed by one RANGE key".into());
    }
    Ok(Value::Array(out))
}

/// `ProvisionedThroughput` with whole numbers, required exactly when the
/// billing mode is provisioned.
fn throughput_for(provisioned: bool, v: Option<&Value>) -> Result<Option<Value>, String> {
    match (provisioned, v) {
        (false, None) => Ok(None),
        (false, Some(_)) => Err("not allowed with BillingMode PAY_PER_REQUEST".into()),
        (true, None) => Err("required with BillingMode PROVISIONED (the default)".into()),
        (true, Some(v)) => {
            let unit = |k: &str| {
                v.get(k)
                    .and_then(as_text)
                    .and_then(|s| s.parse::<u64>().ok())
                    .filter(|n| *n >= 1)
            };
            match (unit("ReadCapacityUnits"), unit("WriteCapacityUnits")) {
                (Some(r), Some(w)) => Ok(Some(
                    json!({"ReadCapacityUnits": r, "WriteCapacityUnits": w}),
                )),
                _ => Err("needs ReadCapacityUnits and WriteCapacityUnits of at least 1".into()),
            }
        }
    }
}

/// Normalised index list and the names of the properties dropped from it.
fn indexes(v: &Value, global: bool, provisioned: bool) -> Result<(Value, Vec<String>), String> {
    let items = v.as_array().ok_or("must be a list")?;
    let mut out = Vec::new();
    let mut ignored = Vec::new();
    for ix in items {
        let obj = ix.as_object().ok_or("each index must be a map")?;
        let name = obj
            .get("IndexName")
            .and_then(as_text)
            .ok_or("IndexName is required")?;
        let mut index = Map::new();
        index.insert("IndexName".into(), Value::from(name.clone()));
        let keys = key_schema(obj.get("KeySchema").ok_or("KeySchema is required")?)?;
        index.insert("KeySchema".into(), keys);
        let projection = obj.get("Projection").ok_or("Projection is required")?;
        index.insert("Projection".into(), projection.clone());
        if global {
            if let Some(t) = throughput_for(provisioned, obj.get("ProvisionedThroughput"))
                .map_err(|m| format!("index {name}: ProvisionedThroughput {m}"))?
            {
                index.insert("ProvisionedThroughput".into(), t);
            }
        }
        for k in obj.keys() {
            let known = [
                "IndexName",
                "KeySchema",
                "Projection",
                "ProvisionedThroughput",
            ];
            if INDEX_IGNORED.contains(&k.as_str()) {
                ignored.push(k.clone());
            } else if !known.contains(&k.as_str()) || (!global && k == "ProvisionedThroughput") {
                return Err(format!("index {name}: property {k} is not supported"));
            }
        }
        out.push(Value::Object(index));
    }
    Ok((Value::Array(out), ignored))
}

/// DynamoDB's index rules: at most 20 global and 5 local indexes, unique
/// index names, and a local index shares the table's partition key.
fn check_indexes(body: &Map<String, Value>) -> Result<(), (&'static str, String)> {
    let list = |k: &str| {
        body.get(k)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (gsi, lsi) = (
        list("GlobalSecondaryIndexes"),
        list("LocalSecondaryIndexes"),
    );
    if gsi.len() > 20 {
        return Err((
            "GlobalSecondaryIndexes",
            "at most 20 global secondary indexes".into(),
        ));
    }
    if lsi.len() > 5 {
        return Err((
            "LocalSecondaryIndexes",
            "at most 5 local secondary indexes".into(),
        ));
    }
    let hash = |keys: &Value| keys.get(0).and_then(|k| k.get("AttributeName")).cloned();
    let table_hash = body.get("KeySchema").and_then(hash);
    for ix in &lsi {
        if ix.get("KeySchema").and_then(hash) != table_hash {
            let name = ix["IndexName"].as_str().unwrap_or_default();
            let m = format!("local index {name} must use the table's partition key");
            return Err(("LocalSecondaryIndexes", m));
        }
    }
    let mut names: Vec<&str> = gsi
        .iter()
        .chain(&lsi)
        .filter_map(|ix| ix["IndexName"].as_str())
        .collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err((
            "GlobalSecondaryIndexes",
            format!("index name {} is used twice", w[0]),
        ));
    }
    Ok(())
}

/// DynamoDB rejects attribute definitions that no key uses, and keys whose
/// attribute is not defined.
fn definitions_match_keys(body: &Map<String, Value>) -> Result<(), String> {
    let defined: Vec<&str> = body["AttributeDefinitions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["AttributeName"].as_str())
        .collect();
    let mut used: Vec<&str> = Vec::new();
    let key_lists = ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"]
        .iter()
        .filter_map(|k| body.get(*k)?.as_array())
        .flatten()
        .filter_map(|ix| ix.get("KeySchema"))
        .chain(body.get("KeySchema"));
    for keys in key_lists {
        used.extend(
            keys.as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k["AttributeName"].as_str()),
        );
    }
    if let Some(missing) = used.iter().find(|u| !defined.contains(u)) {
        return Err(format!("key attribute `{missing}` is not defined"));
    }
    if let Some(unused) = defined.iter().find(|d| !used.contains(d)) {
        return Err(format!(
            "attribute `{unused}` is defined but used by no key"
        ));
    }
    Ok(())
}
