//! The PartiQL operations: ExecuteStatement, BatchExecuteStatement and
//! ExecuteTransaction. A statement is parsed by `dynamodb_lang::partiql`
//! into the condition and update trees the item operations evaluate, then
//! run by the code of Query/Scan (`select.rs`), of the single-item writes or
//! of the transactions (`write.rs`): PartiQL has no evaluator of its own.
//! https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html

mod keys;
mod select;
mod write;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use dynamodb_lang::partiql::{parse_statement, project, Returning, Statement};
use dynamodb_lang::{AttributeValue, Item};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::capacity::{Consumed, ReturnCapacity};
use crate::codec::{decode, encode};
use crate::error::{validation, DdbError, DdbResult};
use crate::ops::common::{return_old_on_failure, OutItem};
use crate::ops::read::page_limit;
use crate::ops::transact::{read_all, write_all};
use crate::registry::DynamoDb;
use crate::table::Table;

use self::keys::single_item;
use self::select::{invalid_token, run_select, Paging};
use self::write::{exists_outside_transaction, ItemWrite};

const MAX_STATEMENT_CHARS: usize = 8192;
const MAX_BATCH: usize = 25;
const MAX_TRANSACTION: usize = 100;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ExecuteStatementInput {
    statement: Option<String>,
    parameters: Option<Vec<AttributeValue>>,
    #[serde(default)]
    consistent_read: bool,
    next_token: Option<String>,
    return_consumed_capacity: Option<String>,
    limit: Option<i64>,
    return_values_on_condition_check_failure: Option<String>,
}

