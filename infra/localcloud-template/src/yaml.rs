//! A YAML document as a tree of nodes that remember their line, with the
//! CloudFormation short-form tags (`!Ref`, `!Sub`, ...) rewritten to their long
//! form (`{Ref: ..}`, `{Fn::Sub: ..}`) so the rest of the crate sees one shape.

use std::collections::HashMap;

use serde_json::Value;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Deeper documents are rejected: templates are shallow, and it keeps every
/// recursive walk over the tree far from the stack limit.
const MAX_DEPTH: usize = 200;
/// Aliases may multiply a document; a template never needs this many nodes.
const MAX_NODES: usize = 1_000_000;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub kind: Kind,
    /// 1-based line of the node's first character.
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// `plain` scalars are typed by the YAML core schema (null, bool, numbers);
    /// quoted and block scalars are always strings.
    Scalar {
        text: String,
        plain: bool,
    },
    Seq(Vec<Node>),
    Map(Vec<Entry>),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub key: String,
    pub key_line: usize,
    pub value: Node,
}

/// A problem found while reading the YAML text itself.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct YamlError {
    pub line: usize,
    pub message: String,
}

/// Short-form tags and the long-form key each stands for.
const SHORT_FORMS: &[(&str, &str)] = &[
    ("Ref", "Ref"),
    ("Condition", "Condition"),
    ("GetAtt", "Fn::GetAtt"),
    ("Sub", "Fn::Sub"),
    ("Join", "Fn::Join"),
    ("Select", "Fn::Select"),
    ("Split", "Fn::Split"),
    ("If", "Fn::If"),
    ("Equals", "Fn::Equals"),
    ("Not", "Fn::Not"),
    ("And", "Fn::And"),
    ("Or", "Fn::Or"),
    ("FindInMap", "Fn::FindInMap"),
    ("Base64", "Fn::Base64"),
    ("GetAZs", "Fn::GetAZs"),
    ("ImportValue", "Fn::ImportValue"),
    ("Cidr", "Fn::Cidr"),
    ("Length", "Fn::Length"),
    ("ToJsonString", "Fn::ToJsonString"),
    ("Transform", "Fn::Transform"),
];

impl Node {
    pub fn scalar(text: &str, line: usize) -> Node {
        Node {
            kind: Kind::Scalar {
                text: text.to_string(),
                plain: false,
            },
            line,
        }
    }

    pub fn map(&self) -> Option<&[Entry]> {
        match &self.kind {
            Kind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn seq(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The text of a scalar (whatever its YAML type).
    pub fn text(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.map()?.iter().find(|e| e.key == key)
    }

    /// `Some((name, argument))` when the node is a one-key map naming an
    /// intrinsic function or a condition reference.
    pub fn intrinsic(&self) -> Option<(&str, &Node)> {
        match self.map()? {
            [e] if e.key == "Ref" || e.key == "Condition" || e.key.starts_with("Fn::") => {
                Some((e.key.as_str(), &e.value))
            }
            _ => None,
        }
    }

    /// The scalar as JSON per the YAML core schema.
    pub fn scalar_value(&self) -> Option<Value> {
        let Kind::Scalar { text, plain } = &self.kind else {
            return None;
        };
        if !plain {
            return Some(Value::String(text.clone()));
        }
        Some(match text.as_str() {
            "" | "~" | "null" | "Null" | "NULL" => Value::Null,
            "true" | "True" | "TRUE" => Value::Bool(true),
            "false" | "False" | "FALSE" => Value::Bool(false),
            t => plain_number(t).unwrap_or_else(|| Value::String(t.to_string())),
        })
    }
}

fn plain_number(t: &str) -> Option<Value> {
    if let Ok(i) = t.parse::<i64>() {
        return Some(Value::from(i));
    }
    let looks_numeric = t
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    if looks_numeric && t.bytes().any(|b| b.is_ascii_digit()) {
        let f = t.parse::<f64>().ok()?;
        return serde_json::Number::from_f64(f).map(Value::Number);
    }
    None
}

/// Parses one YAML document. An empty document is an empty map.
pub(crate) fn parse(text: &str) -> Result<Node, Vec<YamlError>> {
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut builder, false) {
        return Err(vec![YamlError {
            line: e.marker().line().max(1),
            message: format!("invalid YAML: {}", e.info()),
        }]);
    }
    if !builder.errors.is_empty() {
        return Err(builder.errors);
    }
    Ok(builder.root.unwrap_or(Node {
        kind: Kind::Map(Vec::new()),
        line: 1,
    }))
}

enum Frame {
    Seq {
        line: usize,
        anchor: usize,
        tag: Option<Tag>,
        items: Vec<Node>,
    },
    Map {
        line: usize,
        anchor: usize,
        tag: Option<Tag>,
        entries: Vec<Entry>,
        pending_key: Option<(String, usize)>,
    },
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    /// Height of the tallest finished child of each open frame.
    heights: Vec<usize>,
    /// Anchored nodes and their heights.
    anchors: HashMap<usize, (Node, usize)>,
    root: Option<Node>,
    errors: Vec<YamlError>,
    nodes: usize,
    /// Set after the first document: later ones are ignored.
    done: bool,
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.done || !self.errors.is_empty() {
            return;
        }
        let line = mark.line().max(1);
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                let plain = style == TScalarStyle::Plain && tag.is_none();
                let node = Node {
                    kind: Kind::Scalar { text, plain },
                    line,
                };
                self.finish(node, 1, anchor, tag);
            }
            Event::SequenceStart(anchor, tag) => self.open(Frame::Seq {
                line,
                anchor,
                tag,
                items: Vec::new(),
            }),
            Event::MappingStart(anchor, tag) => self.open(Frame::Map {
                line,
                anchor,
                tag,
                entries: Vec::new(),
                pending_key: None,
            }),
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            Event::Alias(id) => match self.anchors.get(&id).cloned() {
                Some((node, height)) => {
                    self.nodes += count_nodes(&node);
                    self.finish(node, height, 0, None)
                }
                None => self.error(line, "alias to an unknown anchor".into()),
            },
            Event::DocumentEnd => self.done = self.root.is_some(),
            _ => {}
        }
    }
}

