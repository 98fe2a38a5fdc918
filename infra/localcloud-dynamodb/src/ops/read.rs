//! Query and Scan: walk a table or an index in key order, evaluate up to Limit
//! items or 1 MB, filter, project, and say where to resume.

use dynamodb_lang::expr::Operand;
use dynamodb_lang::{
    item_size, parse_filter, parse_key_condition, parse_projection, AttributeValue, Condition,
    Item, Projection, RangeCondition,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::capacity::{read_units, Consumed, ReturnCapacity};
use crate::codec::{decode, encode};
use crate::error::{validation, DdbResult};
use crate::key::{KeyPart, KeySchema, PrimaryKey};
use crate::ops::common::{expression_context, Names, OutItem, Values};
use crate::ops::legacy;
use crate::ops::walk::{index_keys, table_entries, Start, Walk};
use crate::registry::DynamoDb;
use crate::schema::{IndexDef, Projection as IndexProjection, TableDef};
use crate::table::{project, Table, TableState};

const PAGE_BYTES: usize = 1024 * 1024;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ReadInput {
    table_name: Option<String>,
    index_name: Option<String>,
    key_condition_expression: Option<String>,
    filter_expression: Option<String>,
    projection_expression: Option<String>,
    expression_attribute_names: Names,
    expression_attribute_values: Values,
    scan_index_forward: Option<bool>,
    limit: Option<i64>,
    exclusive_start_key: Option<Item>,
    select: Option<String>,
    #[serde(default)]
    consistent_read: bool,
    return_consumed_capacity: Option<String>,
    segment: Option<i64>,
    total_segments: Option<i64>,
    key_conditions: Option<legacy::Conditions>,
    query_filter: Option<legacy::Conditions>,
    scan_filter: Option<legacy::Conditions>,
    attributes_to_get: Option<Vec<String>>,
    conditional_operator: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct ReadOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    items: Option<Vec<OutItem>>,
    count: usize,
    scanned_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_evaluated_key: Option<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    consumed_capacity: Option<Value>,
}

/// The request, validated against the table: which key space to walk and
/// what to do with each item found.
pub(crate) struct Plan<'a> {
    pub(crate) def: &'a TableDef,
    pub(crate) index: Option<(usize, &'a IndexDef)>,
    pub(crate) filter: Option<Condition>,
    pub(crate) projection: Option<Projection>,
    pub(crate) count_only: bool,
    /// Items read from an index are reduced to its projection, unless an LSI
    /// query asked for ALL_ATTRIBUTES (it then fetches from the table).
    pub(crate) index_projects: bool,
    pub(crate) limit: usize,
    pub(crate) consistent: bool,
}

pub fn query(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    read(db, body, true)
}

pub fn scan(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    read(db, body, false)
}

fn read(db: &DynamoDb, body: &[u8], is_query: bool) -> DdbResult<Vec<u8>> {
    let mut input: ReadInput = decode(body)?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    // Query ignores ScanFilter and Scan the Query-only members, as AWS
    // ignores members an operation does not have.
    let (key_conditions, legacy_filter) = if is_query {
        (input.key_conditions.take(), input.query_filter.take())
    } else {
        (None, input.scan_filter.take())
    };
    let filter_name = if is_query {
        "QueryFilter"
    } else {
        "ScanFilter"
    };
    legacy::reject_mix(
        &[
            ("AttributesToGet", input.attributes_to_get.is_some()),
            ("KeyConditions", key_conditions.is_some()),
            (filter_name, legacy_filter.is_some()),
            ("ConditionalOperator", input.conditional_operator.is_some()),
        ],
        &[
            (
                "ProjectionExpression",
                input.projection_expression.is_some(),
            ),
            ("FilterExpression", input.filter_expression.is_some()),
            (
                "KeyConditionExpression",
                is_query && input.key_condition_expression.is_some(),
            ),
        ],
    )?;
    let table = db.table(input.table_name.as_deref())?;
    let def = &table.def;
    let index = index_to_read(def, input.index_name.as_deref(), input.consistent_read)?;
    let limit = page_limit(input.limit)?;
    let keys = index.map_or(&def.keys, |(_, ix)| &ix.keys);
    let value_users: &[(&str, bool)] = if is_query {
        &[
            (
                "KeyConditionExpression",
                input.key_condition_expression.is_some(),
            ),
            ("FilterExpression", input.filter_expression.is_some()),
        ]
    } else {
        &[("FilterExpression", input.filter_expression.is_some())]
    };
    let mut ctx = expression_context(
        input.expression_attribute_names,
        input.expression_attribute_values,
        value_users,
        input.projection_expression.is_some(),
    )?;
    let walk = if is_query {
        let range_key = keys.range.as_ref().map(|r| r.name.as_str());
        let kc = match (input.key_condition_expression.as_deref(), key_conditions) {
            (Some(expr), _) => parse_key_condition(expr, &mut ctx, &keys.hash.name, range_key)?,
            (None, Some(conditions)) => {
                legacy::key_conditions(conditions, &keys.hash.name, range_key)?
            }
            (None, None) => return Err(validation(
                "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
            )),
        };
        let hash = KeyPart::from_value(&kc.hash_value, keys.hash.ty).ok_or_else(type_mismatch)?;
        if let (Some(range), Some(attr)) = (&kc.range, &keys.range) {
            if range_values(range)
                .iter()
                .any(|v| KeyPart::from_value(v, attr.ty).is_none())
            {
                return Err(type_mismatch());
            }
        }
        Walk::Query {
            hash,
            range: kc.range,
            forward: input.scan_index_forward.unwrap_or(true),
        }
    } else {
        Walk::Scan {
            segment: segment(input.segment, input.total_segments)?,
        }
    };
    let mut filter = input
        .filter_expression
        .as_deref()
        .map(|e| parse_filter(e, &mut ctx))
        .transpose()?;
    let legacy_present = legacy_filter.is_some() || input.conditional_operator.is_some();
    if legacy_present {
        filter = legacy::filter(
            legacy_filter.unwrap_or_default(),
            input.conditional_operator.as_deref(),
        )?;
    }
    if let (true, Some(filter)) = (is_query, &filter) {
        if let Some(key) = referenced_attributes(filter)
            .into_iter()
            .find(|a| keys.is_key_attribute(a))
        {
            return Err(validation(if legacy_present {
                format!("QueryFilter can only contain non-primary key attributes: Primary key attribute: {key}")
            } else {
                format!("Filter Expression can only contain non-primary key attributes: Primary key attribute: {key}")
            }));
        }
    }
    let mut projection = input
        .projection_expression
        .as_deref()
        .map(|e| parse_projection(e, &mut ctx))
        .transpose()?;
    ctx.check_all_used()?;
    let projection_name = match input.attributes_to_get.take() {
        Some(names) => {
            projection = Some(legacy::attributes_to_get(names)?);
            "AttributesToGet"
        }
        None => "ProjectionExpression",
    };
    let (count_only, all_attributes) = select(
        input.select.as_deref(),
        projection.is_some().then_some(projection_name),
        index,
    )?;
    let plan = Plan {
        def,
        index,
        filter,
        projection,
        count_only,
        index_projects: index.is_some() && !all_attributes,
        limit,
        consistent: input.consistent_read,
    };
    let start = input
        .exclusive_start_key
        .as_ref()
        .map(|k| start_position(def, keys, index.is_some(), k))
        .transpose()?;
    let page = {
        let state = table.read_state()?;
        plan.run(&table, &state, &walk, start)?
    };
    let units = read_units(page.scanned_bytes, plan.consistent);
    let consumed = match index {
        Some((i, _)) => Consumed::index_read(i, units),
        None => Consumed::read(units),
    };
    db.record(&table, if is_query { "Query" } else { "Scan" }, &consumed);
    encode(&ReadOutput {
        count: page.count,
        scanned_count: page.scanned,
        items: (!plan.count_only).then_some(page.items),
        last_evaluated_key: page.last_key,
        consumed_capacity: consumed.to_json(def, capacity),
    })
}

/// The index a read names (`None`: the table), which must exist and, for a
/// consistent read, be local.
pub(crate) fn index_to_read<'a>(
    def: &'a TableDef,
    name: Option<&str>,
    consistent: bool,
) -> DdbResult<Option<(usize, &'a IndexDef)>> {
    let Some(name) = name else {
        return Ok(None);
    };
    let index = def.index(name).ok_or_else(|| {
        validation(format!(
            "The table does not have the specified index: {name}"
        ))
    })?;
    if consistent && index.1.global {
        return Err(validation(
            "Consistent reads are not supported on global secondary indexes",
        ));
    }
    Ok(Some(index))
}