/// One statement of BatchExecuteStatement (BatchStatementRequest) or of
/// ExecuteTransaction (ParameterizedStatement).
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct StatementRequest {
    statement: Option<String>,
    parameters: Option<Vec<AttributeValue>>,
    #[serde(default)]
    consistent_read: bool,
    return_values_on_condition_check_failure: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct BatchInput {
    statements: Option<Vec<StatementRequest>>,
    return_consumed_capacity: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TransactionInput {
    transact_statements: Option<Vec<StatementRequest>>,
    client_request_token: Option<String>,
    return_consumed_capacity: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct StatementOutput {
    items: Vec<OutItem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_evaluated_key: Option<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    consumed_capacity: Option<Value>,
}

/// Parses a statement with its parameters, checking the parameters'
/// constraints first as AWS does.
fn parse(text: Option<&str>, parameters: Option<&[AttributeValue]>) -> DdbResult<Statement> {
    let text = text.ok_or_else(|| {
        validation("1 validation error detected: Value null at 'statement' failed to satisfy constraint: Member must not be null")
    })?;
    if text.is_empty() || text.chars().count() > MAX_STATEMENT_CHARS {
        return Err(validation(format!(
            "1 validation error detected: Value at 'statement' failed to satisfy constraint: Member must have length {}",
            if text.is_empty() { "greater than or equal to 1" } else { "less than or equal to 8192" }
        )));
    }
    if parameters.is_some_and(|p| p.is_empty()) {
        return Err(validation("1 validation error detected: Value '[]' at 'parameters' failed to satisfy constraint: Member must have length greater than or equal to 1"));
    }
    Ok(parse_statement(text, parameters.unwrap_or_default())?)
}

/// A list of statements holds between 1 and `max` of them.
fn check_count(count: usize, member: &str, max: usize) -> DdbResult<()> {
    if count == 0 || count > max {
        return Err(validation(format!(
            "1 validation error detected: Value at '{member}' failed to satisfy constraint: Member must have length {}",
            if count == 0 { "greater than or equal to 1".to_string() } else { format!("less than or equal to {max}") }
        )));
    }
    Ok(())
}

/// A NextToken carries the last key a page read.
fn next_token(last_key: &Item) -> String {
    BASE64.encode(serde_json::to_vec(last_key).unwrap_or_default())
}

fn key_of_token(token: &str) -> DdbResult<Item> {
    let bytes = BASE64.decode(token).map_err(|_| invalid_token())?;
    serde_json::from_slice(&bytes).map_err(|_| invalid_token())
}

/// The operation's item, or none when it is empty (as UpdateItem answers).
fn non_empty(item: Option<OutItem>) -> Option<OutItem> {
    item.filter(|i| !i.get().is_empty())
}

pub fn execute_statement(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: ExecuteStatementInput = decode(body)?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    let return_old =
        return_old_on_failure(input.return_values_on_condition_check_failure.as_deref())?;
    let limit = page_limit(input.limit)?;
    let statement = parse(input.statement.as_deref(), input.parameters.as_deref())?;
    let output = match statement {
        Statement::Select(select) => {
            let after = input.next_token.as_deref().map(key_of_token).transpose()?;
            let paging = Paging {
                limit,
                consistent: input.consistent_read,
                after,
            };
            let page = run_select(db, &select, paging, "ExecuteStatement")?;
            StatementOutput {
                items: page.items,
                next_token: page.last_key.as_ref().map(next_token),
                last_evaluated_key: page.last_key,
                consumed_capacity: page.consumed.to_json(&page.table.def, capacity),
            }
        }
        Statement::Exists(_) => return Err(exists_outside_transaction()),
        write => {
            let write = ItemWrite::resolve(db, write)?;
            let table = write.table.clone();
            let outcome = write.execute(db, return_old, capacity, "ExecuteStatement")?;
            StatementOutput {
                items: non_empty(outcome.item).into_iter().collect(),
                next_token: None,
                last_evaluated_key: None,
                consumed_capacity: outcome.consumed.to_json(&table.def, capacity),
            }
        }
    };
    encode(&output)
}

/// Consumed capacity summed per table, for the operations of many statements.
#[derive(Default)]
struct ConsumedByTable(BTreeMap<String, (Arc<Table>, Consumed)>);

impl ConsumedByTable {
    fn add(&mut self, table: &Arc<Table>, consumed: &Consumed) {
        self.0
            .entry(table.def.name.clone())
            .or_insert_with(|| {
                let zero = Consumed {
                    table: 0.0,
                    indexes: Default::default(),
                    ..consumed.clone()
                };
                (table.clone(), zero)
            })
            .1
            .add(consumed);
    }

    fn to_json(&self, capacity: ReturnCapacity) -> Option<Value> {
        let list: Vec<Value> = self
            .0
            .values()
            .filter_map(|(table, consumed)| consumed.to_json(&table.def, capacity))
            .collect();
        (!list.is_empty()).then_some(Value::Array(list))
    }
}

/// One statement's answer in BatchExecuteStatement: `{"TableName", "Item"}`
/// or `{"Error": {"Code", "Message", "Item"}, "TableName"}`.
/// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchStatementError.html
fn batch_response(table: Option<&str>, answer: DdbResult<Option<OutItem>>) -> Value {
    let mut response = match answer {
        Ok(item) => match non_empty(item) {
            Some(item) => json!({ "Item": item }),
            None => json!({}),
        },
        Err(err) => {
            let (code, message, item) = match err {
                DdbError::ConditionalCheckFailed { item } => (
                    "ConditionalCheckFailed",
                    "The conditional request failed".to_string(),
                    item,
                ),
                DdbError::DuplicateItem(m) => ("DuplicateItem", m, None),
                DdbError::ResourceNotFound(m) => ("ResourceNotFound", m, None),
                DdbError::Validation(m) => ("ValidationError", m, None),
                other => ("InternalServerError", other.to_string(), None),
            };
            let mut error = json!({"Code": code, "Message": message});
            if let Some(item) = item {
                error["Item"] = item;
            }
            json!({ "Error": error })
        }
    };
    if let Some(table) = table {
        response["TableName"] = json!(table);
    }
    response
}

pub fn batch_execute_statement(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: BatchInput = decode(body)?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    let requests = input.statements.unwrap_or_default();
    check_count(requests.len(), "statements", MAX_BATCH)?;
    // A statement that does not parse answers its own error; the others run.
    let parsed: Vec<DdbResult<Statement>> = requests
        .iter()
        .map(|r| parse(r.statement.as_deref(), r.parameters.as_deref()))
        .collect();
    let reads = parsed.iter().flatten().filter(|s| s.is_read()).count();
    let writes = parsed.iter().flatten().count() - reads;
    if reads > 0 && writes > 0 {
        return Err(validation(
            "Read and write requests together in the same batch is not supported.",
        ));
    }
    let mut consumed = ConsumedByTable::default();
    let responses = if writes > 0 {
        batch_writes(db, parsed, &requests, capacity, &mut consumed)?
    } else {
        batch_reads(db, parsed, &requests, &mut consumed)
    };
    let mut out = json!({ "Responses": responses });
    if let Some(list) = consumed.to_json(capacity) {
        out["ConsumedCapacity"] = list;
    }
    encode(&out)
}

/// The table a response names: that of a statement that parsed, unless the
/// table does not exist.
fn response_table<'a>(
    table: Option<&'a str>,
    answer: &DdbResult<Option<OutItem>>,
) -> Option<&'a str> {
    match answer {
        Err(DdbError::ResourceNotFound(_)) => None,
        _ => table,
    }
}

/// The reads of a batch: each a SELECT of one item by its whole key.
fn batch_reads(
    db: &DynamoDb,
    parsed: Vec<DdbResult<Statement>>,
    requests: &[StatementRequest],
    consumed: &mut ConsumedByTable,
) -> Vec<Value> {
    let mut responses = Vec::with_capacity(parsed.len());
    for (statement, request) in parsed.iter().zip(requests) {
        let answer = statement.clone().and_then(|s| {
            let Statement::Select(select) = s else {
                return Err(exists_outside_transaction());
            };
            let table = db.table(Some(&select.table))?;
            if select.index.is_some() {
                return Err(validation("Only single item select is supported"));
            }
            single_item(&table.def.keys, select.filter.as_ref()).map_err(|e| match e {
                DdbError::Validation(m) if m.starts_with("Key attribute") => validation(m),
                _ => validation("Only single item select is supported"),
            })?;
            let paging = Paging {
                limit: usize::MAX,
                consistent: request.consistent_read,
                after: None,
            };
            let page = run_select(db, &select, paging, "BatchExecuteStatement")?;
            consumed.add(&page.table, &page.consumed);
            Ok(page.items.into_iter().next())
        });
        // DynamoDB Local names the table of a read that succeeded only.
        let table = match (&answer, statement) {
            (Ok(_), Ok(statement)) => Some(statement.table()),
            _ => None,
        };
        responses.push(batch_response(table, answer));
    }
    responses
}

/// The writes of a batch: each runs alone, after every item it names was
/// found distinct.
fn batch_writes(
    db: &DynamoDb,
    parsed: Vec<DdbResult<Statement>>,
    requests: &[StatementRequest],
    capacity: ReturnCapacity,
    consumed: &mut ConsumedByTable,
) -> DdbResult<Vec<Value>> {
    let tables: Vec<Option<String>> = parsed
        .iter()
        .map(|p| p.as_ref().ok().map(|s| s.table().to_string()))
        .collect();
    let resolved: Vec<DdbResult<ItemWrite>> = parsed
        .into_iter()
        .map(|p| p.and_then(|s| ItemWrite::resolve(db, s)))
        .collect();
    let mut seen = HashSet::new();
    if !resolved
        .iter()
        .flatten()
        .all(|w| seen.insert((w.table.def.name.clone(), w.key.clone())))
    {
        return Err(validation("Provided list of item keys contains duplicates"));
    }
    let mut responses = Vec::with_capacity(resolved.len());
    for ((write, request), table) in resolved.into_iter().zip(requests).zip(&tables) {
        let answer = write.and_then(|w| {
            let return_old =
                return_old_on_failure(request.return_values_on_condition_check_failure.as_deref())?;
            let table = w.table.clone();
            let outcome = w.execute(db, return_old, capacity, "BatchExecuteStatement")?;
            consumed.add(&table, &outcome.consumed);
            Ok(outcome.item)
        });
        responses.push(batch_response(
            response_table(table.as_deref(), &answer),
            answer,
        ));
    }
    Ok(responses)
}

pub fn execute_transaction(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: TransactionInput = decode(body)?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    if let Some(token) = &input.client_request_token {
        if let Some(cached) = db.idempotency.lookup(token, body)? {
            return Ok(cached);
        }
    }
    let requests = input.transact_statements.unwrap_or_default();
    check_count(requests.len(), "transactStatements", MAX_TRANSACTION)?;
    let statements = requests
        .iter()
        .map(|r| parse(r.statement.as_deref(), r.parameters.as_deref()))
        .collect::<DdbResult<Vec<_>>>()?;
    let reads = statements.iter().filter(|s| s.is_read()).count();
    if reads > 0 && reads < statements.len() {
        return Err(validation(
            "ExecuteTransaction API does not support both read and write operations in the same request.",
        ));
    }
    if let Some(i) = statements
        .iter()
        .position(|s| s.returning() != Returning::None)
    {
        return Err(validation(format!(
            "Validation failed in TransactStatements[{i}]: RETURNING clause is not supported in ExecuteTransaction."
        )));
    }
    let out = if reads > 0 {
        transaction_reads(db, statements, capacity)?
    } else {
        transaction_writes(db, statements, &requests, capacity)?
    };
    let out = encode(&out)?;
    if let Some(token) = &input.client_request_token {
        db.idempotency.remember(token, body, &out);
    }
    Ok(out)
}

/// A read transaction: one SELECT by whole key per statement, from one
/// snapshot, as TransactGetItems reads.
fn transaction_reads(
    db: &DynamoDb,
    statements: Vec<Statement>,
    capacity: ReturnCapacity,
) -> DdbResult<Value> {
    let mut gets = Vec::with_capacity(statements.len());
    let mut shapes = Vec::with_capacity(statements.len());
    for (i, statement) in statements.into_iter().enumerate() {
        let Statement::Select(select) = statement else {
            return Err(exists_outside_transaction());
        };
        let table = db.table(Some(&select.table))?;
        let by_key = || {
            validation(format!(
                "Validation failed in TransactStatements[{i}]: Select statements within ExecuteTransaction must specify the primary key in the where clause."
            ))
        };
        if select.index.is_some() {
            return Err(by_key());
        }
        let (key_item, rest) =
            single_item(&table.def.keys, select.filter.as_ref()).map_err(|_| by_key())?;
        let key = table.def.keys.key_from_request(&key_item)?;
        gets.push((table, key));
        shapes.push((rest, select.projection));
    }
    read_all(db, "ExecuteTransaction", &gets, capacity, |i, item| {
        let (rest, projection) = &shapes[i];
        if rest
            .as_ref()
            .is_some_and(|c| !c.evaluate(item).unwrap_or(false))
        {
            return None;
        }
        Some(match projection {
            Some(paths) => OutItem::Owned(project(paths, item)),
            None => OutItem::Shared(item.clone()),
        })
    })
}

/// A write transaction: every statement an action of TransactWriteItems.
fn transaction_writes(
    db: &DynamoDb,
    statements: Vec<Statement>,
    requests: &[StatementRequest],
    capacity: ReturnCapacity,
) -> DdbResult<Value> {
    let actions = statements
        .into_iter()
        .zip(requests)
        .map(|(statement, request)| {
            let return_old =
                return_old_on_failure(request.return_values_on_condition_check_failure.as_deref())?;
            Ok(ItemWrite::resolve(db, statement)?.into_action(return_old))
        })
        .collect::<DdbResult<Vec<_>>>()?;
    let mut out = write_all(db, "ExecuteTransaction", &actions, capacity)?;
    out["Responses"] = json!([]);
    Ok(out)
}
