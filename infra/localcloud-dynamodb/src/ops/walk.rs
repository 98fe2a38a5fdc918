//! Walking a table or an index in key order: which keys a Query or Scan
//! visits, from where it resumes, and in which direction.

use std::cmp::Ordering;
use std::ops::Bound;

use dynamodb_lang::RangeCondition;

use crate::key::{segment_hash, KeyPart, PrimaryKey};
use crate::table::{IndexGroup, StoredItem, TableState};

/// What to visit: one partition of a Query, or every partition of a (segment
/// of a) Scan.
pub enum Walk {
    Query {
        hash: KeyPart,
        range: Option<RangeCondition>,
        forward: bool,
    },
    Scan {
        segment: Option<(u64, u64)>,
    },
}

/// Where a walk resumes: the table key and, on an index, the index key.
pub struct Start {
    pub table: PrimaryKey,
    pub index: Option<(KeyPart, Option<KeyPart>)>,
}

type SortBound = Bound<Option<KeyPart>>;

/// The sort-key interval a range condition selects (a superset for
/// begins_with, which the walk's filter narrows).
fn condition_bounds(range: &Option<RangeCondition>) -> (SortBound, SortBound) {
    let part = |v| Some(KeyPart::from_scalar(v));
    use Bound::{Excluded, Included, Unbounded};
    match range {
        None => (Unbounded, Unbounded),
        Some(RangeCondition::Eq(v)) => (Included(part(v)), Included(part(v))),
        Some(RangeCondition::Lt(v)) => (Unbounded, Excluded(part(v))),
        Some(RangeCondition::Le(v)) => (Unbounded, Included(part(v))),
        Some(RangeCondition::Gt(v)) => (Excluded(part(v)), Unbounded),
        Some(RangeCondition::Ge(v)) => (Included(part(v)), Unbounded),
        Some(RangeCondition::Between(a, b)) => (Included(part(a)), Included(part(b))),
        Some(RangeCondition::BeginsWith(v)) => (Included(part(v)), Unbounded),
    }
}

/// The tighter of two bounds: the larger lower bound (`Greater`) or the smaller
/// upper bound (`Less`); on equal values the excluding one.
fn tighter(a: SortBound, b: SortBound, wins: Ordering) -> SortBound {
    match (&a, &b) {
        (Bound::Unbounded, _) => b,
        (_, Bound::Unbounded) => a,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => {
            match y.cmp(x) {
                o if o == wins => b,
                Ordering::Equal if matches!(b, Bound::Excluded(_)) => b,
                _ => a,
            }
        }
    }
}

/// Whether no key lies between the bounds (BTreeMap::range panics on those).
fn is_empty(lower: &SortBound, upper: &SortBound) -> bool {
    match (lower, upper) {
        (Bound::Included(l), Bound::Included(u)) => l > u,
        (Bound::Included(l) | Bound::Excluded(l), Bound::Included(u) | Bound::Excluded(u)) => {
            l >= u
        }
        _ => false,
    }
}

fn in_segment(hash: &KeyPart, segment: Option<(u64, u64)>) -> bool {
    segment.is_none_or(|(s, total)| segment_hash(&hash.hash_bytes()) % total == s)
}

fn range_matches(range: &Option<RangeCondition>, value: Option<&KeyPart>) -> bool {
    match (range, value) {
        (None, _) => true,
        (Some(cond), Some(v)) => cond.matches(&v.to_value()),
        (Some(_), None) => false,
    }
}

/// One item of a table walk: its hash key, its sort key and the item.
pub type TableEntry<'a> = (&'a KeyPart, &'a Option<KeyPart>, &'a StoredItem);