impl Builder {
    fn error(&mut self, line: usize, message: String) {
        self.errors.push(YamlError { line, message });
    }

    fn open(&mut self, frame: Frame) {
        if self.stack.len() >= MAX_DEPTH {
            let line = frame_line(&frame);
            self.error(
                line,
                format!("document nested deeper than {MAX_DEPTH} levels"),
            );
            return;
        }
        self.stack.push(frame);
        self.heights.push(0);
    }

    fn close(&mut self) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let height = self.heights.pop().unwrap_or(0) + 1;
        let (node, anchor, tag) = match frame {
            Frame::Seq {
                line,
                anchor,
                tag,
                items,
            } => (
                Node {
                    kind: Kind::Seq(items),
                    line,
                },
                anchor,
                tag,
            ),
            Frame::Map {
                line,
                anchor,
                tag,
                entries,
                ..
            } => (
                Node {
                    kind: Kind::Map(entries),
                    line,
                },
                anchor,
                tag,
            ),
        };
        self.finish(node, height, anchor, tag);
    }

    /// Applies the tag, records the anchor and attaches the node to its parent.
    /// `height` counts the levels of the node's tree (1 for a scalar); an
    /// alias must not let the whole tree grow deeper than `MAX_DEPTH`.
    fn finish(&mut self, node: Node, height: usize, anchor: usize, tag: Option<Tag>) {
        // A short-form tag wraps the node in up to two levels.
        let height = height + if tag.is_some() { 2 } else { 0 };
        if self.stack.len() + height > MAX_DEPTH {
            let m = format!("document nested deeper than {MAX_DEPTH} levels");
            return self.error(node.line, m);
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            if self.nodes == MAX_NODES + 1 {
                self.error(node.line, "document has too many nodes".into());
            }
            return;
        }
        let node = match tag {
            Some(tag) => match apply_tag(node, &tag) {
                Ok(n) => n,
                Err(e) => return self.errors.push(e),
            },
            None => node,
        };
        if anchor > 0 {
            self.anchors.insert(anchor, (node.clone(), height));
        }
        if let Some(h) = self.heights.last_mut() {
            *h = (*h).max(height);
        }
        self.attach(node);
    }

    fn attach(&mut self, node: Node) {
        let mut duplicate = None;
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries,
                pending_key,
                ..
            }) => match pending_key.take() {
                Some((key, key_line)) => entries.push(Entry {
                    key,
                    key_line,
                    value: node,
                }),
                None => match node.text() {
                    Some(k) if entries.iter().any(|e| e.key == k) => {
                        duplicate = Some((node.line, format!("duplicate key `{k}`")));
                    }
                    Some(k) => *pending_key = Some((k.to_string(), node.line)),
                    None => {
                        duplicate = Some((node.line, "mapping keys must be scalars".to_string()));
                    }
                },
            },
        }
        if let Some((line, message)) = duplicate {
            self.error(line, message);
        }
    }
}

fn frame_line(frame: &Frame) -> usize {
    match frame {
        Frame::Seq { line, .. } | Frame::Map { line, .. } => *line,
    }
}

fn count_nodes(node: &Node) -> usize {
    match &node.kind {
        Kind::Scalar { .. } => 1,
        Kind::Seq(items) => 1 + items.iter().map(count_nodes).sum::<usize>(),
        Kind::Map(entries) => 1 + entries.iter().map(|e| count_nodes(&e.value)).sum::<usize>(),
    }
}

