//! Update expressions: `SET`, `REMOVE`, `ADD`, `DELETE` clauses, their validation and
//! their atomic application to an item.

use super::context::ExpressionContext;
use super::error::{ExprError, ExpressionKind};
use super::parser::{Clause, Parser, RawAction, RawOperand};
use super::path::{check_overlap, DocumentPath};
use super::resolve::{self, condition_arity, update_arity, Problem, Resolver};
use crate::value::{AttributeValue, Item};

#[derive(Clone, Debug, PartialEq)]
pub enum SetOperand {
    Path(DocumentPath),
    Value(AttributeValue),
    IfNotExists(DocumentPath, Box<SetOperand>),
    ListAppend(Box<SetOperand>, Box<SetOperand>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum SetValue {
    Operand(SetOperand),
    Plus(SetOperand, SetOperand),
    Minus(SetOperand, SetOperand),
}

#[derive(Clone, Debug, PartialEq)]
pub enum UpdateAction {
    Set(DocumentPath, SetValue),
    Remove(DocumentPath),
    Add(DocumentPath, AttributeValue),
    Delete(DocumentPath, AttributeValue),
}

impl UpdateAction {
    pub fn path(&self) -> &DocumentPath {
        match self {
            UpdateAction::Set(p, _)
            | UpdateAction::Remove(p)
            | UpdateAction::Add(p, _)
            | UpdateAction::Delete(p, _) => p,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct UpdateExpression {
    pub actions: Vec<UpdateAction>,
}

const MISSING: &str =
    "The provided expression refers to an attribute that does not exist in the item";
const WRONG_TYPE: &str = "An operand in the update expression has an incorrect data type";
const BAD_PATH: &str = "The document path provided in the update expression is invalid for update";

pub fn parse_update(
    expr: &str,
    ctx: &mut ExpressionContext,
) -> Result<UpdateExpression, ExprError> {
    let kind = ExpressionKind::Update;
    let clauses = resolve::syntax(kind, Parser::for_update(expr), |p| p.update())?;
    let mut r = Resolver::new(ctx, kind);
    let mut seen: Vec<Clause> = Vec::new();
    let mut actions = Vec::new();
    for (clause, raw_actions) in &clauses {
        if seen.contains(clause) {
            r.report(
                Problem::Section,
                format!(
                    "The \"{}\" section can only be used once in an update expression;",
                    clause.keyword()
                ),
            );
        }
        seen.push(*clause);
        actions.extend(raw_actions.iter().map(|a| action(&mut r, a)));
    }
    let paths: Vec<DocumentPath> = actions.iter().map(|a| a.path().clone()).collect();
    if let Err(message) = check_overlap(&paths) {
        r.report(Problem::Overlap, message);
    }
    r.finish(UpdateExpression { actions })
}

fn action(r: &mut Resolver<'_>, raw: &RawAction) -> UpdateAction {
    match raw {
        RawAction::Set(path, value) => {
            let path = r.path(path);
            UpdateAction::Set(path, set_value(r, value))
        }
        RawAction::Remove(path) => UpdateAction::Remove(r.path(path)),
        RawAction::Add(path, placeholder) => {
            let path = r.path(path);
            let value = r.value(placeholder);
            check_clause_type(r, "ADD", &value);
            UpdateAction::Add(path, value)
        }
        RawAction::Delete(path, placeholder) => {
            let path = r.path(path);
            let value = r.value(placeholder);
            check_clause_type(r, "DELETE", &value);
            UpdateAction::Delete(path, value)
        }
    }
}

/// ADD takes numbers and sets, DELETE only sets; AWS names the type in words here.
fn check_clause_type(r: &mut Resolver<'_>, clause: &str, value: &AttributeValue) {
    let word = match value {
        AttributeValue::S(_) => "STRING",
        AttributeValue::N(_) if clause == "ADD" => return,
        AttributeValue::N(_) => "NUMBER",
        AttributeValue::B(_) => "BINARY",
        AttributeValue::Null => "NULL",
        AttributeValue::Bool(_) => "BOOLEAN",
        AttributeValue::L(_) => "LIST",
        AttributeValue::M(_) => "MAP",
        AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) => return,
    };
    r.report(
        Problem::Types,
        format!("Incorrect operand type for operator or function; operator: {clause}, operand type: {word}"),
    );
}

fn set_value(r: &mut Resolver<'_>, raw: &RawOperand) -> SetValue {
    match raw {
        RawOperand::Plus(a, b) | RawOperand::Minus(a, b) => {
            let symbol = if matches!(raw, RawOperand::Plus(..)) {
                "+"
            } else {
                "-"
            };
            let (x, y) = (set_operand(r, a), set_operand(r, b));
            for operand in [&x, &y] {
                if let Some(code) = known_type(operand).filter(|c| *c != "N") {
                    r.operand_type(symbol, code);
                }
            }
            if symbol == "+" {
                SetValue::Plus(x, y)
            } else {
                SetValue::Minus(x, y)
            }
        }
        other => SetValue::Operand(set_operand(r, other)),
    }
}

/// The type an operand has whatever the item holds, if that is known at parse time.
fn known_type(op: &SetOperand) -> Option<&'static str> {
    match op {
        SetOperand::Value(v) => Some(v.type_code()),
        SetOperand::IfNotExists(_, default) => known_type(default),
        SetOperand::ListAppend(..) => Some("L"),
        SetOperand::Path(_) => None,
    }
}

fn set_operand(r: &mut Resolver<'_>, raw: &RawOperand) -> SetOperand {
    let dummy = SetOperand::Value(AttributeValue::Null);
    match raw {
        RawOperand::Parens(inner) => set_operand(r, inner),
        RawOperand::Value(name) => SetOperand::Value(r.value(name)),
        RawOperand::Path(path) => SetOperand::Path(r.path(path)),
        RawOperand::Call(name, args) => {
            let mut resolved: Vec<SetOperand> = args.iter().map(|a| set_operand(r, a)).collect();
            let Some(arity) = update_arity(name) else {
                if condition_arity(name).is_some() {
                    r.report(
                        Problem::MisusedFunction,
                        format!(
                            "The function is not allowed in an update expression; function: {name}"
                        ),
                    );
                } else {
                    r.report(
                        Problem::UnknownFunction,
                        format!("Invalid function name; function: {name}"),
                    );
                }
                return dummy;
            };
            if resolved.len() != arity {
                r.operand_count(name, resolved.len());
                return dummy;
            }
            let second = resolved
                .pop()
                .unwrap_or(SetOperand::Value(AttributeValue::Null));
            let first = resolved
                .pop()
                .unwrap_or(SetOperand::Value(AttributeValue::Null));
            if name == "if_not_exists" {
                let SetOperand::Path(path) = first else {
                    r.requires_path(name);
                    return dummy;
                };
                return SetOperand::IfNotExists(path, Box::new(second));
            }
            for operand in [&first, &second] {
                if let Some(code) = known_type(operand).filter(|c| *c != "L") {
                    r.operand_type(name, code);
                }
            }
            SetOperand::ListAppend(Box::new(first), Box::new(second))
        }
        RawOperand::Plus(..) | RawOperand::Minus(..) => dummy,
    }
}

impl UpdateExpression {
    /// Applies every action, or none: SET values are computed from the item as it was
    /// before the update, list elements are removed by their original positions.
    pub fn apply(&self, item: &mut Item) -> Result<(), ExprError> {
        let mut work = item.clone();
        let mut assignments = Vec::new();
        for action in &self.actions {
            if let UpdateAction::Set(path, value) = action {
                assignments.push((path, evaluate_set(value, item)?));
            }
        }
        for (path, value) in assignments {
            path.set(&mut work, value)
                .map_err(|_| ExprError::new(BAD_PATH))?;
        }
        let mut removals: Vec<&DocumentPath> = self
            .actions
            .iter()
            .filter_map(|a| match a {
                UpdateAction::Remove(p) => Some(p),
                _ => None,
            })
            .collect();
        removals.sort_by(|a, b| b.0.cmp(&a.0));
        for path in removals {
            path.remove(&mut work)
                .map_err(|_| ExprError::new(BAD_PATH))?;
        }
        for action in &self.actions {
            match action {
                UpdateAction::Add(path, value) => add(&mut work, path, value)?,
                UpdateAction::Delete(path, value) => delete(&mut work, path, value)?,
                _ => {}
            }
        }
        *item = work;
        Ok(())
    }

    /// The document paths the update writes or removes, in expression order. They
    /// never overlap, so `Projection { paths }` of the old and new item gives
    /// `ReturnValues` `UPDATED_OLD` / `UPDATED_NEW`.
    pub fn target_paths(&self) -> Vec<DocumentPath> {
        self.actions.iter().map(|a| a.path().clone()).collect()
    }

    /// Top-level attribute names the update writes, to protect key attributes.
    pub fn top_level_attributes(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for action in &self.actions {
            let name = action.path().top_level().to_string();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }
}

fn evaluate_set(value: &SetValue, item: &Item) -> Result<AttributeValue, ExprError> {
    let arithmetic =
        |a: &SetOperand, b: &SetOperand, plus: bool| match (evaluate(a, item)?, evaluate(b, item)?)
        {
            (AttributeValue::N(x), AttributeValue::N(y)) => {
                let result = if plus {
                    x.checked_add(&y)
                } else {
                    x.checked_sub(&y)
                };
                result
                    .map(AttributeValue::N)
                    .map_err(|e| ExprError::new(e.to_string()))
            }
            _ => Err(ExprError::new(WRONG_TYPE)),
        };
    match value {
        SetValue::Operand(op) => evaluate(op, item),
        SetValue::Plus(a, b) => arithmetic(a, b, true),
        SetValue::Minus(a, b) => arithmetic(a, b, false),
    }
}

fn evaluate(op: &SetOperand, item: &Item) -> Result<AttributeValue, ExprError> {
    match op {
        SetOperand::Path(path) => path
            .get(item)
            .cloned()
            .ok_or_else(|| ExprError::new(MISSING)),
        SetOperand::Value(v) => Ok(v.clone()),
        SetOperand::IfNotExists(path, default) => match path.get(item) {
            Some(v) => Ok(v.clone()),
            None => evaluate(default, item),
        },
        SetOperand::ListAppend(a, b) => match (evaluate(a, item)?, evaluate(b, item)?) {
            (AttributeValue::L(mut x), AttributeValue::L(y)) => {
                x.extend(y);
                Ok(AttributeValue::L(x))
            }
            _ => Err(ExprError::new(WRONG_TYPE)),
        },
    }
}

fn add(item: &mut Item, path: &DocumentPath, value: &AttributeValue) -> Result<(), ExprError> {
    use AttributeValue::*;
    let result = match (path.get(item), value) {
        (None, _) if !path.parent_is_valid(item) => return Err(ExprError::new(BAD_PATH)),
        (None, v) => v.clone(),
        (Some(N(x)), N(y)) => N(x
            .checked_add(y)
            .map_err(|e| ExprError::new(e.to_string()))?),
        (Some(Ss(x)), Ss(y)) => Ss(union(x, y)),
        (Some(Ns(x)), Ns(y)) => Ns(union(x, y)),
        (Some(Bs(x)), Bs(y)) => Bs(union(x, y)),
        _ => return Err(ExprError::new(WRONG_TYPE)),
    };
    path.set(item, result).map_err(|_| ExprError::new(BAD_PATH))
}

fn delete(item: &mut Item, path: &DocumentPath, value: &AttributeValue) -> Result<(), ExprError> {
    use AttributeValue::*;
    let remaining = match (path.get(item), value) {
        (None, _) if !path.parent_is_valid(item) => return Err(ExprError::new(BAD_PATH)),
        (None, _) => return Ok(()),
        (Some(Ss(x)), Ss(y)) => difference(x, y).map(Ss),
        (Some(Ns(x)), Ns(y)) => difference(x, y).map(Ns),
        (Some(Bs(x)), Bs(y)) => difference(x, y).map(Bs),
        _ => return Err(ExprError::new(WRONG_TYPE)),
    };
    // Sets cannot be empty, so deleting the last member removes the attribute.
    let outcome = match remaining {
        Some(set) => path.set(item, set),
        None => path.remove(item),
    };
    outcome.map_err(|_| ExprError::new(BAD_PATH))
}

fn union<T: Clone + PartialEq>(a: &[T], b: &[T]) -> Vec<T> {
    let mut out = a.to_vec();
    for member in b {
        if !out.contains(member) {
            out.push(member.clone());
        }
    }
    out
}

fn difference<T: Clone + PartialEq>(a: &[T], b: &[T]) -> Option<Vec<T>> {
    let out: Vec<T> = a.iter().filter(|m| !b.contains(m)).cloned().collect();
    (!out.is_empty()).then_some(out)
}