/// The Limit parameter as a count of items to read (none: no limit).
pub(crate) fn page_limit(limit: Option<i64>) -> DdbResult<usize> {
    match limit {
        None => Ok(usize::MAX),
        Some(n) if n >= 1 => Ok(n as usize),
        Some(n) => Err(validation(format!(
            "1 validation error detected: Value '{n}' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"
        ))),
    }
}

/// Top-level attribute names a condition reads.
fn referenced_attributes(condition: &Condition) -> Vec<String> {
    fn operand(op: &Operand, out: &mut Vec<String>) {
        match op {
            Operand::Path(p) => out.push(p.top_level().to_string()),
            Operand::Size(inner) => operand(inner, out),
            Operand::Value(_) => {}
        }
    }
    fn walk(c: &Condition, out: &mut Vec<String>) {
        match c {
            Condition::Compare(a, _, b)
            | Condition::AttributeType(a, b)
            | Condition::BeginsWith(a, b)
            | Condition::Contains(a, b) => {
                operand(a, out);
                operand(b, out);
            }
            Condition::Between(a, b, c) => [a, b, c].into_iter().for_each(|o| operand(o, out)),
            Condition::In(a, list) => std::iter::once(a).chain(list).for_each(|o| operand(o, out)),
            Condition::AttributeExists(p) | Condition::AttributeNotExists(p) => {
                out.push(p.top_level().to_string())
            }
            Condition::And(a, b) | Condition::Or(a, b) => {
                walk(a, out);
                walk(b, out);
            }
            Condition::Not(a) => walk(a, out),
        }
    }
    let mut out = Vec::new();
    walk(condition, &mut out);
    out
}

