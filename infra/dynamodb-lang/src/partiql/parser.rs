//! A recursive-descent parser of DynamoDB's PartiQL statements. `?`
//! parameters are replaced by the request's `Parameters` in order as they are
//! read, so the trees it builds hold values only.

use super::lexer::{tokenize, Tok, Token};
use super::statement::{
    is_set, not_well_formed, Delete, Insert, OrderBy, Returning, Select, Statement, Update,
};
use crate::expr::{
    check_overlap, Comparator, Condition, DocumentPath, ExprError, Operand, PathElement,
    SetOperand, SetValue, UpdateAction,
};
use crate::number::Number;
use crate::value::{AttributeValue, Item, TYPE_CODES};

/// How deep parentheses, NOTs, functions and literals may nest: deeper
/// statements are refused rather than risking the stack.
const MAX_DEPTH: usize = 64;

const CONDITION_FUNCTIONS: [&str; 5] = [
    "begins_with",
    "contains",
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
];

/// Parses one statement with its parameters (`?` in order).
pub fn parse_statement(text: &str, parameters: &[AttributeValue]) -> Result<Statement, ExprError> {
    let tokens = tokenize(text).map_err(not_well_formed)?;
    let mut parser = Parser {
        tokens,
        pos: 0,
        parameters,
        used: 0,
        depth: 0,
    };
    let statement = parser.statement()?;
    parser.eat(&Tok::Semicolon);
    if parser.peek() != &Tok::End {
        return Err(parser.unexpected());
    }
    if parser.used != parameters.len() {
        return Err(parameter_count());
    }
    Ok(statement)
}

fn parameter_count() -> ExprError {
    ExprError::new("Number of parameters in request and statement don't match.")
}

struct Parser<'a> {
    tokens: Vec<Token>,
    pos: usize,
    parameters: &'a [AttributeValue],
    used: usize,
    depth: usize,
}

type Parsed<T> = Result<T, ExprError>;

