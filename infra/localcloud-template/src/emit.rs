//! Writes a node tree back as block-style YAML. Intrinsics come out in their
//! long form (`Fn::Sub:`), which CloudFormation and SAM read like the short
//! one; quoted scalars are written as JSON strings (valid YAML double-quoted
//! scalars); comments are not kept.

use crate::yaml::{Entry, Kind, Node};

pub(crate) fn emit(root: &Node) -> String {
    let mut out = String::new();
    match &root.kind {
        Kind::Map(entries) if !entries.is_empty() => map(entries, 0, &mut out),
        _ => {
            out.push_str(&inline(root).unwrap_or_else(|| "{}".into()));
            out.push('\n');
        }
    }
    out
}

/// A scalar or an empty collection on one line; `None` for a block.
fn inline(node: &Node) -> Option<String> {
    match &node.kind {
        Kind::Scalar { text, plain } => Some(scalar(text, *plain)),
        Kind::Seq(items) if items.is_empty() => Some("[]".into()),
        Kind::Map(entries) if entries.is_empty() => Some("{}".into()),
        _ => None,
    }
}

fn map(entries: &[Entry], indent: usize, out: &mut String) {
    for e in entries {
        out.push_str(&" ".repeat(indent));
        out.push_str(&key(&e.key));
        out.push(':');
        value(&e.value, indent + 2, out);
    }
}

/// After `key:` or `-`: a scalar on the same line, a block below it.
fn value(node: &Node, indent: usize, out: &mut String) {
    if let Some(text) = inline(node) {
        out.push(' ');
        out.push_str(&text);
        out.push('\n');
        return;
    }
    out.push('\n');
    match &node.kind {
        Kind::Map(entries) => map(entries, indent, out),
        Kind::Seq(items) => seq(items, indent, out),
        Kind::Scalar { .. } => unreachable!("scalars are inline"),
    }
}

fn seq(items: &[Node], indent: usize, out: &mut String) {
    for item in items {
        out.push_str(&" ".repeat(indent));
        out.push('-');
        match (&item.kind, inline(item)) {
            (_, Some(text)) => {
                out.push(' ');
                out.push_str(&text);
                out.push('\n');
            }
            (Kind::Map(entries), None) => {
                // The first key on the dash's line, the rest aligned with it.
                let mut block = String::new();
                map(entries, indent + 2, &mut block);
                out.push(' ');
                out.push_str(block.trim_start());
            }
            (_, None) => value(item, indent + 2, out),
        }
    }
}

fn key(k: &str) -> String {
    let simple = !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
        && !k.ends_with(':');
    if simple {
        k.to_string()
    } else {
        json_string(k)
    }
}

/// A scalar is written plain when it reads back as the same value: a plain
/// scalar as itself, a quoted one only when plain it would still be a string
/// (`"500"` stays quoted, `"Api"` needs no quotes).
fn scalar(text: &str, plain: bool) -> String {
    let stays_string = || {
        let node = Node {
            kind: Kind::Scalar {
                text: text.to_string(),
                plain: true,
            },
            line: 0,
        };
        matches!(node.scalar_value(), Some(serde_json::Value::String(_)))
    };
    if plain_is_safe(text) && (plain || stays_string()) {
        text.to_string()
    } else {
        json_string(text)
    }
}

fn plain_is_safe(text: &str) -> bool {
    let first_ok = text
        .chars()
        .next()
        .is_some_and(|c| !"-?:,[]{}#&*!|>'\"%@`".contains(c) || text == "-");
    first_ok
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.contains('\n')
        && !text.ends_with(':')
        && text.trim() == text
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse;

    fn round_trip(text: &str) {
        let tree = parse(text).unwrap();
        let emitted = emit(&tree);
        let again = parse(&emitted).unwrap_or_else(|e| panic!("{e:?}\n{emitted}"));
        assert_eq!(strip_lines(&tree), strip_lines(&again), "{emitted}");
    }

    /// The tree without line numbers and quoting, for comparison.
    fn strip_lines(node: &Node) -> Node {
        let kind = match &node.kind {
            // Compared by the value they read as, not by their quoting.
            Kind::Scalar { .. } => Kind::Scalar {
                text: node.scalar_value().unwrap().to_string(),
                plain: true,
            },
            Kind::Seq(items) => Kind::Seq(items.iter().map(strip_lines).collect()),
            Kind::Map(entries) => Kind::Map(
                entries
                    .iter()
                    .map(|e| Entry {
                        key: e.key.clone(),
                        key_line: 0,
                        value: strip_lines(&e.value),
                    })
                    .collect(),
            ),
        };
        Node { kind, line: 0 }
    }

    #[test]
    fn templates_read_back_as_the_same_tree() {
        round_trip(
            "A: 1\nB: [x, 'y z', \"q\"]\nC:\n  D: !Ref E\n  F: !Sub \"${AWS::StackName}-x\"\n  G: []\n  H: {}\nL:\n  - {K: v, M: [1, 2]}\n  - !GetAtt T.Arn\n",
        );
        round_trip("Description: >\n  two\n  lines\nX: 'a: b'\nY: '#c'\nZ: \"*\"\n");
    }

    #[test]
    fn plain_scalars_that_would_change_meaning_are_quoted() {
        assert_eq!(scalar("*", true), "\"*\"");
        assert_eq!(scalar("a: b", true), "\"a: b\"");
        assert_eq!(scalar("dynamodb:GetItem", true), "dynamodb:GetItem");
        assert_eq!(scalar("500", false), "\"500\"");
        assert_eq!(scalar("true", false), "\"true\"");
        assert_eq!(scalar("Api", false), "Api");
    }
}