fn type_mismatch() -> crate::error::DdbError {
    validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
}

fn range_values(range: &RangeCondition) -> Vec<&AttributeValue> {
    match range {
        RangeCondition::Eq(v)
        | RangeCondition::Lt(v)
        | RangeCondition::Le(v)
        | RangeCondition::Gt(v)
        | RangeCondition::Ge(v)
        | RangeCondition::BeginsWith(v) => vec![v],
        RangeCondition::Between(a, b) => vec![a, b],
    }
}

fn segment(segment: Option<i64>, total: Option<i64>) -> DdbResult<Option<(u64, u64)>> {
    match (segment, total) {
        (None, None) => Ok(None),
        (Some(_), None) => Err(validation("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")),
        (None, Some(_)) => Err(validation("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")),
        (Some(_), Some(t)) if !(1..=1_000_000).contains(&t) => Err(validation(format!(
            "1 validation error detected: Value '{t}' at 'totalSegments' failed to satisfy constraint: Member must have value {}",
            if t < 1 { "greater than or equal to 1" } else { "less than or equal to 1000000" }
        ))),
        (Some(s), Some(t)) if s < 0 || s >= t => Err(validation(format!(
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: {s} is out of bounds for TotalSegments: {t}"
        ))),
        (Some(s), Some(t)) => Ok(Some((s as u64, t as u64))),
    }
}

/// (count only, all attributes) from Select.
fn select(
    select: Option<&str>,
    projection: Option<&str>,
    index: Option<(usize, &IndexDef)>,
) -> DdbResult<(bool, bool)> {
    let has_projection = projection.is_some();
    let projection = projection.unwrap_or("ProjectionExpression");
    match select {
        None => Ok((false, index.is_none_or(|(_, ix)| ix.projection == IndexProjection::All))),
        Some("ALL_ATTRIBUTES") => {
            if has_projection {
                return Err(validation(format!("Cannot specify the {projection} when choosing to get ALL_ATTRIBUTES")));
            }
            if let Some((_, ix)) = index.filter(|(_, ix)| ix.global && ix.projection != IndexProjection::All) {
                return Err(validation(format!(
                    "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index {} because its projection type is not ALL",
                    ix.name
                )));
            }
            Ok((false, true))
        }
        Some("ALL_PROJECTED_ATTRIBUTES") => {
            if index.is_none() {
                return Err(validation("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"));
            }
            Ok((false, false))
        }
        Some("SPECIFIC_ATTRIBUTES") if !has_projection => Err(validation(
            "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
        )),
        Some("SPECIFIC_ATTRIBUTES") => Ok((false, false)),
        Some("COUNT") => {
            if has_projection {
                return Err(validation(format!("Cannot specify the {projection} when choosing to get only the Count")));
            }
            Ok((true, false))
        }
        Some(other) => Err(validation(format!(
            "1 validation error detected: Value '{other}' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"
        ))),
    }
}

