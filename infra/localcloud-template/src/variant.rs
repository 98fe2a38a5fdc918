//! What the generated versions of a template (REST APIs, Lambda Managed
//! Instances) share: their error, and edits of the YAML tree.

use crate::yaml::{self, Entry, Kind, Node};

/// Why a template has no version of a kind: where, and what is in the way.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {path}: {message}")]
pub struct VariantError {
    pub line: usize,
    pub path: String,
    pub message: String,
}

/// The template's YAML tree, or its YAML errors.
pub(crate) fn parse(template: &str) -> Result<Node, Vec<VariantError>> {
    yaml::parse(template).map_err(|errors| {
        errors
            .into_iter()
            .map(|e| VariantError {
                line: e.line,
                path: String::new(),
                message: e.message,
            })
            .collect()
    })
}

pub(crate) fn map_entry<'a>(node: &'a mut Node, key: &str) -> Option<&'a mut Entry> {
    match &mut node.kind {
        Kind::Map(entries) => entries.iter_mut().find(|e| e.key == key),
        _ => None,
    }
}

/// The map entry `key` of `node` (a map), added empty at the end if missing.
pub(crate) fn map_entry_or_empty<'a>(node: &'a mut Node, key: &str) -> &'a mut Entry {
    let line = node.line;
    if map_entry(node, key).is_none() {
        if let Kind::Map(entries) = &mut node.kind {
            let empty = Node {
                kind: Kind::Map(Vec::new()),
                line,
            };
            entries.push(entry(key, empty));
        }
    }
    map_entry(node, key).expect("a map node")
}

pub(crate) fn entries(node: &mut Node) -> &mut [Entry] {
    match &mut node.kind {
        Kind::Map(entries) => entries,
        _ => &mut [],
    }
}

pub(crate) fn text(node: Option<&Entry>) -> Option<&str> {
    node.and_then(|e| e.value.text())
}

pub(crate) fn error(errors: &mut Vec<VariantError>, line: usize, path: &str, message: &str) {
    errors.push(VariantError {
        line,
        path: path.to_string(),
        message: message.to_string(),
    });
}

pub(crate) fn scalar(text: &str, line: usize) -> Node {
    Node::scalar(text, line)
}

pub(crate) fn entry(key: &str, value: Node) -> Entry {
    Entry {
        key: key.to_string(),
        key_line: value.line,
        value,
    }
}