impl Parser<'_> {
    /// The token at `pos`; past the end, the final `End`.
    fn token(&self, pos: usize) -> &Token {
        &self.tokens[pos.min(self.tokens.len() - 1)]
    }

    fn peek(&self) -> &Tok {
        &self.token(self.pos).tok
    }

    fn peek_second(&self) -> &Tok {
        &self.token(self.pos + 1).tok
    }

    /// The current token, moving past it (a caller may step back with `pos -= 1`).
    fn advance(&mut self) -> Tok {
        let tok = self.peek().clone();
        self.pos += 1;
        tok
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        let found = self.peek() == tok;
        if found {
            self.advance();
        }
        found
    }

    fn eat_keyword(&mut self, keyword: &str) -> bool {
        let found = self.peek().is_keyword(keyword);
        if found {
            self.advance();
        }
        found
    }

    fn expect(&mut self, tok: &Tok) -> Parsed<()> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn expect_keyword(&mut self, keyword: &str) -> Parsed<()> {
        if self.eat_keyword(keyword) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn unexpected(&self) -> ExprError {
        let token = self.token(self.pos);
        match &token.tok {
            Tok::End => not_well_formed("unexpected end of statement"),
            tok => not_well_formed(format!(
                "unexpected {} at offset {}",
                describe(tok),
                token.offset
            )),
        }
    }

    /// Runs `parse` one level deeper.
    fn nested<T>(&mut self, parse: impl FnOnce(&mut Self) -> Parsed<T>) -> Parsed<T> {
        if self.depth >= MAX_DEPTH {
            return Err(not_well_formed(format!(
                "nested deeper than {MAX_DEPTH} levels"
            )));
        }
        self.depth += 1;
        let parsed = parse(self);
        self.depth -= 1;
        parsed
    }

    fn statement(&mut self) -> Parsed<Statement> {
        if self.eat_keyword("SELECT") {
            return Ok(Statement::Select(self.select()?));
        }
        if self.eat_keyword("INSERT") {
            return Ok(Statement::Insert(self.insert()?));
        }
        if self.eat_keyword("UPDATE") {
            return Ok(Statement::Update(self.update()?));
        }
        if self.eat_keyword("DELETE") {
            return Ok(Statement::Delete(self.delete()?));
        }
        if self.eat_keyword("EXISTS") {
            self.expect(&Tok::LParen)?;
            self.expect_keyword("SELECT")?;
            let select = self.select()?;
            self.expect(&Tok::RParen)?;
            return Ok(Statement::Exists(select));
        }
        Err(self.unexpected())
    }

    /// After SELECT: projection, FROM, WHERE and ORDER BY.
    fn select(&mut self) -> Parsed<Select> {
        let projection = if self.eat(&Tok::Star) {
            None
        } else {
            let mut paths = vec![self.path()?];
            while self.eat(&Tok::Comma) {
                paths.push(self.path()?);
            }
            check_projection(&paths)?;
            Some(paths)
        };
        self.expect_keyword("FROM")?;
        let table = self.name()?;
        let index = if self.eat(&Tok::Dot) {
            Some(self.name()?)
        } else {
            None
        };
        let filter = self.where_clause()?;
        let mut order_by = Vec::new();
        if self.eat_keyword("ORDER") {
            self.expect_keyword("BY")?;
            loop {
                let path = self.path()?;
                let descending = self.eat_keyword("DESC");
                if !descending {
                    self.eat_keyword("ASC");
                }
                order_by.push(OrderBy { path, descending });
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        Ok(Select {
            table,
            index,
            projection,
            filter,
            order_by,
        })
    }

    /// After INSERT: `INTO table VALUE {...}`.
    fn insert(&mut self) -> Parsed<Insert> {
        self.expect_keyword("INTO")?;
        let table = self.name()?;
        self.expect_keyword("VALUE")?;
        if self.peek() != &Tok::LBrace {
            return Err(ExprError::new(
                "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.",
            ));
        }
        self.advance();
        let item = self.map()?;
        Ok(Insert { table, item })
    }

    /// After UPDATE: `table (SET path = value | REMOVE path)... WHERE ... [RETURNING ...]`.
    fn update(&mut self) -> Parsed<Update> {
        let table = self.name()?;
        let mut actions = Vec::new();
        loop {
            if self.eat_keyword("SET") {
                actions.push(self.assignment()?);
                while self.eat(&Tok::Comma) {
                    actions.push(self.assignment()?);
                }
            } else if self.eat_keyword("REMOVE") {
                actions.push(UpdateAction::Remove(self.path()?));
                while self.eat(&Tok::Comma) {
                    actions.push(UpdateAction::Remove(self.path()?));
                }
            } else {
                break;
            }
        }
        if actions.is_empty() {
            return Err(self.unexpected());
        }
        let paths: Vec<DocumentPath> = actions.iter().map(|a| a.path().clone()).collect();
        check_overlap(&paths).map_err(ExprError::new)?;
        let filter = self.where_clause()?;
        let returning = self.returning()?;
        Ok(Update {
            table,
            actions,
            filter,
            returning,
        })
    }

    /// After DELETE: `FROM table WHERE ... [RETURNING ALL OLD *]`.
    fn delete(&mut self) -> Parsed<Delete> {
        self.expect_keyword("FROM")?;
        let table = self.name()?;
        let filter = self.where_clause()?;
        let returning = self.returning()?;
        Ok(Delete {
            table,
            filter,
            returning,
        })
    }

    fn where_clause(&mut self) -> Parsed<Option<Condition>> {
        if self.eat_keyword("WHERE") {
            Ok(Some(self.or()?))
        } else {
            Ok(None)
        }
    }

    fn returning(&mut self) -> Parsed<Returning> {
        if !self.eat_keyword("RETURNING") {
            return Ok(Returning::None);
        }
        let all = if self.eat_keyword("ALL") {
            true
        } else {
            self.expect_keyword("MODIFIED")?;
            false
        };
        let old = if self.eat_keyword("OLD") {
            true
        } else {
            self.expect_keyword("NEW")?;
            false
        };
        self.expect(&Tok::Star)?;
        Ok(match (all, old) {
            (true, true) => Returning::AllOld,
            (false, true) => Returning::ModifiedOld,
            (true, false) => Returning::AllNew,
            (false, false) => Returning::ModifiedNew,
        })
    }

    /// `path = value`, where value may be `a + b`, `a - b`, `list_append(..)`,
    /// `if_not_exists(..)`, or `set_add(path, set)` / `set_delete(path, set)`
    /// of the same path (DynamoDB's ADD and DELETE).
    fn assignment(&mut self) -> Parsed<UpdateAction> {
        let target = self.path()?;
        self.expect(&Tok::Eq)?;
        for (function, add) in [("set_add", true), ("set_delete", false)] {
            if self.peek().is_keyword(function) && self.peek_second() == &Tok::LParen {
                return self.set_function(target, function, add);
            }
        }
        let first = self.set_operand()?;
        let plus = match self.peek() {
            Tok::Plus => true,
            Tok::Minus => false,
            _ => return Ok(UpdateAction::Set(target, SetValue::Operand(first))),
        };
        self.advance();
        let second = self.set_operand()?;
        for operand in [&first, &second] {
            if let SetOperand::Value(v) = operand {
                if !matches!(v, AttributeValue::N(_)) {
                    return Err(ExprError::new(format!(
                        "Incorrect operand type for operator or function; operator or function: {}, operand type: {}",
                        if plus { "+" } else { "-" },
                        v.type_code()
                    )));
                }
            }
        }
        Ok(UpdateAction::Set(
            target,
            if plus {
                SetValue::Plus(first, second)
            } else {
                SetValue::Minus(first, second)
            },
        ))
    }

    /// `set_add(target, set)` or `set_delete(target, set)`.
    fn set_function(
        &mut self,
        target: DocumentPath,
        function: &str,
        add: bool,
    ) -> Parsed<UpdateAction> {
        self.advance();
        self.expect(&Tok::LParen)?;
        let of = self.path()?;
        self.expect(&Tok::Comma)?;
        let value = self.value()?;
        self.expect(&Tok::RParen)?;
        if of != target {
            return Err(ExprError::new(format!(
                "Unsupported: {} must name the attribute it assigns to",
                function.to_uppercase()
            )));
        }
        if !is_set(&value) {
            return Err(ExprError::new(format!(
                "The second argument to {} must be a value with type SET",
                function.to_uppercase()
            )));
        }
        Ok(if add {
            UpdateAction::Add(target, value)
        } else {
            UpdateAction::Delete(target, value)
        })
    }

    fn set_operand(&mut self) -> Parsed<SetOperand> {
        let function = match self.peek() {
            Tok::Word(w) if self.peek_second() == &Tok::LParen => w.to_ascii_lowercase(),
            Tok::Word(w) if is_value_keyword(w) => return Ok(SetOperand::Value(self.value()?)),
            Tok::Word(_) | Tok::Quoted(_) => return Ok(SetOperand::Path(self.path()?)),
            _ => return Ok(SetOperand::Value(self.value()?)),
        };
        self.advance();
        self.advance();
        let operand = match function.as_str() {
            "list_append" => {
                let first = self.nested(Self::set_operand)?;
                self.expect(&Tok::Comma)?;
                let second = self.nested(Self::set_operand)?;
                SetOperand::ListAppend(Box::new(first), Box::new(second))
            }
            "if_not_exists" => {
                let path = self.path()?;
                self.expect(&Tok::Comma)?;
                SetOperand::IfNotExists(path, Box::new(self.nested(Self::set_operand)?))
            }
            other => return Err(unrecognized_function(other)),
        };
        self.expect(&Tok::RParen)?;
        Ok(operand)
    }

    fn or(&mut self) -> Parsed<Condition> {
        let mut left = self.and()?;
        while self.eat_keyword("OR") {
            left = Condition::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Parsed<Condition> {
        let mut left = self.not()?;
        while self.eat_keyword("AND") {
            left = Condition::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Parsed<Condition> {
        if self.eat_keyword("NOT") {
            return Ok(Condition::Not(Box::new(self.nested(Self::not)?)));
        }
        self.predicate()
    }

    fn predicate(&mut self) -> Parsed<Condition> {
        if self.eat(&Tok::LParen) {
            let inner = self.nested(Self::or)?;
            self.expect(&Tok::RParen)?;
            return Ok(inner);
        }
        if let Tok::Word(w) = self.peek() {
            let name = w.to_ascii_lowercase();
            if self.peek_second() == &Tok::LParen && CONDITION_FUNCTIONS.contains(&name.as_str()) {
                return self.condition_function(&name);
            }
        }
        let left = self.operand()?;
        self.comparison(left)
    }

    /// What follows an operand: a comparison, BETWEEN, IN, IS [NOT] MISSING
    /// or IS [NOT] NULL.
    fn comparison(&mut self, left: Operand) -> Parsed<Condition> {
        let comparator = match self.peek() {
            Tok::Eq => Some(Comparator::Eq),
            Tok::Ne => Some(Comparator::Ne),
            Tok::Lt => Some(Comparator::Lt),
            Tok::Le => Some(Comparator::Le),
            Tok::Gt => Some(Comparator::Gt),
            Tok::Ge => Some(Comparator::Ge),
            _ => None,
        };
        if let Some(comparator) = comparator {
            self.advance();
            return Ok(Condition::Compare(left, comparator, self.operand()?));
        }
        if self.eat_keyword("IS") {
            let negated = self.eat_keyword("NOT");
            let holds = if self.eat_keyword("MISSING") {
                let Operand::Path(path) = left else {
                    return Err(not_well_formed("IS MISSING needs a document path"));
                };
                Condition::AttributeNotExists(path)
            } else {
                // DynamoDB's IS NULL holds for a NULL value only, not for a
                // missing attribute (as DynamoDB Local answers).
                self.expect_keyword("NULL")?;
                Condition::AttributeType(left, Operand::Value(AttributeValue::S("NULL".into())))
            };
            return Ok(if negated {
                Condition::Not(Box::new(holds))
            } else {
                holds
            });
        }
        let negated = self.eat_keyword("NOT");
        let condition = if self.eat_keyword("BETWEEN") {
            let low = self.operand()?;
            self.expect_keyword("AND")?;
            Condition::Between(left, low, self.operand()?)
        } else if self.eat_keyword("IN") {
            Condition::In(left, self.in_list()?)
        } else {
            return Err(self.unexpected());
        };
        Ok(if negated {
            Condition::Not(Box::new(condition))
        } else {
            condition
        })
    }

    /// `[a, b]`, `(a, b)` or a `?` holding a list.
    fn in_list(&mut self) -> Parsed<Vec<Operand>> {
        let close = match self.advance() {
            Tok::LBracket => Tok::RBracket,
            Tok::LParen => Tok::RParen,
            Tok::Param => {
                return match self.parameter()? {
                    AttributeValue::L(values) => {
                        Ok(values.into_iter().map(Operand::Value).collect())
                    }
                    other => Ok(vec![Operand::Value(other)]),
                }
            }
            _ => {
                self.pos -= 1;
                return Err(self.unexpected());
            }
        };
        let mut operands = vec![self.operand()?];
        while self.eat(&Tok::Comma) {
            operands.push(self.operand()?);
        }
        self.expect(&close)?;
        Ok(operands)
    }

    fn condition_function(&mut self, name: &str) -> Parsed<Condition> {
        self.advance();
        self.advance();
        let condition = match name {
            "attribute_exists" => Condition::AttributeExists(self.path()?),
            "attribute_not_exists" => Condition::AttributeNotExists(self.path()?),
            _ => {
                let first = self.operand()?;
                self.expect(&Tok::Comma)?;
                let second = self.operand()?;
                match name {
                    "begins_with" => Condition::BeginsWith(first, second),
                    "contains" => Condition::Contains(first, second),
                    _ => {
                        check_type_code(&second)?;
                        Condition::AttributeType(first, second)
                    }
                }
            }
        };
        self.expect(&Tok::RParen)?;
        Ok(condition)
    }

    /// A path, a value, a `?` or `size(path)`.
    fn operand(&mut self) -> Parsed<Operand> {
        match self.peek() {
            Tok::Word(w) if self.peek_second() == &Tok::LParen => {
                let name = w.to_ascii_lowercase();
                if name != "size" {
                    return Err(unrecognized_function(&name));
                }
                self.advance();
                self.advance();
                let inner = self.nested(Self::operand)?;
                self.expect(&Tok::RParen)?;
                Ok(Operand::Size(Box::new(inner)))
            }
            Tok::Word(w) if is_value_keyword(w) => Ok(Operand::Value(self.value()?)),
            Tok::Word(_) | Tok::Quoted(_) => Ok(Operand::Path(self.path()?)),
            _ => Ok(Operand::Value(self.value()?)),
        }
    }

    /// A literal (string, number, TRUE/FALSE/NULL, list, map, set) or `?`.
    fn value(&mut self) -> Parsed<AttributeValue> {
        match self.advance() {
            Tok::Param => self.parameter(),
            Tok::Str(s) => Ok(AttributeValue::S(s)),
            Tok::Num(n) => number(&n),
            Tok::Minus => match self.advance() {
                Tok::Num(n) => number(&format!("-{n}")),
                _ => {
                    self.pos -= 1;
                    Err(self.unexpected())
                }
            },
            Tok::Word(w) if w.eq_ignore_ascii_case("TRUE") => Ok(AttributeValue::Bool(true)),
            Tok::Word(w) if w.eq_ignore_ascii_case("FALSE") => Ok(AttributeValue::Bool(false)),
            Tok::Word(w) if w.eq_ignore_ascii_case("NULL") => Ok(AttributeValue::Null),
            Tok::LBracket => Ok(AttributeValue::L(
                self.nested(|p| p.values_until(&Tok::RBracket))?,
            )),
            Tok::LBag => set(self.nested(|p| p.values_until(&Tok::RBag))?),
            Tok::LBrace => Ok(AttributeValue::M(self.nested(Self::map)?)),
            _ => {
                self.pos -= 1;
                Err(self.unexpected())
            }
        }
    }

    /// Comma-separated values up to `close` (which may come at once).
    fn values_until(&mut self, close: &Tok) -> Parsed<Vec<AttributeValue>> {
        let mut values = Vec::new();
        if self.eat(close) {
            return Ok(values);
        }
        loop {
            values.push(self.value()?);
            if self.eat(close) {
                return Ok(values);
            }
            self.expect(&Tok::Comma)?;
        }
    }

    /// After `{`: `'name': value, ...}`.
    fn map(&mut self) -> Parsed<Item> {
        let mut item = Item::new();
        if self.eat(&Tok::RBrace) {
            return Ok(item);
        }
        loop {
            let name = match self.advance() {
                Tok::Str(s) | Tok::Quoted(s) => s,
                _ => {
                    self.pos -= 1;
                    return Err(self.unexpected());
                }
            };
            self.expect(&Tok::Colon)?;
            let value = self.value()?;
            if item.insert(name.clone(), value).is_some() {
                return Err(ExprError::new(format!(
                    "Duplicate attribute name in the item: {name}"
                )));
            }
            if self.eat(&Tok::RBrace) {
                return Ok(item);
            }
            self.expect(&Tok::Comma)?;
        }
    }

    fn parameter(&mut self) -> Parsed<AttributeValue> {
        let value = self
            .parameters
            .get(self.used)
            .cloned()
            .ok_or_else(parameter_count)?;
        self.used += 1;
        Ok(value)
    }

    /// A table, index or attribute name: a bare word or a quoted identifier.
    fn name(&mut self) -> Parsed<String> {
        match self.advance() {
            Tok::Word(w) | Tok::Quoted(w) => Ok(w),
            _ => {
                self.pos -= 1;
                Err(self.unexpected())
            }
        }
    }

    /// `a`, `"a"`, then `.b`, `[0]` or `['b']` any number of times.
    fn path(&mut self) -> Parsed<DocumentPath> {
        let mut elements = vec![PathElement::Attribute(self.name()?)];
        loop {
            if self.eat(&Tok::Dot) {
                elements.push(PathElement::Attribute(self.name()?));
            } else if self.eat(&Tok::LBracket) {
                elements.push(match self.advance() {
                    Tok::Num(n) => PathElement::Index(
                        n.parse()
                            .map_err(|_| not_well_formed(format!("invalid list index {n}")))?,
                    ),
                    Tok::Str(s) => PathElement::Attribute(s),
                    _ => {
                        self.pos -= 1;
                        return Err(self.unexpected());
                    }
                });
                self.expect(&Tok::RBracket)?;
            } else {
                return Ok(DocumentPath(elements));
            }
        }
    }
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Word(w) => format!("'{w}'"),
        Tok::Quoted(q) => format!("\"{q}\""),
        Tok::Str(s) => format!("'{s}'"),
        Tok::Num(n) => n.clone(),
        other => format!("{other:?}"),
    }
}

fn is_value_keyword(word: &str) -> bool {
    ["TRUE", "FALSE", "NULL"]
        .iter()
        .any(|k| word.eq_ignore_ascii_case(k))
}

fn unrecognized_function(name: &str) -> ExprError {
    ExprError::new(format!("Unrecognized function: {name}"))
}

fn number(text: &str) -> Parsed<AttributeValue> {
    text.parse::<Number>()
        .map(AttributeValue::N)
        .map_err(|e| ExprError::new(e.to_string()))
}

/// `<<...>>`: members of one scalar type, no duplicates, at least one.
fn set(members: Vec<AttributeValue>) -> Parsed<AttributeValue> {
    let Some(code) = members.first().map(AttributeValue::type_code) else {
        return Err(ExprError::new("Set literals may not be empty"));
    };
    if !matches!(code, "S" | "N" | "B") || members.iter().any(|m| m.type_code() != code) {
        return Err(ExprError::new(
            "Set literals must hold members of one type: strings, numbers or binaries",
        ));
    }
    let members = members.into_iter();
    let set = match code {
        "S" => AttributeValue::Ss(
            members
                .filter_map(|m| {
                    if let AttributeValue::S(s) = m {
                        Some(s)
                    } else {
                        None
                    }
                })
                .collect(),
        ),
        "N" => AttributeValue::Ns(
            members
                .filter_map(|m| {
                    if let AttributeValue::N(n) = m {
                        Some(n)
                    } else {
                        None
                    }
                })
                .collect(),
        ),
        _ => AttributeValue::Bs(
            members
                .filter_map(|m| {
                    if let AttributeValue::B(b) = m {
                        Some(b)
                    } else {
                        None
                    }
                })
                .collect(),
        ),
    };
    if has_duplicate_member(&set) {
        return Err(ExprError::new(
            "One or more parameter values were invalid: Input collection contains duplicates.",
        ));
    }
    Ok(set)
}

fn has_duplicate_member(set: &AttributeValue) -> bool {
    fn any_repeat<T: PartialEq>(members: &[T]) -> bool {
        members
            .iter()
            .enumerate()
            .any(|(i, m)| members[..i].contains(m))
    }
    match set {
        AttributeValue::Ss(m) => any_repeat(m),
        AttributeValue::Ns(m) => any_repeat(m),
        AttributeValue::Bs(m) => any_repeat(m),
        _ => false,
    }
}

/// `attribute_type`'s second argument names one of the ten types.
fn check_type_code(operand: &Operand) -> Parsed<()> {
    match operand {
        Operand::Value(AttributeValue::S(code)) if TYPE_CODES.contains(&code.as_str()) => Ok(()),
        Operand::Value(AttributeValue::S(code)) => Err(ExprError::new(format!(
            "Invalid attribute type name found; type: {code}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"
        ))),
        _ => Err(ExprError::new(
            "Incorrect operand type for operator or function; operator or function: attribute_type",
        )),
    }
}

/// A projection list names no path twice and no overlapping paths.
fn check_projection(paths: &[DocumentPath]) -> Parsed<()> {
    for (i, path) in paths.iter().enumerate() {
        if paths[..i].contains(path) {
            return Err(ExprError::new(format!(
                "Duplicate identifiers in select clause: {}",
                super::statement::projected_name(path)
            )));
        }
    }
    check_overlap(paths).map_err(ExprError::new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partiql::project;

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    fn n(v: &str) -> AttributeValue {
        AttributeValue::N(v.parse().unwrap())
    }

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    fn select(text: &str, parameters: &[AttributeValue]) -> Select {
        match parse_statement(text, parameters).unwrap() {
            Statement::Select(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_where_clause_becomes_a_condition_that_decides_items() {
        let statement = select(
            r#"SELECT a.b[1], "x" FROM "t"."ix" WHERE pk = ? AND (x BETWEEN 1 AND 5 OR begins_with(s, 'ab'))
               AND NOT contains(l, 'z') AND y IS MISSING AND size(l) >= 1 AND s IN ['abc', 'q'] AND attribute_type(x, 'N')"#,
            &[s("k")],
        );
        assert_eq!(statement.table, "t");
        assert_eq!(statement.index.as_deref(), Some("ix"));
        let filter = statement.filter.unwrap();
        let matching = item(&[
            ("pk", s("k")),
            ("x", n("3")),
            ("s", s("abc")),
            ("l", AttributeValue::L(vec![s("a")])),
        ]);
        assert!(filter.evaluate(&matching).unwrap());
        for (attribute, value) in [
            ("pk", s("other")),
            ("x", s("3")),
            ("y", n("1")),
            ("l", AttributeValue::L(vec![s("z")])),
        ] {
            let mut changed = matching.clone();
            changed.insert(attribute.into(), value);
            assert!(!filter.evaluate(&changed).unwrap(), "{attribute}");
        }
        let nested = item(&[
            (
                "a",
                AttributeValue::M(item(&[("b", AttributeValue::L(vec![n("0"), n("1")]))])),
            ),
            ("x", n("3")),
        ]);
        assert_eq!(
            project(&statement.projection.unwrap(), &nested),
            item(&[("b[1]", n("1")), ("x", n("3"))])
        );
    }

    #[test]
    fn is_null_holds_for_a_null_value_and_is_missing_for_an_absent_attribute() {
        let holds =
            |text: &str, item: &Item| select(text, &[]).filter.unwrap().evaluate(item).unwrap();
        let null = item(&[("z", AttributeValue::Null)]);
        let empty = Item::new();
        assert!(holds("SELECT * FROM t WHERE z IS NULL", &null));
        assert!(!holds("SELECT * FROM t WHERE z IS NULL", &empty));
        assert!(holds("SELECT * FROM t WHERE z IS NOT NULL", &empty));
        assert!(holds("SELECT * FROM t WHERE z IS MISSING", &empty));
        assert!(!holds("SELECT * FROM t WHERE z IS MISSING", &null));
        assert!(holds("SELECT * FROM t WHERE z IS NOT MISSING", &null));
    }

    #[test]
    fn parameters_must_match_the_question_marks() {
        let mismatch = Err(parameter_count());
        assert_eq!(
            parse_statement("SELECT * FROM t WHERE a = ?", &[]),
            mismatch
        );
        assert_eq!(
            parse_statement("SELECT * FROM t WHERE a = ?", &[s("1"), s("2")]),
            mismatch
        );
        assert!(parse_statement(
            "SELECT * FROM t WHERE a IN ?",
            &[AttributeValue::L(vec![s("1")])]
        )
        .is_ok());
    }

    #[test]
    fn insert_reads_every_literal_type() {
        let Statement::Insert(insert) = parse_statement(
            "INSERT INTO t VALUE {'pk': 'a', 'n': -1.5e2, 'b': TRUE, 'z': null, 'l': [1, 'x'], 'm': {'k': <<'s', 't'>>}, 'ns': <<1, 2>>, 'p': ?}",
            &[AttributeValue::B(vec![1])],
        )
        .unwrap() else {
            panic!("not an insert")
        };
        assert_eq!(insert.item["n"], n("-150"));
        assert_eq!(insert.item["b"], AttributeValue::Bool(true));
        assert_eq!(insert.item["z"], AttributeValue::Null);
        assert_eq!(insert.item["l"], AttributeValue::L(vec![n("1"), s("x")]));
        assert_eq!(
            insert.item["m"],
            AttributeValue::M(item(&[(
                "k",
                AttributeValue::Ss(vec!["s".into(), "t".into()])
            )]))
        );
        assert_eq!(insert.item["p"], AttributeValue::B(vec![1]));
        assert!(parse_statement("INSERT INTO t VALUE {'a': <<1, 'x'>>}", &[]).is_err());
        assert!(parse_statement("INSERT INTO t VALUE {'a': <<1, 1>>}", &[]).is_err());
        assert!(parse_statement("INSERT INTO t VALUE {'a': 1, 'a': 2}", &[]).is_err());
        assert_eq!(
            parse_statement("INSERT INTO t VALUE ?", &[AttributeValue::M(Item::new())])
                .unwrap_err()
                .message,
            "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement."
        );
    }

    #[test]
    fn update_clauses_become_update_actions_that_apply() {
        let Statement::Update(update) = parse_statement(
            "UPDATE t SET c = c + 1, l = list_append(l, [2]) SET ss = set_add(ss, <<'b'>>) REMOVE gone WHERE pk = 'a' RETURNING MODIFIED NEW *",
            &[],
        )
        .unwrap() else {
            panic!("not an update")
        };
        assert_eq!(update.returning, Returning::ModifiedNew);
        let mut target = item(&[
            ("c", n("1")),
            ("l", AttributeValue::L(vec![n("1")])),
            ("ss", AttributeValue::Ss(vec!["a".into()])),
            ("gone", n("0")),
        ]);
        crate::UpdateExpression {
            actions: update.actions,
        }
        .apply(&mut target)
        .unwrap();
        assert_eq!(
            target,
            item(&[
                ("c", n("2")),
                ("l", AttributeValue::L(vec![n("1"), n("2")])),
                ("ss", AttributeValue::Ss(vec!["a".into(), "b".into()])),
            ])
        );
        let err = |text: &str| parse_statement(text, &[]).unwrap_err().message;
        assert_eq!(
            err("UPDATE t SET x = 'str' + 1 WHERE pk = 'a'"),
            "Incorrect operand type for operator or function; operator or function: +, operand type: S"
        );
        assert_eq!(
            err("UPDATE t SET x = set_add(x, 5) WHERE pk = 'a'"),
            "The second argument to SET_ADD must be a value with type SET"
        );
        assert!(err("UPDATE t SET a = 1, a.b = 2 WHERE pk = 'a'").starts_with("Two document paths"));
    }

    #[test]
    fn a_malformed_statement_is_an_error_never_a_panic() {
        let valid = [
            "SELECT a.b[0], \"c\" FROM \"t\".\"i\" WHERE pk = ? AND x IN [1, 2] AND NOT y IS NOT MISSING ORDER BY sk DESC",
            "INSERT INTO t VALUE {'pk': 'a', 'm': {'l': [<<1>>, -2.5e3, ?]}}",
            "UPDATE t SET a = if_not_exists(a, 0) - 1 SET b = set_delete(b, <<'x'>>) REMOVE c[2] WHERE pk = ? RETURNING ALL OLD *",
            "DELETE FROM t WHERE pk = 'a' AND sk = 1 RETURNING ALL OLD *",
            "EXISTS(SELECT * FROM t WHERE pk = 'a' AND attribute_type(x, 'S'))",
        ];
        for statement in valid {
            let params = if statement.contains('?') {
                vec![s("p")]
            } else {
                Vec::new()
            };
            assert!(parse_statement(statement, &params).is_ok(), "{statement}");
            // Every prefix, and every statement with one character dropped.
            let chars: Vec<char> = statement.chars().collect();
            for cut in 0..chars.len() {
                let prefix: String = chars[..cut].iter().collect();
                let _ = parse_statement(&prefix, &params);
                let dropped: String = chars[..cut].iter().chain(&chars[cut + 1..]).collect();
                let _ = parse_statement(&dropped, &params);
            }
        }
        for garbage in [
            "",
            ";",
            "SELEC * FROM t",
            "SELECT * FROM",
            "SELECT * FROM t WHERE",
            "(((",
            "'",
            "\"",
            "<<>>",
            "[1e99999999]",
            "SELECT a[99999999999999999999] FROM t",
        ] {
            let err = parse_statement(garbage, &[]).unwrap_err();
            assert!(!err.message.is_empty(), "{garbage}");
        }
        let deep = format!("SELECT * FROM t WHERE {}a = 1", "(".repeat(5000));
        assert!(parse_statement(&deep, &[]).is_err());
        let deep = format!("INSERT INTO t VALUE {{'a': {}}}", "[".repeat(5000));
        assert!(parse_statement(&deep, &[]).is_err());
        let deep = format!("SELECT * FROM t WHERE {}a = 1", "NOT ".repeat(5000));
        assert!(parse_statement(&deep, &[]).is_err());
        assert_eq!(
            parse_statement("SELEC * FROM t", &[]).unwrap_err().message,
            "Statement wasn't well formed, can't be processed: unexpected 'SELEC' at offset 0"
        );
    }
}
