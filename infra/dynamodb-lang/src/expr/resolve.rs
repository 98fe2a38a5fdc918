//! Meaning of a parsed expression: substitutes placeholders, rejects reserved words and
//! misused functions, checks operand types of constants. Problems are collected and the
//! one AWS reports first (by category, then by position) wins.

use std::collections::BTreeMap;

use super::condition::{Condition, Operand};
use super::context::ExpressionContext;
use super::error::{ExprError, ExpressionKind};
use super::parser::{Parser, RawCond, RawOperand, RawPathElem};
use super::path::{DocumentPath, PathElement};
use super::reserved::is_reserved_word;
use crate::value::{compare_key_values, AttributeValue, TYPE_CODES};

/// Error categories in the order AWS reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Problem {
    Parens,
    UnknownFunction,
    MisusedFunction,
    Reserved,
    Section,
    Placeholder,
    Overlap,
    Operands,
    Distinct,
    Types,
}

const CONDITION_FUNCTIONS: [(&str, usize); 6] = [
    ("attribute_exists", 1),
    ("attribute_not_exists", 1),
    ("attribute_type", 2),
    ("begins_with", 2),
    ("contains", 2),
    ("size", 1),
];
const UPDATE_FUNCTIONS: [(&str, usize); 2] = [("if_not_exists", 2), ("list_append", 2)];

pub(crate) fn condition_arity(name: &str) -> Option<usize> {
    CONDITION_FUNCTIONS
        .iter()
        .find(|f| f.0 == name)
        .map(|f| f.1)
}

pub(crate) fn update_arity(name: &str) -> Option<usize> {
    UPDATE_FUNCTIONS.iter().find(|f| f.0 == name).map(|f| f.1)
}

pub(crate) struct Resolver<'c> {
    ctx: &'c mut ExpressionContext,
    pub kind: ExpressionKind,
    problems: BTreeMap<Problem, String>,
}

impl<'c> Resolver<'c> {
    pub fn new(ctx: &'c mut ExpressionContext, kind: ExpressionKind) -> Self {
        Resolver {
            ctx,
            kind,
            problems: BTreeMap::new(),
        }
    }

    /// Keeps the first problem of each category.
    pub fn report(&mut self, problem: Problem, message: impl Into<String>) {
        self.problems
            .entry(problem)
            .or_insert_with(|| message.into());
    }

    pub fn finish<T>(self, value: T) -> Result<T, ExprError> {
        match self.problems.into_values().next() {
            Some(message) => Err(ExprError::invalid(self.kind, message)),
            None => Ok(value),
        }
    }

    pub fn path(&mut self, raw: &[RawPathElem]) -> DocumentPath {
        let elements = raw
            .iter()
            .map(|e| match e {
                RawPathElem::Ident(name) => {
                    if is_reserved_word(name) {
                        self.report(
                            Problem::Reserved,
                            format!(
                                "Attribute name is a reserved keyword; reserved keyword: {name}"
                            ),
                        );
                    }
                    PathElement::Attribute(name.clone())
                }
                RawPathElem::Name(placeholder) => PathElement::Attribute(self.name(placeholder)),
                RawPathElem::Index(i) => PathElement::Index(*i),
            })
            .collect::<Vec<_>>();
        if elements.len() > MAX_PATH_DEPTH {
            self.report(
                Problem::Types,
                format!(
                    "The document path has too many nesting levels; nesting levels: {}",
                    elements.len()
                ),
            );
        }
        DocumentPath(elements)
    }

    fn name(&mut self, placeholder: &str) -> String {
        self.ctx.name(placeholder).unwrap_or_else(|| {
            self.report(
                Problem::Placeholder,
                format!("An expression attribute name used in the document path is not defined; attribute name: {placeholder}"),
            );
            placeholder.to_string()
        })
    }

    pub fn value(&mut self, placeholder: &str) -> AttributeValue {
        self.ctx.value(placeholder).unwrap_or_else(|| {
            self.report(
                Problem::Placeholder,
                format!("An expression attribute value used in expression is not defined; attribute value: {placeholder}"),
            );
            AttributeValue::Null
        })
    }

    pub fn operand_count(&mut self, name: &str, count: usize) {
        self.report(
            Problem::Operands,
            format!("Incorrect number of operands for operator or function; operator or function: {name}, number of operands: {count}"),
        );
    }

    pub fn operand_type(&mut self, name: &str, type_code: &str) {
        self.report(
            Problem::Types,
            format!("Incorrect operand type for operator or function; operator or function: {name}, operand type: {type_code}"),
        );
    }

    pub fn requires_path(&mut self, name: &str) {
        self.report(
            Problem::Types,
            format!("Operator or function requires a document path; operator or function: {name}"),
        );
    }

    /// `a = a`, `begins_with(a, a)`: AWS wants the operands to differ.
    pub fn check_distinct(&mut self, operator: &str, a: &RawOperand, b: &RawOperand) {
        if let (RawOperand::Path(x), RawOperand::Path(y)) = (unparen(a), unparen(b)) {
            if x == y {
                let path = self.path(x);
                self.report(
                    Problem::Distinct,
                    format!("The first operand must be distinct from the remaining operands for this operator or function; operator: {operator}, first operand: {}", path.describe()),
                );
            }
        }
    }

