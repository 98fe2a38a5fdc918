//! Walking a table or an index in key order: which keys a Query or Scan
//! visits, from where it resumes, and in which direction.

use std::cmp::Ordering;
use std::ops::Bound;

use dynamodb_lang::RangeCondition;

use crate::key::{segment_hash, KeyPart, PrimaryKey};
use crate::table::TableState;

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

pub fn table_keys<'a>(
    state: &'a TableState,
    walk: &'a Walk,
    start: Option<PrimaryKey>,
) -> Box<dyn Iterator<Item = PrimaryKey> + 'a> {
    match walk {
        Walk::Query {
            hash,
            range,
            forward,
        } => {
            let Some(partition) = state.partitions.get(hash) else {
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
            let entries = partition.range((lower, upper)).map(|(r, _)| r);
            let entries: Box<dyn Iterator<Item = &Option<KeyPart>>> = if *forward {
                Box::new(entries)
            } else {
                Box::new(entries.rev())
            };
            // Every range condition selects one contiguous run of sort keys.
            Box::new(
                entries
                    .skip_while(move |r| !range_matches(range, r.as_ref()))
                    .take_while(move |r| range_matches(range, r.as_ref()))
                    .map(move |r| PrimaryKey {
                        hash: hash.clone(),
                        range: r.clone(),
                    }),
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
                    .flat_map(|(h, items)| {
                        items.keys().map(move |r| PrimaryKey {
                            hash: h.clone(),
                            range: r.clone(),
                        })
                    })
                    .filter(move |k| start.as_ref().is_none_or(|s| k > s)),
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
    let start = start.and_then(|s| s.index.map(|(h, r)| (h, (r, s.table))));
    match walk {
        Walk::Query {
            hash,
            range,
            forward,
        } => {
            let Some(partition) = index.partitions.get(hash) else {
                return Box::new(std::iter::empty());
            };
            let after = start.filter(|(h, _)| h == hash).map(|(_, pos)| pos);
            let bounds = match (&after, forward) {
                (Some(p), true) => (Bound::Excluded(p), Bound::Unbounded),
                (Some(p), false) => (Bound::Unbounded, Bound::Excluded(p)),
                (None, _) => (Bound::Unbounded, Bound::Unbounded),
            };
            let entries = partition.range::<(Option<KeyPart>, PrimaryKey), _>(bounds);
            let entries: Box<dyn Iterator<Item = &(Option<KeyPart>, PrimaryKey)>> = if *forward {
                Box::new(entries)
            } else {
                Box::new(entries.rev())
            };
            Box::new(
                entries
                    .skip_while(move |(r, _)| !range_matches(range, r.as_ref()))
                    .take_while(move |(r, _)| range_matches(range, r.as_ref()))
                    .map(|(_, pk)| pk.clone()),
            )
        }
        Walk::Scan { segment } => {
            let segment = *segment;
            let from = match &start {
                Some((h, _)) => Bound::Included(h.clone()),
                None => Bound::Unbounded,
            };
            Box::new(
                index
                    .partitions
                    .range((from, Bound::Unbounded))
                    .filter(move |(h, _)| in_segment(h, segment))
                    .flat_map(|(h, entries)| entries.iter().map(move |pos| (h, pos)))
                    .filter(move |(h, pos)| match &start {
                        Some((sh, spos)) => (*h, *pos) > (sh, spos),
                        None => true,
                    })
                    .map(|(_, (_, pk))| pk.clone()),
            )
        }
    }
}
