//! A PartiQL SELECT run as AWS runs it: a Query of each partition its WHERE
//! clause names (`pk = v`, `pk IN [...]`), otherwise a Scan, of the table or
//! of the index named `"table"."index"`; every item read is filtered by the
//! whole WHERE clause, a page stops at Limit items read or 1 MB, and resumes
//! after the last key read.
//! https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html

use std::sync::Arc;

use dynamodb_lang::expr::PathElement;
use dynamodb_lang::partiql::{project, Select};
use dynamodb_lang::{Item, RangeCondition};

use crate::capacity::{read_units, Consumed};
use crate::error::{validation, DdbError, DdbResult};
use crate::key::{KeyPart, KeySchema};
use crate::ops::common::OutItem;
use crate::ops::partiql::keys;
use crate::ops::read::{index_to_read, start_position, Page, Plan};
use crate::ops::walk::{Start, Walk};
use crate::registry::DynamoDb;
use crate::schema::Projection as IndexProjection;
use crate::table::{Table, TableState};

/// How much of a SELECT one call reads, and from where.
pub struct Paging {
    pub limit: usize,
    pub consistent: bool,
    /// The last key the previous page read (its NextToken).
    pub after: Option<Item>,
}

/// One page of a SELECT.
pub struct Selected {
    pub table: Arc<Table>,
    pub items: Vec<OutItem>,
    pub last_key: Option<Item>,
    pub consumed: Consumed,
}

pub fn invalid_token() -> DdbError {
    validation("Invalid NextToken")
}

/// Reads one page of `select`, metered as `operation`.
pub fn run_select(
    db: &DynamoDb,
    select: &Select,
    paging: Paging,
    operation: &str,
) -> DdbResult<Selected> {
    let table = db.table(Some(&select.table))?;
    let def = &table.def;
    let index = index_to_read(def, select.index.as_deref(), paging.consistent)?;
    let walked = index.map_or(&def.keys, |(_, ix)| &ix.keys);
    let partitions = keys::partitions(&walked.hash, select.filter.as_ref())?;
    let forward = walks_forward(select, walked, partitions.is_some())?;
    let start = paging
        .after
        .as_ref()
        .map(|k| start_position(def, walked, index.is_some(), k).map_err(|_| invalid_token()))
        .transpose()?;
    let mut plan = Plan {
        def,
        index,
        filter: select.filter.clone(),
        projection: None,
        count_only: false,
        index_projects: index.is_some_and(|(_, ix)| ix.projection != IndexProjection::All),
        limit: paging.limit,
        consistent: paging.consistent,
    };
    let page = {
        let state = table.read_state()?;
        match partitions {
            None => plan.run(&table, &state, &Walk::Scan { segment: None }, start)?,
            Some(hashes) => {
                let range = keys::sort_range(walked.range.as_ref(), select.filter.as_ref());
                let walks = PartitionWalks {
                    hashes,
                    range,
                    forward,
                    on_index: index.is_some(),
                };
                walks.run(&mut plan, &table, &state, start)?
            }
        }
    };
    let units = read_units(page.scanned_bytes, paging.consistent);
    let consumed = match index {
        Some((i, _)) => Consumed::index_read(i, units),
        None => Consumed::read(units),
    };
    db.record(&table, operation, &consumed);
    let items = match &select.projection {
        None => page.items,
        Some(paths) => page
            .items
            .iter()
            .map(|item| OutItem::Owned(project(paths, item.get())))
            .collect(),
    };
    Ok(Selected {
        items,
        last_key: page.last_key,
        consumed,
        table,
    })
}

/// ORDER BY may name key attributes of a Query; DESC on the first walks
/// each partition backwards.
fn walks_forward(select: &Select, keys: &KeySchema, is_query: bool) -> DdbResult<bool> {
    let Some(first) = select.order_by.first() else {
        return Ok(true);
    };
    if select.filter.is_none() {
        return Err(validation(
            "Must have WHERE clause in the statement when using ORDER BY clause.",
        ));
    }
    let names_key = select.order_by.iter().all(|o| {
        matches!(o.path.0.as_slice(), [PathElement::Attribute(name)] if keys.is_key_attribute(name))
    });
    if !is_query || !names_key {
        return Err(validation(
            "Unsupported: ORDER BY must name key attributes, in a SELECT whose WHERE clause names the partition key with = or IN",
        ));
    }
    Ok(!first.descending)
}

/// The Queries of a SELECT on some partitions: one per partition key value,
/// in key order, sharing the page's Limit.
struct PartitionWalks {
    hashes: Vec<KeyPart>,
    range: Option<RangeCondition>,
    forward: bool,
    on_index: bool,
}

impl PartitionWalks {
    /// Queries each partition until the page fills; a page resumed from
    /// `start` skips the partitions before the start key's.
    fn run(
        self,
        plan: &mut Plan<'_>,
        table: &Table,
        state: &TableState,
        mut start: Option<Start>,
    ) -> DdbResult<Page> {
        let limit = plan.limit;
        let start_hash = start.as_ref().and_then(|s| {
            if self.on_index {
                s.index.as_ref().map(|(h, _)| h.clone())
            } else {
                Some(s.table.hash.clone())
            }
        });
        let mut page = Page::empty();
        for hash in self.hashes {
            if start_hash.as_ref().is_some_and(|from| &hash < from) {
                continue;
            }
            let resume = if start_hash.as_ref() == Some(&hash) {
                start.take()
            } else {
                None
            };
            plan.limit = limit - page.scanned;
            let walk = Walk::Query {
                hash,
                range: self.range.clone(),
                forward: self.forward,
            };
            let part = plan.run(table, state, &walk, resume)?;
            page.items.extend(part.items);
            page.count += part.count;
            page.scanned += part.scanned;
            page.scanned_bytes += part.scanned_bytes;
            if part.last_key.is_some() {
                page.last_key = part.last_key;
                break;
            }
        }
        plan.limit = limit;
        Ok(page)
    }
}