/// The items a walk of the table visits, in order, with their keys: no key
/// is copied nor looked up again.
pub fn table_entries<'a>(
    state: &'a TableState,
    walk: &'a Walk,
    start: Option<PrimaryKey>,
) -> Box<dyn Iterator<Item = TableEntry<'a>> + 'a> {
    match walk {
        Walk::Query {
            hash,
            range,
            forward,
        } => {
            let Some((hash, partition)) = state.partitions.get_key_value(hash) else {
                return Box::new(std::iter::empty());
            };
            let (mut lower, mut upper) = condition_bounds(range);
            if let Some(after) = start.filter(|s| &s.hash == hash).map(|s| s.range) {
                if *forward {
                    lower = tighter(lower, Bound::Excluded(after), Ordering::Greater);
                } else {
                    upper = tighter(upper, Bound::Excluded(after), Ordering::Less);
                }
            }
            if is_empty(&lower, &upper) {
                return Box::new(std::iter::empty());
            }
            let entries = partition.range((lower, upper));
            let entries: Box<dyn Iterator<Item = (&Option<KeyPart>, &StoredItem)>> = if *forward {
                Box::new(entries)
            } else {
                Box::new(entries.rev())
            };
            // Every range condition selects one contiguous run of sort keys.
            Box::new(
                entries
                    .skip_while(move |(r, _)| !range_matches(range, r.as_ref()))
                    .take_while(move |(r, _)| range_matches(range, r.as_ref()))
                    .map(move |(r, stored)| (hash, r, stored)),
            )
        }
        Walk::Scan { segment } => {
            let segment = *segment;
            let from = match &start {
                Some(s) => Bound::Included(s.hash.clone()),
                None => Bound::Unbounded,
            };
            Box::new(
                state
                    .partitions
                    .range((from, Bound::Unbounded))
                    .filter(move |(h, _)| in_segment(h, segment))
                    .flat_map(|(h, items)| items.iter().map(move |(r, stored)| (h, r, stored)))
                    .filter(move |(h, r, _)| {
                        start
                            .as_ref()
                            .is_none_or(|s| (*h, *r) > (&s.hash, &s.range))
                    }),
            )
        }
    }
}

pub fn index_keys<'a>(
    state: &'a TableState,
    i: usize,
    walk: &'a Walk,
    start: Option<Start>,
) -> Box<dyn Iterator<Item = PrimaryKey> + 'a> {
    let index = &state.indexes[i];
    let start = start.and_then(|s| s.index.map(|(h, r)| (h, r, s.table)));
    match walk {
        Walk::Query {
            hash,
            range,
            forward,
        } => {
            let Some(partition) = index.partitions.get(hash) else {
                return Box::new(std::iter::empty());
            };
            // Resume inside the group of the start key, after its table key.
            let after = start
                .filter(|(h, _, _)| h == hash)
                .map(|(_, r, pk)| (r, pk));
            let (mut lower, mut upper) = condition_bounds(range);
            if let Some((r, _)) = &after {
                if *forward {
                    lower = tighter(lower, Bound::Included(r.clone()), Ordering::Greater);
                } else {
                    upper = tighter(upper, Bound::Included(r.clone()), Ordering::Less);
                }
            }
            if is_empty(&lower, &upper) {
                return Box::new(std::iter::empty());
            }
            let groups = partition.range((lower, upper));
            let groups: Box<dyn Iterator<Item = (&Option<KeyPart>, &IndexGroup)>> = if *forward {
                Box::new(groups)
            } else {
                Box::new(groups.rev())
            };
            Box::new(
                groups
                    .skip_while(move |(r, _)| !range_matches(range, r.as_ref()))
                    .take_while(move |(r, _)| range_matches(range, r.as_ref()))
                    .flat_map(move |(r, keys)| {
                        let skip_through = after
                            .as_ref()
                            .filter(|(ar, _)| ar == r)
                            .map(|(_, pk)| pk.clone());
                        keys.iter()
                            .filter(move |pk| skip_through.as_ref().is_none_or(|s| *pk > s))
                            .cloned()
                    }),
            )
        }
        Walk::Scan { segment } => {
            let segment = *segment;
            let from = match &start {
                Some((h, _, _)) => Bound::Included(h.clone()),
                None => Bound::Unbounded,
            };
            Box::new(
                index
                    .partitions
                    .range((from, Bound::Unbounded))
                    .filter(move |(h, _)| in_segment(h, segment))
                    .flat_map(|(h, groups)| {
                        groups
                            .iter()
                            .flat_map(move |(r, keys)| keys.iter().map(move |pk| (h, r, pk)))
                    })
                    .filter(move |(h, r, pk)| match &start {
                        Some((sh, sr, spk)) => (*h, *r, *pk) > (sh, sr, spk),
                        None => true,
                    })
                    .map(|(_, _, pk)| pk.clone()),
            )
        }
    }
}