    pub fn check_parens(&mut self, inner_is_parens: bool) {
        if inner_is_parens {
            self.report(Problem::Parens, "The expression has redundant parentheses;");
        }
    }

    // ---- conditions ----

    pub fn cond(&mut self, raw: &RawCond) -> Condition {
        match raw {
            RawCond::Parens(inner) => {
                self.check_parens(matches!(**inner, RawCond::Parens(_)));
                self.cond(inner)
            }
            RawCond::And(a, b) => Condition::And(Box::new(self.cond(a)), Box::new(self.cond(b))),
            RawCond::Or(a, b) => Condition::Or(Box::new(self.cond(a)), Box::new(self.cond(b))),
            RawCond::Not(a) => Condition::Not(Box::new(self.cond(a))),
            RawCond::Compare(a, op, b) => {
                let (x, y) = (self.operand(a), self.operand(b));
                self.check_distinct(op.symbol(), a, b);
                Condition::Compare(x, *op, y)
            }
            RawCond::Between(v, low, high) => {
                let (v, low, high) = (self.operand(v), self.operand(low), self.operand(high));
                self.check_between_bounds(&low, &high);
                Condition::Between(v, low, high)
            }
            RawCond::In(v, list) => {
                if list.len() > 100 {
                    self.report(
                        Problem::Operands,
                        format!("The IN operator is provided with too many operands; number of operands: {}", list.len()),
                    );
                }
                let v = self.operand(v);
                Condition::In(v, list.iter().map(|o| self.operand(o)).collect())
            }
            RawCond::Call(call) => self.function_condition(unparen(call)),
        }
    }

    fn check_between_bounds(&mut self, low: &Operand, high: &Operand) {
        let (Operand::Value(l), Operand::Value(h)) = (low, high) else {
            return;
        };
        let bounds = format!(
            "lower bound operand: AttributeValue: {{{}:{}}}, upper bound operand: AttributeValue: {{{}:{}}}",
            l.type_code(),
            scalar_text(l),
            h.type_code(),
            scalar_text(h)
        );
        if l.type_code() != h.type_code() {
            self.report(
                Problem::Types,
                format!("The BETWEEN operator requires same data type for lower and upper bounds; {bounds}"),
            );
        } else if compare_key_values(l, h) == Some(std::cmp::Ordering::Greater) {
            self.report(
                Problem::Types,
                format!("The BETWEEN operator requires upper bound to be greater than or equal to lower bound; {bounds}"),
            );
        }
    }

    fn function_condition(&mut self, call: &RawOperand) -> Condition {
        let dummy = Condition::AttributeExists(DocumentPath(Vec::new()));
        let RawOperand::Call(name, args) = call else {
            return dummy;
        };
        let resolved: Vec<Operand> = args.iter().map(|a| self.operand(a)).collect();
        let Some(arity) = self.known_condition_function(name) else {
            return dummy;
        };
        if name == "size" {
            self.misused(name);
            return dummy;
        }
        if args.len() != arity {
            self.operand_count(name, args.len());
            return dummy;
        }
        if arity == 2 {
            self.check_distinct(name, &args[0], &args[1]);
        }
        let mut ops = resolved.into_iter();
        let (first, second) = (ops.next(), ops.next());
        let Some(first) = first else {
            return dummy;
        };
        match (name.as_str(), second) {
            ("attribute_exists" | "attribute_not_exists", _) => {
                let Operand::Path(path) = first else {
                    self.requires_path(name);
                    return dummy;
                };
                if name == "attribute_exists" {
                    Condition::AttributeExists(path)
                } else {
                    Condition::AttributeNotExists(path)
                }
            }
            ("attribute_type", Some(t)) => {
                if !matches!(first, Operand::Path(_)) {
                    self.requires_path(name);
                }
                self.check_type_name(&t);
                Condition::AttributeType(first, t)
            }
            ("begins_with", Some(prefix)) => {
                for op in [&first, &prefix] {
                    if let Operand::Value(v) = op {
                        if !matches!(v, AttributeValue::S(_) | AttributeValue::B(_)) {
                            self.operand_type(name, v.type_code());
                        }
                    }
                }
                Condition::BeginsWith(first, prefix)
            }
            ("contains", Some(member)) => Condition::Contains(first, member),
            _ => dummy,
        }
    }

    fn check_type_name(&mut self, t: &Operand) {
        match t {
            Operand::Value(AttributeValue::S(code)) => {
                if !TYPE_CODES.contains(&code.as_str()) {
                    self.report(
                        Problem::Types,
                        format!("Invalid attribute type name found; type: {code}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"),
                    );
                }
            }
            Operand::Value(other) => self.operand_type("attribute_type", other.type_code()),
            _ => self.operand_type("attribute_type", "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}"),
        }
    }