pub(crate) fn start_position(
    def: &TableDef,
    keys: &KeySchema,
    on_index: bool,
    esk: &Item,
) -> DdbResult<Start> {
    let invalid = || {
        validation("The provided starting key is invalid: The provided key element does not match the schema")
    };
    let mut table_key = Item::new();
    for attr in def.keys.attrs() {
        table_key.insert(
            attr.name.clone(),
            esk.get(&attr.name).ok_or_else(invalid)?.clone(),
        );
    }
    let table = def
        .keys
        .key_from_request(&table_key)
        .map_err(|_| invalid())?;
    let index = if on_index {
        Some(keys.index_key_of(esk).ok_or_else(invalid)?)
    } else {
        None
    };
    let expected = def
        .keys
        .attrs()
        .chain(keys.attrs())
        .map(|a| &a.name)
        .collect::<std::collections::BTreeSet<_>>();
    if esk.len() != expected.len() {
        return Err(invalid());
    }
    Ok(Start { table, index })
}

pub(crate) struct Page {
    pub(crate) items: Vec<OutItem>,
    pub(crate) count: usize,
    pub(crate) scanned: usize,
    pub(crate) scanned_bytes: usize,
    pub(crate) last_key: Option<Item>,
}

impl Page {
    pub(crate) fn empty() -> Page {
        Page {
            items: Vec::new(),
            count: 0,
            scanned: 0,
            scanned_bytes: 0,
            last_key: None,
        }
    }

    /// Limit items read, or 1 MB.
    pub(crate) fn is_full(&self, limit: usize) -> bool {
        self.scanned == limit || self.scanned_bytes >= PAGE_BYTES
    }
}

impl Plan<'_> {
    pub(crate) fn run(
        &self,
        table: &Table,
        state: &TableState,
        walk: &Walk,
        start: Option<Start>,
    ) -> DdbResult<Page> {
        let mut page = Page::empty();
        match self.index {
            None => {
                for (hash, range, stored) in table_entries(state, walk, start.map(|s| s.table)) {
                    if page.is_full(self.limit) {
                        break;
                    }
                    self.visit(&mut page, OutItem::Shared(stored.item.clone()), stored.size)?;
                    if page.is_full(self.limit) {
                        let key = PrimaryKey {
                            hash: hash.clone(),
                            range: range.clone(),
                        };
                        page.last_key = Some(self.key_of(table, state, &key));
                    }
                }
            }
            Some((i, ix)) => {
                for key in index_keys(state, i, walk, start) {
                    if page.is_full(self.limit) {
                        break;
                    }
                    let Some(stored) = state.get(&key) else {
                        continue;
                    };
                    let (item, size) = if self.index_projects {
                        let item = project(self.def, ix, &stored.item);
                        let size = item_size(&item);
                        (OutItem::Owned(item), size)
                    } else {
                        (OutItem::Shared(stored.item.clone()), stored.size)
                    };
                    self.visit(&mut page, item, size)?;
                    if page.is_full(self.limit) {
                        page.last_key = Some(self.key_of(table, state, &key));
                    }
                }
            }
        }
        // Like AWS, a page that stopped at Limit or 1 MB names its last item
        // without looking ahead, so the last page may come back empty.
        if page.scanned < self.limit && page.scanned_bytes < PAGE_BYTES {
            page.last_key = None;
        }
        Ok(page)
    }

    /// Counts one item read (`size` bytes), and keeps it if it passes the
    /// filter, projected.
    fn visit(&self, page: &mut Page, item: OutItem, size: usize) -> DdbResult<()> {
        page.scanned += 1;
        page.scanned_bytes += size;
        if let Some(filter) = &self.filter {
            if !filter.evaluate(item.get())? {
                return Ok(());
            }
        }
        page.count += 1;
        if !self.count_only {
            page.items.push(match &self.projection {
                Some(p) => OutItem::Owned(p.apply(item.get())),
                None => item,
            });
        }
        Ok(())
    }

    /// LastEvaluatedKey for an item: table key, plus index key on an index.
    fn key_of(&self, table: &Table, state: &TableState, key: &PrimaryKey) -> Item {
        let mut out = table.def.keys.key_item(&key.hash, key.range.as_ref());
        if let Some((_, ix)) = self.index {
            if let Some((h, r)) = state.get(key).and_then(|s| ix.keys.index_key_of(&s.item)) {
                out.extend(ix.keys.key_item(&h, r.as_ref()));
            }
        }
        out
    }
}