fn apply_tag(node: Node, tag: &Tag) -> Result<Node, YamlError> {
    if tag.handle == "tag:yaml.org,2002:" {
        // `!!str 123` forces a string; other standard tags keep the node as is.
        return Ok(match (tag.suffix.as_str(), node.kind) {
            ("str", Kind::Scalar { text, .. }) => Node::scalar(&text, node.line),
            (_, kind) => Node {
                kind,
                line: node.line,
            },
        });
    }
    let long = (tag.handle == "!")
        .then(|| SHORT_FORMS.iter().find(|(s, _)| *s == tag.suffix))
        .flatten();
    let Some((_, long)) = long else {
        return Err(YamlError {
            line: node.line,
            message: format!("unknown tag `{}{}`", tag.handle, tag.suffix),
        });
    };
    let line = node.line;
    let value = if *long == "Fn::GetAtt" {
        getatt_argument(node)
    } else {
        node
    };
    Ok(Node {
        kind: Kind::Map(vec![Entry {
            key: long.to_string(),
            key_line: line,
            value,
        }]),
        line,
    })
}

/// `!GetAtt Res.Attr` is the list `[Res, Attr]` (split at the first dot).
fn getatt_argument(node: Node) -> Node {
    let line = node.line;
    match &node.kind {
        Kind::Scalar { text, .. } => match text.split_once('.') {
            Some((res, attr)) => Node {
                kind: Kind::Seq(vec![Node::scalar(res, line), Node::scalar(attr, line)]),
                line,
            },
            None => node,
        },
        _ => node,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_form_ref_becomes_long_form_with_its_line() {
        // GIVEN a tagged scalar on line 2
        let node = parse("a: 1\nb: !Ref Foo\n").unwrap();
        // WHEN looking at b
        let b = &node.get("b").unwrap().value;
        // THEN it is {Ref: Foo} on line 2
        let (name, arg) = b.intrinsic().unwrap();
        assert_eq!((name, arg.text(), b.line), ("Ref", Some("Foo"), 2));
    }

    #[test]
    fn getatt_short_form_splits_at_first_dot() {
        let node = parse("x: !GetAtt Api.ApiEndpoint\n").unwrap();
        let (name, arg) = node.get("x").unwrap().value.intrinsic().unwrap();
        let parts: Vec<_> = arg
            .seq()
            .unwrap()
            .iter()
            .map(|n| n.text().unwrap())
            .collect();
        assert_eq!(name, "Fn::GetAtt");
        assert_eq!(parts, ["Api", "ApiEndpoint"]);
    }

    #[test]
    fn unknown_tag_is_an_error_on_its_line() {
        let errors = parse("a: 1\n\nb: !Bogus x\n").unwrap_err();
        assert_eq!(errors[0].line, 3);
        assert!(errors[0].message.contains("!Bogus"));
    }

    #[test]
    fn duplicate_key_is_an_error() {
        let errors = parse("a: 1\na: 2\n").unwrap_err();
        assert!(errors[0].message.contains("duplicate key `a`"));
        assert_eq!(errors[0].line, 2);
    }

    #[test]
    fn plain_scalars_follow_the_core_schema_and_quoted_ones_stay_strings() {
        let node = parse("a: 128\nb: '128'\nc: true\nd: ~\n").unwrap();
        let v = |k: &str| node.get(k).unwrap().value.scalar_value().unwrap();
        assert_eq!(v("a"), Value::from(128));
        assert_eq!(v("b"), Value::from("128"));
        assert_eq!(v("c"), Value::Bool(true));
        assert_eq!(v("d"), Value::Null);
    }

    #[test]
    fn aliases_copy_the_anchored_node() {
        let node = parse("a: &x {k: v}\nb: *x\n").unwrap();
        assert_eq!(node.get("a").unwrap().value, node.get("b").unwrap().value);
    }

    #[test]
    fn deep_nesting_is_rejected_not_overflowed() {
        let text = "[".repeat(5000);
        assert!(parse(&text).is_err());
    }

    #[test]
    fn aliases_cannot_build_a_tree_deeper_than_the_limit() {
        // GIVEN anchors that each nest the previous one 50 levels deeper
        let mut text = String::from("a0: &a0 x\n");
        for i in 1..10 {
            let open = "[".repeat(50);
            let close = "]".repeat(50);
            text.push_str(&format!("a{i}: &a{i} {open}*a{}{close}\n", i - 1));
        }
        // WHEN parsed THEN the depth limit stops it instead of the stack
        let errors = parse(&text).unwrap_err();
        assert!(errors[0].message.contains("nested deeper"), "{errors:?}");
    }

    #[test]
    fn syntax_error_reports_a_line() {
        let errors = parse("a: 1\nb: [1, 2\nc: 3\n").unwrap_err();
        assert!(errors[0].line >= 2, "{errors:?}");
    }
}