    /// Arity of a function allowed in conditions, reporting names that are not.
    fn known_condition_function(&mut self, name: &str) -> Option<usize> {
        if let Some(arity) = condition_arity(name) {
            return Some(arity);
        }
        if update_arity(name).is_some() {
            self.report(
                Problem::MisusedFunction,
                format!("The function is not allowed in a condition expression; function: {name}"),
            );
        } else {
            self.report(
                Problem::UnknownFunction,
                format!("Invalid function name; function: {name}"),
            );
        }
        None
    }

    fn misused(&mut self, name: &str) {
        self.report(
            Problem::MisusedFunction,
            format!("The function is not allowed to be used this way in an expression; function: {name}"),
        );
    }

    fn operand(&mut self, raw: &RawOperand) -> Operand {
        match raw {
            RawOperand::Parens(inner) => {
                self.check_parens(matches!(**inner, RawOperand::Parens(_)));
                self.operand(inner)
            }
            RawOperand::Value(name) => Operand::Value(self.value(name)),
            RawOperand::Path(path) => Operand::Path(self.path(path)),
            RawOperand::Call(name, args) => {
                let resolved: Vec<Operand> = args.iter().map(|a| self.operand(a)).collect();
                if self.known_condition_function(name).is_none() {
                    return Operand::Value(AttributeValue::Null);
                }
                if name != "size" {
                    self.misused(name);
                    return Operand::Value(AttributeValue::Null);
                }
                if resolved.len() != 1 {
                    self.operand_count(name, resolved.len());
                    return Operand::Value(AttributeValue::Null);
                }
                let arg = resolved
                    .into_iter()
                    .next()
                    .unwrap_or(Operand::Value(AttributeValue::Null));
                if let Operand::Value(v) = &arg {
                    if matches!(
                        v,
                        AttributeValue::N(_) | AttributeValue::Bool(_) | AttributeValue::Null
                    ) {
                        self.operand_type(name, v.type_code());
                    }
                }
                Operand::Size(Box::new(arg))
            }
            // Arithmetic only parses in update expressions.
            RawOperand::Plus(..) | RawOperand::Minus(..) => Operand::Value(AttributeValue::Null),
        }
    }
}

pub(crate) fn unparen(raw: &RawOperand) -> &RawOperand {
    match raw {
        RawOperand::Parens(inner) => unparen(inner),
        other => other,
    }
}

/// How AWS prints a constant inside BETWEEN messages: `{N:10}`, `{S:abc}`.
fn scalar_text(v: &AttributeValue) -> String {
    use base64::Engine as _;
    match v {
        AttributeValue::S(s) => s.clone(),
        AttributeValue::N(n) => n.to_string(),
        AttributeValue::B(b) => base64::engine::general_purpose::STANDARD.encode(b),
        AttributeValue::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}

/// AWS caps document paths at 32 levels.
const MAX_PATH_DEPTH: usize = 32;

/// AWS caps every expression string at 4 KB.
const MAX_EXPRESSION_BYTES: usize = 4096;

pub(crate) fn syntax<'a, T>(
    kind: ExpressionKind,
    mut p: Parser<'a>,
    rule: impl FnOnce(&mut Parser<'a>) -> Result<T, super::parser::SyntaxError>,
) -> Result<T, ExprError> {
    if p.is_empty() {
        return Err(ExprError::invalid(kind, "The expression can not be empty;"));
    }
    if p.source_len() > MAX_EXPRESSION_BYTES {
        return Err(ExprError::invalid(
            kind,
            format!(
                "Expression size has exceeded the maximum allowed size; expression size: {}",
                p.source_len()
            ),
        ));
    }
    rule(&mut p).map_err(|e| ExprError::invalid(kind, p.message(e)))
}

/// Parses a `ConditionExpression`.
pub fn parse_condition(expr: &str, ctx: &mut ExpressionContext) -> Result<Condition, ExprError> {
    condition(expr, ctx, ExpressionKind::Condition)
}

/// Parses a `FilterExpression` (same language, its own error prefix).
pub fn parse_filter(expr: &str, ctx: &mut ExpressionContext) -> Result<Condition, ExprError> {
    condition(expr, ctx, ExpressionKind::Filter)
}

fn condition(
    expr: &str,
    ctx: &mut ExpressionContext,
    kind: ExpressionKind,
) -> Result<Condition, ExprError> {
    let raw = syntax(kind, Parser::for_condition(expr), |p| p.condition())?;
    let mut resolver = Resolver::new(ctx, kind);
    let cond = resolver.cond(&raw);
    resolver.finish(cond)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn unused_placeholders_are_reported_after_all_expressions() {
        let names = HashMap::from([("#a".to_string(), "a".to_string())]);
        let values = HashMap::from([
            (":x".to_string(), AttributeValue::Null),
            (":y".to_string(), AttributeValue::Null),
        ]);
        let mut ctx = ExpressionContext::new(Some(names), Some(values)).unwrap();
        parse_condition("#a = :x", &mut ctx).unwrap();
        assert_eq!(
            ctx.check_all_used().unwrap_err().message,
            "Value provided in ExpressionAttributeValues unused in expressions: keys: {:y}"
        );
        parse_condition("attribute_exists(#a) OR #a = :y", &mut ctx).unwrap();
        assert!(ctx.check_all_used().is_ok());
    }
}
