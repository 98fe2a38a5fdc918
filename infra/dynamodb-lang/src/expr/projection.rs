//! Projection expressions: which (nested) attributes a read returns.

use std::collections::BTreeMap;

use super::context::ExpressionContext;
use super::error::{ExprError, ExpressionKind};
use super::parser::Parser;
use super::path::{check_overlap, DocumentPath, PathElement};
use super::resolve::{self, Problem, Resolver};
use crate::value::{AttributeValue, Item};

#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    pub paths: Vec<DocumentPath>,
}

pub fn parse_projection(expr: &str, ctx: &mut ExpressionContext) -> Result<Projection, ExprError> {
    let kind = ExpressionKind::Projection;
    let raw = resolve::syntax(kind, Parser::for_projection(expr), |p| p.projection())?;
    let mut r = Resolver::new(ctx, kind);
    let paths: Vec<DocumentPath> = raw.iter().map(|p| r.path(p)).collect();
    if let Err(message) = check_overlap(&paths) {
        r.report(Problem::Overlap, message);
    }
    r.finish(Projection { paths })
}

/// Partial copy of a value; list elements keep their original index until the end,
/// where the projected elements are packed in index order (as DynamoDB returns them).
enum Tree {
    Leaf(AttributeValue),
    Map(BTreeMap<String, Tree>),
    List(BTreeMap<usize, Tree>),
}

impl Tree {
    /// `None` for containers that received nothing (the projected path was missing).
    fn into_value(self) -> Option<AttributeValue> {
        match self {
            Tree::Leaf(v) => Some(v),
            Tree::Map(m) => {
                let map: Item = m
                    .into_iter()
                    .filter_map(|(k, t)| Some((k, t.into_value()?)))
                    .collect();
                (!map.is_empty()).then_some(AttributeValue::M(map))
            }
            Tree::List(l) => {
                let list: Vec<AttributeValue> =
                    l.into_values().filter_map(Tree::into_value).collect();
                (!list.is_empty()).then_some(AttributeValue::L(list))
            }
        }
    }

    /// Copies the value at `rest` (relative to `source`) into this tree.
    fn insert(&mut self, source: &AttributeValue, rest: &[PathElement]) {
        let Some((head, tail)) = rest.split_first() else {
            *self = Tree::Leaf(source.clone());
            return;
        };
        match (self, source, head) {
            (Tree::Map(m), AttributeValue::M(src), PathElement::Attribute(name)) => {
                if let Some(child) = src.get(name) {
                    m.entry(name.clone())
                        .or_insert_with(|| Tree::empty_for(tail))
                        .insert(child, tail);
                }
            }
            (Tree::List(l), AttributeValue::L(src), PathElement::Index(i)) => {
                if let Some(child) = src.get(*i) {
                    l.entry(*i)
                        .or_insert_with(|| Tree::empty_for(tail))
                        .insert(child, tail);
                }
            }
            _ => {}
        }
    }

    fn empty_for(rest: &[PathElement]) -> Tree {
        match rest.first() {
            Some(PathElement::Index(_)) => Tree::List(BTreeMap::new()),
            _ => Tree::Map(BTreeMap::new()),
        }
    }
}

impl Projection {
    pub fn apply(&self, item: &Item) -> Item {
        // Top-level names only (the common case): copy those attributes, with
        // no partial trees to build and pack.
        if self.paths.iter().all(|p| p.0.len() == 1) {
            return self
                .paths
                .iter()
                .filter_map(|path| match path.0.first() {
                    Some(PathElement::Attribute(name)) => item
                        .get_key_value(name)
                        .map(|(k, v)| (k.clone(), v.clone())),
                    _ => None,
                })
                .collect();
        }
        let mut top: BTreeMap<String, Tree> = BTreeMap::new();
        for path in &self.paths {
            let Some((PathElement::Attribute(name), rest)) = path.0.split_first() else {
                continue;
            };
            let Some(value) = item.get(name) else {
                continue;
            };
            top.entry(name.clone())
                .or_insert_with(|| Tree::empty_for(rest))
                .insert(value, rest);
        }
        top.into_iter()
            .filter_map(|(k, t)| Some((k, t.into_value()?)))
            .collect()
    }

    pub fn top_level_attributes(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for path in &self.paths {
            let name = path.top_level().to_string();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }
}
